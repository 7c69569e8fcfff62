"""Hostile clients at the protocol level: forged widget states, oversized frames, rerun storms.

`WidgetSession` is a `support.protocol.Session` that also remembers the id and kind of every widget the
app drew, by its session-state key (Streamlit names a keyed widget `$$ID-<hash>-<key>`), so that a test
can forge a `rerun_script` whose widget states give a real widget a value of any type or size:

    async with WidgetSession(url) as session:
        await session.run("frequency-clocks")
        forged = widget_state(session.widget_id("rotations.pairs"), int_array_value=[0] * 10**6)
        run = await session.run("frequency-clocks", widget_states=[forged])

`measure()` samples the server's CPU seconds and RSS around a block (before, peak, after), and
`bystander()` opens a light page again and again from its own session and keeps each run's latency.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from .protocol import Run, Session, percentile
from .server import Server, UsageSampler, usage


class WidgetSession(Session):
    """A Session that records the widgets of every run: key -> (widget id, element kind)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.widgets: dict[str, tuple[str, str]] = {}

    def _record(self, result: Run, msg) -> None:
        super()._record(result, msg)
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            kind = element.WhichOneof("type")
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
