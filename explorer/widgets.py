"""Knobs whose state lives in the URL.

Each run: the router calls `begin_run()`, the page calls `knob(page, name)` for every control (the
spec comes from `explorer.knobs`; the value from the session, else from the URL, validated and
repaired with a notice when needed), and the router calls `finish_run()`, which writes every knob
back into the query string so that the address bar always reproduces the view.
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from urllib.parse import urlencode

import streamlit as st
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.state.common import is_array_value_field_name, unpack_widget_state_value
from streamlit.runtime.state.session_state import SessionState

from . import params
from .knobs import PAGE_KNOBS
from .session import t, notice, take_notices

_URL = "_url_params"
# No widget of the app holds more than a handful of items (a multiselect keeps at most 8 of at most 128
# options, a slider 2 numbers): a longer array sent for a widget is refused before Streamlit's own
# deserializer sees it, which looks every item up among the options (items x options).
MAX_ARRAY_ITEMS = 256
# value fields whose deserializers are pure functions of the value, safe to try before the run
_PLAIN_FIELDS = frozenset({"bool_value", "int_value", "double_value", "string_value", "json_value",
                           "int_array_value", "double_array_value", "string_array_value"})
_refused = threading.local()  # the session-state keys whose sent value was refused, for this run's notices


def _acceptable(state, metadata) -> bool:
    """Whether a widget value a client sent can be given to Streamlit: bounded, parseable, of the
    widget's own value type, and accepted by its deserializer (when the widget is known)."""
    field = state.WhichOneof("value")
    if field is None:
        return True  # a cleared value: the widget's default
    if is_array_value_field_name(field) and len(getattr(state, field).data) > MAX_ARRAY_ITEMS:
        return False
    if field == "json_value":
        try:
            json.loads(state.json_value)
        except ValueError:
            return False
    if metadata is None or metadata.value_type not in _PLAIN_FIELDS:
        return True  # not drawn yet in this session: the knob's draw() repairs what it reads
    if field != metadata.value_type:
        return False
    try:
        metadata.deserializer(unpack_widget_state_value(state))
    except Exception:  # noqa: BLE001 - any failure of Streamlit's deserializer means the value is unusable
        return False
    return True


def _vetted_widget_states(set_widgets_from_proto):
    """SessionState.set_widgets_from_proto that first drops every widget value `_acceptable` refuses
    (Streamlit would raise on it in every later run of the session, before the page's code)."""
    def vetted(self, widget_states):
        known = self._new_widget_state.widget_metadata
        kept = [state for state in widget_states.widgets if _acceptable(state, known.get(state.id))]
        if len(kept) != len(widget_states.widgets):
            kept_ids = {id(state) for state in kept}
            refused = [state.id for state in widget_states.widgets if id(state) not in kept_ids]
            _refused.keys = getattr(_refused, "keys", set()) | {i.split("-", 2)[-1] for i in refused}
            widget_states = WidgetStates(widgets=kept)
        return set_widgets_from_proto(self, widget_states)
    vetted.vetted = True
    return vetted


def vet_widget_states() -> None:
    """Install the check on every widget value a client sends (once per process)."""
    if not getattr(SessionState.set_widgets_from_proto, "vetted", False):
        SessionState.set_widgets_from_proto = _vetted_widget_states(SessionState.set_widgets_from_proto)


def begin_run():
    """Reset the per-run URL registry; returns the slot where notices will be shown."""
    st.session_state[_URL] = {}
    _refused.this_run, _refused.keys = getattr(_refused, "keys", set()), set()
    return st.container()


def _refused_value(key: str) -> bool:
    """Whether the value a client sent for widget `key` in this run was refused (see `_acceptable`)."""
    return key in getattr(_refused, "this_run", ())


def _widget(spec: params.Knob, label: str, key: str, help_text: str | None, where, format_func):
    common = dict(label=label, key=key, help=help_text)
    if isinstance(spec, (params.IntKnob, params.FloatKnob)) and spec.lo == spec.hi:
        return where.caption(f"{label}: {spec.lo}")  # a one-value range needs no slider
    if isinstance(spec, params.IntKnob):
        return where.slider(min_value=spec.lo, max_value=spec.hi, step=spec.step, **common)
    if isinstance(spec, params.FloatKnob):
        return where.slider(min_value=float(spec.lo), max_value=float(spec.hi),
                            step=10.0 ** -spec.digits if spec.digits else 1.0, **common)
    if isinstance(spec, params.NumberChoiceKnob):
        return where.select_slider(options=list(spec.options), format_func=format_func or (lambda v: f"{v:g}"),
                                   **common)
    if isinstance(spec, params.ChoiceKnob) and spec.menu:
        return where.selectbox(options=list(spec.options), format_func=format_func or str, **common)
    if isinstance(spec, params.ChoiceKnob):
        return where.radio(options=list(spec.options), format_func=format_func or str, horizontal=True,
                           **common)
    if isinstance(spec, params.BoolKnob):
        return where.toggle(**common)
    if isinstance(spec, params.TextKnob):
        return where.text_area(max_chars=spec.max_length, **common)
    if isinstance(spec, params.IntSetKnob):
        return where.multiselect(options=list(range(spec.lo, spec.hi + 1)), max_selections=spec.most,
                                 format_func=format_func or str, **common)
    raise TypeError(f"no widget for {type(spec).__name__}")


def draw(spec: params.Knob, key: str, label: str, *, help_text: str | None = None, where=None, format_func=None):
    """Draw the widget for `spec` under session key `key` and return its (always valid) value.

    The value comes from the session when the widget already exists, else from the URL's
    `spec.name` parameter; a value the spec rejects is replaced and a notice is shown.
    """
    where = where if where is not None else st
    if _refused_value(key):
        value = spec.coerce(spec.default)[0]
        notice(t("common.notice_replaced", name=spec.name, value=spec.dump(value)))
    elif key in st.session_state:
        value, _ = spec.coerce(st.session_state[key])
    else:
        raw = st.query_params.get(spec.name)
        value, replaced = (spec.coerce(spec.default)[0], False) if raw is None else spec.parse(raw)
        value = spec.coerce(value)[0]  # a default that falls outside a range the page narrowed is clamped too
        if replaced:
            notice(t("common.notice_replaced", name=spec.name, value=spec.dump(value)))
    st.session_state[key] = value
    _widget(spec, label, key, help_text, where, format_func)
    value = st.session_state[key]
    st.session_state.setdefault(_URL, {})[spec.name] = spec.dump(value)
    return value


def knob(page: str, name: str, *, where=None, format_func=None, **narrowed):
    """The value of knob `name` declared for `page` in explorer.knobs, drawn as its widget.

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
        notice_slot.warning(message, icon="⚠️")
    wanted = st.session_state.get(_URL, {})
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    base = st.context.url
    if base:
        with st.sidebar.expander(t("common.share"), icon="🔗"):
            st.caption(t("common.share_help"))
            st.code(f"{base}?{urlencode(wanted)}", language=None, wrap_lines=True)
