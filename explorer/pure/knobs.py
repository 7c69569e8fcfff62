"""Every knob of every page, declared once: name, default, range, label and tooltip (text keys).

`PAGE_KNOBS[page]` is the page's knobs: declared below for the first pages, and for a newer topic beside its
view (`KNOBS` in explorer/pure/views/<page>.py, built with explorer.pure.shared_knobs' `declare` and `own`).

The pages draw them (`explorer.knob(page, name)`), the tests open pages at their `extremes()`, and the
page benchmark measures each page with every knob at its heaviest value. A range that depends on another
knob (a pair index below d/2) is declared at its widest and narrowed by the page.
"""

from __future__ import annotations

import importlib

from rope_viz.attention import FEATURE_MAPS
from rope_viz.conformance.bugs import BUG_CLASSES
from rope_viz.axial import AXIAL_FREQUENCIES
from rope_viz import model_presets as _model_presets
from rope_viz.mrope import TEXT_RESUME_RULES
from rope_viz.analysis import RECIPES
from rope_viz.precision import DEFAULT_FAR_POSITIONS
from rope_viz.toy import ENCODINGS as TOY_ENCODINGS
from rope_viz.toy import POSITION_SCHEMES
from rope_viz.toy import EVAL_FACTORS, GRID4_EVAL_FACTORS, SCALINGS, TASK_NAMES, TASKS, TrainConfig

from explorer.pure.views.real_models import DEFAULT_MODEL, EXAMPLES, SHIFT, TRAP_LAYER
from explorer.pure.knob_types import BoolKnob, ChoiceKnob, FloatKnob, IntKnob, IntSetKnob, NumberChoiceKnob, TextKnob
from explorer.pure.text import LANGS
from explorer.pure.shared_knobs import BASE, SEED, declare as _declare, head_dim, own as _own
from explorer.pure.shared_knobs import BASES as BASES, format_base as format_base  # read from here by others
from explorer.pure.sitemap import TOPICS

# the decay page's base sweep: exponent e stands for base 10^e
SWEEP_BASES = {e: float(10 ** e) for e in range(2, 10)}

LANG = ChoiceKnob("lang", "en", LANGS)
# the long-context page: context lengths 2^9 .. 2^20, and the shipped model presets
CONTEXT_LENGTHS = tuple(2 ** e for e in range(9, 21))  # token counts: integers end to end
LONG_CONTEXT_PRESETS = tuple(name for name, model in _model_presets().items() if model.has_rope)
ANATOMY_PRESETS = tuple(_model_presets())
REAL_MODELS = ("smollm2-135m", "gemma-3-270m")  # rope_viz.real's models, the faster first


PAGE_KNOBS = {
    "home": {},
    "complex_numbers": _declare(
        _own("complex_numbers", FloatKnob, "a", 2.0, -3.0, 3.0, 2),
        _own("complex_numbers", FloatKnob, "b", 1.0, -3.0, 3.0, 2),
        _own("complex_numbers", IntKnob, "theta", 50, -180, 180, 1),
        _own("complex_numbers", FloatKnob, "w_mod", 1.5, 0.0, 3.0, 2, label="w_modulus"),
        _own("complex_numbers", IntKnob, "w_angle", 60, -180, 180, 1),
    ),
    "frequency_clocks": _declare(
        head_dim(), BASE,
        _own("frequency_clocks", IntKnob, "max_pos", 64, 8, 512, 8),
        _own("frequency_clocks", IntSetKnob, "pairs", (0, 1, 2, 8, 16, 31), 0, 127, 8),
        _own("frequency_clocks", IntKnob, "m", 10, 0, 512, 1, label="position_m", help=""),
        _own("frequency_clocks", IntKnob, "pair", 0, 0, 127, 1, label="pair_pick", help=""),
        SEED,
    ),
    "phase_cancellation": _declare(
        IntKnob("m", 2, 0, 128, 1, label="common.query_position", help="phase_cancellation.m_help"),
        IntKnob("n", 5, 0, 128, 1, label="common.key_position", help="phase_cancellation.n_help"),
        SEED, head_dim(default=16, hi=64), BASE,
        _own("phase_cancellation", IntKnob, "pair", 1, 0, 31, 1),
    ),
    "relative_attention": _declare(
        _own("relative_attention", IntKnob, "seq", 128, 8, 2048, 8), head_dim(), BASE,
        _own("relative_attention", ChoiceKnob, "content", "same", ("same", "random"), heaviest="random"),
        SEED,
        _own("relative_attention", IntKnob, "shift", 100, 0, 4096, 1),
        _own("relative_attention", BoolKnob, "causal", False),
        # the chosen cell (m, n): query and key positions, narrowed to the sequence on the page
        _own("relative_attention", IntKnob, "m", 96, 0, 2047, 1),
        _own("relative_attention", IntKnob, "n", 32, 0, 2047, 1),
    ),
    "implementation_forms": _declare(
        _own("implementation_forms", FloatKnob, "q1", 1.0, -5.0, 5.0, 2, help="q_help"),
        _own("implementation_forms", FloatKnob, "q2", 2.0, -5.0, 5.0, 2, help="q_help"),
        _own("implementation_forms", FloatKnob, "theta", 0.5, -3.142, 3.142, 3),
        _own("implementation_forms", IntKnob, "m", 1, 0, 64, 1),
        IntKnob("seq", 256, 16, 512, 16, label="common.seq_len", help="implementation_forms.seq_help"),
        head_dim(hi=128), SEED,
        _own("implementation_forms", IntKnob, "rotary_dim", 32, 2, 128, 2),  # the page: max(2, dim // 4 * 2)
        _own("implementation_forms", IntKnob, "pos", 100, 0, 4096, 1, label="position"),
        _own("implementation_forms", IntKnob, "shift", 100, 0, 4096, 1),
    ),
    "rope_vs_sinusoidal": _declare(
        _own("rope_vs_sinusoidal", IntKnob, "seq", 64, 8, 1024, 8),
        _own("rope_vs_sinusoidal", IntKnob, "dim", 64, 2, 256, 2),
        BASE, SEED,
        _own("rope_vs_sinusoidal", IntKnob, "shift", 100, 0, 4096, 1),
    ),
    "long_term_decay": _declare(
        head_dim(default=128), BASE,
        _own("long_term_decay", IntKnob, "max_r", 1024, 16, 4096, 16),
        _own("long_term_decay", BoolKnob, "log_x", True),
        _own("long_term_decay", IntSetKnob, "sweep", (4, 5, 6), min(SWEEP_BASES), max(SWEEP_BASES), 6),
        _own("long_term_decay", IntKnob, "samples", 64, 8, 128, 8),
        SEED,
    ),
    "linear_attention": _declare(
        _own("linear_attention", IntKnob, "seq", 256, 16, 2048, 16), head_dim(),
        NumberChoiceKnob("base", 100.0, BASES, label="common.base", help="common.base_help"),  # rotated sums fail
        _own("linear_attention", ChoiceKnob, "phi", "elu", tuple(FEATURE_MAPS)),
        SEED,
        _own("linear_attention", IntKnob, "channel", 0, 0, 255, 1),
        _own("linear_attention", BoolKnob, "timing", False),
    ),
    "long_context": _declare(
        _own("long_context", ChoiceKnob, "preset", "Llama-3.1-8B", LONG_CONTEXT_PRESETS, heaviest="gemma-7b",
             menu=True),
        _own("long_context", TextKnob, "config", "", max_length=8192),
        _own("long_context", NumberChoiceKnob, "target", 131072, CONTEXT_LENGTHS),
        _own("long_context", ChoiceKnob, "original", "model", ("model",) + tuple(str(n) for n in CONTEXT_LENGTHS)),
        _own("long_context", FloatKnob, "factor", 0.0, 0.0, 128.0, 1),
        _own("long_context", ChoiceKnob, "focus", "model",
             ("model", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"), menu=True),
        _own("long_context", FloatKnob, "beta_fast", 32.0, 1.0, 128.0, 1),
        _own("long_context", FloatKnob, "beta_slow", 1.0, 0.1, 32.0, 1),  # the page: hi = beta_fast
        _own("long_context", FloatKnob, "low_freq", 1.0, 0.5, 16.0, 1),
        _own("long_context", FloatKnob, "high_freq", 4.0, 1.0, 64.0, 1),  # the page: lo = low_freq + 0.5
        _own("long_context", NumberChoiceKnob, "prompt", 4096, CONTEXT_LENGTHS),
        _own("long_context", IntKnob, "samples", 64, 8, 128, 8),
        SEED,
    ),
    "model_anatomy": _declare(
        _own("model_anatomy", ChoiceKnob, "model1", "meta-llama/Llama-4-Scout-17B-16E", ANATOMY_PRESETS,
             label="model", help="model_help", menu=True),
        _own("model_anatomy", ChoiceKnob, "model2", "google/gemma-3-1b-it", ("none",) + ANATOMY_PRESETS,
             label="model", help="model_help", menu=True, heaviest="Qwen/Qwen2.5-VL-7B-Instruct"),
        _own("model_anatomy", ChoiceKnob, "model3", "DeepSeek-V3", ("none",) + ANATOMY_PRESETS,
             label="model", help="model_help", menu=True, heaviest="meta-llama/Llama-4-Scout-17B-16E-Instruct"),
        _own("model_anatomy", TextKnob, "config", "", max_length=16384),
        _own("model_anatomy", NumberChoiceKnob, "context", 131072, CONTEXT_LENGTHS),
    ),
    "real_models": _declare(  # rope_viz.real: the layer and head ranges are SmolLM2's, narrowed for Gemma 3
        _own("real_models", ChoiceKnob, "model", DEFAULT_MODEL, REAL_MODELS, heaviest="gemma-3-270m"),
        _own("real_models", ChoiceKnob, "example", "prose", tuple(EXAMPLES), menu=True),
        _own("real_models", TextKnob, "text", "", max_length=8192),
        _own("real_models", IntKnob, "layer", 16, 0, 29, 1),  # SmolLM2's previous-token head
        _own("real_models", IntKnob, "head", 0, 0, 8, 1),
        _own("real_models", IntKnob, "shift", SHIFT, 0, 100_000, 1),
        _own("real_models", IntKnob, "trap_layer", TRAP_LAYER, 0, 29, 1),
        _own("real_models", IntKnob, "spacing", 1, 1, 64, 1),
        _own("real_models", BoolKnob, "traps", False),  # an own text's traps where they run in float32 (see the page)
    ),
    "pairs_in_real_models": _declare(  # rope_viz.real.pairs: the layer range is SmolLM2's, narrowed for Gemma 3
        _own("pairs_in_real_models", ChoiceKnob, "model", DEFAULT_MODEL, REAL_MODELS, heaviest="gemma-3-270m"),
        _own("pairs_in_real_models", ChoiceKnob, "example", "prose", tuple(EXAMPLES), menu=True),
        _own("pairs_in_real_models", TextKnob, "text", "", max_length=8192),
        _own("pairs_in_real_models", IntKnob, "layer", 3, 0, 29, 1),
    ),
    "check_implementation": _declare(
        _own("check_implementation", ChoiceKnob, "model", "google/gemma-3-1b-it", ANATOMY_PRESETS, menu=True,
             heaviest="meta-llama/Llama-4-Scout-17B-16E-Instruct"),
        _own("check_implementation", TextKnob, "config", "", max_length=16384),
        _own("check_implementation", ChoiceKnob, "demo", "base", ("none",) + tuple(BUG_CLASSES), menu=True,
             heaviest="low_precision"),
        _own("check_implementation", ChoiceKnob, "layout", "model", ("model", "interleaved", "half")),
    ),
    "precision": _declare(
        head_dim(default=128, lo=4), BASE,  # d >= 4: the page follows pair 1, the fastest pair float32 rounds
        _own("precision", IntKnob, "pair", 16, 0, 127, 1),  # the page: hi = dim / 2 - 1
        _own("precision", IntKnob, "start", 4090, 0, 1 << 20, 1),
        _own("precision", NumberChoiceKnob, "far", 8000, tuple(DEFAULT_FAR_POSITIONS)),
        _own("precision", ChoiceKnob, "recipe", "bf16-positions", RECIPES),
        SEED,
        _own("precision", BoolKnob, "timing", False),
    ),
    "images_and_video": _declare(
        _own("images_and_video", IntKnob, "height", 8, 2, 32, 1),
        _own("images_and_video", IntKnob, "width", 12, 2, 32, 1),
        _own("images_and_video", IntKnob, "row", 3, 0, 31, 1),  # the page: hi = height - 1
        _own("images_and_video", IntKnob, "col", 5, 0, 31, 1),  # the page: hi = width - 1
        IntKnob("dim", 64, 8, 256, 8, label="common.head_dim", help="images_and_video.dim_help"), BASE,
        _own("images_and_video", ChoiceKnob, "frequencies", "shared", AXIAL_FREQUENCIES),
        SEED,
        _own("images_and_video", IntKnob, "shift_rows", 5, 0, 1000, 1),
        _own("images_and_video", IntKnob, "shift_cols", 7, 0, 1000, 1),
        _own("images_and_video", IntKnob, "text", 4, 1, 32, 1),
        _own("images_and_video", IntKnob, "img_h", 3, 1, 8, 1),
        _own("images_and_video", IntKnob, "img_w", 4, 1, 8, 1),
        _own("images_and_video", IntKnob, "frames", 6, 0, 8, 1),
        _own("images_and_video", ChoiceKnob, "resume", "spatial_extent", TEXT_RESUME_RULES),
    ),
    "distance_biases": _declare(
        _own("distance_biases", IntKnob, "max_r", 256, 16, 2048, 16), head_dim(), BASE,
        _own("distance_biases", IntKnob, "heads", 8, 1, 16, 1),
        _own("distance_biases", IntKnob, "num_buckets", 32, 4, 64, 4),
        _own("distance_biases", IntKnob, "max_distance", 128, 40, 1024, 8),
        _own("distance_biases", BoolKnob, "bidirectional", True),
        _own("distance_biases", IntKnob, "scale_base", 512, 64, 4096, 64),
        SEED,
    ),
    "trained_models": _declare(  # rope_viz.toy: the shipped two-layer grid's tasks, encodings, architecture, lengths
        _own("trained_models", ChoiceKnob, "task", "recall", TASKS),
        _own("trained_models", BoolKnob, "scalings", True),
        _own("trained_models", ChoiceKnob, "encoding", "rope", TOY_ENCODINGS),
        _own("trained_models", IntKnob, "layer", 0, 0, TrainConfig.n_layers - 1, 1),
        _own("trained_models", IntKnob, "head", 0, 0, TrainConfig.n_heads - 1, 1),
        _own("trained_models", NumberChoiceKnob, "factor", 4.0, tuple(f for f in EVAL_FACTORS if f > 1)),  # past 1x
        _own("trained_models", ChoiceKnob, "scaling", "none", SCALINGS),
        _own("trained_models", ChoiceKnob, "train_task", "recall", TASKS),
        _own("trained_models", ChoiceKnob, "train_encoding", "rope", POSITION_SCHEMES),
        _own("trained_models", IntKnob, "train_len", 32, 16, 64, 8),
        IntKnob("train_seed", 0, 0, 999, 1, label="common.seed", help="trained_models.train_seed_help"),
    ),
    "rope_designs": _declare(  # rope_viz.toy: the shipped four-layer grid's tasks and evaluation lengths
        _own("rope_designs", ChoiceKnob, "task", "recall", TASK_NAMES),
        _own("rope_designs", NumberChoiceKnob, "factor", 8.0, tuple(f for f in GRID4_EVAL_FACTORS if f > 1)),
    ),
}

# a topic declares its knobs beside its view (`KNOBS`, with explorer.pure.shared_knobs' helpers); the pages above
# keep theirs here
PAGE_KNOBS |= {page: importlib.import_module(f"explorer.pure.views.{page}").KNOBS for page in TOPICS
               if page not in PAGE_KNOBS}


def heaviest(page: str) -> dict[str, str]:
    """URL parameters that make `page` as heavy as its knobs allow (each at its heaviest value)."""
    return {name: spec.dump(spec.extremes()[1]) for name, spec in PAGE_KNOBS[page].items()}


def lightest(page: str) -> dict[str, str]:
    """URL parameters with every knob of `page` at its lightest value."""
    return {name: spec.dump(spec.extremes()[0]) for name, spec in PAGE_KNOBS[page].items()}
