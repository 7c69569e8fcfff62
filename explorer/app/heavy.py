"""A page's heavy call, through the server's one queue (explorer.app.job_queue), with its place shown.

`run(kind, key, fn)` returns at once when the job's result is kept; otherwise the session queues it (at most one
waiting job per session: a rerun with other knobs replaces it) and, while it waits, a line where the section will be
says how many jobs of other visitors are ahead and about how long it will take, updated twice a second; where that
is not known (no estimate, or a job past its estimate) it says how long it has waited so far instead. A visitor who
changes a knob or leaves interrupts the wait (Streamlit stops the script at its next call), and the job is dropped
unless another session waits on it too; a running one is stopped at its next checkpoint once his next run asks for
another request (another text), and goes on if it asks for the same one."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer.app.job_queue import QUEUE
from explorer.app.session import t
from explorer.pure.timing import REPEAT, TimedOn, timed_on
from explorer.pure.views.phrases import Phrase, phrase

T = TypeVar("T")
QUIET_S = 0.3   # a job done within this shows no line at all
UPDATE_S = 0.5  # how often the line is redrawn
_waited = threading.local()  # seconds this script thread spent waiting on the queue since `waited()` last read


def waited() -> float:
    """The seconds this script run has waited on the queue so far (the queue charges its jobs itself, so the run's
    own share leaves them out), read and reset."""
    seconds, _waited.seconds = getattr(_waited, "seconds", 0.0), 0.0
    return seconds


LINES = ("_running", "_running_unknown", "_waiting", "_waiting_unknown")


def waiting_line(place, waited_s: float, lines: str = "common.queue") -> tuple[str, dict]:
    """(text key, its values) of the waiting line: the place and the expected wait, or, where the wait is not known,
    the seconds waited so far (a wait never counts down past what is known)."""
    state = ("_running" if place.ahead == 0 else "_waiting") + ("_unknown" if place.wait_s is None else "")
    wait = "" if place.wait_s is None else f"{max(1, round(place.wait_s)):,}"
    return lines + state, {"ahead": place.ahead, "wait": wait, "waited": f"{round(waited_s):,}"}


def session_id() -> str:
    """This browser session's id (the queue's unit of fairness)."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "script"


def cached(key: Hashable, request: Hashable) -> tuple[bool, Any]:
    """(True, result) when the job `key` has run and its result is kept, else (False, None); this session asks for
    `request`, so a job it left running for another request is no longer its (JobQueue.asked)."""
    QUEUE.asked(session_id(), request)
    return QUEUE.cached(key)


def run(kind: str, key: Hashable, fn: Callable[[], T], *, what: str, request: Hashable = None,
        guess_s: float | None = None, group: str | None = None, lines: str = "common.queue") -> T:
    """fn's result, computed once in the queue for every session that asks for `key`. what: the section's name, as
    the waiting line says it; request: what the job is part of (a text), whose later jobs keep the session's place
    (the key itself by default); guess_s, group: its cost as measured on this host (JobQueue.submit); lines: the
    text keys of the waiting line (LINES after this prefix)."""
    request = key if request is None else request
    hit, value = cached(key, request)
    if hit:
        return value
    session = session_id()
    job = QUEUE.submit(session, key, kind, fn, request=request, guess_s=guess_s, group=group)
    line = st.empty()
    began = time.monotonic()
    try:
        done = job.done.wait(QUIET_S)
        while not done:
            key_, values = waiting_line(QUEUE.place(job, session), time.monotonic() - began, lines)
            line.info(t(key_, what=what, **values), icon=":material/hourglass_top:")
            done = job.done.wait(UPDATE_S)
    except BaseException:  # the script was stopped or rerun: this session no longer waits
        QUEUE.leave(session)
        raise
    finally:
        _waited.seconds = getattr(_waited, "seconds", 0.0) + time.monotonic() - began
    line.empty()
    return QUEUE.wait(job)


def timing(key: Hashable, fn: Callable[[], T], *, device: str, what: str, repeat: int = REPEAT) -> tuple[T, TimedOn]:
    """A timing of a page (fn measures something on `device`) as a job of the queue: one timing at a time on the
    server, so no other job skews its clock and its tensors are held by one job only; with it, where it ran (read
    in the job's own thread). Its result is kept in the queue's cache like any other job's."""
    return run("timing", ("timing", *key) if isinstance(key, tuple) else ("timing", key),
               lambda: (fn(), timed_on(device, repeat)), what=what)


def timed_on_note(on: TimedOn) -> Phrase:
    """The sentence under a timing: what it ran on and how it was measured."""
    return phrase("common.timed_on", device=on.device, capability=on.capability, threads=on.threads,
                  repeat=on.repeat)
