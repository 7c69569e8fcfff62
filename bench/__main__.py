"""`python -m bench [core] [pages] [costs] [browser] [layout] [conformance]`: run the benchmark sections (all of them by
default), print their tables and write bench-results/<section>.json. Exits with 1 when a target is missed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "bench-results"


def _core(args):
    from bench import core

    return core.run(rounds=args.rounds)


def _pages(args):
    from bench import page_costs

    return page_costs.run(reruns=args.reruns)


def _costs(args):
    from bench import page_costs

    return page_costs.run_cold(reruns=min(args.reruns, 3), only=args.only)


def _browser(args):
    from bench import page_costs

    return page_costs.run_browser()


def _layout(args):
    from bench import layout

    return layout.run(save_shots=args.save_shots, only=args.only, root=args.root)


def _conformance(args):
    from bench import conformance

    return conformance.run(rounds=min(args.rounds, 3))


SECTIONS = {"core": _core, "pages": _pages, "costs": _costs, "browser": _browser, "layout": _layout,
            "conformance": _conformance}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("sections", nargs="*", metavar="section",
                        help=f"which sections to run, of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--rounds", type=int, default=7, help="core: timing rounds per size (median)")
    parser.add_argument("--reruns", type=int, default=5, help="pages: timed warm reruns per page (median)")
    parser.add_argument("--save-shots", action="store_true",
                        help="layout: a screenshot of every view's first screen in test-artifacts/layout/")
    parser.add_argument("--only", default="", help="layout, costs: only the views (pages) whose name holds this text")
    parser.add_argument("--root", default=None, help="layout: the checkout whose app is checked (default: this one)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.sections if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    RESULTS.mkdir(exist_ok=True)
    failed = False
    for name in args.sections or list(SECTIONS):
        print(f"== {name} ==", flush=True)
        result = SECTIONS[name](args)
        path = RESULTS / f"{name}.json"
        path.write_text(json.dumps(result, indent=2), encoding="utf-8")
        print(f"wrote {path}", flush=True)
        failed = failed or not all(check["pass"] for check in result.get("targets", []))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
