""""Try this" buttons: each sets some of a page's knobs to a telling case in one click.

A button's callback writes the knobs' session-state keys (`<page>.<name>`, as `explorer.widgets.knob`
keeps them) before the page runs again, so the widgets show the new values and the router writes them
into the URL like any other move: the case can be shared as a link.
"""

from __future__ import annotations

import streamlit as st

from .session import t


def _set(page: str, values: dict) -> None:
    for name, value in values.items():
        st.session_state[f"{page}.{name}"] = value


def try_buttons(page: str, cases: dict[str, dict]) -> None:
    """A row of small buttons after the label "Try this": case `name` is labelled by the text
    `<page>.try_<name>` and sets the knobs named in its dict (knob name -> value) when clicked."""
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.caption(t("tryit.label"), width="content")
        for name, values in cases.items():
            st.button(t(f"{page}.try_{name}"), key=f"{page}.try.{name}", on_click=_set, args=(page, dict(values)),
                      type="tertiary", icon=":material/science:")
