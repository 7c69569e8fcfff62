"""The trained-models page's view: accuracy against evaluation length from results documents (the shipped
grid or a live run), and the attention maps of the shipped weights at 1x and past the training length.

Pure functions of plain values (a results folder as a string and its file's modification time, so that a
regenerated grid is read again); no Streamlit and no text.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rope_viz import toy

from .sampling import downsample

GRID_FILE = "grid.json"
MAP_SIDE = 256     # heatmaps are drawn at most this many positions per side
MAP_SEED = 0       # the sequence the attention maps are computed on (make_batch's seed)
ENCODING_ORDER = toy.ENCODINGS
SCALING_ORDER = toy.SCALINGS


def grid_path(folder: str) -> Path:
    return Path(folder) / GRID_FILE


def grid_stamp(folder: str) -> float | None:
    """Modification time of the folder's grid.json (a cache key), None when there is none."""
    try:
        return grid_path(folder).stat().st_mtime
    except OSError:
        return None


def curves_from_doc(doc: dict, task: str) -> dict:
    """Accuracy against evaluation length for `task`, one curve per (encoding, scaling), from a validated
    results document: the mean over seeds and the band from the smallest to the largest seed.

    Returns {"train_len", "curves": [{encoding, scaling, seeds, factors, lengths, mean, std, low, high}],
    "steps"}; arrays float32. A document with runs of several training lengths keeps the first one's."""
    runs = [r for r in doc["runs"] if r["config"]["task"] == task]
    if not runs:
        return {"train_len": None, "steps": None, "curves": []}
    train_len = runs[0]["config"]["train_len"]
    runs = [r for r in runs if r["config"]["train_len"] == train_len]
    rows = toy.summarize(runs)
    curves = []
    for encoding in ENCODING_ORDER:
        for scaling in SCALING_ORDER:
            mine = sorted((r for r in rows if r["encoding"] == encoding and r["scaling"] == scaling),
                          key=lambda r: r["factor"])
            if not mine:
                continue
            pick = lambda key: np.array([r[key] for r in mine], dtype=np.float32)  # noqa: E731
            curves.append({"encoding": encoding, "scaling": scaling, "seeds": list(mine[0]["seeds"]),
                           "factors": pick("factor"), "lengths": pick("length"), "mean": pick("accuracy_mean"),
                           "std": pick("accuracy_std"), "low": pick("accuracy_min"), "high": pick("accuracy_max")})
    return {"train_len": int(train_len), "steps": int(runs[0]["config"]["steps"]), "curves": curves}


def shipped(folder: str, stamp: float | None) -> dict | None:
    """The shipped grid's facts (command, time, device, steps, tasks) or None when it is missing or malformed
    (then "error" says why). `stamp`: grid_stamp(folder), part of the cache key only."""
    path = grid_path(folder)
    if stamp is None:
        return None
    try:
        doc = toy.load_results(path)
    except ValueError as err:
        return {"error": str(err)}
    return {"error": "", "command": doc["command"], "created": doc["created"], "device": doc["device"],
            "torch": doc["torch"], "wall_seconds": float(doc["wall_seconds"]), "runs": len(doc["runs"]),
            "tasks": sorted({r["config"]["task"] for r in doc["runs"]}),
            "train_seconds": float(sum(r["train_seconds"] for r in doc["runs"]))}


def shipped_curves(folder: str, stamp: float | None, task: str) -> dict:
    """curves_from_doc of the shipped grid for `task` (no curves when the grid is missing)."""
    if stamp is None:
        return {"train_len": None, "steps": None, "curves": []}
    try:
        doc = toy.load_results(grid_path(folder))
    except ValueError:
        return {"train_len": None, "steps": None, "curves": []}
    return curves_from_doc(doc, task)


def at_factor(curves: list[dict], factor: float) -> dict[tuple[str, str], dict]:
    """{(encoding, scaling): {"mean", "low", "high", "std"}} at one evaluation factor (curves lacking it left out)."""
    out = {}
    for c in curves:
        hit = np.flatnonzero(np.isclose(c["factors"], factor))
        if hit.size:
            i = int(hit[0])
            out[(c["encoding"], c["scaling"])] = {k: float(c[k][i]) for k in ("mean", "low", "high", "std")}
    return out


def compare(a: dict, b: dict) -> str:
    """"higher" / "lower" when a's whole seed band lies above / below b's, else "overlap"."""
    if a["low"] > b["high"]:
        return "higher"
    if a["high"] < b["low"]:
        return "lower"
    return "overlap"


def _weights(folder: str, task: str, encoding: str) -> Path | None:
    doc = toy.load_results(grid_path(folder))
    for run in doc["runs"]:
        c = run["config"]
        if c["task"] == task and c["encoding"] == encoding and run["weights"]:
            return grid_path(folder).parent / run["weights"]
    return None


def _offset_stats(weights: np.ndarray, train_len: int, dominant: int | None = None) -> dict:
    """Where one head's attention goes (weights: seq x seq, rows = queries): for each query its top key's
    offset q - k and its mean attended distance sum_k w[q, k] (q - k). `dominant`: the offset to look for
    (default: the most common top offset here). Shares are over queries 1.. (query 0 sees only itself)."""
    seq = weights.shape[0]
    queries = np.arange(seq)
    top = queries - weights.argmax(axis=1)
    distance = (weights * (queries[:, None] - queries[None, :]).clip(min=0)).sum(axis=1)
    asked = queries >= 1
    if dominant is None:
        dominant = int(np.bincount(top[asked]).argmax()) if asked.any() else 0
    past = queries >= train_len
    share = lambda where: float((top[where] == dominant).mean()) if where.any() else float("nan")  # noqa: E731
    mean = lambda where: float(distance[where].mean()) if where.any() else float("nan")  # noqa: E731
    return {"dominant": dominant, "share": share(asked), "share_within": share(asked & ~past),
            "share_past": share(past), "distance_within": mean(asked & ~past), "distance_past": mean(past)}


def _maps(folder: str, task: str, encoding: str, length: int, scaling: str) -> tuple[np.ndarray, int, dict]:
    model, config = toy.load_model(_weights(folder, task, encoding))
    freqs = None
    if encoding == "rope":
        freqs = toy.rope_frequencies(model.config, scaling, length / config.train_len, config.train_len)
    tokens = toy.make_batch(task, 1, length, seed=MAP_SEED)[0][0]
    return toy.attention_maps(model, tokens, rope_freqs=freqs), config.train_len, model.config.to_dict()


def has_weights(folder: str, stamp: float | None, task: str, encoding: str) -> bool:
    if stamp is None:
        return False
    try:
        path = _weights(folder, task, encoding)
    except ValueError:
        return False
    return path is not None and path.is_file()


def attention_view(folder: str, stamp: float | None, task: str, encoding: str, layer: int, head: int,
                   factor: float, scaling: str) -> dict:
    """One head of the shipped seed-0 model at the training length and at `factor` times it (RoPE with the
    inference-time `scaling` there), on the sequence make_batch(task, 1, length, seed=MAP_SEED).

    Maps are drawn thinned to MAP_SIDE per side ("short", "long" with "short_kept", "long_kept"); the
    statistics use the full maps: the head's most common top offset at 1x and how often queries keep it
    within / past the training length at `factor`x, and the mean attended distance."""
    if not has_weights(folder, stamp, task, encoding):
        return {"available": False}
    short, train_len, arch = _maps(folder, task, encoding, _length(folder, task, 1.0), "none")
    long, _, _ = _maps(folder, task, encoding, _length(folder, task, factor), scaling)
    layer = min(int(layer), short.shape[0] - 1)
    head = min(int(head), short.shape[1] - 1)
    at_short = _offset_stats(short[layer, head], train_len)
    at_long = _offset_stats(long[layer, head], train_len, dominant=at_short["dominant"])
    out = {"available": True, "train_len": train_len, "long_len": long.shape[-1], "n_layers": arch["n_layers"],
           "n_heads": arch["n_heads"], "layer": layer, "head": head, "short_stats": at_short, "long_stats": at_long}
    for name, maps in (("short", short), ("long", long)):
        out[name], out[f"{name}_kept"], _ = downsample(maps[layer, head], MAP_SIDE)
    return out


def _length(folder: str, task: str, factor: float) -> int:
    doc = toy.load_results(grid_path(folder))
    run = next(r for r in doc["runs"] if r["config"]["task"] == task)
    return int(round(factor * run["config"]["train_len"]))


def locked_heads(folder: str, stamp: float | None, task: str, factor: float, scaling: str) -> dict:
    """For every encoding with shipped weights: its most position-locked head (the largest share of queries
    whose top key sits at the head's most common offset, at 1x) and that share past the training length at
    `factor`x. Returns {"encodings", "layer", "head", "dominant", "share_1x", "share_past"} (arrays float32)."""
    out = {"encodings": [], "layer": [], "head": [], "dominant": [], "share_1x": [], "share_past": []}
    for encoding in ENCODING_ORDER:
        if not has_weights(folder, stamp, task, encoding):
            continue
        short, train_len, _ = _maps(folder, task, encoding, _length(folder, task, 1.0), "none")
        long, _, _ = _maps(folder, task, encoding, _length(folder, task, factor),
                           scaling if encoding == "rope" else "none")
        best = None
        for layer in range(short.shape[0]):
            for head in range(short.shape[1]):
                s = _offset_stats(short[layer, head], train_len)
                if best is None or s["share"] > best[2]["share"]:
                    best = (layer, head, s)
        layer, head, s = best
        past = _offset_stats(long[layer, head], train_len, dominant=s["dominant"])
        for key, value in (("encodings", encoding), ("layer", layer), ("head", head), ("dominant", s["dominant"]),
                           ("share_1x", s["share"]), ("share_past", past["share_past"])):
            out[key].append(value)
    for key in ("share_1x", "share_past"):
        out[key] = np.array(out[key], dtype=np.float32)
    return out
