"""The real-models page live, at the websocket protocol: a visitor's own text, a class of forty, a flood.

    python -m bench.real_models_live                  # both models, the class on SmolLM2-135M
    python -m bench.real_models_live --class-size 8   # a smaller class
    python -m bench.real_models_live --own-only       # only an own text per model, beside the yardstick forward
    python -m bench.real_models_live --own-only --root /tmp/old-checkout   # the same against another copy of the app
    python -m bench.real_models_live --own-only --page pairs-in-real-models   # the pairs page's own text instead

One app server (support.server) serves every case; each visitor is a websocket session (support.protocol), so
no browser competes with the server for the two cores. Per model, after one visit that loads it:
- own text: a fresh text of MAX_TOKENS tokens (cut from results/real/stdlib_docstrings.txt); "first content" is
  when the attention map arrives (the summary sentence is drawn before it), "whole page" when the run ends, and
  "sections" when each chart arrived;
- knob changes: a new session on the same text with one knob moved (layer, head, shift, spacing, trap layer):
  its whole run, which measures only what the knob needs (the rest was kept by the queue);
- a shared link: CLASS sessions opening an example at once (end p95).
Then, with both models loaded:
- a class: CLASS sessions each with its own text at once (a short text of CLASS_TOKENS tokens each, on
  SmolLM2): served, end p50/p95/max, how many saw their place in the queue, the server's peak RSS;
- a flood: one session sending 2,000-character texts as fast as the websocket takes them for FLOOD_S seconds
  while one bystander opens its own text; the bystander's whole page beside the same alone.
--own-only measures, per model, the own text alone (and, where the page keeps the traps until asked, the same link
with traps=1: the traps alone), beside the yardstick: one float32 forward of the same token ids by transformers' model
from the same GGUF file, two threads, the best of 3, measured in this process after the server has stopped. Its
targets: first content <= 2 forwards + 1 s, whole page (traps included) <= 10 forwards + 2 s. --page names the page
measured (default real-models; pairs-in-real-models: its first chart is the layer's norms, its one target the first
content's; its whole page, the interventions included, is printed beside it).
Every table is printed beside the CPU's model and torch's CPU capability (forced ones named).
Prints a table, writes bench-results/real_models_live.json, exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import urllib.parse

from pathlib import Path

from rope_viz.real.speed import cpu_kind, cpu_label
from support.protocol import Session, percentile, run_async
from support.server import ROOT, UsageSampler, streamlit_server

RESULTS = ROOT / "bench-results" / "real_models_live.json"
CORPUS = ROOT / "results" / "real" / "stdlib_docstrings.txt"
PAGES = ("real-models", "pairs-in-real-models")
PAGE = PAGES[0]  # the page the sessions open (--page, for --own-only)
MODELS = ("smollm2-135m", "gemma-3-270m")
OWN_CHARS = 1500          # about 300 tokens: cut to the page's 256
CLASS_CHARS = 300         # a class's own texts: a few sentences each (about 60 tokens)
FLOOD_S = 20.0
TIMEOUT_S = 900.0
KNOBS = {"layer": 5, "head": 1, "shift": 777, "spacing": 8, "trap_layer": 3}
TARGETS = {"smollm2-135m": {"first": 2.0, "page": 8.0, "knob": 1.0},
           "gemma-3-270m": {"first": 4.0, "page": 20.0, "knob": 3.0}}
TARGET_LINK_P95_S, TARGET_RSS_GB = 0.5, 2.0


def own_text(index: int, chars: int = OWN_CHARS) -> str:
    """A different slice of the corpus for each index."""
    corpus = CORPUS.read_text(encoding="utf-8")
    start = (index * 7919) % (len(corpus) - chars)
    return corpus[start:start + chars]


def query(model: str, text: str | None = None, **knobs) -> str:
    values = {"model": model, **({"text": text} if text is not None else {}), **knobs}
    return urllib.parse.urlencode(values)


async def one_run(url: str, q: str):
    async with Session(url, timeout=TIMEOUT_S) as session:
        return await session.run(PAGE, q)


async def many(url: str, queries: list[str], spread_s: float = 1.0):
    async def delayed(i, q):
        await asyncio.sleep(spread_s * i / max(len(queries), 1))
        return await one_run(url, q)
    return await asyncio.gather(*(delayed(i, q) for i, q in enumerate(queries)))


async def flood(url: str, seconds: float, sent: list) -> None:
    """One session that sends a new 2,000-character own text as fast as the socket takes it, reading nothing
    but what keeps the socket open."""
    async with Session(url, timeout=TIMEOUT_S) as session:
        async def drain():
            while True:
                await session.receive(timeout=TIMEOUT_S)
        reader = asyncio.create_task(drain())
        deadline = time.perf_counter() + seconds
        i = 0
        while time.perf_counter() < deadline:
            await session.send_rerun(PAGE, query("smollm2-135m", own_text(1000 + i, 2000)))
            sent.append(i)
            i += 1
            await asyncio.sleep(0)
        reader.cancel()


def _end(run) -> float | None:
    return None if run.finished_s is None or run.sent_s is None else run.finished_s - run.sent_s


def _since(run, when: float | None) -> float | None:
    return None if when is None or run.sent_s is None else when - run.sent_s


def measure_model(url: str, model: str, index: int) -> dict:
    run_async(one_run(url, query(model)))  # loads the model
    text = own_text(index)
    first = run_async(one_run(url, query(model, text)))
    row = {"ok": first.ok, "first_content_s": _since(first, first.chart_times[0] if first.chart_times else None),
           "whole_page_s": _end(first), "sections_s": [_since(first, t) for t in first.chart_times],
           "errors": first.exceptions + ([first.error] if first.error else [])}
    row["knobs_s"] = {}
    for knob, value in KNOBS.items():
        moved = run_async(one_run(url, query(model, text, **{knob: value})))
        row["knobs_s"][knob] = _end(moved) if moved.ok else None
    links = run_async(many(url, [query(model)] * CLASS, spread_s=2.0))
    row["link"] = {"served": sum(r.ok for r in links), "sessions": len(links),
                   "p95_s": percentile([_end(r) for r in links if r.ok], 0.95)}
    return row


def measure_class(url: str, sampler: UsageSampler) -> dict:
    queries = [query("smollm2-135m", own_text(100 + i, CLASS_CHARS)) for i in range(CLASS)]
    runs = run_async(many(url, queries, spread_s=2.0))
    ends = [_end(r) for r in runs if r.ok]
    placed = sum(any("waits its turn" in text for _, text in r.notices) for r in runs)
    firsts = [_since(r, r.chart_times[0]) for r in runs if r.ok and r.chart_times]
    return {"served": sum(r.ok for r in runs), "sessions": len(runs), "p50_s": percentile(ends, 0.5),
            "p95_s": percentile(ends, 0.95), "max_s": max(ends, default=None), "saw_place": placed,
            "first_content_p50_s": percentile(firsts, 0.5), "first_content_max_s": max(firsts, default=None),
            "peak_rss_gb": (sampler.peak_rss_mb or 0.0) * 2 ** 20 / 1e9}


def measure_flood(url: str) -> dict:
    alone = run_async(one_run(url, query("smollm2-135m", own_text(5000))))

    async def both():
        sent: list = []
        flooder = asyncio.create_task(flood(url, FLOOD_S, sent))
        await asyncio.sleep(2.0)
        bystander = await one_run(url, query("smollm2-135m", own_text(6000)))
        await flooder
        return bystander, len(sent)
    bystander, sent = run_async(both())
    return {"alone_s": _end(alone), "with_flood_s": _end(bystander), "bystander_ok": bystander.ok,
            "flood_texts_sent": sent}


def yardstick(model: str, text: str, repeats: int = 3) -> float:
    """Seconds of one float32 forward of the page's token ids of `text` by transformers' model from the same GGUF file,
    two threads, the best of `repeats`."""
    import torch
    from transformers import AutoModelForCausalLM

    from explorer.pure.views.real_models import read
    from rope_viz.real.weights import gguf_path

    torch.set_num_threads(2)
    path = gguf_path(model)
    reference = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    ids = torch.tensor([read(model, text).ids])
    best = float("inf")
    with torch.inference_mode():
        for _ in range(repeats + 1):  # the first one warms up
            start = time.perf_counter()
            reference(ids)
            best = min(best, time.perf_counter() - start)
    return best


def measure_own(url: str, model: str, index: int) -> dict:
    """An own text alone (after one visit that loads the model: the example, or on the pairs page, whose examples
    are recorded and load nothing, a short own text), then the traps alone where the page waits to be asked for
    them."""
    run_async(one_run(url, query(model) if PAGE == PAGES[0] else query(model, own_text(500 + index, CLASS_CHARS))))
    text = own_text(index)
    first = run_async(one_run(url, query(model, text)))
    row = {"ok": first.ok, "first_content_s": _since(first, first.chart_times[0] if first.chart_times else None),
           "whole_page_s": _end(first), "charts": len(first.chart_times),
           "asked": any("Measure the traps" in text for _, text in first.notices),
           "errors": first.exceptions + ([first.error] if first.error else [])}
    if row["asked"]:
        traps = run_async(one_run(url, query(model, text, traps=1)))
        row["traps_alone_s"] = _end(traps)
    row["with_traps_s"] = (row["whole_page_s"] or 0.0) + (row.get("traps_alone_s") or 0.0)
    return row


def main_own(args) -> int:
    cpu, load = cpu_kind(), os.getloadavg()  # the load before the server starts: what else shares the CPU
    started = time.perf_counter()
    with streamlit_server(startup_timeout=300, root=Path(args.root)) as server:
        rows = {model: measure_own(server.url, model, MODELS.index(model)) for model in args.models}
    for model, row in rows.items():
        row["yardstick_s"] = yardstick(model, own_text(MODELS.index(model)))
    print(f"\n{PAGE}, an own text of {OWN_CHARS} characters (256 tokens), {args.root}; {cpu_label(cpu)}, "
          f"{os.cpu_count()} CPUs, load average {load[0]:.1f} before the run")
    print("| model | yardstick forward s | first content s (forwards) | whole page s (forwards) | traps alone s | "
          "page with traps s (forwards) |")
    print("|---|---|---|---|---|---|")
    checked = []
    for model, r in rows.items():
        y = r["yardstick_s"]

        def n(v, y=y):
            return "–" if v is None else f"{v:.2f} ({v / y:.1f})"
        print(f"| {model} | {y:.2f} | {n(r['first_content_s'])} | {n(r['whole_page_s'])} | "
              f"{_fmt(r.get('traps_alone_s'))} | {n(r['with_traps_s'])} |")
        checked += [{"what": f"{model}: first content (s)", "value": r["first_content_s"], "limit": 2 * y + 1}]
        if PAGE == PAGES[0]:  # the pairs page's goal is its first chart; its interventions go by the queue's share
            checked += [{"what": f"{model}: whole page, traps included (s)", "value": r["with_traps_s"],
                         "limit": 10 * y + 2}]
    for c in checked:
        c["pass"] = c["value"] is not None and c["value"] <= c["limit"]
        print(f"{'met' if c['pass'] else 'MISSED'}: {c['what']} {_fmt(c['value'])} (at most {c['limit']:.2f})")
    own = "real_models_own.json" if PAGE == PAGES[0] else f"{PAGE.replace('-', '_')}_own.json"
    out = Path(args.out if args.out != str(RESULTS) else RESULTS.with_name(own))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"cpu": cpu, "page": PAGE, "load_average_before": load,
                               "load_average_after": os.getloadavg(), "root": args.root, "models": rows,
                               "targets": checked, "wall_s": time.perf_counter() - started}, indent=1),
                   encoding="utf-8")
    return 0 if all(c["pass"] for c in checked) else 1


def _fmt(value, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    global CLASS, PAGE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--class-size", type=int, default=40, help="sessions of the class cases (default 40)")
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--own-only", action="store_true", help="only an own text per model, beside the yardstick")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS, help="--own-only's models")
    parser.add_argument("--root", default=str(ROOT), help="the copy of the app to serve (default this checkout)")
    parser.add_argument("--page", default=PAGE, choices=PAGES, help="--own-only's page (default real-models)")
    args = parser.parse_args(argv)
    if args.own_only:
        PAGE = args.page
        return main_own(args)
    CLASS = args.class_size
    started = time.perf_counter()
    with streamlit_server(startup_timeout=300) as server, UsageSampler(server.process.pid) as sampler:
        models = {model: measure_model(server.url, model, i) for i, model in enumerate(MODELS)}
        crowd = measure_class(server.url, sampler)
        flooded = measure_flood(server.url)
        log_tail = server.log_tail(20000)  # a failed run's traceback lands here
    cpu = cpu_kind()
    print(f"\nreal models live: one server, websocket sessions ({time.perf_counter() - started:.0f} s); "
          f"{cpu_label(cpu)}")
    print("| model | first content s | whole page s | knob changes s (layer, head, shift, spacing, trap) | "
          f"{CLASS} on a link: served, p95 s |")
    print("|---|---|---|---|---|")
    for model, r in models.items():
        knobs = ", ".join(_fmt(v) for v in r["knobs_s"].values())
        print(f"| {model} | {_fmt(r['first_content_s'])} | {_fmt(r['whole_page_s'])} | {knobs} | "
              f"{r['link']['served']}/{r['link']['sessions']}, {_fmt(r['link']['p95_s'])} |")
    print(f"\nclass: {crowd['served']}/{crowd['sessions']} own texts served, first content p50 "
          f"{_fmt(crowd['first_content_p50_s'])} s, max {_fmt(crowd['first_content_max_s'])} s; "
          f"end p50 {_fmt(crowd['p50_s'])} s, "
          f"p95 {_fmt(crowd['p95_s'])} s, max {_fmt(crowd['max_s'])} s; {crowd['saw_place']} saw their place in "
          f"the queue; server peak RSS {crowd['peak_rss_gb']:.2f} GB")
    print(f"flood: a bystander's own text took {_fmt(flooded['with_flood_s'])} s beside "
          f"{flooded['flood_texts_sent']} flooded texts ({_fmt(flooded['alone_s'])} s alone)")
    targets = []
    for model, r in models.items():
        limit = TARGETS[model]
        targets += [(f"{model}: first content (s)", r["first_content_s"], limit["first"]),
                    (f"{model}: whole page (s)", r["whole_page_s"], limit["page"]),
                    (f"{model}: slowest knob change (s)", max((v for v in r["knobs_s"].values() if v), default=None),
                     limit["knob"]),
                    (f"{model}: {CLASS} on a link, p95 (s)", r["link"]["p95_s"], TARGET_LINK_P95_S)]
    targets += [("class: own texts not served", crowd["sessions"] - crowd["served"], 0),
                ("server peak RSS (GB)", crowd["peak_rss_gb"], TARGET_RSS_GB)]
    checked = [{"what": what, "value": value, "limit": limit, "pass": value is not None and value <= limit}
               for what, value, limit in targets]
    for c in checked:
        print(f"{'met' if c['pass'] else 'MISSED'}: {c['what']} {_fmt(c['value'])} (at most {c['limit']:g})")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"cpu": cpu_kind(), "models": models, "class": crowd, "flood": flooded, "targets": checked,
                   "server_log": log_tail, "class_size": CLASS, "wall_s": time.perf_counter() - started}, f, indent=1)
    return 0 if all(c["pass"] for c in checked) else 1


CLASS = 40

if __name__ == "__main__":
    raise SystemExit(main())
