"""The test lanes. `slow` marks every test that runs the app (AppTest pages, a server spoken to over its
websocket): the quick lane, `pytest -m "not slow and not browser"`, keeps the core, the views and the UI
helpers. Single slow tests elsewhere carry `@pytest.mark.slow` themselves."""

import pytest

SLOW_FOLDERS = {"apptest", "protocol"}


def pytest_collection_modifyitems(items):
    for item in items:
        if SLOW_FOLDERS & set(item.path.parent.relative_to(item.config.rootpath).parts):
            item.add_marker(pytest.mark.slow)
