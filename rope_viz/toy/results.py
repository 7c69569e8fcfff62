"""The results document every run and the shipped grid write, its validation, and the weights.

A results document (JSON) is a dict:
    schema        SCHEMA
    command       the exact command line that produced it; argv its arguments
    created       ISO 8601 time (UTC); device, torch: where and with what it ran
    wall_seconds  total wall time
    runs          one entry per trained model: config (TrainConfig.to_dict()), command (the
                  `train` command reproducing it alone), train_loss ([[step, loss], ...]),
                  stopped_at (None, or the step a stop request ended training), eval (list of
                  {scaling, factor, length, accuracy, loss, scored}), train_seconds,
                  wall_seconds, device, weights (a safetensors path relative to the JSON's
                  folder, or None)
    summary       per (task, encoding, scaling, factor): mean, population std, min and max of
                  the accuracy and the loss over the seeds
"""

from __future__ import annotations

import json
import math
import os
import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch

from .model import ToyTransformer
from .training import SCALINGS, TrainConfig

SCHEMA = "rope_viz.toy.results/1"
TOP_KEYS = {"schema": str, "command": str, "argv": list, "created": str, "device": str, "torch": str,
            "wall_seconds": (int, float), "runs": list, "summary": list}
RUN_KEYS = {"config": dict, "command": str, "train_loss": list, "stopped_at": (int, type(None)),
            "eval": list, "train_seconds": (int, float), "wall_seconds": (int, float), "device": str,
            "weights": (str, type(None))}
EVAL_KEYS = {"scaling": str, "factor": (int, float), "length": int, "accuracy": (int, float),
             "loss": (int, float), "scored": int}
SUMMARY_KEYS = {"task": str, "encoding": str, "scaling": str, "factor": (int, float), "length": int,
                "seeds": list, "accuracy_mean": (int, float), "accuracy_std": (int, float),
                "accuracy_min": (int, float), "accuracy_max": (int, float), "loss_mean": (int, float),
                "loss_std": (int, float)}
# the shipped grids and their seed-0 weights, package data of rope_viz (found in a checkout and in an install alike)
DEFAULT_DIR = Path(__file__).resolve().parent / "shipped"


def summarize(runs: list[dict]) -> list[dict]:
    """Mean, spread (population std), min and max over seeds per (task, encoding, scaling, factor)."""
    groups = defaultdict(list)
    for run in runs:
        c = run["config"]
        for e in run["eval"]:
            groups[(c["task"], c["encoding"], e["scaling"], float(e["factor"]), e["length"])].append(
                (c["seed"], e["accuracy"], e["loss"]))
    out = []
    for (task, encoding, scaling, factor, length), rows in sorted(groups.items()):
        acc, loss = [r[1] for r in rows], [r[2] for r in rows]
        out.append({"task": task, "encoding": encoding, "scaling": scaling, "factor": factor,
                    "length": length, "seeds": sorted(r[0] for r in rows),
                    "accuracy_mean": statistics.fmean(acc), "accuracy_std": statistics.pstdev(acc),
                    "accuracy_min": min(acc), "accuracy_max": max(acc),
                    "loss_mean": statistics.fmean(loss), "loss_std": statistics.pstdev(loss)})
    return out


def _check_keys(obj, keys: dict, where: str) -> None:
    if not isinstance(obj, dict):
        raise ValueError(f"{where} must be a JSON object, got {type(obj).__name__}")
    missing = sorted(set(keys) - set(obj))
    if missing:
        raise ValueError(f"{where} lacks the keys {missing}")
    for key, kind in keys.items():
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ValueError(f"{where}[{key!r}] has the wrong type: got {value!r:.60}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{where}[{key!r}] must be finite, got {value!r}")


def validate_results(doc) -> dict:
    """Check a results document against the schema above; returns it, raises ValueError naming
    the first offending field."""
    _check_keys(doc, TOP_KEYS, "results")
    if doc["schema"] != SCHEMA:
        raise ValueError(f"results['schema'] must be {SCHEMA!r}, got {doc['schema']!r}")
    if not doc["runs"]:
        raise ValueError("results['runs'] must hold at least one run")
    for i, run in enumerate(doc["runs"]):
        where = f"results['runs'][{i}]"
        _check_keys(run, RUN_KEYS, where)
        TrainConfig.from_dict(run["config"])  # raises ValueError on a bad config
        for j, point in enumerate(run["train_loss"]):
            if (not isinstance(point, list) or len(point) != 2 or not isinstance(point[0], int)
                    or not isinstance(point[1], (int, float)) or not math.isfinite(point[1])):
                raise ValueError(f"{where}['train_loss'][{j}] must be [step, finite loss], got {point!r:.60}")
        if not run["eval"]:
            raise ValueError(f"{where}['eval'] must hold at least one evaluation")
        for j, e in enumerate(run["eval"]):
            _check_keys(e, EVAL_KEYS, f"{where}['eval'][{j}]")
            if e["scaling"] not in SCALINGS or not 0 <= e["accuracy"] <= 1:
                raise ValueError(f"{where}['eval'][{j}] has scaling {e['scaling']!r} (allowed: {SCALINGS}) "
                                 f"and accuracy {e['accuracy']!r} (allowed: 0..1)")
    for i, row in enumerate(doc["summary"]):
        _check_keys(row, SUMMARY_KEYS, f"results['summary'][{i}]")
    return doc


def read_json(path, what: str):
    """The JSON in the file `path`; ValueError naming the path when it cannot be read as JSON (`what`: its kind)."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"path={str(path)!r} is not a readable {what} JSON file: {err}") from err


def write_json(doc, path, *, indent: int | None = 1) -> Path:
    """Write `doc` as JSON to `path`, beside and then renamed, so that a run stopped meanwhile leaves the
    previous file whole; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    text = json.dumps(doc, indent=indent, separators=None if indent is not None else (",", ":"))
    part.write_text(text + "\n", encoding="utf-8")
    os.replace(part, path)
    return path


def load_results(path) -> dict:
    """Read and validate a results JSON file (ValueError if malformed)."""
    return validate_results(read_json(path, "results"))


def save_results(doc: dict, path) -> Path:
    """Validate and write a results document as indented JSON (write_json); returns the path."""
    validate_results(doc)
    return write_json(doc, path)


def save_model(model: ToyTransformer, config: TrainConfig, path) -> Path:
    """Write the weights as safetensors with the TrainConfig in the metadata."""
    from safetensors.torch import save_file
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    save_file(tensors, str(path), metadata={"schema": SCHEMA, "config": json.dumps(config.to_dict())})
    return path


def load_model(path) -> tuple[ToyTransformer, TrainConfig]:
    """Rebuild a saved model (in eval mode, on the CPU) and its TrainConfig from a safetensors file."""
    from safetensors import safe_open
    path = Path(path)
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as err:  # safetensors raises its own error types
        raise ValueError(f"path={str(path)!r} is not a readable safetensors file: {err}") from err
    if meta.get("schema") != SCHEMA or "config" not in meta:
        raise ValueError(f"path={str(path)!r} holds no {SCHEMA} model config in its metadata")
    config = TrainConfig.from_dict(json.loads(meta["config"]))
    model = ToyTransformer(config.model_config())
    try:
        model.load_state_dict(tensors, strict=True)
    except RuntimeError as err:
        raise ValueError(f"path={str(path)!r}: weights do not fit the config: {err}") from err
    return model.eval(), config


@torch.no_grad()
def attention_maps(model: ToyTransformer, tokens, *, rope_freqs=None) -> np.ndarray:
    """Attention weights on one sequence: float32 array (layers, heads, seq, seq), rows = queries.

    tokens: a 1-D sequence of token ids (list, numpy array or tensor), or a (1, seq) tensor.
    rope_freqs: optional (inv_freq, attention_factor) of an inference-time scaling."""
    if not isinstance(model, ToyTransformer):
        raise ValueError(f"model must be a ToyTransformer, got {type(model).__name__}")
    t = torch.as_tensor(np.asarray(tokens) if not isinstance(tokens, torch.Tensor) else tokens)
    if t.dim() == 2 and t.shape[0] == 1:
        t = t[0]
    if t.dim() != 1 or t.numel() == 0 or t.is_floating_point():
        raise ValueError(f"tokens must be one non-empty sequence of integer token ids, got shape {tuple(t.shape)}")
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    _, maps = model(t.long()[None].to(device), rope_freqs=rope_freqs, return_attention=True)
    model.train(was_training)
    return torch.stack([m[0] for m in maps]).float().cpu().numpy()
