"""Hostile clients at the protocol level: forged widget states, oversized frames, rerun storms.

`WidgetSession` is a `support.protocol.Session` that also remembers the id and kind of every widget the
app drew, by its session-state key (Streamlit names a keyed widget `$$ID-<hash>-<key>`), so that a test
can forge a `rerun_script` whose widget states give a real widget a value of any type or size:

    async with WidgetSession(url) as session:
        await session.run("frequency-clocks")
        forged = widget_state(session.widget_id("frequency_clocks.pairs"), int_array_value=[0] * 10**6)
        run = await session.run("frequency-clocks", widget_states=[forged])

`measure()` samples the server's CPU seconds and RSS around a block (before, peak, after), `settled()`
waits until the server is idle, `bystander()` opens a light page again and again from its own session and
keeps each run's latency, and `press_training()` has sessions press the trained-models page's "Train it
yourself" button on a clock. `python -m support.hostile` starts a server and measures what one (or five)
sessions pressing that button for a minute cost it and a bystander (docs/reliability.md's figures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from .protocol import Run, Session, percentile, run_async, visit, widget_state
from .server import ROOT, Server, UsageSampler, streamlit_server, usage

TRAINED = "trained-models"
START_BUTTON = "trained_models.start_button"


class WidgetSession(Session):
    """A Session that records the widgets of every run: key -> (widget id, element kind)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.widgets: dict[str, tuple[str, str]] = {}
        self.alerts: list[str] = []  # the body of every alert (notice, warning, info) of the last run

    def _record(self, result: Run, msg) -> None:
        super()._record(result, msg)
        if msg.WhichOneof("type") == "new_session":
            self.alerts = []
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            kind = element.WhichOneof("type")
            if kind == "alert":
                self.alerts.append(element.alert.body)
            widget_id = getattr(getattr(element, kind), "id", "") if kind else ""
            if isinstance(widget_id, str) and widget_id.startswith("$$ID-"):
                key = widget_id.split("-", 2)[2] if widget_id.count("-") >= 2 else widget_id
                self.widgets[key] = (widget_id, kind)

    def widget_id(self, key: str) -> str:
        return self.widgets[key][0]


@dataclass
class Cost:
    """What the server spent while a block ran: CPU seconds, RSS before / at its peak / after (MiB)."""

    cpu_s: float = 0.0
    rss_before_mb: float = 0.0
    rss_peak_mb: float = 0.0
    rss_after_mb: float = 0.0
    wall_s: float = 0.0

    @property
    def peak_growth_mb(self) -> float:
        return self.rss_peak_mb - self.rss_before_mb

    @property
    def kept_mb(self) -> float:
        return self.rss_after_mb - self.rss_before_mb

    def __str__(self) -> str:
        return (f"cpu {self.cpu_s:.2f} s, rss {self.rss_before_mb:.0f} -> peak {self.rss_peak_mb:.0f} "
                f"(+{self.peak_growth_mb:.0f}) -> after {self.rss_after_mb:.0f} MiB (kept {self.kept_mb:+.0f}), "
                f"wall {self.wall_s:.2f} s")


@asynccontextmanager
async def measure(server: Server, *, settle_s: float = 0.5, every: float = 0.05):
    """Sample the server while the block runs; the yielded Cost is filled in when it exits (after
    `settle_s` more seconds, so that what a closed session leaves is measured once it is gone)."""
    cost = Cost()
    before = usage(server.process.pid)
    cost.rss_before_mb = before.rss_mb
    sampler = UsageSampler(server.process.pid, every=every)
    sampler.start()
    started = time.perf_counter()
    try:
        yield cost
    finally:
        cost.wall_s = time.perf_counter() - started
        await asyncio.sleep(settle_s)
        sampler.stop()
        after = usage(server.process.pid)
        cost.cpu_s = after.cpu_s - before.cpu_s
        cost.rss_after_mb = after.rss_mb
        cost.rss_peak_mb = max(sampler.peak_rss_mb or 0.0, after.rss_mb, before.rss_mb)


async def settled(server: Server, *, window_s: float = 0.5, idle_cpu_s: float = 0.05,
                  timeout_s: float = 120.0) -> None:
    """Wait until the server spends under `idle_cpu_s` CPU seconds in a `window_s` window (or `timeout_s`
    passes): page runs an earlier block left in flight (a storm's last pages) end before the next measure."""
    deadline = time.perf_counter() + timeout_s
    last = usage(server.process.pid).cpu_s
    while time.perf_counter() < deadline:
        await asyncio.sleep(window_s)
        now = usage(server.process.pid).cpu_s
        if now - last < idle_cpu_s:
            return
        last = now


@dataclass
class Bystander:
    """Another visitor who keeps opening `page` while something else happens."""

    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def p95(self) -> float | None:
        return percentile(self.latencies, 0.95)

    @property
    def worst(self) -> float | None:
        return max(self.latencies, default=None)


async def bystander(url: str, stop: asyncio.Event, *, page: str = "", query: str = "lang=en",
                    pause_s: float = 0.2, timeout: float = 60.0, result: Bystander | None = None) -> Bystander:
    """Open `page` in one session again and again until `stop` is set: each run's latency (from the
    rerun request to the end of its script run) is kept, and so is each failure."""
    result = result if result is not None else Bystander()
    async with Session(url, timeout=timeout) as session:
        while not stop.is_set():
            run = await session.run(page, query)
            if run.ok and run.duration_s is not None:
                result.latencies.append(run.duration_s)
            else:
                result.failures.append(run.error or f"{run.status} {run.exceptions[:1]}")
                if run.error:
                    break
            try:
                await asyncio.wait_for(stop.wait(), pause_s)
            except TimeoutError:
                pass
    return result


@dataclass
class Presses:
    """What pressing the training button got: presses served, the refusals by reason, failed presses."""

    presses: int = 0
    busy: int = 0  # refused: a run was in progress (the session's own or another's)
    session: int = 0  # refused: the session's runs of the hour were spent
    hourly: int = 0  # refused: the server's runs of the hour were spent
    failures: list[str] = field(default_factory=list)

    @property
    def started(self) -> int:
        return self.presses - self.busy - self.session - self.hourly


def _said(key: str) -> str:
    """The English text `key` up to its first placeholder: how a refusal's alert begins."""
    from explorer.pure import text

    return text.STRINGS["en"][key].split("{")[0]


async def press_training(url: str, seconds: float = 60.0, every: float = 2.0, *, sessions: int = 1,
                         timeout: float = 120.0, result: Presses | None = None) -> Presses:
    """`sessions` sessions open the trained-models page, then each presses "Train it yourself" every `every`
    seconds for `seconds` seconds (a forged trigger, as the browser sends it); each answer is counted."""
    result = result if result is not None else Presses()
    busy = (_said("trained_models.refused"), _said("trained_models.refused_mine"))
    share, hourly = _said("trained_models.refused_session"), _said("trained_models.refused_hourly")

    async def one() -> None:
        async with WidgetSession(url, timeout=timeout) as session:
            first = await session.run(TRAINED, "lang=en")
            if not first.ok:
                result.failures.append(first.error or f"{first.status} {first.exceptions[:1]}")
                return
            press = widget_state(session.widget_id(START_BUTTON), trigger_value=True)
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                pressed = time.perf_counter()
                run = await session.run(TRAINED, "lang=en", widget_states=[press])
                if not run.ok:
                    result.failures.append(run.error or f"{run.status} {run.exceptions[:1]}")
                    if run.error:
                        return
                result.presses += 1
                result.busy += any(alert.startswith(busy) for alert in session.alerts)
                result.session += any(alert.startswith(share) for alert in session.alerts)
                result.hourly += any(alert.startswith(hourly) for alert in session.alerts)
                await asyncio.sleep(max(0.0, every - (time.perf_counter() - pressed)))

    await asyncio.gather(*(one() for _ in range(sessions)))
    return result


async def training_idle(url: str, timeout: float = 600.0, *, poll_s: float = 2.0) -> bool:
    """Wait until the trained-models page shows no run in progress (no progress bar); True if it does."""
    deadline = time.perf_counter() + timeout
    async with Session(url, timeout=timeout) as session:
        while time.perf_counter() < deadline:
            run = await session.run(TRAINED, "lang=en")
            if run.ok and not run.elements.get("progress"):
                return True
            await asyncio.sleep(poll_s)
    return False


def _p(values, q):
    found = percentile(values, q)
    return None if found is None else round(found, 3)


async def training_cost(server: Server, *, seconds: float = 60.0, every: float = 2.0, sessions: int = 1,
                        alone_s: float = 15.0) -> dict:
    """A bystander opening the home page alone for `alone_s` seconds, then while `sessions` sessions press
    the training button every `every` seconds for `seconds` seconds; the server's CPU seconds over that
    minute and its RSS before, at its peak and once the last run has ended."""
    stop, alone = asyncio.Event(), Bystander()
    watcher = asyncio.create_task(bystander(server.url, stop, result=alone))
    await asyncio.sleep(alone_s)
    stop.set()
    await watcher
    stop, during, presses = asyncio.Event(), Bystander(), Presses()
    async with measure(server, settle_s=0.0) as pressing:
        watcher = asyncio.create_task(bystander(server.url, stop, result=during))
        await press_training(server.url, seconds, every, sessions=sessions, result=presses)
        stop.set()
        await watcher
    async with measure(server, settle_s=2.0) as ending:
        idle = await training_idle(server.url)
    return {"sessions": sessions, "seconds": seconds, "every_s": every, "presses": presses.presses,
            "runs_started": presses.started, "refused_busy": presses.busy, "refused_session": presses.session,
            "refused_hourly": presses.hourly,
            "failures": presses.failures[:5], "server_cpu_s": round(pressing.cpu_s, 1),
            "cpu_share": round(pressing.cpu_s / pressing.wall_s, 3), "idle_after": idle,
            "cpu_s_until_idle": round(ending.cpu_s, 1), "rss_before_mb": round(pressing.rss_before_mb),
            "rss_peak_mb": round(max(pressing.rss_peak_mb, ending.rss_peak_mb)),
            "rss_after_mb": round(ending.rss_after_mb),
            "bystander_alone": {"n": len(alone.latencies), "p50_s": _p(alone.latencies, 0.5),
                                "p95_s": _p(alone.latencies, 0.95)},
            "bystander_during": {"n": len(during.latencies), "p50_s": _p(during.latencies, 0.5),
                                 "p95_s": _p(during.latencies, 0.95), "worst_s": _p(during.latencies, 1.0),
                                 "failures": during.failures[:5]}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m support.hostile",
                                     description="What pressing the live training button costs a fresh server.")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=2.0)
    parser.add_argument("--root", default=str(ROOT), help="the folder holding app.py (another copy to compare)")
    args = parser.parse_args(argv)

    async def go(server: Server) -> dict:
        for page in ("", TRAINED):  # what a fresh server's first visits pay for is not measured
            await visit(server.url, page, "lang=en", timeout=120.0)
        return await training_cost(server, seconds=args.seconds, every=args.every, sessions=args.sessions)

    with streamlit_server(root=args.root) as server:
        print(json.dumps(run_async(go(server)), indent=1))


if __name__ == "__main__":
    main()
