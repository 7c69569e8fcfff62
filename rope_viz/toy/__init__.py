"""Tiny transformers trained here with RoPE, sinusoidal, ALiBi, no position encoding, and the
position designs of 2025-26 models (NoPE layers, query temperature, local RoPE, p-RoPE, partial RoPE).

Evidence from trained models: three synthetic tasks (`recall`, content lookup at any distance;
`offset`, the token k places back; `passkey`, a value planted at a random depth in filler), a
decoder-only transformer whose position scheme is one argument (ENCODINGS for the two-layer grid,
SCHEMES for the four-layer one), evaluation past the training length (RoPE also with PI / NTK /
YaRN scaling at inference), the results document both grids use (grid.json and grid4.json, shipped in
the package in toy.DEFAULT_DIR, rope_viz/toy/shipped), and what a trained model does with each frequency
(`toy.analysis`)::

    from rope_viz import toy
    doc = toy.load_results(toy.DEFAULT_DIR / "grid.json")
    model, config = toy.load_model(toy.DEFAULT_DIR / doc["runs"][0]["weights"])
    maps = toy.attention_maps(model, toy.make_batch("recall", 1, 64)[0][0])
    live = toy.train(toy.TrainConfig(), progress=print, should_stop=lambda: False)

Not imported by `rope_viz` itself, so `import rope_viz` stays light.
"""

from .model import (ENCODINGS, POSITION_SCHEMES, SCHEMES, LayerPlan, ModelConfig, ToyTransformer, layer_plan,
                    proportional_inv_freq, query_temperature)
from .results import (DEFAULT_DIR, SCHEMA, attention_maps, load_model, load_results, save_model,
                      save_results, summarize, validate_results)
from .runner import (GRID4_EVAL_FACTORS, GRID4_FILE, GRID4_STEPS, GRID_SEEDS, GRID_STEPS, grid4_configs,
                     grid_configs, run_configs, run_grid, run_grid4, train)
from .tasks import IGNORE, TASK_NAMES, TASKS, make_batch, passkey_depth, task_spec
from .training import EVAL_FACTORS, SCALINGS, TrainConfig, evaluate, rope_frequencies, train_run

__all__ = [
    "DEFAULT_DIR", "ENCODINGS", "EVAL_FACTORS", "GRID4_EVAL_FACTORS", "GRID4_FILE", "GRID4_STEPS", "GRID_SEEDS",
    "GRID_STEPS", "IGNORE", "POSITION_SCHEMES", "SCALINGS", "SCHEMA", "SCHEMES", "TASKS", "TASK_NAMES", "LayerPlan",
    "ModelConfig", "ToyTransformer", "TrainConfig", "attention_maps", "evaluate", "grid4_configs", "grid_configs",
    "layer_plan", "load_model", "load_results", "make_batch", "passkey_depth", "proportional_inv_freq",
    "query_temperature", "rope_frequencies", "run_configs", "run_grid", "run_grid4", "save_model", "save_results",
    "summarize", "task_spec", "train", "train_run", "validate_results",
]
