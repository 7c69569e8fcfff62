"""A small stand-in for the shipped toy grid (rope_viz/toy/shipped), for tests only: every task x encoding x seed
trained for a handful of steps, written with the shipped layout (grid.json, weights/<task>_<encoding>_seed0)
into a folder the caller chooses (a temporary one). Never written into the shipped folder."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import torch

from rope_viz import toy
from rope_viz.toy.results import save_model, save_results

STANDIN_STEPS = 12
STANDIN_SEEDS = (0, 1)


def build(folder, *, steps: int = STANDIN_STEPS, seeds=STANDIN_SEEDS, eval_sequences: int = 4) -> Path:
    """Write a stand-in grid.json (the shipped schema) and the seed-0 weights into `folder`; returns it."""
    folder = Path(folder)
    if folder.resolve().is_relative_to(toy.DEFAULT_DIR):
        raise ValueError(f"folder={str(folder)!r}: a stand-in never goes into the shipped results")
    torch.set_num_threads(1)
    runs = []
    for task in toy.TASKS:
        for encoding in toy.ENCODINGS:
            for seed in seeds:
                config = toy.TrainConfig(task=task, encoding=encoding, seed=seed, steps=steps, batch_size=8,
                                         eval_sequences=eval_sequences, warmup=2)
                model, run = toy.train_run(config)
                if seed == seeds[0]:
                    name = f"{task}_{encoding}_seed{seed}.safetensors"
                    save_model(model, config, folder / "weights" / name)
                    run["weights"] = f"weights/{name}"
                runs.append(run)
    doc = {"schema": toy.SCHEMA, "command": f"python -m rope_viz.toy grid --steps {steps}",
           "argv": ["grid", "--steps", str(steps)],
           "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
           "device": runs[0]["device"], "torch": torch.__version__,
           "wall_seconds": round(sum(r["wall_seconds"] for r in runs), 3), "runs": runs,
           "summary": toy.summarize(runs)}
    save_results(doc, folder / "grid.json")
    return folder


_built: dict = {}


def standin_folder() -> Path:
    """One stand-in per test process, built on first use in a temporary folder (about 30 s)."""
    import tempfile

    if "folder" not in _built:
        _built["folder"] = build(Path(tempfile.mkdtemp(prefix="toy-standin-")))
    return _built["folder"]
