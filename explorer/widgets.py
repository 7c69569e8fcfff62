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

from . import params, text
from .knobs import PAGE_KNOBS
from .safe_text import AppText
from .session import notice, t, take_notices

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
    widget's own value type, and accepted by its deserializer. A widget this session has not drawn yet
    has no metadata: its value type is the one its knob's widget sends (`value_field`), and a value
    for any other widget not drawn yet (a question, a button, or a key the app never uses) is dropped:
    the widget starts from its default, as on a first visit."""
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
    if metadata is None:
        return field == value_field(_user_key(state.id))  # the knob's draw() repairs the value it reads
    if metadata.value_type not in _PLAIN_FIELDS:
        return True
    if field != metadata.value_type:
        return False
    try:
        metadata.deserializer(unpack_widget_state_value(state))
    except Exception:  # noqa: BLE001 - any failure of Streamlit's deserializer means the value is unusable
        return False
    return True


def _user_key(widget_id: str) -> str:
    """The key a page gave a widget, from Streamlit's widget id ("$$ID-<hash>-<key>")."""
    return widget_id.split("-", 2)[-1]


def value_field(key: str) -> str | None:
    """The value field (Streamlit's value_type) the widget of knob `key` ("<page>.<name>") sends, or None
    when no knob has that key."""
    page, _, name = key.partition(".")
    spec = PAGE_KNOBS.get(page, {}).get(name)
    return None if spec is None else _VALUE_FIELDS.get(_kind(spec))


def _vetted_widget_states(set_widgets_from_proto):
    """SessionState.set_widgets_from_proto that first drops every widget value `_acceptable` refuses
    (Streamlit would raise on it in every later run of the session, before the page's code)."""
    def vetted(self, widget_states):
        known = self._new_widget_state.widget_metadata
        kept = [state for state in widget_states.widgets if _acceptable(state, known.get(state.id))]
        if len(kept) != len(widget_states.widgets):
            kept_ids = {id(state) for state in kept}
            refused = [state.id for state in widget_states.widgets if id(state) not in kept_ids]
            _refused.keys = getattr(_refused, "keys", set()) | {_user_key(i) for i in refused}
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


# The value field each kind of knob widget sends (Streamlit 1.67's value_type for it); "caption" is no widget.
_VALUE_FIELDS = {"slider": "double_array_value", "select_slider": "string_array_value", "selectbox": "string_value",
                 "radio": "string_value", "toggle": "bool_value", "text_area": "string_value",
                 "multiselect": "string_array_value"}


def _kind(spec: params.Knob) -> str:
    """The kind of widget that shows knob `spec`."""
    if isinstance(spec, (params.IntKnob, params.FloatKnob)):
        return "caption" if spec.lo == spec.hi else "slider"  # a one-value range needs no slider
    if isinstance(spec, params.NumberChoiceKnob):
        return "select_slider"
    if isinstance(spec, params.ChoiceKnob):
        return "selectbox" if spec.menu else "radio"
    if isinstance(spec, params.BoolKnob):
        return "toggle"
    if isinstance(spec, params.TextKnob):
        return "text_area"
    if isinstance(spec, params.IntSetKnob):
        return "multiselect"
    raise TypeError(f"no widget for {type(spec).__name__}")


def _widget(spec: params.Knob, label: str, key: str, help_text: str | None, where, format_func):
    common = dict(label=label, key=key, help=help_text)
    kind = _kind(spec)
    if kind == "caption":
        return where.caption(f"{label}: {spec.lo}")
    if kind == "slider" and isinstance(spec, params.IntKnob):
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


def _replaced(spec: params.Knob, value) -> None:
    """The notice that the link's or the client's value of knob `spec` was replaced by `value` (the knob's
    name is the app's own word, shown as written)."""
    notice(t("common.notice_replaced", name=AppText(spec.name), value=spec.dump(value)))


def draw(spec: params.Knob, key: str, label: str, *, help_text: str | None = None, where=None, format_func=None):
    """Draw the widget for `spec` under session key `key` and return its (always valid) value.

    The value comes from the session when the widget already exists, else from the URL's
    `spec.name` parameter; a value the spec rejects is replaced and a notice is shown.
    """
    where = where if where is not None else st
    too_long = _too_long(spec, st.session_state.get(key))
    if _refused_value(key):
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


def _too_long(spec: params.Knob, typed) -> int | None:
    """The length of the text typed or pasted into the box of text knob `spec` when it is longer than the
    knob takes, else None. The box itself has no limit (a browser would silently drop a paste that is
    too long), so the page can say what it refused and why."""
    if isinstance(spec, params.TextKnob) and isinstance(typed, str) and len(typed) > spec.max_length:
        return len(typed)
    return None


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
        notice_slot.warning(message, icon=":material/warning:")
    wanted = st.session_state.get(_URL, {})
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    base = st.context.url
    if base:
        with st.sidebar.expander(t("common.share"), icon=":material/link:"):
            st.caption(t("common.share_help"))
            st.code(f"{base}?{urlencode(wanted)}", language=None, wrap_lines=True)
