"""One fair queue for the server's heavy jobs (a real model measuring a visitor's text, anything that costs more
than a second of CPU): plain Python, no Streamlit.

The rules, the same for every session:
- one worker runs one job at a time (a forward pass already takes both cores), first come, first served per
  session: a session's place is set when it asks for something new (a text of its own: its `request`) and kept for
  that request's later jobs (the page's next sections, a knob moved), so the first visitor's page is finished
  before the second's starts, instead of every page finishing last;
- a session holds at most one waiting job: a new one replaces it (a visitor who changes his text or leaves drops
  what he no longer needs, and a new text takes a new place at the back), and while its job runs, the next one
  waits for it, so no session runs two at once or restarts a job faster than it runs;
- a running job that no session wants any more (each session it ran for has asked for another request: another
  model, another text) is stopped at its next checkpoint (`checkpoint()`, which the job calls between its steps:
  a model's layers), so the visitor's new view starts without waiting for the one he left; a session whose run
  was merely interrupted (a knob moved, the same text) still wants it, and joins it again;
- the same job (the same key: the model, the text and the section) asked by many sessions is run once: they all
  wait on it, and its result stays in a small cache (`KEEP` results) for the next ones;
- a session's share is bounded: one whose jobs took more than `SHARE_S` seconds of the last `WINDOW_S` goes behind
  every session that did not, so a visitor who floods the page costs the others no more than his one place;
- each waiting session can read its place (the jobs of other sessions ahead of it: its own earlier jobs are its
  own wait, not a place) and an estimate of its wait: the running job's expected rest plus the expected cost of each
  job ahead. A job's expected cost starts from what its submitter measured on this host (`guess_s`, e.g. forward
  passes times a timed matmul) and is corrected by how the jobs of its kind ran against their guesses; a kind with
  neither has no estimate, and a running job past its estimate makes the wait unknown (never "about 1 s" for
  minutes).

Jobs are plain callables; their errors are kept and raised again in every session that waits on them.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from explorer.app.memory import reusing_buffers

KEEP = 64           # finished results kept for later sessions (the oldest dropped first)
PLACES = 4096       # sessions whose place is remembered (the oldest forgotten first)
WINDOW_S = 60.0     # the window of a session's share
SHARE_S = 30.0      # seconds of the worker a session may use per window before it waits behind the others
SMOOTHING = 0.5     # weight of the newest cost in a kind's expected cost
GRACE_S = 0.2       # how long the worker waits for the next job of the sessions it just served, when they come first


@dataclass
class Job:
    """One heavy computation: key (its identity: equal keys are the same job), kind (jobs of a kind cost about the
    same: the estimate of its wait), request (what it is part of), the sessions waiting on it and those whose wait
    was interrupted while it ran (they still want it until they ask for another request), its result or error once
    done; stopped: no session wants it, and it ends at its next checkpoint."""

    key: Hashable
    kind: str
    fn: Callable[[], Any]
    order: int
    guess_s: float | None = None
    group: str | None = None
    request: Hashable = None
    sessions: set = field(default_factory=set)
    left: set = field(default_factory=set)
    stopped: bool = False
    started: float | None = None
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None


class Superseded(Exception):
    """A running job stopped at a checkpoint: every session it ran for has moved on to another request."""


class Place(NamedTuple):
    """How many jobs of other sessions run or wait before this one, and the expected seconds until it is done (None:
    not known, a job ahead or this one has no estimate or has run past it)."""

    ahead: int
    wait_s: float | None


class JobQueue:
    """The queue and its one worker thread (started with the first job)."""

    def __init__(self, keep: int = KEEP, share_s: float = SHARE_S, window_s: float = WINDOW_S,
                 grace_s: float = GRACE_S):
        self._lock = threading.Condition()
        self._waiting: list[Job] = []
        self._running: Job | None = None
        self._results: OrderedDict = OrderedDict()
        self._costs: dict[str, float] = {}   # kind -> smoothed seconds (jobs without a guess)
        self._ratios: dict[str, float] = {}  # group (or kind) -> smoothed seconds / guess (jobs with one)
        self._used: dict[str, deque] = {}  # session -> (end time, seconds) of its recent jobs
        self._arrivals: dict[str, tuple[Hashable, int]] = {}  # session -> (its request, its place)
        self._orders = itertools.count()
        self._keep, self._share_s, self._window_s, self._grace_s = keep, share_s, window_s, grace_s
        self._worker: threading.Thread | None = None
        self._served: tuple[set, float] | None = None  # (the sessions just served, when)
        self.ran = 0  # jobs run (for tests and the benchmark)

    # ------------------------------------------------------------------ what a session calls
    def cached(self, key: Hashable) -> tuple[bool, Any]:
        """(True, result) when the job `key` has run and its result is kept, else (False, None)."""
        with self._lock:
            if key in self._results:
                self._results.move_to_end(key)
                return True, self._results[key]
            return False, None

    def submit(self, session: str, key: Hashable, kind: str, fn: Callable[[], Any], request: Hashable = None,
               guess_s: float | None = None, group: str | None = None) -> Job:
        """The job `key` for `session`: a finished one from the cache, the same job already waiting or running (the
        session joins it), or a new one. The session's other waiting job is dropped. request: what the job is part
        of (a text); the session keeps its place while it asks for the same request, and goes to the back with a
        new one. guess_s: the job's cost as measured on this host before it runs (None: not known); group: the jobs
        whose guesses are corrected together (one model's sections: its guesses miss by one factor), default the
        kind."""
        with self._lock:
            self._asked(session, request)
            if self._arrivals.get(session, (None,))[0] != request or session not in self._arrivals:
                self._arrivals.pop(session, None)
                self._arrivals[session] = (request, next(self._orders))
                while len(self._arrivals) > PLACES:
                    del self._arrivals[next(iter(self._arrivals))]
            if key in self._results:
                job = Job(key, kind, fn, -1, result=self._results[key])
                job.done.set()
                self._results.move_to_end(key)
                return job
            self._drop_waiting(session, keep=key)
            job = next((j for j in self._all() if j.key == key and not j.stopped), None)
            if job is None:
                job = Job(key, kind, fn, next(self._orders), guess_s, group, request)
                self._waiting.append(job)
            job.sessions.add(session)
            job.left.discard(session)
            self._lock.notify_all()
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="heavy-jobs", daemon=True)
                self._worker.start()
            return job

    def asked(self, session: str, request: Hashable) -> None:
        """The session asks for something of `request` (even a kept result): a job of another request it left running
        is no longer its."""
        with self._lock:
            self._asked(session, request)

    def leave(self, session: str) -> None:
        """The session no longer waits: its waiting job is dropped unless another session waits on it too; a running
        job goes on while the session may still want it (its next run asks for the same request)."""
        with self._lock:
            self._drop_waiting(session)
            self._arrivals.pop(session, None)
            if self._running is not None and session in self._running.sessions:
                self._running.sessions.discard(session)
                self._running.left.add(session)
            self._lock.notify_all()  # a worker waiting out its grace for this session goes on

    def checkpoint(self) -> None:
        """Called by a running job between its steps: raises Superseded when no session wants the job any more
        (nothing happens outside the queue's worker)."""
        with self._lock:
            job = self._running
            if job is None or threading.current_thread() is not self._worker:
                return
            if not job.sessions and not job.left:
                job.stopped = True
                raise Superseded(f"job {job.kind} stopped: no session wants it any more")

    def place(self, job: Job, session: str) -> Place:
        """Where `job` stands for `session`: the jobs of other sessions before it (the running one included) and the
        expected wait (None when not known)."""
        with self._lock:
            if job.done.is_set():
                return Place(0, 0.0)
            now = time.monotonic()
            wait: float | None = 0.0
            ahead = 0
            running = self._running
            if running is not None:
                expected = self._expected(running)
                rest = None if expected is None else expected - (now - (running.started or now))
                if running is job:
                    return Place(0, rest if rest is not None and rest > 0 else None)
                ahead = int(bool(running.sessions - {session}))
                wait = rest if rest is not None and rest > 0 else None
            for other in self._ordered(now):
                if other is job:
                    break
                ahead += int(bool(other.sessions - {session}))
                wait = _plus(wait, self._expected(other))
            return Place(ahead, _plus(wait, self._expected(job)))

    def wait(self, job: Job, timeout: float | None = None) -> Any:
        """The job's result (blocking up to timeout; TimeoutError past it); its error raised again."""
        if not job.done.wait(timeout):
            raise TimeoutError(f"job {job.kind} not done in {timeout} s")
        if job.error is not None:
            raise job.error
        return job.result

    def waiting(self) -> int:
        """Jobs waiting or running now."""
        with self._lock:
            return len(self._waiting) + (self._running is not None)

    def forget(self) -> None:
        """Drop the kept results (a benchmark measures jobs computed from nothing)."""
        with self._lock:
            self._results.clear()

    def expected(self, kind: str, guess_s: float | None = None, group: str | None = None) -> float | None:
        """The expected seconds of a job of `kind` guessed at guess_s (None: not known)."""
        with self._lock:
            return self._expected(Job(None, kind, lambda: None, -1, guess_s, group))

    # ------------------------------------------------------------------ inside
    def _all(self):
        return ([self._running] if self._running is not None else []) + self._waiting

    def _expected(self, job: Job) -> float | None:
        """The job's guess corrected by its group's record of actual / guessed, or its kind's measured seconds."""
        if job.guess_s is not None:
            return job.guess_s * self._ratios.get(job.group or job.kind, 1.0)
        return self._costs.get(job.kind)

    def _asked(self, session: str, request: Hashable) -> None:
        running = self._running
        if running is not None and running.request != request:
            running.sessions.discard(session)
            running.left.discard(session)

    def _drop_waiting(self, session: str, keep: Hashable = None) -> None:
        for job in list(self._waiting):
            if session in job.sessions and job.key != keep:
                job.sessions.discard(session)
                if not job.sessions:
                    self._waiting.remove(job)

    def _over_share(self, sessions: set, now: float) -> bool:
        """Whether every session waiting on a job has used more than its share of the window."""
        def used(session):
            recent = self._used.get(session, ())
            return sum(seconds for end, seconds in recent if end > now - self._window_s)
        return all(used(s) > self._share_s for s in sessions)

    def _place_of(self, job: Job) -> int:
        """The earliest place among the sessions waiting on `job` (its own order if none has one)."""
        return min((self._arrivals[s][1] for s in job.sessions if s in self._arrivals), default=job.order)

    def _ordered(self, now: float) -> list[Job]:
        return sorted(self._waiting, key=lambda j: (self._over_share(j.sessions, now), self._place_of(j), j.order))

    def _next(self) -> Job:
        """The first waiting job; but when the sessions just served come before it, their page's next section is
        on its way (a session asks for it once the last one is drawn): wait up to GRACE_S for it."""
        while True:
            while not self._waiting:
                self._lock.wait()
            now = time.monotonic()
            job = self._ordered(now)[0]
            places = [self._arrivals[s][1] for s in self._served[0] if s in self._arrivals] if self._served else []
            if not places or self._place_of(job) <= min(places):  # none of them left waits, or this job is theirs
                return job
            rest = self._served[1] + self._grace_s - now
            if rest <= 0:
                self._served = None
                return job
            self._lock.wait(rest)

    def _work(self) -> None:
        while True:
            with self._lock:
                job = self._next()
                self._waiting.remove(job)
                self._running = job
                job.started = time.monotonic()
            try:
                with reusing_buffers():
                    job.result = job.fn()
            except BaseException as err:  # noqa: BLE001 - kept and raised again in each waiting session
                job.error = err
            with self._lock:
                if job.stopped:  # neither a cost (it ran part of its work) nor a result
                    self._running, self._served = None, None
                    job.done.set()
                    self._lock.notify_all()
                    continue
                now = time.monotonic()
                spent = now - (job.started or now)
                record, value = (self._ratios, spent / job.guess_s) if job.guess_s else (self._costs, spent)
                name = (job.group or job.kind) if job.guess_s else job.kind
                previous = record.get(name)
                record[name] = value if previous is None else SMOOTHING * value + (1 - SMOOTHING) * previous
                for session in job.sessions:
                    recent = self._used.setdefault(session, deque())
                    recent.append((now, spent / max(len(job.sessions), 1)))
                    while recent and recent[0][0] <= now - self._window_s:
                        recent.popleft()
                for session in [s for s, recent in self._used.items() if not recent]:
                    del self._used[session]
                if job.error is None:
                    self._results[job.key] = job.result
                    while len(self._results) > self._keep:
                        self._results.popitem(last=False)
                self._running = None
                self._served = (set(job.sessions), now) if job.sessions else None
                self.ran += 1
                job.done.set()
                self._lock.notify_all()


def _plus(total: float | None, cost: float | None) -> float | None:
    return None if total is None or cost is None else total + cost


QUEUE = JobQueue()
"""The server's one queue (every page's heavy jobs)."""
