"""What the four-layer grid's seed-0 models do, evaluated once when the results are made.

`python -m rope_viz.toy evaluate4` reads grid4.json and its seed-0 weights and writes
grid4_evaluations.json beside it (EVALUATIONS_FILE), recording its command; the designs page only
reads that file. Per task, with toy.analysis:

frequency   for the RoPE and the p-RoPE model (FREQUENCY_MODELS): the mean query norm times the mean
            key norm of each pair per layer and head, the fastest and the slowest quarter's shares of
            their sum, the sharpest positional head and the fastest quarter's share of its margin, and
            each pair's speed in a rotating layer.
removal     the RoPE model's accuracy at 1x and at each factor with the slowest share of its pairs
            stopped at inference (0: intact) for every share of REMOVED.
mixup       the RoPE model read with its own pair layout and the other one at each factor: answers
            right and answers scored position by position.

Each number is a function of the weights and the settings below only (the evaluation sequences come
from fixed seeds), so a fresh evaluation of one model on the same CPU kind and torch reproduces the file
exactly; another CPU's float32 kernels round differently in the last digits (4e-8 relative measured with
the AVX2 code paths against AVX-512), and a near-tie may flip an answer.
"""

from __future__ import annotations

import datetime as _dt
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from . import analysis
from .results import attention_maps, load_model, load_results, read_json, write_json
from .tasks import make_batch
from .training import evaluate

EVALUATIONS_FILE = "grid4_evaluations.json"
EVALUATIONS_SCHEMA = "rope_viz.toy.evaluations/1"
FREQUENCY_MODELS = ("rope", "p-rope")  # the models whose frequency use is analysed
SAMPLE_SEQUENCES = 16   # sequences the pair norms and the pair contributions average over
MAX_OFFSET = 8          # offsets a positional head is looked for at
POSITIONAL = 0.5        # a head is positional when it puts this much of its weight at one offset
REMOVED = (0.25, 0.5, 0.75)  # the slowest shares of pairs stopped at inference (0.75: p-RoPE's quarter kept)
EVAL_SEQUENCES = 128    # sequences of the inference-time evaluations (the grid's own count)
SETTINGS = {"sample_sequences": SAMPLE_SEQUENCES, "max_offset": MAX_OFFSET, "positional": POSITIONAL,
            "removed": list(REMOVED), "eval_sequences": EVAL_SEQUENCES}


def quarter_shares(norms) -> tuple[float, float]:
    """The fastest and the slowest quarter's shares of the summed pair norms ((..., pairs), pair 0 fastest)."""
    norms = np.asarray(norms, dtype=np.float64)
    per_pair = norms.reshape(-1, norms.shape[-1]).sum(axis=0)
    quarter = max(1, len(per_pair) // 4)
    total = per_pair.sum()
    return float(per_pair[:quarter].sum() / total), float(per_pair[-quarter:].sum() / total)


def frequency_use(model, config) -> dict:
    """One model's frequency use (its TrainConfig `config`, as load_model returns it) on SAMPLE_SEQUENCES
    training-length sequences of its task (seed 0): "size"
    (layers * heads rows of pairs: mean query norm times mean key norm), "fast" and "slow" (the quarters'
    shares), "head" (the sharpest positional head: layer, head, offset, weight; None when none reaches
    POSITIONAL), "lean" (the fastest quarter's share of that head's margin, or None), "speeds" (each pair's
    speed in the first rotating layer), "layers", "heads" and "train_len"."""
    tokens = make_batch(config.task, SAMPLE_SEQUENCES, config.train_len, seed=0)[0]
    norms = analysis.pair_norms(model, tokens)
    product = norms["q"] * norms["k"]
    fast, slow = quarter_shares(product)
    profile = analysis.offset_profile(attention_maps(model, tokens[0]), MAX_OFFSET)
    heads = analysis.positional_heads(profile, POSITIONAL)
    head = heads[0] if heads else None
    lean = None
    if head is not None:
        share = analysis.pair_contributions(model, tokens, head["layer"], head["head"], head["offset"])
        lean = float(share[:max(1, len(share) // 4)].sum())
    rotating = [s for s in norms["speed"] if s.any()]
    speeds = rotating[0] if rotating else norms["speed"][0]
    return {"size": product.reshape(-1, product.shape[-1]).tolist(), "fast": fast, "slow": slow, "head": head,
            "lean": lean, "speeds": [float(s) for s in speeds], "layers": config.n_layers, "heads": config.n_heads,
            "train_len": config.train_len}


def removal(model, config, factor: float) -> dict[str, float]:
    """Accuracy at `factor` times the training length with the slowest share of the pairs stopped
    (analysis.without_low_frequencies), keyed by the share as text ("0.0": intact, then REMOVED)."""
    length = int(round(factor * config.train_len))
    return {repr(float(share)): evaluate(
        model, config.task, length, sequences=EVAL_SEQUENCES,
        rope_freqs=analysis.without_low_frequencies(model.config, share) if share else None)["accuracy"]
        for share in (0.0, *REMOVED)}


def layout_mixup(model, config, factor: float) -> dict:
    """The model read with its own pair layout ("own") and the other one ("other") at `factor` times the
    training length: per reading, answers right and answers scored at each position (accuracy_by_position)."""
    length = int(round(factor * config.train_len))
    other = "half" if config.layout == "interleaved" else "interleaved"
    out = {"own": config.layout, "other": other, "length": length, "train_len": config.train_len}
    for name, m in (("own", model), ("swapped", analysis.with_layout(model, other))):
        found = analysis.accuracy_by_position(m, config.task, length, sequences=EVAL_SEQUENCES)
        out[f"{name}_correct"] = found["correct"].tolist()
        out[f"{name}_total"] = found["total"].tolist()
    return out


def _seed0_weights(doc: dict, folder: Path, task: str, scheme: str) -> Path | None:
    for run in doc["runs"]:
        c = run["config"]
        if c["task"] == task and c["encoding"] == scheme and run.get("weights"):
            path = folder / run["weights"]
            return path if path.is_file() else None
    return None


def evaluate_grid(grid_path, *, factors=None, tasks=None, command: str = "", progress=None) -> dict:
    """Every evaluation above for the grid at `grid_path` (its seed-0 weights): a document with the
    grid's file name and creation time, these SETTINGS, the command, where and how long it ran, and
    "tasks": {task: {"frequency": {scheme: frequency_use}, "removal": {factor: removal},
    "mixup": {factor: layout_mixup}}} (factors as text, "1.0" included in removal). factors: the
    evaluation factors above 1 (default: the grid's); tasks: default every task the grid holds."""
    grid_path = Path(grid_path)
    doc = load_results(grid_path)
    started = time.perf_counter()
    if factors is None:
        factors = sorted({float(e["factor"]) for r in doc["runs"] for e in r["eval"]} - {1.0})
    if tasks is None:
        tasks = list(dict.fromkeys(r["config"]["task"] for r in doc["runs"]))
    out = {"schema": EVALUATIONS_SCHEMA, "command": command, "grid": grid_path.name, "grid_created": doc["created"],
           "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), "device": "cpu",
           "torch": torch.__version__, "settings": SETTINGS, "tasks": {}}
    for task in tasks:
        found: dict[str, Any] = {"frequency": {}, "removal": {}, "mixup": {}}
        for scheme in FREQUENCY_MODELS:
            path = _seed0_weights(doc, grid_path.parent, task, scheme)
            if path is not None:
                found["frequency"][scheme] = frequency_use(*load_model(path))
        path = _seed0_weights(doc, grid_path.parent, task, "rope")
        if path is not None:
            model, config = load_model(path)
            found["weights"] = path.relative_to(grid_path.parent).as_posix()
            for factor in (1.0, *factors):
                found["removal"][repr(float(factor))] = removal(model, config, factor)
                if factor > 1:
                    found["mixup"][repr(float(factor))] = layout_mixup(model, config, factor)
                if progress is not None:
                    progress(task, factor, time.perf_counter() - started)
        out["tasks"][task] = found
    out["wall_seconds"] = round(time.perf_counter() - started, 3)
    return out


def save_evaluations(doc: dict, path) -> Path:
    """Write an evaluations document as compact JSON (beside, then renamed over the old file)."""
    return write_json(doc, path, indent=None)


def load_evaluations(path) -> dict:
    """Read an evaluations document; ValueError when it is unreadable or of another schema."""
    doc = read_json(path, "evaluations")
    if not isinstance(doc, dict) or doc.get("schema") != EVALUATIONS_SCHEMA or not isinstance(doc.get("tasks"), dict):
        raise ValueError(f"path={str(path)!r} is not a {EVALUATIONS_SCHEMA} document")
    return doc
