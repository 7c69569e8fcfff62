"""The registry of model families: how each transformers model_type reads its config.json.

One `Family` per model_type in FAMILIES, built from data and small functions, each naming the transformers 5.24
file whose code it follows (the way transformers' ROPE_INIT_FUNCTIONS and rope_viz.scaling's registry are built):
adding a family is adding an entry. A model_type with no entry is read the way transformers' generic code reads
a config (half layout, partial_rotary_factor honoured, every layer full attention), and its ModelRoPE says family
None. The fields of `Family` (rope_viz.models.config) are the hooks; what each is for, with a family that uses it:

| to do this                                                   | use (Family field)              | e.g.           |
|--------------------------------------------------------------|---------------------------------|----------------|
| pair neighbouring dims (2i, 2i+1) instead of (i, i + d/2)    | layout="interleaved"            | llama4_text    |
| rotate the whole head whatever partial_rotary_factor says    | partial="ignore"                | llama          |
| rotate a share of the head when the config names none        | default_partial=0.25            | qwen3_next     |
| fill keys the hub's files leave out                          | defaults={key: value}           | smollm3        |
| ... for a model_type transformers does not know              | defaults + defaults_source      | (see below)    |
| give layer types when the config lists no layer_types        | pattern=f(reader, layers, rope) | gemma2         |
| leave every Nth layer without RoPE (NoPE), N read from a key | nope=nope_every("key")          | smollm3        |
| read every layer's own base, or RoPE on/off per layer        | layer_rope=f(reader, kinds)     | granite_swa    |
| read RoPE parameters per layer type (Gemma's defaults)       | per_layer_type=True             | gemma3_text    |
| read RoPE parameters kept anywhere else in the config        | rope_reader=f(reader, kinds)    | hunyuan_v1_moe |
| a layer type's own head size or window key                   | head_dim_keys, window_keys      | gemma4_text    |
| a window computed from several keys                          | window=f(reader, kind)          | mimo_v2_flash  |
| the layer list from another key (its length is the depth)    | layer_list=f(reader)            | nemotron_h     |
| rotate only the sliding layers                               | rope_on_sliding_only            | flint          |
| multimodal RoPE sections (time, height, width)               | mrope, mrope_section            | qwen3_vl_text  |
| latent attention (MLA): qk_nope + qk_rope head parts         | mla=True (see _DEEPSEEK)        | deepseek_v3    |
| a factor on the queries (temperature, log scaling)           | query_scale="llama4", ...       | llama4_text    |
| parts a checkpoint learns, read at their initial values      | learned=("query_scale",)        | dory           |
| run another model_type's code (the tests compare with it)    | follows="deepseek_v3"           | kimi_k2        |

The hooks' functions read the config through `Reader` (reader.int, .number, .flag, .get name the key in their
errors) and the public helpers of rope_viz.models.config: check_rope_dict, rope_parameters, per_layer_list,
checked_kinds, nope_every. Defaults: tests/core/test_model_layers.py compares every family's `defaults` with
transformers' own config class (AutoConfig.for_model); a model_type transformers does not know says where its
defaults come from in `defaults_source` (a published config.json, cited), and its own test checks them there.
A family's test (tests/core/test_model_families.py) reads its published config and checks each layer against
transformers' own classes, or, for a type transformers does not know, against numbers written out by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from .._checks import check_positive
from ..scaling import MAX_CONTEXT
from .config import (GENERIC, MAX_HEAD_DIM, MAX_LAYERS, Family, Reader, check_rope_dict, checked_kinds, nope_every,
                     per_layer_list, rope_parameters)

# Families with no rotary embedding at all (absolute, relative-bias or ALiBi positions)
NO_ROPE_MODEL_TYPES = frozenset({"bert", "roberta", "xlm-roberta", "distilbert", "albert", "electra", "gpt2",
                                 "opt", "bloom", "mpt", "t5", "bart", "whisper", "deberta", "deberta-v2"})
# A multimodal wrapper's text model, when its text_config names no model_type
TEXT_MODEL_TYPES = {"gemma3": "gemma3_text", "gemma4": "gemma4_text", "llama4": "llama4_text",
                    "qwen3_vl": "qwen3_vl_text", "qwen3_vl_moe": "qwen3_vl_moe_text", "qwen3_5": "qwen3_5_text",
                    "qwen3_5_moe": "qwen3_5_moe_text", "qwen2_5_vl": "qwen2_5_vl_text", "qwen2_vl": "qwen2_vl_text",
                    "mistral3": "mistral", "kimi_k25": "deepseek_v3", "step3p7": "step3p5",
                    "muse_spark": "muse_spark_text", "mistral_large4": "mistral_large4_text",
                    "apertus1p5": "apertus1p5_text", "hy_v4_vl": "hy_v4_vl_text", "inkling_mm_model": "inkling_text",
                    "inkling2": "inkling2_text", "inkling2_loop": "inkling2_loop_text",
                    "minimax_m3_vl": "minimax_m3_vl_text"}
# Multimodal wrappers whose files may keep the language model's keys at the top level (Qwen2-VL, Qwen2.5-VL;
# Step-3.7's remote-code files, which transformers' Step3p7Config would replace by its defaults)
TEXT_AT_TOP_LEVEL = frozenset({"qwen2_vl", "qwen2_5_vl", "step3p7"})
# Wrappers whose config class drops the model_type its text_config names (Step3p7Config: the hub's remote-code
# files say "step3p7" there) and builds its own text model's config
TEXT_TYPE_FORCED = frozenset({"step3p7"})


# ----------------------------------------------------------------------------- layer patterns

def _all_sliding_when_windowed(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Mistral, Mixtral, Phi-3, Ministral 3: sliding_window (when set) on every layer."""
    return ["sliding_attention" if r.get("sliding_window") is not None else "full_attention"] * layers


def _qwen2_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Qwen2 / Qwen3: sliding from layer max_window_layers on, when use_sliding_window."""
    sliding = r.flag("use_sliding_window", False) and r.get("sliding_window") is not None
    first = r.int("max_window_layers", maximum=MAX_LAYERS, minimum=0) if sliding else layers
    return ["sliding_attention" if sliding and i >= first else "full_attention" for i in range(layers)]


def _every_nth_full(key: str, default: int, other: str) -> Callable:
    def pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
        every = r.int(key, maximum=MAX_LAYERS) if r.get(key) is not None else default
        return [other if (i + 1) % every else "full_attention" for i in range(layers)]
    pattern.__doc__ = f"{other} except every {key} (default {default})-th layer, which attends fully."
    return pattern


def _llama4_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Llama 4: chunked attention on RoPE layers, full attention on NoPE layers."""
    return ["chunked_attention" if rope else "full_attention" for rope in uses_rope]


def _smollm3_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """SmolLM3: sliding only on NoPE layers and only with use_sliding_window (off in its release)."""
    sliding = r.flag("use_sliding_window", False) and r.get("sliding_window") is not None
    return ["sliding_attention" if sliding and not rope else "full_attention" for rope in uses_rope]


def _indexed(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    return ["indexed_attention"] * layers


# ----------------------------------------------------------------------------- DeepSeek-V4

_V4_KINDS = ("sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention")
_V4_RATIO_KINDS = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
_V4_LABELS = ("main", "compress")


def _v4_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """DeepSeek-V4 without layer_types: its files' compress_ratios (0, 4 or 128 per layer, one more entry
    than layers for the next-token layer), else two heavily compressed layers, then compressed sparse
    and heavily compressed in turn."""
    ratios = r.get("compress_ratios")
    if ratios is None:
        return (["heavily_compressed_attention"] * min(layers, 2)
                + ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention"
                   for i in range(max(layers - 2, 0))])
    ratios = per_layer_list(ratios, r.name("compress_ratios"), layers, truncates=True)
    bad = next((ratio for ratio in ratios if isinstance(ratio, bool) or not isinstance(ratio, int)
                or ratio not in _V4_RATIO_KINDS), None)
    if bad is not None:
        raise ValueError(f"{r.name('compress_ratios')} holds {bad!r}; each entry must be 0, 4 or 128")
    return [_V4_RATIO_KINDS[ratio] for ratio in ratios]


def _v4_rope(r: Reader, kinds: list[str]) -> tuple[dict, dict]:
    """DeepSeek-V4's two RoPE dicts, keyed by the labels "main" (sliding layers) and "compress" (compressed
    layers, their compressors and indexer), built as DeepseekV4Config.__post_init__ builds them: a config
    with both labels as objects is taken as is; otherwise the flat rope_parameters / rope_scaling goes to
    "compress" with base compress_rope_theta (a YaRN one with attention_factor 1), and "main" is plain RoPE
    with base rope_theta; partial_rotary_factor is qk_rope_head_dim / head_dim, else 64 / 512."""
    key = "rope_scaling" if r.get("rope_scaling") else "rope_parameters"
    where = r.name(key)
    raw = r.get(key) or {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} must be a JSON object or null, got {type(raw).__name__}")
    labelled = {name: value for name, value in raw.items() if isinstance(value, Mapping)}
    stray = next((name for name in labelled if name not in _V4_LABELS), None)
    if stray is not None or (labelled and set(labelled) != set(_V4_LABELS)):
        name = stray if stray is not None else next(label for label in _V4_LABELS if label not in labelled)
        raise ValueError(f"{where} is keyed by the labels 'main' and 'compress' (both objects) in a deepseek_v4 "
                         f"config; {name!r} is {'not one of them' if stray is not None else 'missing'}")
    if labelled:
        dicts = {label: check_rope_dict(raw[label], f"{where}[{label!r}]") for label in _V4_LABELS}
        wheres = {label: f"{where}[{label!r}]" for label in _V4_LABELS}
    else:
        head_dim = r.int("head_dim", maximum=MAX_HEAD_DIM)
        partial = r.number("partial_rotary_factor")
        if partial is None:
            rope_dims = r.get("qk_rope_head_dim")
            partial = 64 / 512 if rope_dims is None else r.int("qk_rope_head_dim", maximum=head_dim) / head_dim
        flat = {name: value for name, value in check_rope_dict(raw, where).items() if name not in _V4_LABELS}
        compress = dict(flat, rope_theta=r.number("compress_rope_theta"), partial_rotary_factor=partial)
        compress.setdefault("rope_type", compress.get("type", "default"))
        if compress["rope_type"] == "yarn":
            compress.setdefault("attention_factor", 1.0)
        dicts = {"main": {"rope_type": "default", "rope_theta": r.number("rope_theta"),
                          "partial_rotary_factor": partial}, "compress": compress}
        wheres = {"main": r.where, "compress": where}
    for label, params in dicts.items():  # both are built whichever layers use them
        params.setdefault("partial_rotary_factor", 1.0)
        check_positive(params.get("rope_theta"), f"{wheres[label]}['rope_theta']")
    label_of = {kind: "main" if kind == "sliding_attention" else "compress" for kind in set(kinds)}
    return {kind: dicts[label_of[kind]] for kind in label_of}, {kind: wheres[label_of[kind]] for kind in label_of}


def _v4_compress(r: Reader, kind: str) -> int | None:
    """Tokens per compressed key: compress_rates by layer type (default 4 and 128), the older
    compress_rate_csa / compress_rate_hca overriding it."""
    if kind == "sliding_attention":
        return None
    rates = r.get("compress_rates") or {}
    if not isinstance(rates, Mapping):
        raise ValueError(f"{r.name('compress_rates')} must be a JSON object, got {type(rates).__name__}")
    legacy = {"compressed_sparse_attention": "compress_rate_csa", "heavily_compressed_attention": "compress_rate_hca"}
    if r.get(legacy[kind]) is not None:
        return r.int(legacy[kind], maximum=MAX_HEAD_DIM)
    value = rates.get(kind, {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}[kind])
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_HEAD_DIM:
        raise ValueError(f"{r.name('compress_rates')}[{kind!r}] must be a positive integer, got {value!r}")
    return value


# ----------------------------------------------------------------------------- Nemotron-H

_NEMOTRON_KINDS = ("full_attention", "linear_attention", "moe", "mlp")
_NEMOTRON_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}


def _nemotron_layers(r: Reader) -> list[str]:
    """Nemotron-H's blocks, one mixer each: layers_block_type (alias layer_types), else the older
    hybrid_override_pattern (M Mamba-2, E MoE, * attention, - MLP), else its four-block default."""
    key = r.first("layers_block_type", "layer_types")
    if key is not None:
        value = r.get(key)
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_LAYERS:
            raise ValueError(f"{r.name(key)} must be a list of 1 to {MAX_LAYERS} block types")
        return checked_kinds(value, r.name(key), _NEMOTRON_KINDS)
    pattern = r.get("hybrid_override_pattern")
    if pattern is None:
        return ["linear_attention", "moe", "full_attention", "mlp"]
    if not isinstance(pattern, str) or not 1 <= len(pattern) <= MAX_LAYERS or set(pattern) - set(_NEMOTRON_PATTERN):
        raise ValueError(f"{r.name('hybrid_override_pattern')} must be 1 to {MAX_LAYERS} of the letters M, E, * "
                         f"and -, got {pattern!r:.80}")
    return [_NEMOTRON_PATTERN[letter] for letter in pattern]


# ----------------------------------------------------------------------------- MiMo-V2-Flash

def _mimo_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """MiMo-V2-Flash: full attention on the first layer and every sixth, sliding on the rest (its files'
    hybrid_layer_pattern is not read)."""
    return ["full_attention" if i == 0 or not (i + 1) % 6 else "sliding_attention" for i in range(layers)]


def _mimo_rope(r: Reader, kinds: list[str]) -> tuple[dict, dict]:
    """MiMo-V2-Flash's RoPE dict per layer type: rope_parameters keyed by layer type as given, else its
    built-in pair (full 5,000,000, sliding 10,000, 0.334 of the head each); rope_theta, swa_rope_theta,
    partial_rotary_factor and rope_scaling at the top level are not read."""
    where = r.name("rope_parameters")
    raw = r.get("rope_parameters")
    if raw is None:
        raw = {"full_attention": {"rope_type": "default", "rope_theta": 5_000_000.0},
               "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0}}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} must be a JSON object or null, got {type(raw).__name__}")
    dicts, wheres = {}, {}
    for kind in set(kinds):
        if not isinstance(raw.get(kind), Mapping):
            raise ValueError(f"{where} must be keyed by layer type in a mimo_v2_flash config; it has no {kind!r}")
        params = check_rope_dict(raw[kind], f"{where}[{kind!r}]")
        params.setdefault("partial_rotary_factor", 0.334 if params.get("rope_type", "default") == "default" else 1.0)
        dicts[kind], wheres[kind] = params, f"{where}[{kind!r}]"
    return dicts, wheres


def _mimo_window(r: Reader, kind: str) -> int | None:
    """The sliding layers' window: sliding_window_size + 1 (the query and that many before it) when given,
    else sliding_window."""
    if kind != "sliding_attention":
        return None
    if r.get("sliding_window_size") is not None:
        return r.int("sliding_window_size", maximum=MAX_CONTEXT - 1) + 1
    return r.int("sliding_window", maximum=MAX_CONTEXT)


# ----------------------------------------------------------------------------- Step-3.5 / Step-3.7

def _step_depth(r: Reader) -> tuple[int, int]:
    layers = r.int("num_hidden_layers", maximum=MAX_LAYERS)
    extra = r.get("num_nextn_predict_layers") or 0
    if isinstance(extra, bool) or not isinstance(extra, int) or not 0 <= extra <= MAX_LAYERS:
        raise ValueError(f"{r.name('num_nextn_predict_layers')} must be an integer between 0 and {MAX_LAYERS}")
    return layers, extra


def _step_list(r: Reader, key: str, layers: int, extra: int) -> list:
    """A per-layer list of Step's: its files add num_nextn_predict_layers entries for the next-token layers,
    cut off here; any other length than the layers' is refused."""
    value = r.get(key)
    if isinstance(value, list) and extra and len(value) == layers + extra:
        value = value[:layers]
    return per_layer_list(value, r.name(key), layers)


def _step_layers(r: Reader) -> list[str]:
    """Step-3.5's layers: layer_types (full or sliding), else full attention throughout."""
    layers, extra = _step_depth(r)
    if r.get("layer_types") is None:
        return ["full_attention"] * layers
    return checked_kinds(_step_list(r, "layer_types", layers, extra), r.name("layer_types"),
                         ("full_attention", "sliding_attention"))


def _step_rope(r: Reader, kinds: list[str]) -> tuple[dict, dict]:
    """Step-3.5's RoPE dict per layer type, as Step3p7TextConfig builds it: rope_parameters keyed by every
    layer type as given; else rope_theta (a number, or one per layer) and partial_rotary_factors (one per
    layer) taken from the first layer of each type, rope_scaling added to the full-attention layers only."""
    raw = r.get("rope_parameters") or {}
    if isinstance(raw, Mapping) and raw and all(isinstance(raw.get(kind), Mapping) for kind in set(kinds)):
        where = r.name("rope_parameters")
        return ({kind: check_rope_dict(raw[kind], f"{where}[{kind!r}]") for kind in set(kinds)},
                {kind: f"{where}[{kind!r}]" for kind in set(kinds)})
    layers, extra = _step_depth(r)
    theta = r.get("rope_theta")
    thetas = _step_list(r, "rope_theta", layers, extra) if isinstance(theta, list) else [theta or 10000.0] * layers
    for index, value in enumerate(thetas):
        check_positive(value, f"{r.name('rope_theta')}[{index}]" if isinstance(theta, list) else r.name("rope_theta"))
    fractions = None
    if r.get("partial_rotary_factors") is not None:
        fractions = _step_list(r, "partial_rotary_factors", layers, extra)
        for index, value in enumerate(fractions):
            check_positive(value, f"{r.name('partial_rotary_factors')}[{index}]")
    scaling = r.get("rope_scaling")
    if scaling is not None and not isinstance(scaling, Mapping):
        raise ValueError(f"{r.name('rope_scaling')} must be a JSON object or null, got {type(scaling).__name__}")
    dicts, wheres = {}, {}
    for kind in set(kinds):
        first = kinds.index(kind)
        params = {"rope_type": "default", "rope_theta": thetas[first]}
        if fractions:
            params["partial_rotary_factor"] = fractions[first]
        if scaling and kind == "full_attention":
            params.update(check_rope_dict(scaling, r.name("rope_scaling")))
        dicts[kind], wheres[kind] = params, r.name("rope_scaling") if scaling and kind == "full_attention" else r.where
    return dicts, wheres


# ----------------------------------------------------------------------------- Kimi Linear

def _kimi_linear_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Kimi Linear: linear_attn_config's full_attn_layers and kda_layers (numbered from 1) when it lists
    both (a layer in neither is refused, as transformers' config refuses the None it leaves), else full
    attention on every fourth layer from layer 4 and linear (KDA) attention elsewhere."""
    listed = r.get("linear_attn_config") or {}
    if not isinstance(listed, Mapping):
        raise ValueError(f"{r.name('linear_attn_config')} must be a JSON object, got {type(listed).__name__}")
    if "full_attn_layers" not in listed or "kda_layers" not in listed:
        return ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(layers)]
    kinds: list[str | None] = [None] * layers
    for key, kind in (("full_attn_layers", "full_attention"), ("kda_layers", "linear_attention")):
        numbers = listed[key]
        if not isinstance(numbers, list) or any(isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= layers
                                                for n in numbers):
            raise ValueError(f"{r.name('linear_attn_config')}[{key!r}] must list layer numbers from 1 to {layers}")
        for number in numbers:
            kinds[number - 1] = kind
    if None in kinds:
        raise ValueError(f"{r.name('linear_attn_config')} names no attention for layer {kinds.index(None) + 1}")
    return cast(list[str], kinds)


def _kimi_linear_head_dim(r: Reader) -> int:
    """Kimi Linear's KDA (linear-attention) head size: linear_attn_config's head_dim, else linear_head_dim
    (128), as KimiLinearConfig reads them; its latent-attention layers keep qk_nope + qk_rope."""
    listed = r.get("linear_attn_config") or {}
    if not isinstance(listed, Mapping):
        raise ValueError(f"{r.name('linear_attn_config')} must be a JSON object, got {type(listed).__name__}")
    if "head_dim" not in listed:
        return r.int("linear_head_dim", maximum=MAX_HEAD_DIM)
    value = listed["head_dim"]
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_HEAD_DIM:
        raise ValueError(f"{r.name('linear_attn_config')}['head_dim'] must be an integer between 1 and "
                         f"{MAX_HEAD_DIM:,}, got {value!r}")
    return value


# ----------------------------------------------------------------------------- global NoPE by code

def _full_every(every: int) -> Callable:
    def pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
        return ["full_attention" if (i + 1) % every == 0 else "sliding_attention" for i in range(layers)]
    pattern.__doc__ = f"Sliding attention except every {every}th layer, which attends fully."
    return pattern


def _flint_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Flint: full attention on the first two layers, every fourth from layer 1 and the last; sliding elsewhere."""
    return ["full_attention" if i < 2 or i % 4 == 1 or i == layers - 1 else "sliding_attention"
            for i in range(layers)]


# ----------------------------------------------------------------------------- HunYuan

def _hunyuan_rope(r: Reader, kinds: list[str]) -> tuple[dict, dict]:
    """HunYuan's one RoPE dict: its files' rope_type "dynamic" with a non-zero alpha is transformers'
    "ntk_alpha", a fixed NTK base (base * alpha^(d/(d-2)) over head_dim, attention factor 1), which reads
    rope_theta and alpha only (the hub's beta_fast, beta_slow, mscale and mscale_all_dim beside them are
    left unread, as transformers leaves them); without alpha it stays dynamic NTK."""
    dicts, where = rope_parameters(r, FAMILIES["hunyuan_v1_dense"], kinds)
    for kind, params in dicts.items():
        if params.get("rope_type", params.get("type")) == "dynamic" and params.get("alpha"):
            if r.get("head_dim") is None:
                raise ValueError(f"{r.name('head_dim')} is required with {where}['alpha'] (its NTK-alpha base reads "
                                 "head_dim)")
            if "factor" not in params:  # transformers' validation of "dynamic" still asks for it
                raise ValueError(f"{where}['factor'] is required for rope_type 'dynamic' (transformers refuses the "
                                 "config without it, alpha or not)")
            dicts[kind] = {"rope_type": "ntk_alpha", "alpha": check_positive(params["alpha"], f"{where}['alpha']"),
                           **{key: params[key] for key in ("rope_theta", "partial_rotary_factor") if key in params}}
    return dicts, {kind: where for kind in dicts}


# ----------------------------------------------------------------------------- Cohere2-MoE, Granite-SWA, Muse Spark

def _cohere2_moe_prefix(r: Reader) -> int:
    return r.int("first_k_dense_replace", maximum=MAX_LAYERS, minimum=0)


def _cohere2_moe_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Cohere2-MoE: first_k_dense_replace dense layers, full attention on every
    prefix_dense_sliding_window_pattern-th of them (default 1: all); after them every
    sliding_window_pattern-th layer (counted from the first MoE layer) attends fully, the rest slide."""
    prefix = min(_cohere2_moe_prefix(r), layers)
    every_prefix = r.int("prefix_dense_sliding_window_pattern", maximum=MAX_LAYERS)
    every = r.int("sliding_window_pattern", maximum=MAX_LAYERS)
    return (["sliding_attention" if (i + 1) % every_prefix else "full_attention" for i in range(prefix)]
            + ["sliding_attention" if (i + 1) % every else "full_attention" for i in range(layers - prefix)])


def _cohere2_moe_parameters(r: Reader, kinds: list[str]) -> tuple[dict, dict]:
    """Cohere2-MoE's one RoPE dict: rope_parameters exactly as given (its config class standardises before it
    sets them, so rope_theta must be inside), else plain RoPE at rope_theta; rope_scaling is never read."""
    raw = r.get("rope_parameters")
    where = r.name("rope_parameters")
    if raw is None and "rope_parameters" in r.config:
        raise ValueError(f"{where} is null; a cohere2_moe config takes it as given (transformers fails with "
                         "TypeError): leave it out to rotate at rope_theta")
    if raw is None:
        params, where = {"rope_type": "default", "rope_theta": r.number("rope_theta")}, r.name("rope_theta")
    else:
        params = check_rope_dict(raw, where)
        if params.get("rope_theta") is None:
            raise ValueError(f"{where}['rope_theta'] is missing; a cohere2_moe config does not fill it in from "
                             "rope_theta (transformers fails with KeyError)")
    return {kind: dict(params) for kind in set(kinds)}, {kind: where for kind in set(kinds)}


def _cohere2_moe_rope(r: Reader, kinds: list[str]) -> tuple[list[bool], list[None]]:
    """Cohere2-MoE rotates where its attention has a window (sliding layers, while sliding_window is set) and,
    when prefix_dense_sliding_window_pattern is 1, in its dense layers (mlp_layer_types "dense", else the first
    first_k_dense_replace), full attention or not."""
    value = r.get("mlp_layer_types")
    if value is None:
        prefix = _cohere2_moe_prefix(r)
        mlp = ["dense" if i < prefix else "sparse" for i in range(len(kinds))]
    else:
        mlp = per_layer_list(value, r.name("mlp_layer_types"), len(kinds))
    windowed = r.get("sliding_window") is not None
    force = r.int("prefix_dense_sliding_window_pattern", maximum=MAX_LAYERS) == 1
    return ([(windowed and kind == "sliding_attention") or (force and kind_mlp == "dense")
             for kind, kind_mlp in zip(kinds, mlp)], [None] * len(kinds))


def _layer_rope_theta(r: Reader, layers: int) -> list[float] | None:
    """layer_rope_theta: one base per layer, 0 for a layer without RoPE (None when not given)."""
    value = r.get("layer_rope_theta")
    if value is None:
        return None
    key = r.name("layer_rope_theta")
    value = per_layer_list(value, key, layers)
    for index, theta in enumerate(value):
        if isinstance(theta, bool) or not isinstance(theta, (int, float)) or not 0 <= theta < float("inf"):
            raise ValueError(f"{key}[{index}] must be 0 (no RoPE) or a positive base, got {theta!r}")
    return [float(theta) for theta in value]


def _granite_swa_rope(r: Reader, kinds: list[str]) -> tuple[list[bool], list[float | None]]:
    """Granite-SWA: layer_rope_theta gives each layer its own base (the rest of rope_parameters, scaling
    included, shared), 0 for none; without it every layer rotates at rope_theta."""
    thetas = _layer_rope_theta(r, len(kinds))
    if thetas is None:
        return [True] * len(kinds), [None] * len(kinds)
    return [bool(theta) for theta in thetas], [theta or None for theta in thetas]


def _granite_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Granite-SWA: full attention on layer 0 and every fourth after it, sliding elsewhere."""
    return ["sliding_attention" if i % 4 else "full_attention" for i in range(layers)]


def _muse_spark_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Muse Spark: full attention on every fourth layer counted back from the last, sliding elsewhere."""
    return ["sliding_attention" if (layers - 1 - i) % 4 else "full_attention" for i in range(layers)]


def _muse_spark_rope(r: Reader, kinds: list[str]) -> tuple[list[bool], list[None]]:
    """Muse Spark: layer_rope_theta only switches RoPE off (0) or on; every rotary layer turns at the global
    rope_theta whatever its entry. Default: off on every fourth layer counted back from the last."""
    thetas = _layer_rope_theta(r, len(kinds))
    if thetas is None:
        thetas = [float((len(kinds) - 1 - i) % 4 != 0) for i in range(len(kinds))]
    return [bool(theta) for theta in thetas], [None] * len(kinds)


# ----------------------------------------------------------------------------- families new in transformers 5.24

def _lara_mini_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Lara-4-Mini: linear, sliding, linear, full, sliding in turn (its released period-5 pattern)."""
    turn = ("linear_attention", "sliding_attention", "linear_attention", "full_attention", "sliding_attention")
    return [turn[i % 5] for i in range(layers)]


def _sarvam_mla_rope(r: Reader, kinds: list[str]) -> tuple[dict, dict]:
    """Sarvam-105B's RoPE dict: its files' rope_scaling of type "deepseek_yarn" is standard YaRN (moved to
    rope_parameters by SarvamMLAConfig); anything else is read as DeepSeek-V3 reads it."""
    scaling = r.get("rope_scaling")
    if isinstance(scaling, Mapping) and "deepseek_yarn" in (scaling.get("type"), scaling.get("rope_type")):
        params = dict({key: value for key, value in scaling.items() if key != "type"}, rope_type="yarn")
        r = Reader(dict(r.config, rope_scaling=None, rope_parameters=params), r.defaults, r.where)
    dicts, where = rope_parameters(r, FAMILIES["sarvam_mla"], kinds)
    return dicts, {kind: where for kind in dicts}

def _dory_layers(r: Reader) -> list[str]:
    """Dory's layers: layer_types, whose released form lists each layer's attention and MLP as two entries
    (with "mlp" among them every second entry is kept and num_hidden_layers halved), else full attention on
    every fourth layer and sliding elsewhere. Its recurrent middle layers run n_recurrent_loops times at
    the same positions; they are listed once here, as its modules are."""
    layers = r.int("num_hidden_layers", maximum=2 * MAX_LAYERS)
    value = r.get("layer_types")
    if value is None:
        return ["full_attention" if (i + 1) % 4 == 0 else "sliding_attention" for i in range(min(layers, MAX_LAYERS))]
    if isinstance(value, list) and "mlp" in value:
        value, layers = value[::2], layers // 2
    if layers > MAX_LAYERS:
        raise ValueError(f"{r.name('num_hidden_layers')} must be at most {MAX_LAYERS:,} layers, got {layers}")
    return checked_kinds(per_layer_list(value, r.name("layer_types"), layers), r.name("layer_types"),
                         ("full_attention", "sliding_attention"))


# ----------------------------------------------------------------------------- RoPE keyed by labels (Zaya, LFM3)

def _labelled_rope(model_type: str, labels: tuple, defaults: Mapping, stray: tuple = ()) -> Callable:
    """A reader of rope_parameters keyed by `labels` (one RoPE dict each, for the layers of that type): the
    config's dict when it has one (its `stray` keys dropped, as the config class drops them), else `defaults`;
    a label no layer type has, a flat dict or a label missing for a layer type present is refused (transformers
    keeps a stray label unread, and fails with KeyError on a missing one); rope_theta, partial_rotary_factor and
    rope_scaling at the top level are not read."""
    def reader(r: Reader, kinds: list[str]) -> tuple[dict, dict]:
        where = r.name("rope_parameters")
        raw = r.get("rope_parameters")
        raw = defaults if raw is None else raw
        if not isinstance(raw, Mapping):
            raise ValueError(f"{where} must be a JSON object or null, got {type(raw).__name__}")
        named = ", ".join(map(repr, labels))
        for key, value in raw.items():
            if key not in stray and (key not in labels or not isinstance(value, Mapping)):
                raise ValueError(f"{where} must be keyed by the layer types {named} (each an object) in a "
                                 f"{model_type} config; {key!r} is not one of them")
        dicts, wheres = {}, {}
        for kind in sorted(set(kinds) & set(labels)):
            if kind not in raw:
                raise ValueError(f"{where} has no entry for the layer type {kind!r} (transformers fails with "
                                 "KeyError)")
            dicts[kind] = check_rope_dict(raw[kind], f"{where}[{kind!r}]")
            wheres[kind] = f"{where}[{kind!r}]"
        return dicts, wheres
    reader.__doc__ = f"{model_type}'s RoPE dicts, keyed by {', '.join(labels)}. " + (_labelled_rope.__doc__ or "")
    return reader


_HYBRID_KINDS = ("hybrid", "hybrid_sliding")
_ZAYA_ROPE = {"hybrid": {"rope_type": "default", "rope_theta": 5_000_000.0, "partial_rotary_factor": 0.5},
              "hybrid_sliding": {"rope_type": "default", "rope_theta": 10_000.0, "partial_rotary_factor": 0.5}}


def _all_hybrid(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Zaya: every layer "hybrid" (CCA attention over the whole causal context)."""
    return ["hybrid"] * layers


def _hybrid_window(*keys: str) -> Callable:
    def window(r: Reader, kind: str) -> int | None:
        if kind != "hybrid_sliding":
            return None
        key = next((key for key in keys if r.config.get(key) is not None), None) or r.first(*keys)  # given first
        if key is None:
            raise ValueError(f"{r.name(keys[0])} is missing; layers of type 'hybrid_sliding' need it (transformers "
                             "refuses the config without it)")
        return r.int(key, maximum=MAX_CONTEXT)
    window.__doc__ = f"The window ({' or '.join(keys)}) of 'hybrid_sliding' layers; None for the others."
    return window


def _minimax_m3_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """MiniMax-M3: its files' sparse_attention_config.sparse_attention_freq (1: block-sparse "minimax_m3_sparse",
    0: full attention), else full attention throughout."""
    sparse = r.get("sparse_attention_config") or {}
    if not isinstance(sparse, Mapping):
        raise ValueError(f"{r.name('sparse_attention_config')} must be a JSON object, got {type(sparse).__name__}")
    if "sparse_attention_freq" not in sparse:
        return ["full_attention"] * layers
    flags = per_layer_list(sparse["sparse_attention_freq"], f"{r.name('sparse_attention_config')}"
                           "['sparse_attention_freq']", layers)
    return ["minimax_m3_sparse" if flag else "full_attention" for flag in flags]


def _minimax_m3_rope(r: Reader, kinds: list[str]) -> tuple[dict, dict]:
    """MiniMax-M3's one flat RoPE dict (its rotary embedding reads the top level only: a nested object is refused)."""
    key = "rope_scaling" if r.get("rope_scaling") else "rope_parameters"
    if r.get(key) is not None:
        check_rope_dict(r.get(key), r.name(key))
    dicts, where = rope_parameters(r, FAMILIES["minimax_m3_vl_text"], kinds)
    return dicts, {kind: where for kind in dicts}


_LFM3_KINDS = ("conv", "full_attention", "sliding_attention")
_LFM3_ROPE = {"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
              "full_attention": {"rope_type": "proportional", "rope_theta": 1_000_000.0, "partial_rotary_factor": 0.5}}


def _lfm3_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """LFM3: full attention on layers 2, 6, 10, ..., sliding on 4, 8, 12, ..., short-convolution blocks elsewhere."""
    return ["full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i > 0 else "conv"
            for i in range(layers)]


# Laguna: RoPE keyed by layer type, as its config class keeps it (never merging a top-level rope_theta or
# partial_rotary_factor into it); its class defaults turn half the head of full layers at 500,000 and the whole head
# of sliding layers at 10,000
_LAGUNA_ROPE = {"full_attention": {"rope_type": "default", "rope_theta": 500_000.0, "partial_rotary_factor": 0.5},
                "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0, "partial_rotary_factor": 1.0}}


def _inkling_pattern(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Inkling: "hybrid_sliding" on the layers local_layer_ids lists (Inkling 1 only), else on every layer but
    each sixth (5, 11, ...: the code's (i + 1) % 6, not its docstring's multiples of 6), which is "hybrid"."""
    local = r.get("local_layer_ids")
    if local is None:
        local = [i for i in range(layers) if (i + 1) % 6]
    elif not isinstance(local, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in local):
        raise ValueError(f"{r.name('local_layer_ids')} must be a list of layer indices, got {local!r:.80}")
    return ["hybrid_sliding" if i in set(local) else "hybrid" for i in range(layers)]


def _inkling(folder: str, **defaults) -> Family:
    """An Inkling text model: no rotary embedding (a learned relative position bias per backward distance),
    hybrid / hybrid_sliding layers, the log query scale on hybrid layers when log_scaling_n_floor is set."""
    return Family(_m(folder), rotary=False, pattern=_inkling_pattern, attention_kinds=_HYBRID_KINDS,
                  window=_hybrid_window("sliding_window_size", "sliding_window"), query_scale="log",
                  learned=("relative_position_bias",), head_dim_keys={"hybrid_sliding": "swa_head_dim"},
                  defaults={"head_dim": 128, "swa_head_dim": 128, "log_scaling_alpha": 0.1, **defaults})


# ----------------------------------------------------------------------------- the registry

def _m(name: str) -> str:
    return f"models/{name}/modeling_{name}.py"


_QWEN35: dict[str, Any]  # Family keywords of several types
_QWEN35 = dict(partial="honour", default_partial=0.25, mrope="interleaved", mrope_section=(11, 11, 10),
               pattern=_every_nth_full("full_attention_interval", 4, "linear_attention"))
_DEEPSEEK: dict[str, Any]  # Family keywords of several types
_DEEPSEEK = dict(layout="interleaved", partial="ignore", mla=True, reads_rope_interleave=True, rotates_last=True,
                 defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "kv_lora_rank": 512})
_GEMMA3_DEFAULTS = {"hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 26,
                    "max_position_embeddings": 131072, "sliding_window": 4096}
_GEMMA4_DEFAULTS = {"hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256, "global_head_dim": 512,
                    "num_hidden_layers": 30, "max_position_embeddings": 131072, "sliding_window": 512}
_LLAMA4_DEFAULTS = {"hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128, "num_hidden_layers": 48,
                    "max_position_embeddings": 131072, "rope_theta": 500000.0, "attention_chunk_size": 8192,
                    "no_rope_layer_interval": 4, "attn_temperature_tuning": True, "floor_scale": 8192,
                    "attn_scale": 0.1}
# Mistral Large 4: YaRN over a 512-token pretraining window without magnitude scaling, NoPE every fourth layer
_MISTRAL_LARGE4_DEFAULTS = {"qk_rope_head_dim": 64, "qk_nope_head_dim": 64, "v_head_dim": 128, "kv_lora_rank": 512,
                            "num_hidden_layers": 72, "num_attention_heads": 64, "max_position_embeddings": 1048576,
                            "no_rope_layer_interval": 4,
                            "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 2048.0,
                                                "original_max_position_embeddings": 512, "beta_fast": 32.0,
                                                "beta_slow": 1.0, "attention_factor": 1.0}}

_MINIMAX_M3: dict[str, Any]  # Family keywords of several types
_MINIMAX_M3 = dict(reads_rotary_dim=False, pattern=_minimax_m3_pattern, rope_reader=_minimax_m3_rope,
                   attention_kinds=("full_attention", "minimax_m3_sparse"),
                   defaults={"head_dim": 128, "num_hidden_layers": 60, "max_position_embeddings": 524288,
                             "rope_theta": 5_000_000.0})

FAMILIES: dict[str, Family] = {
    "llama": Family(_m("llama"), partial="ignore"),
    "gpt_neox": Family(_m("gpt_neox")),
    "qwen2": Family(_m("qwen2"), partial="ignore", pattern=_qwen2_pattern, defaults={"max_window_layers": 28}),
    "qwen3": Family(_m("qwen3"), partial="ignore", pattern=_qwen2_pattern, defaults={"max_window_layers": 28}),
    "qwen3_moe": Family(_m("qwen3_moe"), partial="ignore", pattern=_all_sliding_when_windowed),
    "mistral": Family(_m("mistral"), partial="ignore", pattern=_all_sliding_when_windowed),
    "mixtral": Family(_m("mixtral"), partial="ignore", pattern=_all_sliding_when_windowed),
    "gemma": Family(_m("gemma"), partial="ignore"),
    "gemma2": Family(_m("gemma2"), partial="ignore", pattern=_every_nth_full("sliding_window_pattern", 2,
                                                                              "sliding_attention")),
    "gemma3_text": Family(_m("gemma3"), partial="ignore", per_layer_type=True,
                          pattern=_every_nth_full("sliding_window_pattern", 6, "sliding_attention"),
                          defaults=_GEMMA3_DEFAULTS),
    "gemma4_text": Family(_m("gemma4"), partial="ignore", per_layer_type=True, every_kind_required=True,
                          full_rope_default={"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                             "rope_theta": 1_000_000.0},
                          pattern=_every_nth_full("sliding_window_pattern", 6, "sliding_attention"),
                          defaults=_GEMMA4_DEFAULTS, head_dim_keys={"full_attention": "global_head_dim"},
                          last_layer_full=True),
    "llama4_text": Family(_m("llama4"), layout="interleaved", partial="ignore", nope=nope_every(empty_is_unset=True),
                          pattern=_llama4_pattern, query_scale="llama4", defaults=_LLAMA4_DEFAULTS),
    "smollm3": Family(_m("smollm3"), partial="ignore", nope=nope_every(), pattern=_smollm3_pattern,
                      defaults={"rope_theta": 2000000.0, "no_rope_layer_interval": 4}),
    "qwen3_next": Family(_m("qwen3_next"), partial="honour", default_partial=0.25,
                         pattern=_every_nth_full("full_attention_interval", 4, "linear_attention")),
    "qwen3_5_text": Family(_m("qwen3_5"), **_QWEN35),
    "qwen3_5_moe_text": Family(_m("qwen3_5_moe"), **_QWEN35),
    "qwen2_vl_text": Family(_m("qwen2_vl"), partial="ignore", mrope="blocks", mrope_section=(16, 24, 24),
                            pattern=_qwen2_pattern, defaults={"max_window_layers": 80}),
    "qwen2_5_vl_text": Family(_m("qwen2_5_vl"), partial="ignore", mrope="blocks", mrope_section=(16, 24, 24),
                              pattern=_qwen2_pattern, defaults={"max_window_layers": 80}),
    "qwen3_vl_text": Family(_m("qwen3_vl"), partial="ignore", mrope="interleaved", mrope_section=(24, 20, 20),
                            defaults={"head_dim": 128, "rope_theta": 500000.0}),
    "qwen3_vl_moe_text": Family(_m("qwen3_vl_moe"), partial="ignore", mrope="interleaved",
                                mrope_section=(24, 20, 20), defaults={"rope_theta": 500000.0}),
    "deepseek_v2": Family(_m("deepseek_v2"), **_DEEPSEEK),
    "deepseek_v3": Family(_m("deepseek_v3"), **_DEEPSEEK),
    "kimi_k2": Family(_m("deepseek_v3"), follows="deepseek_v3", **_DEEPSEEK),  # read as DeepSeek-V3 by transformers
    "deepseek_v32": Family(_m("deepseek_v32"), **dict(_DEEPSEEK, pattern=_indexed, reads_rope_interleave=False)),
    "gpt_oss": Family(_m("gpt_oss"), partial="ignore",
                      pattern=_every_nth_full("sliding_window_pattern", 2, "sliding_attention"),
                      defaults={"head_dim": 64, "sliding_window": 128, "rope_theta": 150000.0}),
    "ministral3": Family(_m("ministral3"), partial="ignore", pattern=_all_sliding_when_windowed, query_scale="beta"),
    "glm": Family(_m("glm"), layout="interleaved", default_partial=0.5),
    "glm4": Family(_m("glm4"), layout="interleaved", default_partial=0.5),
    "glm4_moe": Family(_m("glm4_moe"), default_partial=0.5),
    "phi3": Family(_m("phi3"), pattern=_all_sliding_when_windowed, rope_types=("default", "longrope")),
    "gptj": Family(_m("gptj"), layout="interleaved"),
    "glm_moe_dsa": Family(_m("glm_moe_dsa"), **dict(_DEEPSEEK, pattern=_indexed, reads_rope_interleave=False,
                                                    defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 192,
                                                              "v_head_dim": 256, "kv_lora_rank": 512,
                                                              "num_hidden_layers": 78, "num_attention_heads": 64,
                                                              "max_position_embeddings": 202752})),
    "minimax_m2": Family(_m("minimax_m2"), partial_over_rotary_dim=True,
                         defaults={"head_dim": 128, "max_position_embeddings": 196608}),
    "step3p5": Family(_m("step3p7"), layer_list=_step_layers, rope_reader=_step_rope,
                      defaults={"hidden_size": 4096, "num_attention_heads": 64, "head_dim": 128,
                                "num_hidden_layers": 45, "max_position_embeddings": 128000}),
    "kimi_linear": Family(_m("kimi_linear"), rotary=False, mla=True, pattern=_kimi_linear_pattern,
                          head_dim_keys={"linear_attention": _kimi_linear_head_dim},
                          defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "num_hidden_layers": 27,
                                    "max_position_embeddings": 1048576, "linear_head_dim": 128}),
    "hunyuan_v1_dense": Family(_m("hunyuan_v1_dense"), partial="ignore", rope_reader=_hunyuan_rope,
                               defaults={"max_position_embeddings": 2048}),
    "hunyuan_v1_moe": Family(_m("hunyuan_v1_moe"), partial="ignore", rope_reader=_hunyuan_rope,
                             defaults={"max_position_embeddings": 2048}),
    "exaone_moe": Family(_m("exaone_moe"), rope_on_sliding_only="when_windowed",
                         pattern=_every_nth_full("sliding_window_pattern", 4, "sliding_attention"),
                         defaults={"num_hidden_layers": 32, "sliding_window": 4096, "max_position_embeddings": 2048}),
    "kolibri1": Family(_m("kolibri1"), rope_on_sliding_only="when_windowed", pattern=_full_every(5),
                       defaults={"num_hidden_layers": 50, "head_dim": 128, "sliding_window": 513,
                                 "max_position_embeddings": 262144}),
    "flint": Family(_m("flint"), rope_on_sliding_only="always", pattern=_flint_pattern,
                    defaults={"num_hidden_layers": 49, "head_dim": 128, "sliding_window": 513,
                              "max_position_embeddings": 262144}),
    # new in transformers 5.24
    "exaone": Family("models/exaone/configuration_exaone.py", partial="ignore",  # runs as Llama
                     defaults={"rope_theta": 500_000.0, "max_position_embeddings": 4096}),
    "lara_mini": Family(_m("lara_mini"), rope_on_sliding_only="always", pattern=_lara_mini_pattern,
                        defaults={"num_hidden_layers": 34, "head_dim": 128, "sliding_window": 512,
                                  "max_position_embeddings": 131072}),
    "apertus1p5_text": Family(_m("apertus1p5"), partial="ignore",
                              defaults={"num_hidden_layers": 32, "max_position_embeddings": 65536,
                                        "rope_parameters": {"rope_type": "llama3", "rope_theta": 12_000_000.0,
                                                            "factor": 8.0, "original_max_position_embeddings": 8192,
                                                            "low_freq_factor": 1.0, "high_freq_factor": 4.0}}),
    "sarvam_moe": Family("models/sarvam_moe/configuration_sarvam_moe.py", default_partial=1.0,  # runs as GLM-4-MoE
                         defaults={"rope_theta": 8_000_000.0, "head_dim": 64, "num_hidden_layers": 19,
                                   "max_position_embeddings": 131072}),
    "sarvam_mla": Family("models/sarvam_mla/configuration_sarvam_mla.py",  # runs as DeepSeek-V3
                         **dict(_DEEPSEEK, rope_reader=_sarvam_mla_rope)),
    "dory": Family(_m("dory"), layer_list=_dory_layers, query_scale="ngpt", learned=("query_scale",),
                   defaults={"num_hidden_layers": 36, "head_dim": 256, "sliding_window": 1024,
                             "max_position_embeddings": 8192,
                             "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                                                 "full_attention": {"rope_type": "default",
                                                                    "rope_theta": 10_000_000.0}}}),
    # Hy4 VL: its comment says "Non-interleave RoPE", but its rotate_half and repeat_interleave turn the pairs
    # (2i, 2i + 1) in place: read interleaved, as the code runs; the last qk_rope_head_dim dims, M-RoPE sections
    # interleaved over them (12, 10, 10 by default)
    "hy_v4_vl_text": Family(_m("hy_v4_vl"), **dict(_DEEPSEEK, pattern=_indexed, reads_rope_interleave=False,
                                                   mrope="interleaved", mrope_section=(12, 10, 10),
                                                   defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 192,
                                                             "v_head_dim": 256, "kv_lora_rank": 512,
                                                             "num_hidden_layers": 78, "num_attention_heads": 64,
                                                             "max_position_embeddings": 262144})),
    "nemotron_h": Family(_m("nemotron_h"), rotary=False, layer_list=_nemotron_layers, attention_kinds=_NEMOTRON_KINDS,
                         defaults={"head_dim": 128}),
    "mimo_v2_flash": Family(_m("mimo_v2_flash"), pattern=_mimo_pattern, rope_reader=_mimo_rope, window=_mimo_window,
                            defaults={"hidden_size": 4096, "num_attention_heads": 64, "head_dim": 192,
                                      "num_hidden_layers": 48, "max_position_embeddings": 131072,
                                      "sliding_window": 129}),
    "deepseek_v4": Family(_m("deepseek_v4"), layout="interleaved", pattern=_v4_pattern, attention_kinds=_V4_KINDS,
                          truncates_layer_lists=True, window_keys={kind: "sliding_window" for kind in _V4_KINDS},
                          rotates_last=True, rope_reader=_v4_rope, compress=_v4_compress, output_rotation=True,
                          defaults={"hidden_size": 4096, "num_attention_heads": 64, "head_dim": 512,
                                    "num_hidden_layers": 43, "max_position_embeddings": 1048576,
                                    "rope_theta": 10000.0, "compress_rope_theta": 160000.0,
                                    "sliding_window": 128}),
    # read layer by layer: which layers rotate (and at which base) decided by config lists or code
    "cohere2_moe": Family(_m("cohere2_moe"), layout="interleaved", partial="ignore", pattern=_cohere2_moe_pattern,
                          layer_rope=_cohere2_moe_rope, rope_reader=_cohere2_moe_parameters,
                          defaults={"hidden_size": 8192, "num_attention_heads": 64, "head_dim": 128, "rope_theta": 1e4,
                                    "num_hidden_layers": 40, "max_position_embeddings": 8192, "sliding_window": 4096,
                                    "first_k_dense_replace": 0, "prefix_dense_sliding_window_pattern": 1,
                                    "sliding_window_pattern": 4}),
    "granite_swa": Family(_m("granite_swa"), partial="ignore", pattern=_granite_pattern, layer_rope=_granite_swa_rope,
                          defaults={"hidden_size": 2560, "num_attention_heads": 20, "num_hidden_layers": 24,
                                    "max_position_embeddings": 8192, "sliding_window": 128}),
    "granitemoe_swa": Family(_m("granitemoe_swa"), partial="ignore", pattern=_granite_pattern,
                             layer_rope=_granite_swa_rope,
                             defaults={"hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
                                       "max_position_embeddings": 2048, "sliding_window": 128}),
    "muse_spark_text": Family(_m("muse_spark"), partial="ignore", pattern=_muse_spark_pattern,
                              layer_rope=_muse_spark_rope,
                              defaults={"hidden_size": 8192, "num_attention_heads": 128, "head_dim": 64,
                                        "num_hidden_layers": 62, "max_position_embeddings": 1048576,
                                        "rope_theta": 500000.0, "sliding_window": 2048}),
    "mistral_large4_text": Family(_m("mistral_large4"), nope=nope_every(), learned=("frequency_scale", "query_scale"),
                                  **dict(_DEEPSEEK, pattern=_indexed, reads_rope_interleave=False,
                                         defaults=_MISTRAL_LARGE4_DEFAULTS)),
    # Zaya: RoPE keyed by its layer types "hybrid" / "hybrid_sliding"; q and k L2-normed, the key times a learned
    # per-KV-head scale (zeros at initialisation) before the rotation
    "zaya": Family(_m("zaya"), pattern=_all_hybrid, attention_kinds=_HYBRID_KINDS,
                   window=_hybrid_window("sliding_window"),
                   rope_reader=_labelled_rope("zaya", _HYBRID_KINDS, _ZAYA_ROPE, stray=("rope_type",)),
                   learned=("key_scale",),
                   defaults={"num_hidden_layers": 40, "head_dim": 128, "max_position_embeddings": 131072}),
    # MiniMax-M3 (text model of minimax_m3_vl; its files say "minimax_m3", a type transformers does not register):
    # the first int(head_dim * partial_rotary_factor) dims in halves; its rotary_dim key is never read
    "minimax_m3_vl_text": Family(_m("minimax_m3_vl"), **_MINIMAX_M3),
    "minimax_m3": Family(_m("minimax_m3_vl"), follows="minimax_m3_vl_text", **_MINIMAX_M3),
    # LFM3: short-convolution blocks without attention between its attention layers; RoPE keyed by layer type,
    # proportional on the full-attention layers (half the pairs turn, exponents over the whole head)
    "lfm3": Family(_m("lfm3"), partial="ignore", pattern=_lfm3_pattern, attention_kinds=_LFM3_KINDS,
                   rope_reader=_labelled_rope("lfm3", ("full_attention", "sliding_attention"), _LFM3_ROPE),
                   defaults={"num_hidden_layers": 24, "head_dim": 128, "max_position_embeddings": 128_000,
                             "sliding_window": 256}),
    # Laguna (poolside): its published files scale the full layers' half-head RoPE with YaRN; the number of query
    # heads changes from layer to layer (num_attention_heads_per_layer), the head size does not
    "laguna": Family(_m("laguna"),
                     rope_reader=_labelled_rope("laguna", ("full_attention", "sliding_attention"), _LAGUNA_ROPE,
                                                stray=("original_max_position_embeddings",)),
                     defaults={"hidden_size": 2048, "num_attention_heads": 48, "head_dim": 128, "num_hidden_layers": 40,
                               "max_position_embeddings": 131072, "sliding_window": 512}),
    # Inkling 1, 2 and 2-Loop: no RoPE; each layer adds a learned bias per backward distance (Inkling 2-Loop
    # runs some of its layers several times: listed once here, as its modules are)
    "inkling_text": _inkling("inkling", num_hidden_layers=66, sliding_window_size=512, max_position_embeddings=131072),
    "inkling2_text": _inkling("inkling2", num_hidden_layers=48, sliding_window_size=1024,
                              max_position_embeddings=1048576, log_scaling_n_floor=128000),
    "inkling2_loop_text": _inkling("inkling2_loop", num_hidden_layers=24, sliding_window_size=1024,
                                   max_position_embeddings=1048576, log_scaling_n_floor=8192),
    **{model_type: Family(_m(model_type.replace("-", "_"))) for model_type in sorted(NO_ROPE_MODEL_TYPES)},
}
"""model_type -> Family (see the module docstring)."""


def family_of(model_type: str | None) -> Family:
    """The registry entry of a model_type, GENERIC when it has none."""
    return GENERIC if model_type is None else FAMILIES.get(model_type, GENERIC)
