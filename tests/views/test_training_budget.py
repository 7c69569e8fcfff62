"""The live training run as a budget of the whole server: one at a time, at most runs_per_hour() in any hour
(the visitor told when the next may start), its thread at the lowest OS priority, its memory handed back."""

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
    assert live_budget.wait(120)


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


def test_the_hours_runs_are_counted_in_a_sliding_window(monkeypatch, fresh_budget):
    monkeypatch.setenv(live_budget.RUNS_ENV, "2")
    now = time.time()
    live_budget._starts.extend([now - 3000, now - 600])  # two runs this hour: the cap is reached
    refused, why = live_budget.start(_tiny(), owner="me")
    assert not refused and why["refused"] == "hourly" and why["runs"] == 2
    assert why["next_slot"] == pytest.approx(now - 3000 + 3600)
    said = view.refusal(why, now)
    assert said.key == "trained_models.refused_hourly" and (said.args["minutes"], said.args["seconds"]) == (10, 0)
    live_budget._starts[0] = now - 3601  # the older run leaves the window: one slot frees
    started, snap = live_budget.start(_tiny(), owner="me")
    assert started and live_budget.wait(120)
    assert len(live_budget._starts) == 2 and live_budget._starts[-1] >= now
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
