"""What forged client messages cost a fresh server, at the websocket protocol: the heavy-work rules' cases.

    python -m bench.forged                      # this checkout
    python -m bench.forged --root /path/to/another/checkout    # the same cases on another copy of the app

- training presses: one session pressing Train it yourself every 2 s for a minute, and five sessions every 10 s
  (support.hostile.training_cost: the server's CPU seconds over that minute, its RSS before, at its peak and once
  the last run ended, and what the presses started);
- clear_cache: a cached view (relative attention) opened, a forged `clear_cache` message from another session, the
  same view opened again: both end times;
- Linear attention's timing toggle: the server's RSS before, at its peak while one visitor opens it, and once that
  visitor has gone; the same with every other knob of the page at its heaviest valid value;
- Frequency clocks' `max_pos` slider at 505-512 (valid values, every other knob at its heaviest): the server's CPU
  seconds for each message (each a new value, so nothing is cached yet), the costliest reported;
- the stop button: one session starts a run and presses stop; seconds until no run is in progress (and the same for a
  session that closes while its run trains).
Prints the JSON, writes bench-results/forged.json (or --out).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from urllib.parse import urlencode

from streamlit.proto.BackMsg_pb2 import BackMsg

from explorer.pure.knobs import heaviest
from support.hostile import (START_BUTTON, TRAINED, WidgetSession, measure, settled, training_cost, training_idle)
from support.protocol import Session, run_async, visit, widget_state
from support.server import ROOT, Server, streamlit_server

RESULTS = ROOT / "bench-results" / "forged.json"
CACHED = ("relative-attention", "lang=en")
CLOCKS = "frequency-clocks"
STOP_BUTTON = "trained_models.stop_button"


def _without(params: dict, name: str) -> dict:
    return {key: value for key, value in params.items() if key != name}


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


async def timing_toggle(server: Server, query: str = "lang=en") -> dict:
    await visit(server.url, "linear-attention", query, timeout=120.0)
    await settled(server)
    async with measure(server, settle_s=2.0) as cost:
        found = await visit(server.url, "linear-attention", f"{query}&timing=true", timeout=300.0)
    return {"served": found.run.ok, "rss_before_mb": round(cost.rss_before_mb),
            "rss_peak_mb": round(cost.rss_peak_mb), "added_at_peak_mb": round(cost.rss_peak_mb - cost.rss_before_mb),
            "kept_mb": round(cost.kept_mb), "cpu_s": round(cost.cpu_s, 1)}


async def clocks_max_pos(server: Server, values=range(505, 513)) -> dict:
    """One session moves max_pos through `values` with every other knob at its heaviest: CPU seconds per message."""
    heavy = {**heaviest("frequency_clocks"), "lang": "en"}
    per_message = {}
    async with Session(server.url, timeout=300.0) as session:
        await session.run(CLOCKS, urlencode({**heavy, "max_pos": 496}))
        await settled(server)
        for value in values:
            async with measure(server, settle_s=0.2) as cost:
                run = await session.run(CLOCKS, urlencode({**heavy, "max_pos": value}))
            per_message[value] = {"ok": run.ok, "cpu_s": round(cost.cpu_s, 2), "wall_s": round(cost.wall_s, 2)}
    return {"knobs": heavy, "per_message": per_message,
            "worst_cpu_s": max(found["cpu_s"] for found in per_message.values())}


async def stop_press(server: Server) -> dict:
    """A session presses Train it yourself, then stop: seconds until no run is in progress; then a session that
    starts a run and closes: the same."""
    found = {}
    for how in ("stop", "closed"):
        await training_idle(server.url)
        async with WidgetSession(server.url, timeout=120.0) as session:
            await session.run(TRAINED, "lang=en")
            press = widget_state(session.widget_id(START_BUTTON), trigger_value=True)
            await session.run(TRAINED, "lang=en", widget_states=[press])
            await asyncio.sleep(3.0)
            await session.run(TRAINED, "lang=en")
            if how == "stop":
                stop = widget_state(session.widget_id(STOP_BUTTON), trigger_value=True)
                await session.run(TRAINED, "lang=en", widget_states=[stop])
            began = time.perf_counter()
        idle = await training_idle(server.url, timeout=300.0, poll_s=0.5)
        found[f"idle_after_{how}_s"] = round(time.perf_counter() - began, 1) if idle else None
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(ROOT), help="the folder holding app.py (another copy to compare)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the presses go on (default 60)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    async def go(server: Server) -> dict:
        for page in ("", TRAINED):  # what a fresh server's first visits pay for is not measured
            await visit(server.url, page, "lang=en", timeout=120.0)
        heaviest_timing = urlencode({**_without(heaviest("linear_attention"), "timing"), "lang": "en"})
        found = {"clear_cache": await clear_cache(server), "timing_toggle": await timing_toggle(server),
                 "timing_toggle_heaviest": await timing_toggle(server, heaviest_timing),
                 "clocks_max_pos": await clocks_max_pos(server)}
        await settled(server)
        found["stop_press"] = await stop_press(server)
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
