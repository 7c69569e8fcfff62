"""The live training run as a budget of the whole server: one at a time, at most runs_per_hour() in any hour and
session_runs() of them per session (the visitor told when the next may start), stopped by its owner or when its
session has gone, its thread at the lowest OS priority, its memory handed back."""

import os
import threading
import time
from collections import deque

import pytest

from explorer.app import live_budget
from explorer.pure.views import trained_models as view


@pytest.fixture
def fresh_budget(monkeypatch):
    """An empty hour and an empty list of finished runs, kept from the rest of the test run."""
    monkeypatch.setattr(live_budget, "_finished", deque(maxlen=live_budget.KEEP))
    monkeypatch.setattr(live_budget, "_starts", deque())
    monkeypatch.delenv(live_budget.SESSION_ENV, raising=False)
    monkeypatch.delenv(live_budget.RUNS_ENV, raising=False)
    assert live_budget.wait(120)


class FakeClock:
    """The budget's clock, moved by hand."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch, fresh_budget):
    fake = FakeClock()
    monkeypatch.setattr(live_budget, "_clock", fake)
    return fake


def _tiny():
    return live_budget.live_config("offset", "nope", 16, 1, steps=3, eval_sequences=2)


def test_the_default_cap_keeps_live_runs_under_a_tenth_of_one_core(monkeypatch):
    monkeypatch.delenv(live_budget.RUNS_ENV, raising=False)
    cap = live_budget.runs_per_hour()
    assert cap == 19 and cap * live_budget.RUN_CPU_S <= 0.1 * 3600 < (cap + 1) * live_budget.RUN_CPU_S
    for bad in ("-1", "many", "1.5", ""):
        monkeypatch.setenv(live_budget.RUNS_ENV, bad)
        with pytest.raises(ValueError, match=live_budget.RUNS_ENV):
            live_budget.runs_per_hour()


def test_the_hours_runs_are_counted_in_a_sliding_window(monkeypatch, clock):
    monkeypatch.setenv(live_budget.RUNS_ENV, "2")
    now = clock.now
    live_budget._starts.extend([(now - 3000, "a"), (now - 600, "b")])  # two runs this hour: the cap is reached
    refused, why = live_budget.start(_tiny(), owner="me")
    assert not refused and why["refused"] == "hourly" and why["runs"] == 2
    assert why["next_slot"] == pytest.approx(now - 3000 + 3600)
    said = view.refusal(why, now)
    assert said.key == "trained_models.refused_hourly" and (said.args["minutes"], said.args["seconds"]) == (10, 0)
    clock.now = now + 601  # the older run leaves the window: one slot frees
    started, snap = live_budget.start(_tiny(), owner="me")
    assert started and live_budget.wait(120)
    assert len(live_budget._starts) == 2 and live_budget._starts[-1] == (now + 601, "me")
    assert live_budget.finished()[0]["id"] == snap["id"]
    monkeypatch.setenv(live_budget.RUNS_ENV, "0")  # a server that trains nothing live
    refused, why = live_budget.start(_tiny(), owner="me")
    assert not refused and why["refused"] == "hourly" and why["runs"] == 0


def test_a_run_in_progress_is_said_busy(fresh_budget):
    slow = live_budget.live_config("offset", "alibi", 16, 3, steps=100_000, eval_sequences=2)
    started, first = live_budget.start(slow, owner="first")
    try:
        refused, why = live_budget.start(_tiny(), owner="second")
        assert started and not refused and why["refused"] == "busy" and why["id"] == first["id"]
        assert view.refusal(why, time.time()).key == "trained_models.refused"
    finally:
        live_budget.stop("first")
        assert live_budget.wait(120)
    assert len(live_budget._starts) == 1  # a refused press uses no slot


def test_a_press_during_the_sessions_own_run_starts_nothing_and_says_so(fresh_budget):
    slow = live_budget.live_config("offset", "alibi", 16, 3, steps=100_000, eval_sequences=2)
    started, first = live_budget.start(slow, owner="me")
    try:
        for _ in range(5):
            again, why = live_budget.start(_tiny(), owner="me")
            assert not again and why["refused"] == "busy" and why["id"] == first["id"]
        said = view.refusal(why, time.time(), "me")
        assert said.key == "trained_models.refused_mine" and said.args["steps"] == 100_000
        assert view.refusal(why, time.time(), "someone else").key == "trained_models.refused"
    finally:
        assert live_budget.stop("me")
        assert live_budget.wait(120)
    assert started and len(live_budget._starts) == 1


def test_a_session_starts_at_most_its_share_of_the_hour(monkeypatch, clock):
    """Three runs an hour for one session, whatever the server has left; the refusal says when its oldest run
    leaves the hour; another session still starts its own."""
    monkeypatch.setattr(live_budget, "_train", lambda run: _finish_now(run))
    assert live_budget.session_runs() == 3 < live_budget.runs_per_hour()
    starts = []
    for minute in range(3):
        clock.now += 60 * minute
        started, _ = live_budget.start(_tiny(), owner="me")
        starts.append(clock.now)
        assert started and live_budget.wait(5)
    clock.now += 60
    refused, why = live_budget.start(_tiny(), owner="me")
    assert not refused and why == {"refused": "session", "runs": 3, "next_slot": starts[0] + 3600}
    said = view.refusal(why, clock.now)
    waited = starts[0] + 3600 - clock.now
    assert said.key == "trained_models.refused_session"
    assert (said.args["minutes"], said.args["seconds"], said.args["runs"]) == (waited // 60, waited % 60, 3)
    other, _ = live_budget.start(_tiny(), owner="someone else")
    assert other and live_budget.wait(5)
    clock.now = starts[0] + 3600  # the session's first run leaves the hour
    again, _ = live_budget.start(_tiny(), owner="me")
    assert again and live_budget.wait(5)
    monkeypatch.setenv(live_budget.SESSION_ENV, "0")
    assert live_budget.start(_tiny(), owner="new")[1]["refused"] == "session"


def _finish_now(run):
    """A stand-in training thread: the run ends at once."""
    with live_budget._lock:
        live_budget._finished.append(run)
        live_budget._current = None


def test_the_owners_stop_and_a_session_gone_end_the_run(fresh_budget, monkeypatch):
    monkeypatch.setattr(live_budget, "ALIVE_EVERY_S", 0.0)
    slow = live_budget.live_config("offset", "alibi", 16, 3, steps=100_000, eval_sequences=2)
    assert live_budget.start(slow, owner="me")[0]
    assert not live_budget.stop("someone else")
    assert live_budget.stop("me")
    assert live_budget.wait(120)
    stopped = live_budget.finished()[0]
    assert stopped["state"] == "stopped" and stopped["doc"]["runs"][0]["stopped_at"] < 100_000
    there = threading.Event()
    there.set()
    started, gone = live_budget.start(slow, owner="gone", alive=there.is_set)
    time.sleep(0.3)
    assert started and live_budget.current()["id"] == gone["id"] and live_budget.current()["state"] == "training"
    there.clear()  # the session closed: nobody stops the run by hand
    assert live_budget.wait(120)  # of 100,000 steps: it ended because its session went
    assert [run["id"] for run in live_budget.finished()] == [stopped["id"]]  # unevaluated, not kept


def _nice_of(tid: int) -> int:
    """A thread's nice value as the kernel reports it (field 19 of /proc/self/task/<tid>/stat)."""
    with open(f"/proc/self/task/{tid}/stat", encoding="ascii") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[16])


def test_the_training_thread_alone_runs_at_the_lowest_priority():
    main_before = _nice_of(threading.get_native_id())
    seen = {}

    def body():
        seen["applied"] = live_budget._lower_priority()
        seen["nice"] = _nice_of(threading.get_native_id())

    worker = threading.Thread(target=body)
    worker.start()
    worker.join()
    assert seen == {"applied": True, "nice": live_budget.NICE}
    assert _nice_of(threading.get_native_id()) == main_before == os.getpriority(os.PRIO_PROCESS, 0)


def test_the_training_thread_trims_memory_when_it_ends(monkeypatch, fresh_budget):
    trims = []
    monkeypatch.setattr(live_budget, "trim", lambda: trims.append(live_budget.current()) or True)
    started, snap = live_budget.start(_tiny(), owner="me")
    assert started and live_budget.wait(120)
    assert len(trims) == 1 and trims[0]["id"] == snap["id"]  # trimmed once, as the run ended
