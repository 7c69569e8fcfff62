"""The designs page's view: why 2025-26 models changed RoPE, answered by the four-layer toy grid
(results/toy/grid4.json, every scheme x task x seed) and its seed-0 weights.

- accuracy against evaluation length for every scheme (seed mean and min-max band);
- one answer per design question (NoPE layers, query temperature, local RoPE with global NoPE, the fastest
  quarter, which quarter), judged by whether the seed bands separate, beside what the design's paper claims;
- what the trained RoPE and p-RoPE models do with each frequency (Barbero et al. 2025): query and key pair
  norms per head and pair, the sharpest positional head and the pairs it leans on, and RoPE with its slowest
  quarter of pairs stopped at inference;
- the pair-layout mix-up: the RoPE model read with the other layout, accuracy against position.

Pure functions of plain values (the results folder as a string and its file's modification time, so that a
regrown grid is read again); what the page says comes back as Phrases.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rope_viz import toy
from rope_viz.toy import analysis

from .phrases import Metric, Phrase, metric, phrase
from .trained import at_factor, compare, curves_from_doc, pct

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
FREQUENCY_MODELS = ("rope", "p-rope")  # the models whose frequency use is analysed
SAMPLE_SEQUENCES = 16   # sequences the pair norms and the pair contributions average over
MAX_OFFSET = 8          # offsets a positional head is looked for at
POSITIONAL = 0.5        # a head is positional when it puts this much of its weight at one offset
REMOVED = (0.25, 0.5, 0.75)  # the slowest shares of pairs stopped at inference (0.75: p-RoPE's quarter kept)
EVAL_SEQUENCES = 128    # sequences of the inference-time evaluations (the grid's own count)
EARLY_MARGIN = 0.25     # the swapped model's first answers count as right-then-degrading this far above its mean
POSITION_BINS = 64      # the layout chart pools positions into at most this many bins


def grid_path(folder: str) -> Path:
    return Path(folder) / toy.GRID4_FILE


def grid_stamp(folder: str) -> float | None:
    """Modification time of the folder's grid4.json (a cache key), None when there is none."""
    try:
        return grid_path(folder).stat().st_mtime
    except OSError:
        return None


def _doc(folder: str, stamp: float | None) -> dict | None:
    if stamp is None:
        return None
    try:
        return toy.load_results(grid_path(folder))
    except ValueError:
        return None


def grid_curves(folder: str, stamp: float | None, task: str) -> dict:
    """Accuracy against length of every scheme for `task` (curves_from_doc in SCHEMES order), with the grid's
    "facts" (runs, wall time, device, command), or no curves and facts None when there is no grid."""
    doc = _doc(folder, stamp)
    if doc is None:
        return {"train_len": None, "steps": None, "curves": [], "facts": None}
    facts = {"runs": len(doc["runs"]), "minutes": float(doc["wall_seconds"]) / 60, "command": doc["command"],
             "device": doc["device"]}
    return {**curves_from_doc(doc, task, order=SCHEMES), "facts": facts}


def scheme_phrase(scheme: str) -> Phrase:
    return phrase(f"designs.scheme_{scheme}")


def accuracy_series(data: dict) -> dict:
    """band_lines series (named by Phrases, each in its scheme's colour) and the training length's mark."""
    series = [{"name": scheme_phrase(c["encoding"]), "x": c["lengths"], "y": c["mean"], "low": c["low"],
               "high": c["high"], "concept": c["encoding"]} for c in data["curves"]]
    marks = [] if not data["train_len"] else [(phrase("designs.train_len_mark", n=data["train_len"]),
                                               data["train_len"])]
    ticks = sorted({float(v) for s in series for v in s["x"]})
    return {"series": series, "marks": marks, "x_ticks": ticks}


def source(data: dict, task: str) -> Phrase:
    """Where the numbers come from, or why there are none for this task."""
    facts = data["facts"]
    if facts is None:
        return phrase("designs.missing")
    if not data["curves"]:
        return phrase("designs.no_task", task=phrase(f"designs.task_{task}"), runs=facts["runs"])
    return phrase("designs.source", runs=facts["runs"], minutes=facts["minutes"], device=facts["device"],
                  command=facts["command"], steps=data["steps"], seeds=len(data["curves"][0]["seeds"]))


def _band(at: dict) -> str:
    return f"{pct(at['mean'])} ({pct(at['low'])}–{pct(at['high'])})"


def scheme_table(data: dict, factor: float) -> dict:
    """Per scheme, the seed mean and min-max at 1x and at `factor`: columns for explorer.layout.table."""
    base, here = at_factor(data["curves"], 1.0), at_factor(data["curves"], factor)
    shown = [c["encoding"] for c in data["curves"] if (c["encoding"], "none") in here]
    return {"designs.scheme_column": [scheme_phrase(s) for s in shown],
            "designs.at_1x": [_band(base[(s, "none")]) if (s, "none") in base else "–" for s in shown],
            "designs.at_factor": [_band(here[(s, "none")]) for s in shown]}


def answers(data: dict, factor: float, task: str) -> list[dict]:
    """One answer per design question that both its schemes answer at `factor`: {"question", "verdict",
    "paper"} Phrases. The verdict compares seed bands (trained.compare); the paper line says whether these
    runs agree with the claim that the design extrapolates better, contradict it, or cannot tell."""
    here = at_factor(data["curves"], factor)
    out = []
    for question, (design, baseline) in QUESTIONS.items():
        if (design, "none") not in here or (baseline, "none") not in here:
            continue
        a, b = here[(design, "none")], here[(baseline, "none")]
        verdict = compare(a, b)
        out.append({"question": phrase(f"designs.q_{question}"),
                    "verdict": phrase(f"designs.verdict_{verdict}", design=scheme_phrase(design),
                                      baseline=scheme_phrase(baseline), a=_band(a), b=_band(b), factor=factor,
                                      task=phrase(f"designs.task_{task}")),
                    "paper": phrase(f"designs.paper_{AGREES[verdict]}")})
    return out


# --- what the trained models do with each frequency ----------------------------------------------------------
def _weights(doc: dict, folder: str, task: str, scheme: str) -> Path | None:
    for run in doc["runs"]:
        c = run["config"]
        if c["task"] == task and c["encoding"] == scheme and run.get("weights"):
            path = grid_path(folder).parent / run["weights"]
            return path if path.is_file() else None
    return None


def _model(folder: str, stamp: float | None, task: str, scheme: str):
    doc = _doc(folder, stamp)
    path = None if doc is None else _weights(doc, folder, task, scheme)
    return (None, None) if path is None else toy.load_model(path)


def quarter_shares(norms: np.ndarray) -> tuple[float, float]:
    """The fastest and the slowest quarter's shares of the summed pair norms ((..., pairs), pair 0 fastest)."""
    per_pair = np.asarray(norms, dtype=np.float64).reshape(-1, norms.shape[-1]).sum(axis=0)
    quarter = max(1, len(per_pair) // 4)
    total = per_pair.sum()
    return float(per_pair[:quarter].sum() / total), float(per_pair[-quarter:].sum() / total)


def frequency_use(folder: str, stamp: float | None, task: str) -> dict:
    """For each of FREQUENCY_MODELS with shipped weights: "size", the mean query norm times the mean key norm
    of each pair (float32 (layers * heads, pairs), rows "L1 H1", ...), its fastest and slowest quarter's
    shares, the sharpest positional head (offset profile at offsets 0..MAX_OFFSET of one sequence; None when
    none reaches POSITIONAL) and the fastest quarter's share of that head's margin at its offset."""
    out = {"models": {}, "rows": [], "pairs": None}
    for scheme in FREQUENCY_MODELS:
        model, config = _model(folder, stamp, task, scheme)
        if model is None:
            continue
        tokens = toy.make_batch(task, SAMPLE_SEQUENCES, config.train_len, seed=0)[0]
        norms = analysis.pair_norms(model, tokens)
        size = (norms["q"] * norms["k"]).reshape(-1, norms["q"].shape[-1])
        fast, slow = quarter_shares(norms["q"] * norms["k"])
        profile = analysis.offset_profile(toy.attention_maps(model, tokens[0]), MAX_OFFSET)
        heads = analysis.positional_heads(profile, POSITIONAL)
        head = heads[0] if heads else None
        lean = None
        if head is not None:
            share = analysis.pair_contributions(model, tokens, head["layer"], head["head"], head["offset"])
            lean = float(share[:max(1, len(share) // 4)].sum())
        out["models"][scheme] = {"size": size.astype(np.float32), "fast": fast, "slow": slow, "head": head,
                                 "lean": lean}
        out["rows"] = [f"L{layer + 1} H{h + 1}" for layer in range(config.n_layers) for h in range(config.n_heads)]
        out["pairs"] = np.arange(size.shape[-1])
    return out


def frequency_reading(use: dict) -> list[Phrase]:
    """Per model: where its largest pair norms sit (against Barbero et al.'s low-frequency semantic channels)
    and which pairs its sharpest positional head leans on (against their high-frequency positional heads)."""
    lines = []
    for scheme, found in use["models"].items():
        split = "agrees" if found["slow"] > found["fast"] else "contradicts"
        lines.append(phrase(f"designs.norms_{split}", model=scheme_phrase(scheme), fast=pct(found["fast"]),
                            slow=pct(found["slow"])))
        head = found["head"]
        if head is None:
            lines.append(phrase("designs.no_positional", model=scheme_phrase(scheme), threshold=pct(POSITIONAL)))
            continue
        lean = "agrees" if found["lean"] >= 0.5 else "contradicts"
        lines.append(phrase(f"designs.head_{lean}", model=scheme_phrase(scheme), layer=head["layer"] + 1,
                            head=head["head"] + 1, offset=head["offset"], weight=pct(head["weight"]),
                            share=pct(found["lean"])))
    return lines


def removal(folder: str, stamp: float | None, task: str, factor: float) -> dict | None:
    """The RoPE model's accuracy at 1x ("short") and at `factor` ("long"), each {share: accuracy} with the
    slowest `share` of its pairs stopped (analysis.without_low_frequencies; share 0.0: intact) for 0 and
    every share of REMOVED; None without its weights."""
    model, config = _model(folder, stamp, task, "rope")
    if model is None:
        return None
    out = {"factor": factor}
    for name, f in (("short", 1.0), ("long", factor)):
        length = int(round(f * config.train_len))
        out[name] = {share: toy.evaluate(model, task, length, sequences=EVAL_SEQUENCES, rope_freqs=None if not share
                                         else analysis.without_low_frequencies(model.config, share))["accuracy"]
                     for share in (0.0, *REMOVED)}
    return out


def removal_metrics(found: dict) -> list[Metric]:
    """Accuracy at the factor, intact and with each share stopped; the 1x values in each tooltip."""
    return [metric("designs.intact_at" if not share else "designs.removed_at", pct(value), factor=found["factor"],
                   share=pct(share), help=phrase("designs.at_1x_help", value=pct(found["short"][share])))
            for share, value in found["long"].items()]


def removal_reading(found: dict) -> Phrase:
    """Whether stopping all but the fastest quarter (p-RoPE read into a trained RoPE model) helps past the
    training length, and what it costs within it: Barbero et al.'s argument, tested without retraining."""
    share = REMOVED[-1]
    gain = found["long"][share] - found["long"][0.0]
    kind = "helps" if gain > 0.05 else "hurts" if gain < -0.05 else "same"
    short_intact, short_removed = found["short"][0.0], found["short"][share]
    if kind == "helps" and (short_removed >= short_intact or pct(short_removed) == pct(short_intact)):
        kind = "helps_free"  # nothing lost at 1x, as shown: no cost to speak of
    return phrase(f"designs.removal_{kind}", share=pct(share), factor=found["factor"],
                  intact=pct(found["long"][0.0]), removed=pct(found["long"][share]),
                  short_intact=pct(found["short"][0.0]), short_removed=pct(found["short"][share]))


def pooled(correct: np.ndarray, total: np.ndarray, bins: int = POSITION_BINS) -> tuple[np.ndarray, np.ndarray]:
    """Accuracy per run of consecutive positions (at most `bins` runs of equal width): (the first position of
    each run, its answers right over its answers scored), float32, NaN where a run scored nothing."""
    width = max(1, -(-len(total) // bins))
    starts = np.arange(0, len(total), width)
    right, scored = np.add.reduceat(correct, starts), np.add.reduceat(total, starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(scored > 0, right / np.maximum(scored, 1), np.nan)
    return starts.astype(np.float32), accuracy.astype(np.float32)


def layout_mixup(folder: str, stamp: float | None, task: str, factor: float) -> dict | None:
    """The RoPE model read with its own pair layout and with the other one, at `factor` times the training
    length: accuracy against position, pooled over runs of "width" positions for the chart ("positions", and
    for each reading "<name>_pooled") and position by position (float32, NaN where nothing is scored), and
    overall; None without weights."""
    model, config = _model(folder, stamp, task, "rope")
    if model is None:
        return None
    length = int(round(factor * config.train_len))
    other = "half" if config.layout == "interleaved" else "interleaved"
    out = {"own": config.layout, "other": other, "length": length, "train_len": config.train_len}
    out["width"] = max(1, -(-length // POSITION_BINS))  # positions per run of the pooled chart, as pooled
    for name, m in (("own", model), ("swapped", analysis.with_layout(model, other))):
        found = analysis.accuracy_by_position(m, task, length, sequences=EVAL_SEQUENCES)
        out[f"{name}_by_position"] = found["accuracy"].astype(np.float32)
        out[f"{name}_accuracy"] = float(found["correct"].sum() / max(1, found["total"].sum()))
        out["positions"], out[f"{name}_pooled"] = pooled(found["correct"], found["total"])
    return out


def mixup_reading(found: dict) -> Phrase:
    """The two layouts' accuracy, and whether the swapped model does better on its earliest answers (the first
    quarter of a training length's worth of scored positions: at least EARLY_MARGIN above its mean) before
    degrading, or better than its own layout overall."""
    scored = found["swapped_by_position"][np.isfinite(found["swapped_by_position"])]
    first = max(1, found["train_len"] // 4)
    early = float(scored[:first].mean()) if scored.size else 0.0
    if found["swapped_accuracy"] > found["own_accuracy"] + 0.05:
        kind = "better"
    else:
        kind = "early" if early >= found["swapped_accuracy"] + EARLY_MARGIN else "flat"
    return phrase(f"designs.mixup_{kind}", own=pct(found["own_accuracy"]), swapped=pct(found["swapped_accuracy"]),
                  layout=phrase(f"common.layout_{found['own']}"), other=phrase(f"common.layout_{found['other']}"),
                  length=found["length"], early=pct(early), first=min(first, scored.size))
