"""The test lanes. `slow` marks every test that runs the app (AppTest pages, a server spoken to over its
websocket): the quick lane, `pytest -m "not slow and not browser"`, keeps the core, the views and the UI
helpers. Single slow tests elsewhere carry `@pytest.mark.slow` themselves."""

import os
import tempfile

import pytest

from rope_viz import set_max_elements

# A session's share of the server (explorer.app.run_share) is off for the app the tests run: AppTest gives every
# run of this process one session id, and a test server's sessions do a minute's work in seconds on purpose.
# tests/ui/test_run_share.py checks the share itself.
os.environ.setdefault("ROPE_VIZ_SHARE_S", "0")
# torch.compile's kernels (tests/core/test_kernels.py) are compiled into a cache of this run's own, not the machine's
# shared /tmp/torchinductor_<user>: a kernel that another run left there (with the AVX2 paths forced, say) was
# loaded for this CPU's and gave wrong values, then aborted the process. Compiling afresh costs the suite ~20 s.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="torchinductor-tests-"))

SLOW_FOLDERS = {"apptest", "protocol"}


def pytest_collection_modifyitems(items):
    for item in items:
        if SLOW_FOLDERS & set(item.path.parent.relative_to(item.config.rootpath).parts):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def library_budget():
    """Every test starts under the library's default element budget (none): a test that ran the app in this
    process, which sets its server's budget, leaves nothing behind."""
    set_max_elements(None)
    yield
    set_max_elements(None)
