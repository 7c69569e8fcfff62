"""Knobs whose state lives in the URL.

Each run: the router calls `begin_run()`, the page calls `knob(page, name)` for every control (the
spec comes from `explorer.pure.knobs`; the value from the session, else from the URL, validated and
repaired with a notice when needed), and the router calls `finish_run()`, which writes every knob
back into the query string so that the address bar always reproduces the view.
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

import streamlit as st

from explorer.pure import knob_types, text
from explorer.pure.knobs import PAGE_KNOBS
from explorer.pure.safe_text import AppText
from explorer.app import client_guard
from explorer.app.client_guard import widget_kind
from explorer.app.session import notice, t, take_notices

_URL = "_url_params"
def begin_run():
    """Reset the per-run URL registry; returns the slot where notices will be shown."""
    st.session_state[_URL] = {}
    client_guard.start_run()
    return st.container()


def _widget(spec: knob_types.Knob, label: str, key: str, help_text: str | None, where, format_func):
    common = dict(label=label, key=key, help=help_text)
    kind = widget_kind(spec)
    if kind == "caption":
        return where.caption(f"{label}: {spec.lo}")
    if kind == "slider" and isinstance(spec, knob_types.IntKnob):
        return where.slider(min_value=spec.lo, max_value=spec.hi, step=spec.step, **common)
    if kind == "slider":
        return where.slider(min_value=float(spec.lo), max_value=float(spec.hi),
                            step=10.0 ** -spec.digits if spec.digits else 1.0, **common)
    if kind == "select_slider":
        return where.select_slider(options=list(spec.options), format_func=format_func or (lambda v: f"{v:g}"),
                                   **common)
    if kind == "selectbox":
        return where.selectbox(options=list(spec.options), format_func=format_func or str, **common)
    if kind == "radio":
        return where.radio(options=list(spec.options), format_func=format_func or str, horizontal=True, **common)
    if kind == "toggle":
        return where.toggle(**common)
    if kind == "text_area":
        return where.text_area(**common)  # no max_chars: `draw` refuses a longer text with a notice
    return where.multiselect(options=list(range(spec.lo, spec.hi + 1)), max_selections=spec.most,
                             format_func=format_func or str, **common)


def _replaced(spec: knob_types.Knob, value) -> None:
    """The notice that the link's or the client's value of knob `spec` was replaced by `value` (the knob's
    name is the app's own word, shown as written)."""
    notice(t("common.notice_replaced", name=AppText(spec.name), value=spec.dump(value)))


def draw(spec: knob_types.Knob, key: str, label: str, *, help_text: str | None = None, where=None, format_func=None):
    """Draw the widget for `spec` under session key `key` and return its (always valid) value.

    The value comes from the session when the widget already exists, else from the URL's
    `spec.name` parameter; a value the spec rejects is replaced and a notice is shown.
    """
    where = where if where is not None else st
    too_long = _too_long(spec, st.session_state.get(key))
    if client_guard.refused(key):
        value = spec.coerce(spec.default)[0]
        _replaced(spec, value)
    elif key in st.session_state:
        value, _ = spec.coerce(st.session_state[key])
    else:
        raw = st.query_params.get(spec.name)
        value, replaced = (spec.coerce(spec.default)[0], False) if raw is None else spec.parse(raw)
        value = spec.coerce(value)[0]  # a default that falls outside a range the page narrowed is clamped too
        if replaced:
            _replaced(spec, value)
    if too_long is None:
        st.session_state[key] = value
    _widget(spec, label, key, help_text, where, format_func)
    if too_long is None:
        value = st.session_state[key]
    else:  # the text stays in its box to be cut down; the page goes on with the knob's default
        own = f"{spec.label}_too_long"  # a knob's own message where its text has one (not a config.json)
        said = own if own in text.STRINGS["en"] else "common.text_too_long"
        where.warning(t(said, size=too_long, limit=spec.max_length), icon=":material/block:")
    st.session_state.setdefault(_URL, {})[spec.name] = spec.dump(value)
    return value


def _too_long(spec: knob_types.Knob, typed) -> int | None:
    """The length of the text typed or pasted into the box of text knob `spec` when it is longer than the
    knob takes, else None. The box itself has no limit (a browser would silently drop a paste that is
    too long), so the page can say what it refused and why."""
    if isinstance(spec, knob_types.TextKnob) and isinstance(typed, str) and len(typed) > spec.max_length:
        return len(typed)
    return None


def knob(page: str, name: str, *, where=None, format_func=None, **narrowed):
    """The value of knob `name` declared for `page` in explorer.pure.knobs, drawn as its widget.

    `narrowed` replaces fields of the declaration for this run, for ranges that depend on another
    knob (e.g. hi=dim - 1): the declaration holds the widest range.
    """
    spec = PAGE_KNOBS[page][name]
    if narrowed:
        spec = replace(spec, **narrowed)
    return draw(spec, f"{page}.{name}", t(spec.label), help_text=t(spec.help) if spec.help else None,
                where=where, format_func=format_func)


def set_knobs(page: str, values: dict) -> None:
    """Give knobs of `page` new values (knob name -> value) from a callback, before the page runs again:
    the widgets show them, the next draw checks them against the knob's range, and the URL follows."""
    for name, value in values.items():
        st.session_state[f"{page}.{name}"] = value


def url_params() -> dict[str, str]:
    """The knobs drawn so far in this run, as the URL will carry them."""
    return dict(st.session_state.get(_URL, {}))


def finish_run(notice_slot) -> None:
    """Show queued notices, write every knob into the URL and offer the link to copy."""
    for message in take_notices():
        notice_slot.warning(message, icon=":material/warning:")
    wanted = st.session_state.get(_URL, {})
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    base = st.context.url
    if base:
        with st.sidebar.expander(t("common.share"), icon=":material/link:"):
            st.caption(t("common.share_help"))
            st.code(f"{base}?{urlencode(wanted)}", language=None, wrap_lines=True)
