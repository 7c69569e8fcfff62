"""Direct manipulation: move the thing itself on a chart, not a slider above it.

One small bidirectional Streamlit component, plain JavaScript shipped in `drag/` (index.html and drag.js: no
build step, nothing fetched from the network). It draws with SVG in its frame, moves a point under the mouse
or the arrow keys while its readout follows, and sends one value when a drag ends or a key is released:
{"knobs": {name: number}, "release": stamp}. `drag` hands those knobs to the page's knobs (`set_knobs`) in
the component's callback, before the page runs again, so the sliders (the accessible fallback), the charts
and the URL follow as after any other move. Without a browser (AppTest) the frame never runs: the page is
drawn from its knobs alone.
"""

from __future__ import annotations

import math
from pathlib import Path

import streamlit as st
from streamlit.components.v1 import declare_component

from explorer.app import presenter
from explorer.pure.figures.style import CONCEPTS, DRAG_COLOURS
from explorer.app.place import say
from explorer.pure.views.phrases import Phrase
from explorer.app.widgets import set_knobs

FOLDER = Path(__file__).resolve().parent / "drag"


def released_knobs(value, names) -> dict[str, float]:
    """The knob values in a value the frame sent, limited to the knobs `names` and to finite numbers: the
    client is not trusted, anything else in the value is ignored (the knob's range is checked when drawn)."""
    if not isinstance(value, dict) or not isinstance(value.get("knobs"), dict):
        return {}
    return {name: number for name, number in value["knobs"].items()
            if name in names and isinstance(number, int | float) and not isinstance(number, bool)
            and math.isfinite(number)}


def _said(texts: dict) -> dict:
    return {name: say(value) if isinstance(value, Phrase) else value for name, value in texts.items()}


def drag(page: str, args: dict, *, key: str = "drag") -> None:
    """Draw the drag component for `page` from a view's `args` (plain JSON but for Phrases in its "labels"
    and "aria", said here): args["kind"] ("plane" or "track", see drag.js), args["knobs"] (the knobs of
    `page` it may set) and args["height"] (the frame's height before it measures itself)."""
    knobs = tuple(args["knobs"])
    widget_key = f"{page}.{key}"

    def released() -> None:
        set_knobs(page, released_knobs(st.session_state.get(widget_key), knobs))

    shown = {**args, "labels": _said(args.get("labels", {})), "aria": _said(args.get("aria", {})),
             "concepts": CONCEPTS,  # colours by concept, as the page's charts (explorer.pure.figures.style)
             "colours": DRAG_COLOURS,  # the grid's, the axes', the text's: the charts' greys
             "present": presenter.on()}  # the presenter view's larger text
    component = declare_component("drag", path=str(FOLDER))  # registers with this run's runtime, cheap
    component(**shown, key=widget_key, on_change=released, default=None)
