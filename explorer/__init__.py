"""The app's glue between the pages and the math core `rope_viz`.

- session: the compute device and its fallback, the language, notices; `t(key)` gives the text.
- knobs / params / widgets: each page's knobs declared once, drawn as widgets, kept in the URL.
- cache: the one caching policy: `cached` for data, `figure` for labelled figures (per language, keyed
  by the wrapper itself).
- charts: how figures from explorer.figures are placed on a page; presenter: the projector view (`explain`
  folds long text away there); quiz: the questions that end each topic page.
- pages: the page list; router: the app around the pages; views: what each page computes (pure).
- text/<lang>/<page>.toml: every string a visitor reads.
"""

from .cache import cached, figure
from .charts import chart, chart_beside, charts_side_by_side, offset_band, page_header, picked_cell, position_axes
from .knobs import format_base
from .presenter import explain
from .quiz import questions
from .router import enter
from .session import device, lang, notice, t
from .widgets import knob, set_knobs

__all__ = ["cached", "chart", "figure", "chart_beside", "charts_side_by_side", "device", "enter", "explain", "format_base",
           "knob", "lang", "notice", "offset_band", "page_header", "picked_cell", "position_axes", "questions",
           "set_knobs", "t"]
