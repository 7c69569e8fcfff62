"""Concurrent visitors against one app server, at the websocket protocol: are they all served, how fast,
and at what memory?

    python -m bench.load --sessions 40 --mode link [--page frequency-clocks]
    python -m bench.load --sessions 40 --mode random            # random pages, random knob values
    python -m bench.load --sessions 40 --mode link --proxy 2    # through deploy/serve.sh: 2 processes, nginx
    python -m bench.load --url http://127.0.0.1:8501 [--pid PID]   # a server already running

No browser: each session is what a browser tab does when it opens a page by its address, spoken by
support.protocol (fetch the XSRF cookie, open the websocket, ask for a script run of the page, read
the ForwardMsgs until script_finished, close). So on a shared machine the numbers are the server's,
not the browsers'. The client's own CPU seconds are reported beside the server's to show that.

`--mode link`: every session opens the same page (home by default, or `--page` url path), as when one
link is shared. `--mode random`: each session opens a page drawn at random (seeded) from the app's page
list, home included, with every knob of the page at a random valid value (drawn uniformly within the
knob's declared range in explorer.pure.knobs.PAGE_KNOBS, and carried in the page's query string as a shared
link would carry it; `--knobs default` keeps the defaults). `--proxy N` runs the app as deploy/serve.sh
does: N processes behind nginx with sticky sessions (the sampled RSS and CPU are of all of them). Session
starts are spread evenly over `--spread` seconds. Unless `--url` is given, the app is started on a free
loopback port (support.server) and visited once at its home page (the router and torch are then loaded, no
topic page's figures built yet: `--cold` skips that visit).

Targets: every session served; end-of-run p95 under 3 s for one shared link and under 10 s for random
pages; server memory under 1 GB; the first page after a server start (the warm-up visit) under 3 s.
Clocks, in seconds from each session's start: "first chart" until the first plotly_chart delta arrived,
"end" until the final script_finished. A session is served when its run ended successfully on the page
it asked for, without an exception element. The server's RSS (process and children) and CPU seconds are
sampled every 0.2 s. Prints a table (with the CPU's model and torch's CPU capability), writes JSON to
bench-results/load.json, exits 1 when a target is missed. Loopback only; it stops by itself after `--deadline`
seconds at the latest.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import psutil

from explorer.pure.knobs import PAGE_KNOBS
from explorer.pure.sitemap import PAGES, URLS
from explorer.pure.knob_types import BoolKnob, ChoiceKnob, FloatKnob, IntKnob, IntSetKnob, NumberChoiceKnob
from rope_viz.real.speed import cpu_kind, cpu_label
from support.protocol import run_sessions, summarize, visit
from support.server import ROOT, UsageSampler, free_port, streamlit_server, usage

RESULTS = ROOT / "bench-results" / "load.json"
TARGET_P95_S = {"link": 3.0, "random": 10.0}  # end of run, p95 over all sessions
TARGET_PEAK_RSS_MB = 1024.0
TARGET_FIRST_PAGE_S = 3.0  # the first page after a server start (the warm-up visit)
PAGE_IDS = {url: page for page, url, _ in PAGES}


def random_value(spec, rng: random.Random):
    """A value of knob `spec` drawn uniformly within its declared range (None: leave the knob out)."""
    if isinstance(spec, BoolKnob):
        return rng.random() < 0.5
    if isinstance(spec, IntKnob):
        return spec.lo + spec.step * rng.randrange((spec.hi - spec.lo) // spec.step + 1)
    if isinstance(spec, FloatKnob):
        return round(rng.uniform(spec.lo, spec.hi), spec.digits)
    if isinstance(spec, (NumberChoiceKnob, ChoiceKnob)):
        return rng.choice(spec.options)
    if isinstance(spec, IntSetKnob):
        count = rng.randint(1, min(spec.most, spec.hi - spec.lo + 1))
        return tuple(sorted(rng.sample(range(spec.lo, spec.hi + 1), count)))
    return None  # free text (a pasted config): the default


def random_query(url: str, rng: random.Random) -> str:
    """The query string of a link to page `url` with every knob at a random valid value."""
    params = {}
    for name, spec in PAGE_KNOBS.get(PAGE_IDS.get(url, ""), {}).items():
        value = random_value(spec, rng)
        if value is not None:
            params[name] = spec.dump(value)
    return urllib.parse.urlencode(params)


def choose_pages(mode: str, sessions: int, page: str, seed: int,
                 knobs: str = "random") -> list[tuple[str, str]]:
    """(url path, query) for each session: one shared link, or pages drawn at random (seeded), with
    random knob values unless `knobs` is "default"."""
    if mode == "link":
        return [(page, "")] * sessions
    rng = random.Random(seed)
    chosen = []
    for _ in range(sessions):
        url = rng.choice(URLS)
        chosen.append((url, random_query(url, rng) if knobs == "random" else ""))
    return chosen


@contextlib.contextmanager
def behind_proxy(processes: int, startup_timeout: float = 120.0):
    """deploy/serve.sh with `processes` app processes on loopback ports: yields (proxy URL, serve.sh's
    pid: its children are the app processes and nginx) and stops them all on exit."""
    listen = free_port()
    with socket.socket() as probe:  # BACKEND_PORT .. BACKEND_PORT + processes - 1 should be free
        probe.bind(("127.0.0.1", 0))
        backend = probe.getsockname()[1] if probe.getsockname()[1] < 65000 else 20000
    env = {**os.environ, "LISTEN": f"127.0.0.1:{listen}", "BACKEND_PORT": str(backend)}
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(["bash", str(ROOT / "deploy" / "serve.sh"), str(processes)], cwd=ROOT,
                                   env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{listen}"
        try:
            deadline = time.monotonic() + startup_timeout
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                        if response.read() == b"ok":
                            break
                except OSError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"deploy/serve.sh did not come up:\n{log.read().decode()[-3000:]}")
                time.sleep(0.25)
            yield url, process.pid
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_report(visits: list, summary: dict) -> None:
    print(f"{'session':>7} {'start s':>7}  {'page':<22} {'conn s':>6} {'delta s':>7} {'chart s':>7} "
          f"{'end s':>6} {'charts':>6} {'kB':>7}  result")
    for v in visits:
        run = v.run
        result = "served" if run.ok else (run.error or (run.exceptions[0][:60] if run.exceptions else None)
                                           or ("page_not_found" if run.page_not_found is not None else None)
                                           or f"status {run.status}")
        print(f"{v.index:>7} {v.start_s:>7.2f}  {('/' + run.page):<22} {_fmt(v.connected_s):>6} "
              f"{_fmt(run.first_delta_s):>7} {_fmt(run.first_chart_s):>7} {_fmt(run.finished_s):>6} "
              f"{run.charts:>6} {run.bytes / 1000:>7.0f}  {result}")
    print()
    chart, end = summary["first_chart_s"], summary["finished_s"]
    rows = [
        ("sessions served", f"{summary['served']}/{summary['sessions']}"
                            + (f"  failures: {summary['failures']}" if summary["failures"] else "")),
        ("first chart p50 / p95 / max (s)",
         f"{_fmt(chart['p50'])} / {_fmt(chart['p95'])} / {_fmt(chart['max'])}  ({chart['n']} runs with charts)"),
        ("end of run p50 / p95 / max (s)", f"{_fmt(end['p50'])} / {_fmt(end['p95'])} / {_fmt(end['max'])}"
                                           f"  (target p95 < {summary['target_p95_s']:g})"),
        ("first page after the server started (s)",
         f"{_fmt(summary['warm_visit_end_s'])}  (target < {TARGET_FIRST_PAGE_S:g})"),
        ("server RSS idle / peak (MB)",
         f"{_fmt(summary['server_rss_idle_mb'], 0)} / {_fmt(summary['server_rss_peak_mb'], 0)}"
         f"  (target < {TARGET_PEAK_RSS_MB:g})"),
        ("CPU while sessions ran, server / client (s)",
         f"{_fmt(summary['server_cpu_s'], 1)} / {_fmt(summary['client_cpu_s'], 1)}"
         f"  in {_fmt(summary['sessions_wall_s'], 1)} s wall"),
        ("received (MB)", _fmt(summary["received_mb"], 1)),
        ("wall time, warm-up included (s)", _fmt(summary["wall_s"], 1)),
        ("load average (1 min, before / after)",
         f"{summary['load_average_before'][0]:.2f} / {summary['load_average_after'][0]:.2f}"
         f" on {psutil.cpu_count()} CPUs"),
        ("measured on", cpu_label(summary["cpu"])),
        ("targets met", "yes" if summary["targets_met"] else "NO"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=40, help="concurrent sessions (default 40)")
    parser.add_argument("--mode", choices=("link", "random"), default="link",
                        help="link: all open one page; random: each opens a random page (default link)")
    parser.add_argument("--page", default="", help="link mode: the page's url path (default: home)")
    parser.add_argument("--seed", type=int, default=0, help="random mode: the seed (default 0)")
    parser.add_argument("--knobs", choices=("random", "default"), default="random",
                        help="random mode: knob values drawn at random within their ranges, or the defaults")
    parser.add_argument("--proxy", type=int, default=0, metavar="N",
                        help="run N app processes behind nginx (deploy/serve.sh) and measure through it")
    parser.add_argument("--spread", type=float, default=2.0, help="seconds over which sessions start (default 2)")
    parser.add_argument("--url", help="a running server's base URL (default: start one on loopback)")
    parser.add_argument("--pid", type=int, help="with --url: the server's process id, to sample its memory")
    parser.add_argument("--cold", action="store_true", help="skip the warm-up visit of the home page")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per session (default 120)")
    parser.add_argument("--deadline", type=float, default=600.0, help="seconds for the whole run (default 600)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"JSON results (default {RESULTS})")
    args = parser.parse_args(argv)
    if args.sessions < 1:
        parser.error("--sessions must be at least 1")
    if args.url and not args.url.startswith("http://127.0.0.1") and not args.url.startswith("http://localhost"):
        parser.error("--url must be a loopback server (http://127.0.0.1:PORT)")
    page = args.page.strip("/")
    if args.mode == "link" and page not in URLS:
        print(f"note: /{page} is not one of the app's pages; expect page_not_found", file=sys.stderr)
    if args.proxy and args.url:
        parser.error("--proxy starts its own servers: leave out --url")
    pages = choose_pages(args.mode, args.sessions, page, args.seed, args.knobs)

    with contextlib.ExitStack() as stack:
        server, proxy = None, None
        if args.proxy:
            proxy = stack.enter_context(behind_proxy(args.proxy))
        elif not args.url:
            server = stack.enter_context(streamlit_server())
        url = proxy[0] if proxy else args.url.rstrip("/") if args.url else server.url
        pid = proxy[1] if proxy else args.pid if args.url else server.process.pid
        load_before = psutil.getloadavg()
        started = time.perf_counter()

        async def measure():
            async with asyncio.timeout(args.deadline):
                warm_visit = None if args.cold else (await visit(url, "", "", timeout=args.timeout)).as_dict()
                before = usage(pid) if pid else None
                sessions_started, client_cpu = time.perf_counter(), time.process_time()
                visits = await run_sessions(url, pages, spread_s=args.spread, timeout=args.timeout)
                after = usage(pid) if pid else None
                return (warm_visit, before, after, time.perf_counter() - sessions_started,
                        time.process_time() - client_cpu, visits)

        sampler = UsageSampler(pid) if pid else None
        if sampler:
            sampler.start()
        try:
            warm_visit, before, after, sessions_wall_s, client_cpu_s, visits = asyncio.run(measure())
        finally:
            if sampler:
                sampler.stop()
        wall_s = time.perf_counter() - started
        load_after = psutil.getloadavg()
        server_log = server.log_tail(20_000) if server else ""

    summary = summarize(visits)
    samples = sampler.samples if sampler else []
    summary.update({
        "mode": args.mode,
        "page": page if args.mode == "link" else None,
        "warm_visit_end_s": warm_visit["finished_s"] if warm_visit else None,
        "server_rss_idle_mb": before.rss_mb if before else None,  # after the warm-up visit
        "server_rss_peak_mb": sampler.peak_rss_mb if sampler else None,
        "server_cpu_s": after.cpu_s - before.cpu_s if before and after else None,  # during the sessions
        "client_cpu_s": client_cpu_s,
        "sessions_wall_s": sessions_wall_s,
        "wall_s": wall_s,
        "load_average_before": load_before,
        "load_average_after": load_after,
        "proxy_processes": args.proxy or None,
        "target_p95_s": TARGET_P95_S[args.mode],
        "cpu": cpu_kind(),  # the server's too: it inherits this environment (ATEN_CPU_CAPABILITY and the like)
    })
    summary["targets_met"] = (summary["served"] == summary["sessions"]
                              and (summary["finished_s"]["p95"] or 0.0) < TARGET_P95_S[args.mode]
                              and (summary["server_rss_peak_mb"] or 0.0) < TARGET_PEAK_RSS_MB
                              and (summary["warm_visit_end_s"] or 0.0) < TARGET_FIRST_PAGE_S)
    print_report(visits, summary)
    if summary["failed"] and server_log:
        print("\nend of the server's output:\n" + server_log[-3000:])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "config": {"sessions": args.sessions, "mode": args.mode, "page": page, "seed": args.seed,
                   "knobs": args.knobs, "proxy": args.proxy,
                   "spread_s": args.spread, "url": args.url, "cold": args.cold, "timeout_s": args.timeout,
                   "cpus": psutil.cpu_count()},
        "summary": summary,
        "warm_visit": warm_visit,
        "sessions": [v.as_dict() for v in visits],
        "server_usage": [{"t_s": round(t, 2), "rss_mb": round(u.rss_mb, 1), "cpu_s": round(u.cpu_s, 2)}
                         for t, u in samples],
        "server_log_tail": server_log,
    }, indent=2), encoding="utf-8")
    print(f"\nwrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0 if summary["targets_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
