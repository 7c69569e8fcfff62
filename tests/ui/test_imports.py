"""Importing the app's modules starts nothing: no module patches Streamlit or tunes the allocator at
import (the router does that when it first runs), and the modules a notebook or a test reads without a
server (everything in explorer.pure: knobs, views, figures, text, exports) do not even load
Streamlit. Each case runs in a fresh
interpreter, since a module is imported once per process."""

import json
import subprocess
import sys
import textwrap

import pytest

from support.server import ROOT

pytestmark = pytest.mark.slow  # each case imports torch and Streamlit in a fresh interpreter (~10 s here)

PROBE = textwrap.dedent("""
    import importlib, json, pkgutil, sys
    import explorer, explorer.pure
    light = [m.name for m in pkgutil.walk_packages(explorer.pure.__path__, "explorer.pure.")]
    for name in light:
        importlib.import_module(name)
    streamlit_after_light = "streamlit" in sys.modules
    every = [m.name for m in pkgutil.walk_packages(explorer.__path__, "explorer.")]
    for name in every:
        importlib.import_module(name)
    from streamlit.runtime.state.session_state import SessionState
    import explorer.app.router
    print(json.dumps({"light": light, "every": every, "streamlit_after_light": streamlit_after_light,
                      "vetted": getattr(SessionState.set_widgets_from_proto, "vetted", False),
                      "hooks": explorer.app.router._hooks_installed}))
""")


def test_importing_every_explorer_module_starts_nothing():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert "explorer.app.router" in report["every"] and "explorer.pure.views.precision" in report["light"]
    assert report["streamlit_after_light"] is False
    assert report["vetted"] is False and report["hooks"] is False


def test_the_router_installs_its_hooks_once():
    probe = textwrap.dedent("""
        from streamlit.runtime.state.session_state import SessionState
        from explorer.app import router
        router.install_hooks()
        first = SessionState.set_widgets_from_proto
        router.install_hooks()
        print(getattr(first, "vetted", False), SessionState.set_widgets_from_proto is first)
    """)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
