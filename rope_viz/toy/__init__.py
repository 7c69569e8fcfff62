"""Tiny transformers trained here with RoPE, sinusoidal, ALiBi and no position encoding.

Evidence from trained models: two synthetic tasks (`recall`, content lookup at any distance;
`offset`, the token k places back), a decoder-only transformer whose position scheme is one
argument, evaluation at 1x-8x the training length (RoPE also with PI / NTK / YaRN scaling at
inference), and the results document the shipped grid (results/toy/grid.json) uses::

    from rope_viz import toy
    doc = toy.load_results(toy.DEFAULT_DIR / "grid.json")
    model, config = toy.load_model(toy.DEFAULT_DIR / doc["runs"][0]["weights"])
    maps = toy.attention_maps(model, toy.make_batch("recall", 1, 64)[0][0])
    live = toy.train(toy.TrainConfig(), progress=print, should_stop=lambda: False)

Not imported by `rope_viz` itself, so `import rope_viz` stays light.
"""

from .model import ENCODINGS, ModelConfig, ToyTransformer
from .results import (DEFAULT_DIR, SCHEMA, attention_maps, load_model, load_results, save_model,
                      save_results, summarize, validate_results)
from .runner import GRID_SEEDS, GRID_STEPS, grid_configs, run_grid, train
from .tasks import IGNORE, TASKS, make_batch, task_spec
from .training import EVAL_FACTORS, SCALINGS, TrainConfig, evaluate, rope_frequencies, train_run

__all__ = [
    "DEFAULT_DIR", "ENCODINGS", "EVAL_FACTORS", "GRID_SEEDS", "GRID_STEPS", "IGNORE", "SCALINGS",
    "SCHEMA", "TASKS", "ModelConfig", "ToyTransformer", "TrainConfig", "attention_maps", "evaluate",
    "grid_configs", "load_model", "load_results", "make_batch", "rope_frequencies", "run_grid",
    "save_model", "save_results", "summarize", "task_spec", "train", "train_run", "validate_results",
]
