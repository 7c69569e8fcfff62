"""The live training run of the trained-models page: a budget shared by the whole server.

A visitor's "Train it yourself" button calls `start(config, owner, alive)`. The server trains at most one run
at a time, at most `runs_per_hour()` runs in any hour (a sliding window), and at most `session_runs()` of them
for one session (its own share of the hour: one visitor cannot spend the class's); a visitor refused for any of
these reasons is told when the run in progress should end, or when his next run may start. A run stops early
when its owner presses stop, or when `alive()` says its session has gone (checked every `ALIVE_EVERY_S`).
One run (`LIVE_STEPS` steps and its evaluation) cost 18.5 CPU seconds on this project's machine; the cap keeps
the live runs under a tenth of one core over an hour, however often the button is pressed. The run trains in a
background thread with `TORCH_THREADS` torch thread at the lowest OS priority (Linux gives every thread
its own nice value: the pages other visitors are drawing come first), on CUDA when the server has a GPU,
which pages leave alone. It reports its progress into this module's registry, and its results document
(`rope_viz.toy.train`, the shipped schema) stays in server memory: the last `KEEP` finished runs, never
written to disk. When it ends, the memory it freed goes back to the system (`explorer.app.memory.trim`).
Every session reads the same registry: the run in progress, its progress and expected end, the finished
runs.

Plain values only: no Streamlit, no text (the page writes the sentences from the codes returned here).
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch

from rope_viz import toy
from rope_viz.device import get_device
from rope_viz.toy.runner import GRID4_ARCH

from explorer.app.memory import trim

LIVE_STEPS = 300          # a few hundred steps: about 30-60 s on two shared CPU cores
LIVE_EVAL_SEQUENCES = 64  # fresh sequences per evaluation length
KEEP = 3                  # finished live runs kept in memory (oldest dropped first)
RUN_CPU_S = 18.5          # CPU seconds of one live run here (LIVE_STEPS steps, one thread, its evaluation)
# the schemes of the four-layer grid train its architecture: one such run took 11.3 CPU-s beside 9.4 for a
# two-layer RoPE run (evaluated with its three stretches too) on an idle machine, so it counts as one run
FOUR_LAYER_ARCH = {key: value for key, value in GRID4_ARCH.items() if key != "train_len"}
HOURLY_SHARE = 0.1        # the share of one core the live runs may take over an hour
WINDOW_S = 3600.0
RUNS_ENV = "ROPE_VIZ_LIVE_RUNS_PER_HOUR"  # another cap for this server (0: no live runs at all)
SESSION_RUNS = 3          # runs one session may start per WINDOW_S (a sixth of the server's 19)
SESSION_ENV = "ROPE_VIZ_LIVE_RUNS_PER_SESSION"  # another cap per session for this server
ALIVE_EVERY_S = 1.0       # how often a run asks whether its session is still there
TORCH_THREADS = 1         # the run's torch threads (OpenMP keeps the count per thread: pages keep theirs)
NICE = 19                 # the run's thread: the lowest OS priority
RESULTS_ENV = "ROPE_VIZ_TOY_DIR"  # a folder holding grid.json (and weights/) instead of rope_viz/toy/shipped


def _runs_from(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if not raw.strip().isdigit():
        raise ValueError(f"{name}={raw!r} must be a whole number of runs (0 or more)")
    return int(raw)


def runs_per_hour() -> int:
    """The most live runs this server starts in any hour: $ROPE_VIZ_LIVE_RUNS_PER_HOUR, else the runs that
    fit in HOURLY_SHARE of one core (19 at RUN_CPU_S)."""
    return _runs_from(RUNS_ENV, int(HOURLY_SHARE * WINDOW_S / RUN_CPU_S))


def session_runs() -> int:
    """The most live runs one session starts in any hour: $ROPE_VIZ_LIVE_RUNS_PER_SESSION, else SESSION_RUNS."""
    return _runs_from(SESSION_ENV, SESSION_RUNS)


def results_dir() -> Path:
    """The folder of the shipped results: $ROPE_VIZ_TOY_DIR, else rope_viz.toy.DEFAULT_DIR."""
    return Path(os.environ.get(RESULTS_ENV) or toy.DEFAULT_DIR)


def live_config(task: str, encoding: str, train_len: int, seed: int, *, steps: int = LIVE_STEPS,
                eval_sequences: int = LIVE_EVAL_SEQUENCES) -> toy.TrainConfig:
    """The TrainConfig of a live run: the shipped grid's architecture and evaluation, fewer steps. The
    encodings of the two-layer grid train its architecture; the other schemes (NoPE layers, local RoPE,
    p-RoPE, partial RoPE) the four-layer grid's, FOUR_LAYER_ARCH."""
    arch = {} if encoding in toy.ENCODINGS else FOUR_LAYER_ARCH
    return toy.TrainConfig(task=task, encoding=encoding, train_len=int(train_len), seed=int(seed), steps=steps,
                           eval_sequences=eval_sequences, scalings=("pi", "ntk", "yarn"), **arch)


class SessionGone(Exception):
    """The session that started a run has gone: the run ends where it is, unevaluated and not kept."""


@dataclass
class Run:
    """One live run. `state`: "training", "evaluating", "done", "stopped", "failed" or "gone" (its session
    left while it trained: not kept among the finished runs)."""

    id: int
    config: toy.TrainConfig
    owner: str
    started: float = field(default_factory=time.time)
    step: int = 0
    loss: float | None = None
    state: str = "training"
    finished: float | None = None
    doc: dict | None = None
    error: str = ""
    stop: threading.Event = field(default_factory=threading.Event, repr=False)
    alive: Callable[[], bool] | None = field(default=None, repr=False)
    _asked: float = field(default=0.0, repr=False)

    def should_stop(self) -> bool:
        """Whether training stops now because its owner asked (the model is still evaluated); raises SessionGone
        when its session has gone (asked at most every ALIVE_EVERY_S): nobody waits for that run's result."""
        now = time.monotonic()
        if self.alive is not None and now - self._asked >= ALIVE_EVERY_S:
            self._asked = now
            if not self.alive():
                raise SessionGone(f"the session of live run {self.id} has gone")
        return self.stop.is_set()

    def snapshot(self) -> dict:
        """Plain values for a page: progress (0..1 over the training steps), the expected end of
        training (epoch seconds, None before the first step) and the rest of the run's state."""
        steps = self.config.steps
        elapsed = time.time() - self.started
        expected = self.started + elapsed * steps / self.step if self.step else None
        return {"id": self.id, "owner": self.owner, "task": self.config.task, "encoding": self.config.encoding,
                "train_len": self.config.train_len, "seed": self.config.seed, "steps": steps, "step": self.step,
                "loss": self.loss, "state": self.state, "progress": min(1.0, self.step / steps),
                "started": self.started, "elapsed": elapsed, "expected_end": expected, "finished": self.finished,
                "error": self.error, "stopping": self.stop.is_set()}


_lock = threading.Lock()
_current: Run | None = None
_finished: deque = deque(maxlen=KEEP)
_starts: deque = deque()  # (start time, owner) of the runs of the last WINDOW_S seconds, oldest first
_ids = itertools.count(1)
_clock = time.time  # the budget's clock (tests give it another)


def start(config: toy.TrainConfig, owner: str, alive: Callable[[], bool] | None = None) -> tuple[bool, dict]:
    """Start `config` in a background thread unless a run is in progress, the session's runs of the hour or
    the server's are spent. alive: whether the owner's session is still there (None: it always is).

    Returns (True, the new run's snapshot), or (False, why): the snapshot of the run in progress with
    "refused": "busy" (the caller tells the visitor its progress and when it should end, and whether it is
    his own), or {"refused": "session" or "hourly", "runs": the cap reached, "next_slot": epoch seconds when
    the next may start}."""
    global _current
    if not isinstance(config, toy.TrainConfig):
        raise ValueError(f"config must be a rope_viz.toy.TrainConfig, got {type(config).__name__}")
    owner = str(owner)
    with _lock:
        if _current is not None:
            return False, {**_current.snapshot(), "refused": "busy"}
        now = _clock()
        while _starts and _starts[0][0] <= now - WINDOW_S:
            _starts.popleft()
        every = [when for when, _ in _starts]
        mine = [when for when, who in _starts if who == owner]
        for reason, cap, counted in (("session", session_runs(), mine), ("hourly", runs_per_hour(), every)):
            if len(counted) >= cap:  # the next slot: when the oldest counted run leaves the window
                return False, {"refused": reason, "runs": cap, "next_slot": (counted[0] if counted else now) + WINDOW_S}
        _starts.append((now, owner))
        run = Run(id=next(_ids), config=config, owner=owner, alive=alive)
        _current = run
    threading.Thread(target=_train, args=(run,), name=f"live-training-{run.id}", daemon=True).start()
    return True, run.snapshot()


def _lower_priority() -> bool:
    """Give the calling thread the lowest OS priority (Linux: a thread id is a PRIO_PROCESS target and
    keeps its own nice value); True where it applied."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    except OSError:
        return False
    return True


def _train_on_fastest(config: toy.TrainConfig, progress, should_stop) -> dict:
    """Train on the fastest device here (CUDA when present: unlike a page's tensors, a training run repays
    its launches); when it fails there, train again on the CPU."""
    try:
        device = get_device()
    except ValueError:  # ROPE_VIZ_DEVICE names no usable device: the pages say so, the run uses the CPU
        device = torch.device("cpu")
    if device.type != "cpu":
        try:
            return toy.train(config, progress=progress, should_stop=should_stop, device=device)
        except RuntimeError:
            pass
    return toy.train(config, progress=progress, should_stop=should_stop, device="cpu")


def _train(run: Run) -> None:
    global _current
    _lower_priority()
    torch.set_num_threads(TORCH_THREADS)

    def progress(step, steps, loss):
        run.step, run.loss = step, loss
        if step >= steps:
            run.state = "evaluating"

    try:
        doc = _train_on_fastest(run.config, progress, run.should_stop)
        run.doc = doc
        run.state = "stopped" if doc["runs"][0]["stopped_at"] is not None else "done"
    except SessionGone:
        run.state = "gone"
    except Exception as err:  # noqa: BLE001 - a failed run is reported on the page, never raised in a thread
        run.state, run.error = "failed", f"{type(err).__name__}: {err}"
    run.finished = time.time()
    trim()
    with _lock:
        if run.state != "gone":
            _finished.append(run)
        _current = None


def stop(owner: str) -> bool:
    """Ask the run in progress to stop early (only its owner may); True if asked."""
    with _lock:
        if _current is None or _current.owner != str(owner):
            return False
        _current.stop.set()
        return True


def current() -> dict | None:
    """The snapshot of the run in progress, or None."""
    with _lock:
        return None if _current is None else _current.snapshot()


def finished() -> list[dict]:
    """The last KEEP finished runs, newest first: their snapshots with the results document under "doc"
    (None for a failed run, whose "error" says why)."""
    with _lock:
        runs = list(_finished)
    return [{**run.snapshot(), "doc": run.doc} for run in reversed(runs)]


def wait(timeout: float = 60.0) -> bool:
    """Block until no run is in progress (for tests and scripts); True if none is."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if current() is None:
            return True
        time.sleep(0.05)
    return current() is None
