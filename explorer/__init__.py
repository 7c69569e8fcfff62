"""The app's glue between the page scripts and the math core `rope_viz`, in two layers:

- explorer.pure: what the app computes, says and draws (page list, knobs, views, figures, text, exports),
  importable with no Streamlit, in a notebook or a test;
- explorer.app: what runs inside the Streamlit server (router, client guard, session, widgets, cache,
  panels, place, presenter view, quiz).

Page scripts import this package as `ui` for the few names every page uses (below), and their own panel
from explorer.app.panels.
"""

from __future__ import annotations

import importlib

# name -> the module that defines it. Importing the package imports none of them (nor Streamlit): a
# module loads when a name of it is first read (`explorer.t`, `from explorer import knob`), so that
# `import explorer.pure.knob_types` stays light and no import takes the package's lock and a module's at once.
_EXPORTS = {
    "app.cache": ("cached", "figure"),
    "app.place": ("chart", "chart_beside", "charts_side_by_side", "offset_band", "page_header", "picked_cell",
                  "position_axes"),
    "app.presenter": ("explain",),
    "app.quiz": ("questions",),
    "app.session": ("device", "lang", "notice", "plain", "t"),
    "app.widgets": ("knob", "set_knobs"),
    "pure.knobs": ("format_base",),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_HOME)


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module 'explorer' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value
