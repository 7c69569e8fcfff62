"""The server's one queue of heavy jobs (explorer.app.job_queue): first come first served, one waiting job per
session, one run for a job many sessions ask for, a dropped job when its session leaves, and a bounded share. Jobs
here block on events the test sets, so the order is the test's, never the clock's."""

import threading

import pytest

from explorer.app import heavy
from explorer.app.job_queue import JobQueue, Place, Superseded


def make(queue_log: list, name: str, opened: threading.Event | None = None):
    """A job that waits for `opened` (when given), then records its name in queue_log and returns it."""
    def job():
        if opened is not None:
            assert opened.wait(10)
        queue_log.append(name)
        return name
    return job


@pytest.fixture
def queue():
    return JobQueue()


def test_first_come_first_served_with_places(queue):
    log, hold = [], threading.Event()
    running = queue.submit("a", "A", "k", make(log, "A", hold))
    waiting = [queue.submit(s, s.upper(), "k", make(log, s.upper())) for s in "bcd"]
    assert [queue.place(job, s).ahead for job, s in zip(waiting, "bcd")] == [1, 2, 3]
    assert queue.place(running, "a").ahead == 0
    hold.set()
    assert [queue.wait(job, 10) for job in waiting] == ["B", "C", "D"]
    assert log == ["A", "B", "C", "D"]


def test_a_session_keeps_one_waiting_job_the_newest(queue):
    log, hold = [], threading.Event()
    queue.submit("a", "A", "k", make(log, "A", hold))
    old = queue.submit("b", "B1", "k", make(log, "B1"))
    new = queue.submit("b", "B2", "k", make(log, "B2"))
    assert queue.waiting() == 2  # the running job and b's newest
    hold.set()
    assert queue.wait(new, 10) == "B2"
    assert "B1" not in log and not old.done.is_set()


def test_the_same_key_runs_once_for_many_sessions_and_is_kept(queue):
    log, hold = [], threading.Event()
    queue.submit("x", "first", "k", make(log, "first", hold))
    jobs = [queue.submit(s, "same", "k", make(log, "same")) for s in ("a", "b", "c")]
    assert len({id(job) for job in jobs}) == 1
    hold.set()
    assert queue.wait(jobs[0], 10) == "same"
    assert log.count("same") == 1
    assert queue.cached("same") == (True, "same")
    later = queue.submit("d", "same", "k", make(log, "same"))
    assert later.done.is_set() and queue.wait(later) == "same" and log.count("same") == 1


def test_a_session_that_leaves_drops_its_waiting_job_unless_shared(queue):
    log, hold = [], threading.Event()
    queue.submit("x", "first", "k", make(log, "first", hold))
    queue.submit("a", "alone", "k", make(log, "alone"))
    shared = queue.submit("b", "shared", "k", make(log, "shared"))
    queue.submit("c", "shared", "k", make(log, "shared"))
    queue.leave("a")
    queue.leave("b")
    hold.set()
    assert queue.wait(shared, 10) == "shared"
    assert log == ["first", "shared"]


def test_a_session_over_its_share_waits_behind_the_others():
    queue = JobQueue(share_s=0.0)  # any time used puts a session over its share
    log, hold = [], threading.Event()
    queue.wait(queue.submit("greedy", "g0", "k", make(log, "g0")), 10)  # greedy has used its share
    queue.submit("x", "first", "k", make(log, "first", hold))
    greedy = queue.submit("greedy", "g1", "k", make(log, "g1"))
    polite = queue.submit("polite", "p1", "k", make(log, "p1"))
    assert queue.place(polite, "polite").ahead == 1 < queue.place(greedy, "greedy").ahead
    hold.set()
    queue.wait(greedy, 10)
    assert log == ["g0", "first", "p1", "g1"]


def test_an_error_reaches_every_waiting_session_and_is_not_kept(queue):
    def broken():
        raise ValueError("bad text")
    jobs = [queue.submit(s, "broken", "k", broken) for s in ("a", "b")]
    for job in jobs:
        with pytest.raises(ValueError, match="bad text"):
            queue.wait(job, 10)
    assert queue.cached("broken") == (False, None)


def test_the_wait_is_estimated_from_the_costs_of_each_kind(queue):
    log, hold = [], threading.Event()
    queue.submit("x", "first", "slow", make(log, "first", hold), guess_s=100.0)
    later = queue.submit("a", "later", "slow", make(log, "later"), guess_s=100.0)
    assert queue.place(later, "a").wait_s == pytest.approx(2 * queue.expected("slow", 100.0), rel=0.5)
    hold.set()
    queue.wait(later, 10)


def test_a_session_keeps_its_place_for_its_request_and_loses_it_with_a_new_one(queue):
    log, hold, second = [], threading.Event(), threading.Event()
    queue.submit("x", "X", "k", make(log, "X", hold))
    a1 = queue.submit("a", "a1", "k", make(log, "a1", second), request="text a")
    b1 = queue.submit("b", "b1", "k", make(log, "b1"), request="text b")
    hold.set()
    while a1.started is None:  # X done; a1 runs (it waits for `second`)
        threading.Event().wait(0.01)
    a2 = queue.submit("a", "a2", "k", make(log, "a2"), request="text a")  # the page's next section
    assert queue.place(a2, "a").ahead == 0 < queue.place(b1, "b").ahead  # a1 is a's own: not a place ahead
    second.set()
    queue.wait(b1, 10)
    assert log == ["X", "a1", "a2", "b1"]
    assert queue.wait(a1, 10) == "a1" and queue.wait(a2, 10) == "a2"
    log.clear()
    hold2 = threading.Event()
    queue.submit("x", "X2", "k", make(log, "X2", hold2))
    queue.submit("b", "b2", "k", make(log, "b2"), request="text b")
    a3 = queue.submit("a", "a3", "k", make(log, "a3"), request="another text")  # a new text: the back
    hold2.set()
    queue.wait(a3, 10)
    assert log == ["X2", "b2", "a3"]


def test_the_worker_waits_briefly_for_the_next_section_of_the_session_it_served():
    queue = JobQueue(grace_s=60)  # the next section comes within it however busy the machine
    log, hold = [], threading.Event()
    first = queue.submit("a", "a1", "k", make(log, "a1", hold), request="text a")
    later = queue.submit("b", "b1", "k", make(log, "b1"), request="text b")
    hold.set()
    queue.wait(first, 10)
    queue.wait(queue.submit("a", "a2", "k", make(log, "a2"), request="text a"), 10)  # in the grace: before b1
    queue.leave("a")  # its page is done: b1 need not wait out the grace
    queue.wait(later, 10)
    assert log == ["a1", "a2", "b1"]


def started(job):
    while job.started is None:
        threading.Event().wait(0.01)


def test_the_place_counts_only_other_sessions_jobs(queue):
    """A visitor who left a view (another model, another text) while its job runs sees no place taken by it: the
    place counts other sessions' jobs; the wait still includes the job running (this one has no checkpoint)."""
    log, hold = [], threading.Event()
    old = queue.submit("a", "a-example", "k", make(log, "old", hold), request="example", guess_s=4.0)
    started(old)
    mine = queue.submit("a", "a-own", "k", make(log, "mine"), request="own text", guess_s=1.0)
    other = queue.submit("b", "b-own", "k", make(log, "other"), request="b's text", guess_s=2.0)
    assert queue.place(mine, "a").ahead == 0
    assert queue.place(other, "b").ahead == 1  # a's waiting job (the running one is nobody's since a moved on)
    assert queue.place(mine, "a").wait_s == pytest.approx(5.0, abs=0.5)  # the rest of 4 s, then 1 s
    queue.leave("a")
    assert queue.place(other, "b").ahead == 0  # a's waiting job dropped
    hold.set()
    queue.wait(other, 10)
    assert "mine" not in log


def test_the_first_estimate_is_the_hosts_guess_and_none_without_one(queue):
    assert queue.expected("never run", guess_s=3.5) == 3.5
    assert queue.expected("never run") is None  # no constant learned elsewhere
    log, hold = [], threading.Event()
    job = queue.submit("a", "A", "kind", make(log, "A", hold))
    waiting = queue.submit("b", "B", "kind", make(log, "B"), guess_s=2.0)
    started(job)
    assert queue.place(job, "a").wait_s is None and queue.place(waiting, "b") == Place(1, None)
    hold.set()
    queue.wait(waiting, 10)
    assert queue.expected("kind") is not None  # measured now


def test_a_job_past_its_estimate_makes_the_wait_unknown(queue):
    """A wait shown never counts down past what is known: a running job over its estimate says "not known"."""
    log, hold = [], threading.Event()
    running = queue.submit("a", "A", "k", make(log, "A", hold), guess_s=1e-9)
    behind = queue.submit("b", "B", "k", make(log, "B"), guess_s=1.0)
    started(running)
    threading.Event().wait(0.01)  # well past 1e-9 s
    assert queue.place(running, "a") == Place(0, None)
    assert queue.place(behind, "b") == Place(1, None)
    hold.set()
    queue.wait(behind, 10)


@pytest.mark.parametrize("place, waited, key, values", [
    (Place(0, 3.4), 1.0, "common.queue_running", {"wait": "3", "ahead": 0}),
    (Place(0, 0.2), 1.0, "common.queue_running", {"wait": "1"}),
    (Place(0, None), 44.4, "common.queue_running_unknown", {"waited": "44"}),
    (Place(2, 12.0), 3.0, "common.queue_waiting", {"wait": "12", "ahead": 2}),
    (Place(2, None), 151.0, "common.queue_waiting_unknown", {"waited": "151", "ahead": 2}),
])
def test_the_waiting_line_says_so_when_the_wait_is_not_known(place, waited, key, values):
    found_key, found = heavy.waiting_line(place, waited)
    assert found_key == key and values.items() <= found.items()


def test_the_weights_first_preparation_is_a_step_of_its_own(monkeypatch):
    """A model not loaded yet is prepared through the queue under its own line (not inside a section's wait that
    says "about 1 s to go"); once loaded, nothing is queued."""
    from explorer.app.panels import real_models as panels
    from explorer.pure import text
    calls = []
    monkeypatch.setattr(panels.heavy, "run", lambda kind, key, fn, **kw: calls.append((kind, key, kw)))
    monkeypatch.setattr(panels, "loaded", lambda name: False)
    panels.prepare("smollm2-135m")
    assert calls == [("smollm2-135m:load", ("smollm2-135m", "load"),
                      {"what": "SmolLM2-135M-Instruct", "lines": "real_models.prepare"})]
    monkeypatch.setattr(panels, "loaded", lambda name: True)
    panels.prepare("smollm2-135m")
    assert len(calls) == 1
    for lang in ("en", "zh"):
        for state in heavy.LINES:
            for lines in ("common.queue", "real_models.prepare"):
                shown = text.text(lines + state, lang, what="X", ahead=1, wait="2", waited="3")
                assert "{" not in shown and ("3" in shown if state.endswith("unknown") else "2" in shown)


def test_one_models_sections_correct_their_guesses_together(queue):
    """The host's guesses of one model's sections miss by one factor (what the timed matmuls leave out): a section
    that ran corrects the first estimate of the others of its group."""
    def slow():
        threading.Event().wait(0.01)
        return "done"
    queue.wait(queue.submit("a", "said", "m:said", slow, guess_s=1e-6, group="m"), 10)
    assert queue.expected("m:looks", 1.0, group="m") > 1.0  # at least 0.01 s ran against 1e-6 s guessed
    assert queue.expected("other:looks", 1.0, group="other") == 1.0


def stepped(queue, log: list, name: str, go: threading.Event, steps: int = 1000):
    """A job of `steps` steps with the queue's checkpoint before each; after its first step it waits for `go`."""
    def job():
        for step in range(steps):
            queue.checkpoint()
            log.append((name, step))
            assert go.wait(10)
        return name
    return job


def test_a_running_job_its_session_left_for_another_view_stops_at_its_next_checkpoint(queue):
    """A visitor switches model while his job runs: the rerun interrupts his wait (leave), a rerun of the same view
    joins the running job again, and the first job of another view stops the old one at its next checkpoint, so
    the new job starts without waiting for the old one's end; the stopped job leaves no result."""
    log, go = [], threading.Event()
    old = queue.submit("a", "smollm2 map", "k", stepped(queue, log, "old", go), request="smollm2")
    started(old)
    queue.leave("a")  # a knob moved: the script was stopped mid-wait
    assert queue.submit("a", "smollm2 map", "k", stepped(queue, log, "old", go), request="smollm2") is old
    queue.leave("a")  # the model switched
    new = queue.submit("a", "gemma map", "k", make(log, "new"), request="gemma")
    go.set()
    assert queue.wait(new, 10) == "new"
    with pytest.raises(Superseded):
        queue.wait(old, 10)
    assert log == [("old", 0), "new"]  # one step of a thousand
    assert queue.cached("smollm2 map") == (False, None)
    again = queue.submit("a", "smollm2 map", "k", make(log, "old again"), request="smollm2")
    assert again is not old and queue.wait(again, 10) == "old again"  # asked again: run afresh


def test_a_job_another_session_waits_on_runs_to_its_end(queue):
    log, go = [], threading.Event()
    shared = queue.submit("a", "map", "k", stepped(queue, log, "shared", go, steps=3), request="smollm2")
    started(shared)
    assert queue.submit("b", "map", "k", make(log, "unused"), request="smollm2") is shared
    queue.leave("a")
    queue.asked("a", "gemma")  # a moved on (a kept result of its new view); b still waits
    go.set()
    assert queue.wait(shared, 10) == "shared" and len(log) == 3
