"""The live training run on the trained-models page: this session's owner token, the start button and the
run's progress, redrawn every second while a run goes on (its words come from
explorer.pure.views.trained_models)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import streamlit as st
from streamlit.runtime import Runtime

from explorer.app import heavy, live_budget
from explorer.app.run_share import SHARES
from explorer.app.place import say
from explorer.app.session import t
from explorer.pure.views import trained_models as view

OWNER = "trained_models.owner"  # this session's token: the live run it started is "your run"
WATCHING = "trained_models.watching"


def owner() -> str:
    return st.session_state.setdefault(OWNER, uuid.uuid4().hex)


def session_alive() -> Callable[[], bool] | None:
    """Whether this browser session is still connected, askable from any thread (None outside a server: AppTest)."""
    session = heavy.session_id()
    if not Runtime.exists():
        return None
    runtime = Runtime.instance()
    return lambda: runtime.is_active_session(session)


def start_button(task: str, encoding: str, train_len: int, seed: int) -> None:
    """The start button; a refused press says why (the run in progress and when it should end, or when this
    session, or the server, may start its next run). A run started counts live_budget.RUN_CPU_S seconds against
    this session's share of the server (explorer.app.run_share), and stops when the session goes."""
    if st.button(
        t("trained_models.start"), type="primary", key="trained_models.start_button", icon=":material/play_arrow:"
    ):
        started, snap = live_budget.start(live_budget.live_config(task, encoding, train_len, seed), owner(),
                                          alive=session_alive())
        if started:
            SHARES.add(heavy.session_id(), live_budget.RUN_CPU_S)
        else:
            st.warning(say(view.refusal(snap, time.time(), owner())), icon=":material/hourglass_empty:")


def status() -> None:
    """The run in progress (anyone's), redrawn every second; when it ends while only this part is redrawn, the
    whole page reruns once so that its results join the chart. A whole page's run already drew them: it reruns
    nothing (its press's answer would be lost)."""
    if live_budget.current() is None:
        st.session_state.pop(WATCHING, None)

    @st.fragment(run_every=1.0 if live_budget.current() else None)
    def live_status() -> None:
        snap = live_budget.current()
        if snap is None:
            if st.session_state.pop(WATCHING, False):
                st.rerun(scope="app")
            return
        st.session_state[WATCHING] = True
        shown = view.progress(snap, owner(), time.time())
        st.progress(snap["progress"], text=say(shown.text))
        if shown.note is not None:
            st.caption(say(shown.note))
        if snap["owner"] == owner() and st.button(
            t("trained_models.stop"), key="trained_models.stop_button", icon=":material/stop:"
        ):
            live_budget.stop(owner())

    live_status()
