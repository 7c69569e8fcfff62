""""Try this" buttons: each sets some of a page's knobs to a telling case in one click.

A button's callback sets the knobs (`explorer.app.widgets.set_knobs`) before the page runs again, so the
widgets show the new values and the router writes them into the URL like any other move: the case can
be shared as a link.
"""

from __future__ import annotations

import streamlit as st

from explorer.app.session import t
from explorer.app.widgets import set_knobs


def try_buttons(page: str, cases: dict[str, dict]) -> None:
    """A row of small buttons after the label "Try this": case `name` is labelled by the text
    `<page>.try_<name>` and sets the knobs named in its dict (knob name -> value) when clicked."""
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.caption(t("tryit.label"), width="content")
        for name, values in cases.items():
            st.button(t(f"{page}.try_{name}"), key=f"{page}.try.{name}", on_click=set_knobs, args=(page, dict(values)),
                      type="tertiary", icon=":material/science:")
