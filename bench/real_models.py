"""What the real models (rope_viz.real) cost a server: memory, load time and the CPU time of a forward.

    python -m bench.real_models                 # both models, 3 fresh processes per measurement
    python -m bench.real_models --convert smollm2-135m   # also time its first conversion (a temporary cache)

Each measurement runs in a fresh Python process (python -m bench.real_models --child ...) that has imported torch
and rope_viz.real, as a server has: the resident memory (RSS) before loading, after loading one model (or both),
and after a forward on each (a forward reads every weight, where the load alone maps the cached file lazily); the
wall and CPU seconds of a load from the converted cache (~/.cache/rope_viz/real, or $ROPE_VIZ_CACHE); the CPU
seconds (time.process_time, all threads) of a forward on 128 tokens of results/real/stdlib_docstrings.txt with all
logits, with 1 torch thread and with torch's default count, the first one after the load and the median of 3 more.
--convert times the one-time conversion of the models it names from the pip package's GGUF file into a temporary
cache (the shared one is left alone).

Targets: one model adds at most 1.2 GB, both at most 2 GB; a load from the cache takes at most 10 s; a forward on
128 tokens costs at most 2 CPU-seconds (1 thread, median). Prints a table, writes bench-results/real_models.json,
exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.core import _check
from rope_viz.real import NAMES

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench-results" / "real_models.json"
TEXT = ROOT / "results" / "real" / "stdlib_docstrings.txt"
TOKENS = 128
GB = 1e9
TARGET_ONE_GB, TARGET_BOTH_GB, TARGET_LOAD_S, TARGET_FORWARD_CPU_S = 1.2, 2.0, 10.0, 2.0


def child(names: list[str], threads: int | None) -> dict:
    """In this (fresh) process: load `names` one after another, run a forward on each (timed on the first, with
    `threads`, when threads is not None; 0 keeps torch's default count), then read the RSS again."""
    import psutil
    import torch

    import rope_viz.real as real

    process = psutil.Process()
    out = {"rss_before": process.memory_info().rss, "loads": []}
    for name in names:
        cpu, wall = time.process_time(), time.perf_counter()
        real.real_model(name)
        out["loads"].append({"name": name, "wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                             "rss": process.memory_info().rss})
    if threads:
        torch.set_num_threads(threads)
    for name in names:  # a forward reads every weight: the memory a model holds once it has been used
        lm = real.real_model(name)
        ids = lm.encode(TEXT.read_text(encoding="utf-8"))[:TOKENS]
        costs = []
        for _ in range(4 if threads is not None else 1):
            cpu = time.process_time()
            lm.logits(ids)
            costs.append(time.process_time() - cpu)
        if name == names[0] and threads is not None:
            out["forward"] = {"threads": torch.get_num_threads(), "first_cpu_s": costs[0],
                              "median_cpu_s": statistics.median(costs[1:])}
    out["rss_used"] = process.memory_info().rss
    return out


def _fresh(names: list[str], threads: int | None = None, env: dict | None = None) -> dict:
    argv = [sys.executable, "-m", "bench.real_models", "--child", *names]
    if threads is not None:
        argv += ["--threads", str(threads)]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(names: list[str], rounds: int, convert=()) -> dict:
    rows = {}
    for name in names:
        runs = [_fresh([name], threads=1) for _ in range(rounds)]
        default = _fresh([name], threads=0)
        row = {"added_gb": statistics.median((r["rss_used"] - r["rss_before"]) / GB for r in runs),
               "added_at_load_gb": statistics.median((r["loads"][0]["rss"] - r["rss_before"]) / GB for r in runs),
               "load_wall_s": statistics.median(r["loads"][0]["wall_s"] for r in runs),
               "load_cpu_s": statistics.median(r["loads"][0]["cpu_s"] for r in runs),
               "forward_1_thread_cpu_s": statistics.median(r["forward"]["median_cpu_s"] for r in runs),
               "forward_1_thread_first_cpu_s": statistics.median(r["forward"]["first_cpu_s"] for r in runs),
               "forward_default_cpu_s": default["forward"]["median_cpu_s"],
               "default_threads": default["forward"]["threads"]}
        if name in convert:
            with tempfile.TemporaryDirectory() as cache:
                first = _fresh([name], env=os.environ | {"ROPE_VIZ_CACHE": cache})
            row["convert_wall_s"] = first["loads"][0]["wall_s"]
            row["convert_cpu_s"] = first["loads"][0]["cpu_s"]
        rows[name] = row
    both = [_fresh(names) for _ in range(rounds)]
    rows["both"] = {"added_gb": statistics.median((r["rss_used"] - r["rss_before"]) / GB for r in both),
                    "added_at_load_gb": statistics.median((r["loads"][-1]["rss"] - r["rss_before"]) / GB for r in both),
                    "load_wall_s": statistics.median(sum(load["wall_s"] for load in r["loads"]) for r in both),
                    "load_cpu_s": statistics.median(sum(load["cpu_s"] for load in r["loads"]) for r in both)}
    return rows


def _fmt(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per measurement (median; default 3)")
    parser.add_argument("--convert", nargs="*", default=[], choices=NAMES,
                        help="models whose first conversion is timed too (into a temporary cache)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"JSON results (default {RESULTS})")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.threads)))
        return 0
    started = time.perf_counter()
    rows = measure(list(NAMES), args.rounds, args.convert)
    print(f"\nreal models: median over {args.rounds} fresh processes (GB of RSS; seconds; CPU-seconds)")
    print("| model | RSS added after a forward (at load) | load from cache, wall (CPU) | first conversion | "
          "forward, 128 tokens, 1 thread (first) | forward, default threads |")
    print("|---|---|---|---|---|---|")
    for name, r in rows.items():
        convert = f"{_fmt(r.get('convert_wall_s'))} s" if "convert_wall_s" in r else "–"
        forward = (f"{_fmt(r['forward_1_thread_cpu_s'])} ({_fmt(r['forward_1_thread_first_cpu_s'])})"
                   if name != "both" else "–")
        default = f"{_fmt(r['forward_default_cpu_s'])} ({r['default_threads']} threads)" if name != "both" else "–"
        print(f"| {name} | {r['added_gb']:.2f} GB ({r['added_at_load_gb']:.2f}) | {_fmt(r['load_wall_s'])} s "
              f"({_fmt(r['load_cpu_s'])}) | {convert} | {forward} | {default} |")
    targets = [_check("both models: RSS added (GB)", rows["both"]["added_gb"], TARGET_BOTH_GB)]
    for name in NAMES:
        r = rows[name]
        targets += [_check(f"{name}: RSS added (GB)", r["added_gb"], TARGET_ONE_GB),
                    _check(f"{name}: load from cache (s)", r["load_wall_s"], TARGET_LOAD_S),
                    _check(f"{name}: forward on {TOKENS} tokens, 1 thread (CPU-s)", r["forward_1_thread_cpu_s"],
                           TARGET_FORWARD_CPU_S)]
    for t in targets:
        print(f"{'met' if t['pass'] else 'MISSED'}: {t['what']} {t['value']:.2f} (at most {t['limit']:g})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "targets": targets, "rounds": args.rounds, "tokens": TOKENS,
                                    "wall_s": time.perf_counter() - started}, indent=1), encoding="utf-8")
    return 0 if all(t["pass"] for t in targets) else 1


if __name__ == "__main__":
    raise SystemExit(main())
