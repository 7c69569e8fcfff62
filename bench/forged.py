"""What forged client messages cost a fresh server, at the websocket protocol: the heavy-work rules' cases.

    python -m bench.forged                      # this checkout
    python -m bench.forged --root /path/to/another/checkout    # the same cases on another copy of the app

- training presses: one session pressing Train it yourself every 2 s for a minute, and five sessions every 10 s
  (support.hostile.training_cost: the server's CPU seconds over that minute, its RSS before, at its peak and once
  the last run ended, and what the presses started);
- clear_cache: a cached view (relative attention) opened, a forged `clear_cache` message from another session, the
  same view opened again: both end times;
- Linear attention's timing toggle: the server's RSS before and at its peak while one visitor opens it.
Prints the JSON, writes bench-results/forged.json (or --out).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg

from support.hostile import TRAINED, measure, settled, training_cost
from support.protocol import Session, run_async, visit
from support.server import ROOT, Server, streamlit_server

RESULTS = ROOT / "bench-results" / "forged.json"
CACHED = ("relative-attention", "lang=en")


def _end(found) -> float | None:
    run = found.run
    return None if run.finished_s is None or run.sent_s is None else round(run.finished_s - run.sent_s, 3)


async def clear_cache(server: Server) -> dict:
    await visit(server.url, *CACHED, timeout=120.0)
    warm = await visit(server.url, *CACHED, timeout=120.0)
    async with Session(server.url) as forger:
        await forger.send(BackMsg(clear_cache=True))
        await asyncio.sleep(1.0)
    after = await visit(server.url, *CACHED, timeout=120.0)
    return {"cached_view_s": _end(warm), "after_clear_cache_s": _end(after)}


async def timing_toggle(server: Server) -> dict:
    await visit(server.url, "linear-attention", "lang=en", timeout=120.0)
    await settled(server)
    async with measure(server, settle_s=1.0) as cost:
        found = await visit(server.url, "linear-attention", "lang=en&timing=true", timeout=300.0)
    return {"served": found.run.ok, "rss_before_mb": round(cost.rss_before_mb),
            "rss_peak_mb": round(cost.rss_peak_mb), "added_at_peak_mb": round(cost.rss_peak_mb - cost.rss_before_mb),
            "cpu_s": round(cost.cpu_s, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(ROOT), help="the folder holding app.py (another copy to compare)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the presses go on (default 60)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    async def go(server: Server) -> dict:
        for page in ("", TRAINED):  # what a fresh server's first visits pay for is not measured
            await visit(server.url, page, "lang=en", timeout=120.0)
        found = {"clear_cache": await clear_cache(server), "timing_toggle": await timing_toggle(server)}
        await settled(server)
        found["press_1_every_2s"] = await training_cost(server, seconds=args.seconds, every=2.0, sessions=1)
        await settled(server)
        found["press_5_every_10s"] = await training_cost(server, seconds=args.seconds, every=10.0, sessions=5)
        return found

    with streamlit_server(root=Path(args.root)) as server:
        found = run_async(go(server))
    found["root"] = args.root
    print(json.dumps(found, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(found, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
