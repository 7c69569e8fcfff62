"""Client messages the app offers no control for are refused (a forged clear_cache empties no cache), and a client
that floods its websocket is read at a bounded rate."""

import pytest
import streamlit as st
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.runtime.app_session import AppSession

from explorer.app import client_guard


class _Session(AppSession):
    """An AppSession without a runtime: only Streamlit's dispatch of a client's message runs."""

    def __init__(self):  # noqa: D107 - nothing of a real session is needed
        self.id = "forged"

    def __del__(self):
        pass


def test_a_clear_cache_message_from_a_client_clears_nothing():
    computed = []

    @st.cache_data
    def square(x: int) -> int:
        computed.append(x)
        return x * x

    assert square(3) == 9
    client_guard.install()
    _Session().handle_backmsg(BackMsg(clear_cache=True))
    assert square(3) == 9
    assert computed == [3]


class _Socket:
    """A websocket whose client has a message ready at every read."""

    async def receive_bytes(self):
        return b"frame"


def _finished(coroutine):
    """The value of a coroutine that never suspends (every await here returns at once), run without an event loop
    (a test before may have left one running in this thread)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise AssertionError("the coroutine suspended")


def test_a_flooding_socket_is_read_at_the_rate_after_its_burst(monkeypatch):
    clock = [0.0]
    slept = []

    async def sleep(seconds):
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(client_guard.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(client_guard.asyncio, "sleep", sleep)
    monkeypatch.setenv("ROPE_VIZ_SHARE_S", "30")
    receive = client_guard._paced_receive(_Socket.receive_bytes)
    socket = _Socket()

    def read(count: int) -> float:
        before = clock[0]
        for _ in range(count):
            assert _finished(receive(socket)) == b"frame"
        return clock[0] - before

    burst, rate = int(client_guard.MESSAGE_BURST), client_guard.MESSAGE_RATE
    assert read(burst) == 0.0  # a browser's few messages are never held
    assert read(100) == pytest.approx(100 / rate)  # then one message per 1/rate seconds
    clock[0] += 10.0  # a quiet spell refills the burst, no further
    assert read(burst) == 0.0 and read(1) == pytest.approx(1 / rate)
    monkeypatch.setenv("ROPE_VIZ_SHARE_S", "0")  # the bound is off with the share
    assert read(500) == 0.0


def test_install_bounds_every_websocket_once():
    from starlette.websockets import WebSocket
    client_guard.install()
    paced = WebSocket.receive_bytes
    client_guard.install()
    assert getattr(paced, "vetted", False) and WebSocket.receive_bytes is paced
