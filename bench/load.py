"""Concurrent visitors against one app server: are they all served, how fast, and at what memory?

    python -m bench.load --sessions 8

Starts the app (bench.serve), visits its home page once (the router and torch are then loaded, no page's
figures built yet), then opens N browser sessions at the same time: one Chromium, one context per
session, so each is a separate visitor with its own cache. Session i opens topic page i by its URL
(round robin over the page list, home last) and then moves on through the sidebar to the next `--more`
pages. Meanwhile the server's resident memory (the process and its children) is sampled every 0.2 s.
Prints a table, writes JSON to bench-results/load.json, and exits non-zero when a target is missed.
Loopback only; it stops by itself after `--deadline` seconds at the latest.

The browsers run on the same machine as the server: each context loads and compiles the app's scripts
and plotly.js, which competes with the server for the CPU. So fresh loads are also timed in steps, from
the start of navigation: "conn s" until the app connected (the browser's own start-up), "run s" until the
first script run ended (the server's part follows "conn s"), "chart s" until the first chart's svg.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import psutil
from playwright.async_api import async_playwright

from bench.serve import ROOT, launch_chromium, streamlit_server, wait_for_app
from ui.pages import PAGES

RESULTS = ROOT / "bench-results" / "load.json"
TARGET_P95_S = 10.0
TARGET_PEAK_RSS_MB = 1536.0
NAV_LINKS = "[data-testid=stSidebarNav] a"
# Browser-side clocks, in ms from the start of navigation: when the app connected to the server (the
# browser has loaded the app's scripts), when the first script run ended, and when the first chart's svg
# appeared (the browser has also loaded plotly.js and drawn the chart).
_PAGE_CLOCKS = """
window.__clocks = {connected: null, runDone: null, firstChart: null};
new MutationObserver((_, observer) => {
    const clocks = window.__clocks, now = performance.now();
    const app = document.querySelector('[data-testid=stApp]');
    if (clocks.connected === null && app && app.dataset.testConnectionState === 'CONNECTED') {
        clocks.connected = now;
    }
    if (clocks.runDone === null && app && app.dataset.testScriptState === 'notRunning') clocks.runDone = now;
    if (clocks.firstChart === null && document.querySelector('[data-testid=stPlotlyChart] .main-svg')) {
        clocks.firstChart = now;
    }
    if (clocks.runDone !== null && clocks.firstChart !== null) observer.disconnect();
}).observe(document, {childList: true, subtree: true, attributes: true,
                      attributeFilter: ['data-test-script-state', 'data-test-connection-state']});
"""


@dataclass
class Visit:
    page: str
    how: str  # "url" (a fresh load) or "sidebar" (moving within the open app)
    ready_s: float | None = None  # until the run ended and every chart was drawn
    connected_s: float | None = None  # url visits: until the app was connected to the server
    run_done_s: float | None = None  # url visits: until the first script run ended
    first_chart_s: float | None = None  # url visits of pages with charts: until the first chart's svg
    charts: int = 0
    error: str | None = None


@dataclass
class Session:
    index: int
    visits: list[Visit] = field(default_factory=list)

    @property
    def served(self) -> bool:
        return bool(self.visits) and all(v.error is None for v in self.visits)


class MemorySampler(threading.Thread):
    """Resident memory of a process and all its children, sampled every `every` seconds."""

    def __init__(self, pid: int, every: float = 0.2):
        super().__init__(daemon=True)
        self.process = psutil.Process(pid)
        self.every = every
        self.samples_mb: list[float] = []
        self.idle_mb: float | None = None  # set when the server has started and served its first page
        self._finished = threading.Event()

    def rss_mb(self) -> float:
        total = 0
        for proc in [self.process, *self.process.children(recursive=True)]:
            try:
                total += proc.memory_info().rss
            except psutil.Error:  # a child that ended between listing and reading
                pass
        return total / 2 ** 20

    def run(self) -> None:
        while not self._finished.is_set():
            try:
                self.samples_mb.append(self.rss_mb())
            except psutil.Error:
                return
            self._finished.wait(self.every)

    def stop(self) -> None:
        self._finished.set()
        self.join()


async def _read_clocks(page, visit: Visit) -> None:
    clocks = await page.evaluate("window.__clocks")
    visit.connected_s, visit.run_done_s, visit.first_chart_s = (
        None if clocks[name] is None else clocks[name] / 1000 for name in ("connected", "runDone", "firstChart"))


async def _visit_by_url(page, base_url: str, path: str, visit: Visit, timeout_ms: float) -> None:
    started = time.perf_counter()
    try:
        await page.goto(f"{base_url}/{path}", timeout=timeout_ms)
        await wait_for_app(page, timeout=timeout_ms)
        visit.ready_s = time.perf_counter() - started
    finally:  # a visit that timed out still tells how far it got
        await _read_clocks(page, visit)


async def _visit_by_sidebar(page, index: int, path: str, timeout_ms: float) -> float:
    old_heading = await page.locator("[data-testid=stMain] h1").first.inner_text()
    started = time.perf_counter()
    await page.locator(NAV_LINKS).nth(index).click(timeout=timeout_ms)
    await page.wait_for_url(lambda address: urlparse(address).path == f"/{path}", timeout=timeout_ms)
    # the new page's heading first, so the wait below sees the new run and not the old page
    await page.wait_for_function("old => { const h = document.querySelector('[data-testid=stMain] h1');"
                                 " return h && h.innerText !== old; }", arg=old_heading, timeout=timeout_ms,
                                 polling=100)
    await wait_for_app(page, timeout=timeout_ms)
    return time.perf_counter() - started


async def _run_session(browser, base_url: str, index: int, more: int, timeout_ms: float) -> Session:
    """Session i loads topic page i by its URL (home comes last in the round robin), then moves on."""
    session = Session(index)
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    await context.add_init_script(_PAGE_CLOCKS)
    page = await context.new_page()
    order = [(index + 1 + step) % len(PAGES) for step in range(more + 1)]
    try:
        for step, page_index in enumerate(order):
            stem, path, _ = PAGES[page_index]
            visit = Visit(stem, "url" if step == 0 else "sidebar")
            session.visits.append(visit)
            try:
                if step == 0:
                    await _visit_by_url(page, base_url, path, visit, timeout_ms)
                else:
                    visit.ready_s = await _visit_by_sidebar(page, page_index, path, timeout_ms)
                visit.charts = await page.locator("[data-testid=stMain] [data-testid=stPlotlyChart]").count()
                exceptions = await page.locator("[data-testid=stException]").count()
                visit.error = f"{exceptions} exception element(s) on the page" if exceptions else None
            except Exception as error:  # a timeout or a broken page: this session was not served
                visit.error = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
            if visit.error:
                break
    finally:
        await context.close()
    return session


async def _run_all(base_url: str, sessions: int, more: int, timeout_ms: float,
                   sampler: MemorySampler) -> list[Session]:
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright)
        try:
            warm = await browser.new_page()
            await warm.goto(base_url, timeout=timeout_ms)
            await wait_for_app(warm, timeout=timeout_ms)
            await warm.close()
            sampler.idle_mb = sampler.rss_mb()
            return list(await asyncio.gather(*(_run_session(browser, base_url, i, more, timeout_ms)
                                               for i in range(sessions))))
        finally:
            await browser.close()


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def summarize(sessions: list[Session], memory_mb: list[float], idle_mb: float | None, wall_s: float) -> dict:
    visits = [v for s in sessions for v in s.visits]
    first_chart = [v.first_chart_s for v in visits if v.first_chart_s is not None]
    url_ready = [v.ready_s for v in visits if v.how == "url" and v.ready_s is not None]
    connected = [v.connected_s for v in visits if v.connected_s is not None]
    run_done = [v.run_done_s for v in visits if v.run_done_s is not None]
    switch_ready = [v.ready_s for v in visits if v.how == "sidebar" and v.ready_s is not None]
    served = sum(s.served for s in sessions)
    summary = {
        "sessions": len(sessions),
        "served": served,
        "success_rate": served / len(sessions) if sessions else 0.0,
        "first_chart_p50_s": _percentile(first_chart, 0.50),
        "first_chart_p95_s": _percentile(first_chart, 0.95),
        "first_chart_samples": len(first_chart),
        "connected_p50_s": _percentile(connected, 0.50),
        "connected_p95_s": _percentile(connected, 0.95),
        "run_done_p50_s": _percentile(run_done, 0.50),
        "run_done_p95_s": _percentile(run_done, 0.95),
        "url_ready_p50_s": _percentile(url_ready, 0.50),
        "url_ready_p95_s": _percentile(url_ready, 0.95),
        "sidebar_ready_p50_s": _percentile(switch_ready, 0.50),
        "sidebar_ready_p95_s": _percentile(switch_ready, 0.95),
        "server_rss_idle_mb": idle_mb,
        "server_rss_peak_mb": max(memory_mb, default=0.0),
        "wall_s": wall_s,
    }
    summary["targets_met"] = (served == len(sessions)
                              and (summary["first_chart_p95_s"] or 0.0) < TARGET_P95_S
                              and summary["server_rss_peak_mb"] < TARGET_PEAK_RSS_MB)
    return summary


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_report(sessions: list[Session], summary: dict) -> None:
    print(f"{'session':>7}  {'page':<16} {'how':<8} {'conn s':>7} {'run s':>7} {'chart s':>8} {'ready s':>8} "
          f"{'charts':>6}  error")
    for session in sessions:
        for visit in session.visits:
            print(f"{session.index:>7}  {visit.page:<16} {visit.how:<8} {_fmt(visit.connected_s):>7} "
                  f"{_fmt(visit.run_done_s):>7} "
                  f"{_fmt(visit.first_chart_s):>8} {_fmt(visit.ready_s):>8} {visit.charts:>6}  {visit.error or ''}")
    print()
    rows = [
        ("sessions served", f"{summary['served']}/{summary['sessions']} ({summary['success_rate']:.0%})"),
        ("time to first chart p50 / p95 (s)",
         f"{_fmt(summary['first_chart_p50_s'])} / {_fmt(summary['first_chart_p95_s'])}"
         f"  (target p95 < {TARGET_P95_S:g}; {summary['first_chart_samples']} loads with charts)"),
        ("fresh load, app connected p50 / p95 (s)",
         f"{_fmt(summary['connected_p50_s'])} / {_fmt(summary['connected_p95_s'])}"),
        ("fresh load, script run ended p50 / p95 (s)",
         f"{_fmt(summary['run_done_p50_s'])} / {_fmt(summary['run_done_p95_s'])}"),
        ("fresh load, all charts p50 / p95 (s)",
         f"{_fmt(summary['url_ready_p50_s'])} / {_fmt(summary['url_ready_p95_s'])}"),
        ("sidebar switch p50 / p95 (s)",
         f"{_fmt(summary['sidebar_ready_p50_s'])} / {_fmt(summary['sidebar_ready_p95_s'])}"),
        ("server RSS idle / peak (MB)",
         f"{_fmt(summary['server_rss_idle_mb'], 0)} / {_fmt(summary['server_rss_peak_mb'], 0)}"
         f"  (target < {TARGET_PEAK_RSS_MB:g})"),
        ("wall time (s)", _fmt(summary["wall_s"], 1)),
        ("targets met", "yes" if summary["targets_met"] else "NO"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=8, help="concurrent browser sessions (default 8)")
    parser.add_argument("--more", type=int, default=2, choices=(0, 1, 2),
                        help="pages each session visits through the sidebar after its first (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per page (default 60)")
    parser.add_argument("--deadline", type=float, default=600.0, help="seconds for the whole run (default 600)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"JSON results (default {RESULTS})")
    args = parser.parse_args(argv)
    if args.sessions < 1:
        parser.error("--sessions must be at least 1")

    with streamlit_server() as server:
        sampler = MemorySampler(server.process.pid)
        sampler.start()
        started = time.perf_counter()
        try:
            sessions = asyncio.run(asyncio.wait_for(
                _run_all(server.url, args.sessions, args.more, args.timeout * 1000, sampler),
                timeout=args.deadline))
        finally:
            sampler.stop()
        wall_s = time.perf_counter() - started
        server_log = server.log_tail(20_000)
    summary = summarize(sessions, sampler.samples_mb, sampler.idle_mb, wall_s)
    print_report(sessions, summary)
    if summary["served"] < summary["sessions"]:
        print("\nend of the server's output:\n" + server_log[-3000:])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "config": {"sessions": args.sessions, "more": args.more, "timeout_s": args.timeout,
                   "cpus": psutil.cpu_count(), "load_average": psutil.getloadavg()},
        "summary": summary,
        "sessions": [{"index": s.index, "served": s.served, "visits": [asdict(v) for v in s.visits]}
                     for s in sessions],
        "server_rss_mb": sampler.samples_mb,
        "server_log_tail": server_log,
    }, indent=2), encoding="utf-8")
    print(f"\nwrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0 if summary["targets_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
