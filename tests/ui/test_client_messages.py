"""Client messages the app offers no control for are refused: a forged clear_cache empties no cache."""

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
