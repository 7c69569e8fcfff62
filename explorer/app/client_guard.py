"""The guard on what a client sends: every widget value is checked before Streamlit uses it.

Streamlit hands the widget values a browser sends to `SessionState.set_widgets_from_proto`, a private
method of Streamlit 1.67, before any of the page's code runs; a value of the wrong type, a huge array or
one its deserializer rejects would raise there in every later run of the session. `install()` wraps that
method once per process (the router calls it before the first page runs) so that such values are dropped
and the knob they were sent for shows its default with a notice (`refused(key)`). An upgrade of Streamlit
must check that the method still exists with this signature: tests/ui/test_widgets.py and the hostile
protocol tests fail if it does not.

It also refuses the client messages the app offers no control for: `clear_cache` (Streamlit's handler empties every
session's caches, so any one client could make every visitor's next view, and every real-model measurement, start
again from nothing) is dropped, with a line in the server's log.

And it reads each websocket at most `MESSAGE_RATE` messages a second after a burst of `MESSAGE_BURST` (a browser
sends a few: a knob moved, a heartbeat): a client that sends messages as fast as the socket takes them (thousands a
second, each parsed and each rerun starting a script thread) is read more slowly instead, and TCP holds back the
rest, so his flood no longer takes the server's cores from the other sessions (`ROPE_VIZ_SHARE_S=0` turns the
bound off, as it does the share of runs).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time

from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.state.common import is_array_value_field_name, unpack_widget_state_value
from streamlit.runtime.state.session_state import SessionState
from starlette.websockets import WebSocket

from explorer.app.run_share import share_s
from explorer.pure import knob_types
from explorer.pure.knobs import PAGE_KNOBS

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
    return None if spec is None else _VALUE_FIELDS.get(widget_kind(spec))


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


def _refuse_clear_cache(self) -> None:
    """AppSession's handler of a client's clear_cache message, replaced: nothing is cleared."""
    _LOG.warning("refused a clear_cache message from session %s: the app offers no such control", self.id)


_refuse_clear_cache.vetted = True  # type: ignore[attr-defined]
MESSAGE_RATE = 20.0   # messages a second one websocket is read at, past its burst
MESSAGE_BURST = 40.0  # messages read at once before the rate applies


def _paced_receive(receive):
    """WebSocket.receive_bytes that, past a burst of MESSAGE_BURST messages, returns at most MESSAGE_RATE a second
    on each socket (a token bucket): the next message waits, so the client's further frames wait in TCP."""
    async def paced(self):
        data = await receive(self)
        if share_s() <= 0:
            return data
        now = time.monotonic()
        tokens, then = self.__dict__.get("_paced_bucket", (MESSAGE_BURST, now))
        tokens = min(MESSAGE_BURST, tokens + (now - then) * MESSAGE_RATE) - 1.0
        self.__dict__["_paced_bucket"] = (max(tokens, 0.0), now - min(tokens, 0.0) / MESSAGE_RATE)
        if tokens < 0:
            await asyncio.sleep(-tokens / MESSAGE_RATE)
        return data
    paced.vetted = True
    return paced
_LOG = logging.getLogger(__name__)


def install() -> None:
    """Install the check on every widget value a client sends, the refusal of the messages the app offers no
    control for, and the bound on how fast a websocket is read (once per process)."""
    if not getattr(SessionState.set_widgets_from_proto, "vetted", False):
        SessionState.set_widgets_from_proto = _vetted_widget_states(SessionState.set_widgets_from_proto)
    AppSession._handle_clear_cache_request = _refuse_clear_cache  # type: ignore[method-assign]
    if not getattr(WebSocket.receive_bytes, "vetted", False):
        WebSocket.receive_bytes = _paced_receive(WebSocket.receive_bytes)  # type: ignore[method-assign]


def start_run() -> None:
    """A new run of this session's script: the values refused since the last run become this run's."""
    _refused.this_run, _refused.keys = getattr(_refused, "keys", set()), set()


def refused(key: str) -> bool:
    """Whether the value a client sent for widget `key` in this run was refused (see `_acceptable`)."""
    return key in getattr(_refused, "this_run", ())


# The value field each kind of knob widget sends (Streamlit 1.67's value_type for it); "caption" is no widget.
_VALUE_FIELDS = {"slider": "double_array_value", "select_slider": "string_array_value", "selectbox": "string_value",
                 "radio": "string_value", "toggle": "bool_value", "text_area": "string_value",
                 "multiselect": "string_array_value"}


def widget_kind(spec: knob_types.Knob) -> str:
    """The kind of widget that shows knob `spec`."""
    if isinstance(spec, (knob_types.IntKnob, knob_types.FloatKnob)):
        return "caption" if spec.lo == spec.hi else "slider"  # a one-value range needs no slider
    if isinstance(spec, knob_types.NumberChoiceKnob):
        return "select_slider"
    if isinstance(spec, knob_types.ChoiceKnob):
        return "selectbox" if spec.menu else "radio"
    if isinstance(spec, knob_types.BoolKnob):
        return "toggle"
    if isinstance(spec, knob_types.TextKnob):
        return "text_area"
    if isinstance(spec, knob_types.IntSetKnob):
        return "multiselect"
    raise TypeError(f"no widget for {type(spec).__name__}")
