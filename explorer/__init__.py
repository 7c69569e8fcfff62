"""The app's glue between the pages and the math core `rope_viz`.

- session: the compute device and its fallback, the language, notices; `t(key)` gives the text.
- knobs / params / widgets: each page's knobs declared once, drawn as widgets, kept in the URL.
- cache: the one caching policy: `cached` for data, `figure` for labelled figures (per language, keyed
  by the wrapper itself).
- charts: how figures from explorer.figures are placed on a page; presenter: the projector view (`explain`
  folds long text away there); quiz: the questions that end each topic page.
- components: points dragged on a chart set knobs (plain JavaScript in components/drag, no build step).
- pages: the page list; router: the app around the pages; views: what each page computes (pure).
- text/<lang>/<page>.toml: every string a visitor reads.
"""

from __future__ import annotations

import importlib

# name -> the module that defines it. Importing the package imports none of them (nor Streamlit): a
# module loads when a name of it is first read (`explorer.t`, `from explorer import knob`), so that
# `import explorer.params` stays light and no import takes the package's lock and a module's at once.
_EXPORTS = {
    "cache": ("cached", "figure"),
    "charts": ("chart", "chart_beside", "charts_side_by_side", "offset_band", "page_header", "picked_cell",
               "position_axes"),
    "knobs": ("format_base",),
    "presenter": ("explain",),
    "quiz": ("questions",),
    "router": ("enter",),
    "session": ("device", "lang", "notice", "plain", "t"),
    "widgets": ("knob", "set_knobs"),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_HOME)


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module 'explorer' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value
