"""The report card: every preset run through each engine's adapter, a verdict per kind of layer.

`engine_card()` returns the card as a dict (the JSON `python -m rope_viz.conformance engines` writes to
results/conformance/engines.json) and `card_table(card)` says it as a table, one row per preset. An engine is
run with no declared limit, so where its answers stop shows (and whether that is at, inside or past the model's
max_position_embeddings). A cell is "pass", "stops at N" (every answer right up to there), the bug named
("FAIL: ..."), "not supported by this engine" (it has no model code for the architecture), "adapter error"
(the adapter could not call the engine: said so, with the error) or "not installed" (the engine is absent
here: its install line is in the card). llama.cpp's column needs a source build (llama-cpp-python, several
minutes): `python -m rope_viz.conformance engines` keeps the recorded llama.cpp cells where it is not installed.
"""

from __future__ import annotations

import datetime
import platform
from collections.abc import Callable

import torch

from ..models import model_presets, preset_repo
from .adapters import transformers_rotary
from .engines import ENGINES, EngineMissing, NotSupported, engine_version, mlx_rotary, vllm_rotary
from .llama_cpp_engine import llamacpp_rotary
from .verify import Report, rope_numbers, verify

CARD_VERSION = 1
ADAPTERS: dict[str, Callable] = {"transformers": transformers_rotary, "vLLM": vllm_rotary, "MLX-LM": mlx_rotary,
                                 "llama.cpp": llamacpp_rotary}


def _kind(verdict) -> dict:
    return {"kind": verdict.kind, "layers": list(verdict.layers), "rope": rope_numbers(verdict.layer),
            "status": verdict.status, "bug": verdict.bug, "detail": verdict.detail,
            "also": None if verdict.second is None else list(verdict.second), "roles": list(verdict.roles),
            "first_pair": verdict.first_pair, "first_position": verdict.first_position,
            "stops_at": verdict.stops_at, "limit": verdict.limit, "stopped_by": verdict.stopped_by,
            "max_error": verdict.max_error,
            "profile": _profile(verdict.profile) if verdict.status == "fail" else None,
            "bug_profile": _profile(verdict.bug_profile) if verdict.status == "fail" else None}


def _profile(profile) -> dict | None:
    """A failing kind's error profile (by pair, by position) to 4 significant digits, for the page's curves."""
    if profile is None:
        return None
    values = profile.to_dict()
    return {key: [float(f"{v:.4g}") for v in values[key]] if key != "positions" else values[key]
            for key in ("by_pair", "positions", "by_position")}


def run_engine(engine: str, name: str) -> dict:
    """One cell of the card: {"status", "note", "kinds"} for preset `name` run through `engine`'s adapter."""
    adapter = ADAPTERS[engine]
    try:
        fn = adapter(name)
        report: Report = verify(name, fn, layout=getattr(fn, "layout", None))  # a layout the engine's loader makes
    except EngineMissing as err:
        return {"status": "not installed", "note": str(err).split(" (")[0], "kinds": []}
    except NotSupported as err:
        return {"status": "not supported", "note": str(err), "kinds": []}
    except (ValueError, TypeError, KeyError, AttributeError, RuntimeError, AssertionError, ImportError) as err:
        return {"status": "adapter error", "note": f"{type(err).__name__}: {str(err)[:300]}", "kinds": []}
    longest = [v.stops_at - 1 for v in report.verdicts if v.stops_at is not None]
    return {"status": report.status, "layout": report.layout, "note": "",
            "longest_answered": min(longest) if longest else None, "kinds": [_kind(v) for v in report.verdicts]}


def engine_card(names=None, engines=None, progress: Callable | None = None) -> dict:
    """The card over `names` (default: every preset) and `engines` (default: every engine in ENGINES)."""
    names = list(model_presets()) if names is None else list(names)
    engines = list(ENGINES) if engines is None else list(engines)
    rows = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the probe's tensors are small: one thread is faster on a shared machine
    try:
        for name in names:
            cells = {}
            for engine in engines:
                cells[engine] = run_engine(engine, name)
                if progress is not None:
                    progress(name, engine, cells[engine])
            rows.append({"preset": name, "repo": preset_repo(name), "engines": cells})
    finally:
        torch.set_num_threads(threads)
    return {"version": CARD_VERSION, "date": datetime.date.today().isoformat(),
            "machine": {"cpu": platform.processor() or platform.machine(),
                        "torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability()},
            "engines": {e: {"version": engine_version(e), "install": ENGINES[e].install} for e in engines},
            "presets": rows}


def cell_text(cell: dict) -> str:
    """A cell of the card as a short phrase."""
    status = cell["status"]
    if status == "pass":
        return "pass"
    if status in ("not installed", "not supported", "adapter error"):
        return {"not supported": "not supported by this engine"}.get(status, status)
    parts = []
    for kind in cell["kinds"]:
        if kind["status"] == "fail":
            bug = f"{kind['bug']} ({kind['detail']})" if kind["bug"] else "none explains it"
            parts.append(f"kind {kind['kind']}: FAIL {bug}")
    stops = sorted({(k["stops_at"], k["limit"]) for k in cell["kinds"] if k["stops_at"] is not None})
    for position, limit in stops:
        parts.append(f"stops at {position:,} ({limit} max_position_embeddings)")
    return "; ".join(parts)


def card_table(card: dict) -> str:
    """The card as a Markdown table: one row per preset, one column per engine."""
    engines = list(card["engines"])
    head = "| preset | " + " | ".join(f"{e} {card['engines'][e]['version'] or ''}".strip() for e in engines) + " |"
    lines = [head, "|---" * (len(engines) + 1) + "|"]
    for row in card["presets"]:
        lines.append(f"| {row['preset']} | " + " | ".join(cell_text(row["engines"][e]) for e in engines) + " |")
    return "\n".join(lines)
