"""A page's first visit on a fresh server, at the websocket protocol: how long until its run ends.

    python -m bench.first_visit                                   # the designs page, this tree, 3 rounds
    python -m bench.first_visit --page trained-models --rounds 5
    python -m bench.first_visit --compare /tmp/before              # another checkout, side by side

Each round starts a new server (support.server), lets one session open the page by its address as the
very first visit (torch, the router and the page's caches all cold), then a second session open it again
(warm). Clocks are support.protocol's, in seconds from each session's start: "first chart" until the first
plotly_chart delta, "end" until the final script_finished; with the server's CPU seconds over each visit.
With --compare, the two trees take turns round by round, so that the machine's load falls on both alike.

Target: the first visit ends within 5 s (TARGET_FIRST_VISIT_S). Prints a table, writes JSON to
bench-results/first_visit.json, exits 1 when a round of this tree misses the target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

import psutil

from support.protocol import visit
from support.server import ROOT, streamlit_server, usage

RESULTS = ROOT / "bench-results" / "first_visit.json"
TARGET_FIRST_VISIT_S = 5.0


def one_round(root: Path, page: str, timeout: float) -> dict:
    """A fresh server from `root`: the page's first visit, then a second one; their clocks and CPU seconds."""
    with streamlit_server(root=root) as server:
        pid = server.process.pid
        out = {"load": psutil.getloadavg()[0]}
        for name in ("first", "warm"):
            before = usage(pid).cpu_s
            run = asyncio.run(visit(server.url, page, "", timeout=timeout)).run
            out[name] = {"ok": run.ok, "end_s": run.finished_s, "first_chart_s": run.first_chart_s,
                         "server_cpu_s": usage(pid).cpu_s - before, "error": run.error,
                         "exceptions": run.exceptions}
    return out


def _median(rows: list[dict], visit_name: str, key: str) -> float | None:
    values = [r[visit_name][key] for r in rows if r[visit_name][key] is not None]
    return statistics.median(values) if values else None


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default="rope-designs", help="the page's url path (default rope-designs)")
    parser.add_argument("--rounds", type=int, default=3, help="fresh servers per tree (default 3)")
    parser.add_argument("--compare", type=Path, help="another checkout of the app, measured in turn")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds allowed per visit (default 300)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"JSON results (default {RESULTS})")
    args = parser.parse_args(argv)
    trees = {"this tree": ROOT} | ({"compared": args.compare.resolve()} if args.compare else {})
    rows: dict[str, list[dict]] = {name: [] for name in trees}
    started = time.perf_counter()
    for i in range(args.rounds):
        for name, root in (trees.items() if i % 2 == 0 else reversed(trees.items())):
            rows[name].append(one_round(root, args.page.strip("/"), args.timeout))
            r = rows[name][-1]
            print(f"round {i + 1}, {name}: first visit end {_fmt(r['first']['end_s'])} s "
                  f"(first chart {_fmt(r['first']['first_chart_s'])} s), warm {_fmt(r['warm']['end_s'])} s, "
                  f"load {r['load']:.1f}", flush=True)
    print(f"\n/{args.page}: median over {args.rounds} fresh servers (seconds; server CPU seconds)")
    print("| tree | first visit end | first chart | server CPU | warm visit end | served |")
    print("|---|---|---|---|---|---|")
    summary = {}
    for name, found in rows.items():
        summary[name] = {key: _median(found, v, k) for key, v, k in (
            ("first_end_s", "first", "end_s"), ("first_chart_s", "first", "first_chart_s"),
            ("first_cpu_s", "first", "server_cpu_s"), ("warm_end_s", "warm", "end_s"))}
        served = sum(r["first"]["ok"] and r["warm"]["ok"] for r in found)
        s = summary[name]
        print(f"| {name} | {_fmt(s['first_end_s'])} | {_fmt(s['first_chart_s'])} | {_fmt(s['first_cpu_s'])} | "
              f"{_fmt(s['warm_end_s'])} | {served}/{len(found)} |")
    mine = rows["this tree"]
    met = all(r["first"]["ok"] and r["first"]["end_s"] <= TARGET_FIRST_VISIT_S for r in mine)
    print(f"target: first visit within {TARGET_FIRST_VISIT_S:g} s on this tree: {'met' if met else 'missed'}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"page": args.page, "rounds": rows, "summary": summary,
                                    "trees": {k: str(v) for k, v in trees.items()},
                                    "target_first_visit_s": TARGET_FIRST_VISIT_S, "met": met,
                                    "wall_s": time.perf_counter() - started}, indent=1), encoding="utf-8")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
