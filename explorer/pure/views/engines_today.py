"""The check page's "Engines today" section: the recorded report card (results/conformance/engines.json, written
by `python -m rope_viz.conformance engines`) as plain values: a row per preset with a verdict per engine (per
kind of layer where one fails or stops), and for each failing kind its error against position beside the same
curve for the bug that explains it."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.pure.views.phrases import Phrase, phrase

CARD = Path(__file__).resolve().parents[3] / "results" / "conformance" / "engines.json"
FLOOR = 1e-12  # errors below this are drawn at it (a log axis has no zero)


@dataclass(frozen=True)
class FailureCurves:
    """A failing kind's error (floored at FLOOR, float32) against the position (positions > 0: the axis is
    logarithmic) and against the pair, observed and for the matched bug (None when no bug explains it)."""
    positions: np.ndarray
    observed_by_position: np.ndarray
    pairs: np.ndarray
    observed_by_pair: np.ndarray
    bug_by_position: np.ndarray | None
    bug_by_pair: np.ndarray | None


def failure_curves(positions, by_position, by_pair, bug_by_position=None, bug_by_pair=None) -> FailureCurves:
    """A failing kind's curves from its error profile (and the matched bug's; None where no bug explains it)."""
    def floor(values):
        return np.maximum(np.asarray(values, dtype=np.float64), FLOOR).astype(np.float32)
    positions = np.asarray(positions)
    keep = positions > 0  # the position axis is logarithmic
    return FailureCurves(positions=positions[keep].astype(np.float32),
                         observed_by_position=floor(np.asarray(by_position)[keep]),
                         pairs=np.arange(len(by_pair), dtype=np.float32), observed_by_pair=floor(by_pair),
                         bug_by_position=None if bug_by_position is None else floor(np.asarray(bug_by_position)[keep]),
                         bug_by_pair=None if bug_by_pair is None else floor(bug_by_pair))


@dataclass(frozen=True)
class EngineFailure:
    """A failing kind of layer in the card: the preset, the engine, the kind, the bug that explains it (None
    if none does) with its cell, and its error curves."""
    preset: str
    engine: str
    kind: int
    bug: str | None
    cell: Phrase
    curves: FailureCurves


@dataclass(frozen=True)
class EnginesToday:
    """The card: its date, one column label per engine (name and version), a row per preset (its name and a
    Phrase per engine) and a failure per failing kind, in the card's order."""
    date: str
    engines: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Phrase, ...]], ...]
    failures: tuple[EngineFailure, ...]


def _bug(kind: dict) -> Phrase:
    if kind["bug"] is None:
        return phrase("check_implementation.unexplained_short")
    return phrase(f"check_implementation.bug_{kind['bug']}")


def _cell(cell: dict) -> Phrase:
    status = cell["status"]
    if status == "pass":
        return phrase("check_implementation.pass")
    if status in ("not supported", "not installed", "adapter error"):
        return phrase(f"check_implementation.engine_{status.replace(' ', '_')}")
    parts = [phrase("check_implementation.engine_kind_fail", kind=kind["kind"], bug=_bug(kind))
             for kind in cell["kinds"] if kind["status"] == "fail"]
    stops = sorted({kind["stops_at"] for kind in cell["kinds"] if kind["stops_at"] is not None})
    parts += [phrase("check_implementation.stops_cell", position=f"{position:,}") for position in stops]
    return phrase("check_implementation.gguf_parts", parts=tuple(parts))


@functools.cache
def engines_today(path: Path = CARD) -> EnginesToday:
    """The recorded card at `path` (see the module docstring)."""
    card = json.loads(Path(path).read_text(encoding="utf-8"))
    engines = tuple(card["engines"])
    labels = tuple(f"{name} {card['engines'][name]['version'] or ''}".strip() for name in engines)
    rows = tuple((row["preset"], tuple(_cell(row["engines"][name]) for name in engines)) for row in card["presets"])
    failures = []
    for row in card["presets"]:
        for name in engines:
            for kind in row["engines"][name]["kinds"]:
                if kind["status"] == "fail" and kind.get("profile"):
                    profile, bug = kind["profile"], kind.get("bug_profile")
                    curves = failure_curves(profile["positions"], profile["by_position"], profile["by_pair"],
                                            None if bug is None else bug["by_position"],
                                            None if bug is None else bug["by_pair"])
                    failures.append(EngineFailure(row["preset"], name, kind["kind"], kind["bug"], _bug(kind), curves))
    return EnginesToday(card["date"], labels, rows, tuple(failures))


# the charts the section draws, by key, in order: one per failing kind of the recorded card
CHARTS = tuple(f"engine_{i}" for i in range(len(engines_today().failures)))
