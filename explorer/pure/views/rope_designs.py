"""The designs page's view: why 2025-26 models changed RoPE, answered by the four-layer toy grid
(rope_viz/toy/shipped/grid4.json, every scheme x task x seed) and what its seed-0 models do, evaluated once when
the results were made (shipped/grid4_evaluations.json, `python -m rope_viz.toy evaluate4`): the page runs no model.

- accuracy against evaluation length for every scheme (seed mean and min-max band);
- one answer per design question (NoPE layers, query temperature, local RoPE with global NoPE, the fastest
  quarter, which quarter), judged by whether the seed bands separate, beside what the design's paper claims;
- what the trained RoPE and p-RoPE models do with each frequency (Barbero et al. 2025): query and key pair
  norms per head and pair, the sharpest positional head and the pairs it leans on, and RoPE with its slowest
  quarter of pairs stopped at inference;
- the pair-layout mix-up: the RoPE model read with the other layout, accuracy against position.

Pure functions of plain values (the results folder as a string and its files' modification times, so that a
regrown grid or new evaluations are read again); what the page says comes back as Phrases.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rope_viz import toy, wavelengths
from rope_viz.toy import TrainConfig, evaluations
from rope_viz.toy.runner import GRID4_ARCH

from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.views.trained_models import (AccuracyChart, Band, Curves, Mark, at_factor, compare,
                                                curves_from_doc, pct)
from explorer.pure.questions import Numbers, Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("accuracy", "norms", "mixup")

SCHEMES = toy.SCHEMES
# question: (the design, what it is measured against); every design's paper claims it extrapolates better
QUESTIONS = {
    "nope_layers": ("nope-every-4th", "rope"),
    "temperature": ("nope-every-4th+temperature", "nope-every-4th"),
    "local": ("local-rope+global-nope", "rope"),
    "fastest": ("p-rope", "rope"),
    "quarter": ("p-rope", "partial-rope"),
}
AGREES = {"higher": "agrees", "lower": "contradicts", "overlap": "undecided"}
FREQUENCY_MODELS, POSITIONAL, REMOVED = evaluations.FREQUENCY_MODELS, evaluations.POSITIONAL, evaluations.REMOVED
EARLY_MARGIN = 0.25     # the swapped model's first answers count as right-then-degrading this far above its mean
POSITION_BINS = 64      # the layout chart pools positions into at most this many bins


def grid_path(folder: str) -> Path:
    return Path(folder) / toy.GRID4_FILE


def _stamp(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def grid_stamp(folder: str) -> float | None:
    """Modification time of the folder's grid4.json (a cache key), None when there is none."""
    return _stamp(grid_path(folder))


def _doc(folder: str, stamp: float | None) -> dict | None:
    if stamp is None:
        return None
    try:
        return toy.load_results(grid_path(folder))
    except ValueError:
        return None


@dataclass(frozen=True)
class GridFacts:
    """The four-layer grid's runs, wall time, device and command; its first run's head width and RoPE base."""
    runs: int
    minutes: float
    command: str
    device: str
    dim: int
    base: float


@dataclass(frozen=True)
class GridCurves(Curves):
    """Every scheme's curves of one task, with the grid's facts (None when there is no grid)."""
    facts: GridFacts | None


def grid_curves(folder: str, stamp: float | None, task: str) -> GridCurves:
    """Accuracy against length of every scheme for `task` (curves_from_doc in SCHEMES order), with the grid's
    facts, or no curves and facts None when there is no grid."""
    doc = _doc(folder, stamp)
    if doc is None:
        return GridCurves(train_len=None, steps=None, curves=(), facts=None)
    first = doc["runs"][0]["config"]
    facts = GridFacts(runs=len(doc["runs"]), minutes=float(doc["wall_seconds"]) / 60, command=doc["command"],
                      device=doc["device"], dim=first["d_model"] // first["n_heads"], base=float(first["base"]))
    found = curves_from_doc(doc, task, order=SCHEMES)
    return GridCurves(train_len=found.train_len, steps=found.steps, curves=found.curves, facts=facts)


def scheme_phrase(scheme: str) -> Phrase:
    return phrase(f"rope_designs.scheme_{scheme}")


def accuracy_series(data: Curves) -> AccuracyChart:
    """band_lines series (named by Phrases, each in its scheme's colour) and the training length's mark."""
    series: list[dict] = [{"name": scheme_phrase(c.encoding), "x": c.lengths, "y": c.mean, "low": c.low,
               "high": c.high, "concept": c.encoding} for c in data.curves]
    marks = [] if not data.train_len else [Mark(phrase("rope_designs.train_len_mark", n=data.train_len),
                                                data.train_len)]
    ticks = sorted({float(v) for s in series for v in s["x"]})
    return AccuracyChart(series=series, marks=marks, x_ticks=ticks)


def source(data: GridCurves, task: str) -> Phrase:
    """Where the numbers come from, or why there are none for this task."""
    facts = data.facts
    if facts is None:
        return phrase("rope_designs.missing")
    if not data.curves:
        return phrase("rope_designs.no_task", task=phrase(f"rope_designs.task_{task}"), runs=facts.runs)
    return phrase("rope_designs.source", runs=facts.runs, minutes=facts.minutes, device=facts.device,
                  command=facts.command, steps=data.steps, seeds=len(data.curves[0].seeds))


def _band(at: Band) -> str:
    return f"{pct(at.mean)} ({pct(at.low)}–{pct(at.high)})"


def scheme_table(data: Curves, factor: float) -> dict[str, list]:
    """Per scheme, the seed mean and min-max at 1x and at `factor`: columns for explorer.app.place.table."""
    base, here = at_factor(data.curves, 1.0), at_factor(data.curves, factor)
    shown = [c.encoding for c in data.curves if (c.encoding, "none") in here]
    return {"rope_designs.scheme_column": [scheme_phrase(s) for s in shown],
            "rope_designs.at_1x": [_band(base[(s, "none")]) if (s, "none") in base else "–" for s in shown],
            "rope_designs.at_factor": [_band(here[(s, "none")]) for s in shown]}


@dataclass(frozen=True)
class Answer:
    """One design question, the grid's verdict on it, and what that says of the design's paper."""
    question: Phrase
    verdict: Phrase
    paper: Phrase


def answers(data: Curves, factor: float, task: str) -> list[Answer]:
    """One answer per design question that both its schemes answer at `factor`. The verdict compares seed bands
    (trained.compare); the paper line says whether these runs agree with the claim that the design extrapolates
    better, contradict it, or cannot tell."""
    here = at_factor(data.curves, factor)
    out = []
    for question, (design, baseline) in QUESTIONS.items():
        if (design, "none") not in here or (baseline, "none") not in here:
            continue
        a, b = here[(design, "none")], here[(baseline, "none")]
        verdict = compare(a, b)
        out.append(Answer(question=phrase(f"rope_designs.q_{question}"),
                          verdict=phrase(f"rope_designs.verdict_{verdict}", design=scheme_phrase(design),
                                         baseline=scheme_phrase(baseline), a=_band(a), b=_band(b), factor=factor,
                                         task=phrase(f"rope_designs.task_{task}")),
                          paper=phrase(f"rope_designs.paper_{AGREES[verdict]}")))
    return out


# --- what the trained models do with each frequency (evaluated once: rope_viz.toy.evaluations) ---------------
def evaluations_path(folder: str) -> Path:
    return Path(folder) / evaluations.EVALUATIONS_FILE


def evaluations_stamp(folder: str) -> float | None:
    """Modification time of the folder's grid4_evaluations.json (a cache key), None when there is none."""
    return _stamp(evaluations_path(folder))


def _evaluated(folder: str, stamp: float | None, task: str) -> dict | None:
    """The shipped evaluations of `task` (see rope_viz.toy.evaluations), None when there are none."""
    if stamp is None:
        return None
    try:
        return evaluations.load_evaluations(evaluations_path(folder))["tasks"].get(task)
    except ValueError:
        return None


def evaluations_notice(folder: str, stamp: float | None, evaluated: float | None) -> Phrase | None:
    """What the page says when the evaluations are missing or were made from another grid than the folder's
    (their recorded grid creation time differs); None when they belong to the grid."""
    doc = _doc(folder, stamp)
    try:
        found = None if evaluated is None else evaluations.load_evaluations(evaluations_path(folder))
    except ValueError:
        found = None
    if found is None:
        return phrase("rope_designs.no_evaluations")
    if doc is not None and found.get("grid_created") != doc["created"]:
        return phrase("rope_designs.stale_evaluations", made=found.get("created", "?"), grid=doc["created"])
    return None


@dataclass(frozen=True)
class PositionalHead:
    """A model's sharpest positional head: where it is, the offset it attends to and its weight there."""
    layer: int
    head: int
    offset: int
    weight: float


@dataclass(frozen=True)
class PairUse:
    """What one model does with each frequency: "size", the mean query norm times the mean key norm of each pair
    (float32 (layers * heads, pairs)), its fastest and slowest quarter's shares, the sharpest positional head
    (None when none reaches POSITIONAL), the fastest quarter's share of that head's margin at its offset
    ("lean", None without a head), each pair's speed (float64) and the training length."""
    size: np.ndarray
    fast: float
    slow: float
    head: PositionalHead | None
    lean: float | None
    speeds: np.ndarray
    train_len: int


@dataclass(frozen=True)
class FrequencyUse:
    """PairUse per model of FREQUENCY_MODELS the evaluations hold, the size maps' row names ("L1 H1", ...)
    and pair numbers (None without a model)."""
    models: dict[str, PairUse]
    rows: list[str]
    pairs: np.ndarray | None


def frequency_use(folder: str, stamp: float | None, task: str) -> FrequencyUse:
    """What the shipped RoPE and p-RoPE models of `task` do with each frequency (see PairUse)."""
    models: dict[str, PairUse] = {}
    rows: list[str] = []
    pairs = None
    found = _evaluated(folder, stamp, task)
    for scheme, use in ({} if found is None else found["frequency"]).items():
        size = np.asarray(use["size"], dtype=np.float32)
        head = None if use["head"] is None else PositionalHead(**use["head"])
        models[scheme] = PairUse(size=size, fast=use["fast"], slow=use["slow"], head=head, lean=use["lean"],
                                 speeds=np.asarray(use["speeds"], dtype=np.float64), train_len=use["train_len"])
        rows = [f"L{layer + 1} H{h + 1}" for layer in range(use["layers"]) for h in range(use["heads"])]
        pairs = np.arange(size.shape[-1])
    return FrequencyUse(models=models, rows=rows, pairs=pairs)


def frequency_reading(use: FrequencyUse) -> list[Phrase]:
    """Per model: where its largest pair norms sit (against Barbero et al.'s low-frequency semantic channels)
    and which pairs its sharpest positional head leans on (against their high-frequency positional heads)."""
    lines = []
    for scheme, found in use.models.items():
        split = "agrees" if found.slow > found.fast else "contradicts"
        lines.append(phrase(f"rope_designs.norms_{split}", model=scheme_phrase(scheme), fast=pct(found.fast),
                            slow=pct(found.slow)))
        head = found.head
        if head is None or found.lean is None:
            lines.append(phrase("rope_designs.no_positional", model=scheme_phrase(scheme), threshold=pct(POSITIONAL)))
            continue
        lean = "agrees" if found.lean >= 0.5 else "contradicts"
        lines.append(phrase(f"rope_designs.head_{lean}", model=scheme_phrase(scheme), layer=head.layer + 1,
                            head=head.head + 1, offset=head.offset, weight=pct(head.weight),
                            share=pct(found.lean)))
    return lines


def norms_alike(use: FrequencyUse) -> Phrase | None:
    """Why the RoPE and p-RoPE maps look alike (or how far apart they are): the pairs p-RoPE stops, the largest
    angle RoPE turns them by within the training length, the mean cell difference against the mean cell, and
    the one cell that sets the shared colour scale. None unless both models are there."""
    if not all(s in use.models for s in FREQUENCY_MODELS):
        return None
    rope, prope = (use.models[s] for s in FREQUENCY_MODELS)
    stopped = np.flatnonzero((prope.speeds == 0) & (rope.speeds > 0))
    if not stopped.size:
        return None
    angle = float((rope.train_len - 1) * rope.speeds[stopped].max())
    a, b = rope.size.astype(np.float64), prope.size.astype(np.float64)
    diff = float(np.abs(a - b).mean() / ((a + b) / 2).mean())
    top = np.unravel_index(int(np.argmax(np.maximum(a, b))), a.shape)
    return phrase("rope_designs.norms_alike", first=int(stopped[0]), last=int(stopped[-1]), angle=angle,
                  turn=pct(angle / (2 * np.pi)), n=rope.train_len, diff=pct(diff),
                  top=f"{float(max(a[top], b[top])):.0f}", median=f"{float(np.median(np.concatenate((a, b)))):.1f}",
                  row=use.rows[top[0]], pair=int(top[1]))


@dataclass(frozen=True)
class Removal:
    """The seed-0 RoPE model's accuracy at 1x ("short") and at `factor` ("long"), each {share: accuracy} with
    the slowest `share` of its pairs stopped (share 0.0: intact)."""
    factor: float
    short: dict[float, float]
    long: dict[float, float]


def removal(folder: str, stamp: float | None, task: str, factor: float) -> Removal | None:
    """The seed-0 RoPE model with its slowest pairs stopped, for 0 and every share of REMOVED; None when the
    evaluations lack it."""
    found = _evaluated(folder, stamp, task)
    if found is None or repr(float(factor)) not in found["removal"]:
        return None
    read = lambda f: {float(share): value for share, value in found["removal"][repr(float(f))].items()}  # noqa: E731
    return Removal(factor=factor, short=read(1.0), long=read(factor))


def removal_metrics(found: Removal) -> list[Metric]:
    """Accuracy at the factor, intact and with each share stopped; the 1x values in each tooltip."""
    return [
        metric(
            "rope_designs.intact_at" if not share else "rope_designs.removed_at",
            pct(value),
            factor=found.factor,
            share=pct(share),
            help=phrase("rope_designs.at_1x_help", value=pct(found.short[share])),
        )
        for share, value in found.long.items()
    ]


def removal_reading(found: Removal, data: Curves) -> Phrase:
    """Whether stopping all but the fastest quarter (p-RoPE read into a trained RoPE model) helps past the
    training length, and what it costs within it: Barbero et al.'s argument, tested without retraining on
    the seed-0 model, beside the seed mean and band of RoPE there (data: grid_curves)."""
    share = REMOVED[-1]
    gain = found.long[share] - found.long[0.0]
    kind = "helps" if gain > 0.05 else "hurts" if gain < -0.05 else "same"
    band = at_factor(data.curves, found.factor).get(("rope", "none"))
    short_intact, short_removed = found.short[0.0], found.short[share]
    if kind == "helps" and (short_removed >= short_intact or pct(short_removed) == pct(short_intact)):
        kind = "helps_free"  # nothing lost at 1x, as shown: no cost to speak of
    return phrase(f"rope_designs.removal_{kind}", share=pct(share), factor=found.factor,
                  intact=pct(found.long[0.0]), removed=pct(found.long[share]),
                  short_intact=pct(short_intact), short_removed=pct(short_removed), band=_band(band) if band else "–")


def pooled(correct: np.ndarray, total: np.ndarray, bins: int = POSITION_BINS) -> tuple[np.ndarray, np.ndarray]:
    """Accuracy per run of consecutive positions (at most `bins` runs of equal width): (the first position of
    each run, its answers right over its answers scored), float32, runs that scored nothing left out."""
    width = max(1, -(-len(total) // bins))
    starts = np.arange(0, len(total), width)
    right, scored = np.add.reduceat(correct, starts), np.add.reduceat(total, starts)
    kept = scored > 0
    return starts[kept].astype(np.float32), (right[kept] / scored[kept]).astype(np.float32)


@dataclass(frozen=True)
class Reading:
    """One reading of the model (its own layout or the swapped one): its accuracy by position (float32, NaN
    where nothing is scored), pooled over runs of positions for the chart, and overall."""
    by_position: np.ndarray
    pooled: np.ndarray
    accuracy: float


@dataclass(frozen=True)
class LayoutMixup:
    """The seed-0 RoPE model read with its own pair layout and the other one, at a sequence `length`: each
    Reading, the first position of each pooled run of `width` positions (runs with no scored answer left
    out), and the first position with a scored answer."""
    own_layout: str
    other_layout: str
    length: int
    train_len: int
    width: int
    positions: np.ndarray
    own: Reading
    swapped: Reading
    first_scored: int


def layout_mixup(folder: str, stamp: float | None, task: str, factor: float) -> LayoutMixup | None:
    """The seed-0 RoPE model read with its own pair layout and with the other one, at `factor` times the
    training length: accuracy against position; None when the evaluations lack it."""
    found = _evaluated(folder, stamp, task)
    if found is None or repr(float(factor)) not in found["mixup"]:
        return None
    read = found["mixup"][repr(float(factor))]
    length = read["length"]
    readings = {}
    for name in ("own", "swapped"):
        correct, total = (np.asarray(read[f"{name}_{k}"], dtype=np.int64) for k in ("correct", "total"))
        with np.errstate(invalid="ignore", divide="ignore"):
            by_position = np.where(total > 0, correct / np.maximum(total, 1), np.nan).astype(np.float32)
        positions, pooled_accuracy = pooled(correct, total)  # both read the same sequences
        readings[name] = Reading(by_position=by_position, pooled=pooled_accuracy,
                                 accuracy=float(correct.sum() / max(1, total.sum())))
    scored = np.flatnonzero(np.asarray(read["own_total"]))
    return LayoutMixup(own_layout=read["own"], other_layout=read["other"], length=length, train_len=read["train_len"],
                       width=max(1, -(-length // POSITION_BINS)),  # positions per run of the pooled chart
                       positions=positions, own=readings["own"], swapped=readings["swapped"],
                       first_scored=int(scored[0]) if scored.size else 0)


def mixup_reading(found: LayoutMixup) -> Phrase:
    """The two layouts' accuracy, and whether the swapped model does better on its earliest answers (the first
    quarter of a training length's worth of scored positions: at least EARLY_MARGIN above its mean) before
    degrading, or better than its own layout overall."""
    scored = found.swapped.by_position[np.isfinite(found.swapped.by_position)]
    first = max(1, found.train_len // 4)
    early = float(scored[:first].mean()) if scored.size else 0.0
    own, swapped = found.own.accuracy, found.swapped.accuracy
    if swapped > own + 0.05:
        kind = "better"
    else:
        kind = "early" if early >= swapped + EARLY_MARGIN else "flat"
    return phrase(f"rope_designs.mixup_{kind}", own=pct(own), swapped=pct(swapped),
                  layout=phrase(f"common.layout_{found.own_layout}"),
                  other=phrase(f"common.layout_{found.other_layout}"),
                  length=found.length, early=pct(early), first=min(first, scored.size))


def mixup_scored(found: LayoutMixup, task: str) -> Phrase:
    """Where the layout chart's lines begin: the first position with a scored answer, of the sequence's length."""
    return phrase("rope_designs.mixup_scored", task=phrase(f"rope_designs.task_{task}"), first=found.first_scored,
                  length=found.length)


# the shipped four-layer models' head size and base, the question's defaults
GRID4_DIM, GRID4_BASE = GRID4_ARCH["d_model"] // GRID4_ARCH["n_heads"], TrainConfig().base


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def full_turns(dim: int = GRID4_DIM, base: float = GRID4_BASE, train_len: int = GRID4_ARCH["train_len"],
               **_) -> Numbers:
    """How many pairs of a head complete a full turn within the training length: wavelength ≤ train_len − 1
    (the page passes its shipped four-layer models' d, base and training length; the grid's by default)."""
    waves = wavelengths(dim, base).tolist()
    turned = sum(w <= train_len - 1 for w in waves)
    return Numbers({"dim": dim, "base": f"{base:,.0f}", "n": train_len, "pairs": len(waves)}, turned,
                   (len(waves) // 4, turned + 1, len(waves), turned - 1, sum(w <= 2 * train_len for w in waves)),
                   "{:,.0f}")


QUIZ = (Question("full_turns", full_turns), Question("quarter"), Question("layout"))
