"""The registry of model families: how each transformers model_type reads its config.json.

One `Family` per model_type, built from data and small functions, each naming the transformers 5.24
file whose code it follows (the way transformers' ROPE_INIT_FUNCTIONS and rope_viz.scaling's
registry are built): adding a family is adding an entry to FAMILIES. A model_type with no entry is
read the way transformers' generic code reads a config (half layout, partial_rotary_factor honoured,
every layer full attention), and its ModelRoPE says family None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .config import MAX_LAYERS, Reader

# Families with no rotary embedding at all (absolute, relative-bias or ALiBi positions)
NO_ROPE_MODEL_TYPES = frozenset({"bert", "roberta", "xlm-roberta", "distilbert", "albert", "electra", "gpt2",
                                 "opt", "bloom", "mpt", "t5", "bart", "whisper", "deberta", "deberta-v2"})
# A multimodal wrapper's text model, when its text_config names no model_type
TEXT_MODEL_TYPES = {"gemma3": "gemma3_text", "gemma4": "gemma4_text", "llama4": "llama4_text",
                    "qwen3_vl": "qwen3_vl_text", "qwen3_vl_moe": "qwen3_vl_moe_text", "qwen3_5": "qwen3_5_text",
                    "qwen3_5_moe": "qwen3_5_moe_text", "qwen2_5_vl": "qwen2_5_vl_text", "qwen2_vl": "qwen2_vl_text",
                    "mistral3": "mistral", "kimi_k25": "deepseek_v3"}
# Multimodal wrappers that keep the language model's keys at the top level (Qwen2-VL, Qwen2.5-VL)
TEXT_AT_TOP_LEVEL = frozenset({"qwen2_vl", "qwen2_5_vl"})


# ----------------------------------------------------------------------------- layer patterns

def _all_full(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    return ["full_attention"] * layers


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


# ----------------------------------------------------------------------------- the registry

@dataclass(frozen=True)
class Family:
    """How one transformers model family reads its config (its modeling and configuration files).

    source: the transformers file whose code the reading follows; layout: "half" or "interleaved";
    partial: "honour" partial_rotary_factor or "ignore" it (full-head RoPE); pattern: layer types when
    the config lists none; nope: "llama4" ([] or null: every no_rope_layer_interval-th layer) or "smollm3"
    (null only); per_layer_type: RoPE parameters per layer type with Gemma's defaults (full_rope_default
    replaces the global layers' default, every_kind_required refuses a dict missing a layer type);
    mrope: "blocks" or "interleaved"; mla: multi-head latent attention (reads_rope_interleave: its
    rope_interleave false switches to the half layout); query_scale: "llama4" or "beta"; defaults:
    the config class's defaults for keys hub files omit; rope_types: the rope types its config class
    accepts (None: any); head_dim_keys: layer type -> the key holding that type's head size;
    last_layer_full: the last layer attends fully whatever layer_types says.
    """

    source: str
    layout: str = "half"
    partial: str = "honour"
    default_partial: float | None = None
    pattern: Callable = _all_full
    nope: str | None = None
    per_layer_type: bool = False
    full_rope_default: Mapping | None = None
    every_kind_required: bool = False
    mrope: str | None = None
    mrope_section: tuple | None = None
    mla: bool = False
    reads_rope_interleave: bool = False
    query_scale: str | None = None
    defaults: Mapping = field(default_factory=dict)
    rope_types: tuple | None = None
    head_dim_keys: Mapping = field(default_factory=dict)
    last_layer_full: bool = False


GENERIC = Family(source="modeling_rope_utils.py")
"""The reading of a model_type with no entry: transformers' generic RoPE code."""


def _m(name: str) -> str:
    return f"models/{name}/modeling_{name}.py"


_QWEN35 = dict(partial="honour", default_partial=0.25, mrope="interleaved", mrope_section=(11, 11, 10),
               pattern=_every_nth_full("full_attention_interval", 4, "linear_attention"))
_DEEPSEEK = dict(layout="interleaved", partial="ignore", mla=True, reads_rope_interleave=True,
                 defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "kv_lora_rank": 512})
_GEMMA3_DEFAULTS = {"hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 26,
                    "max_position_embeddings": 131072, "sliding_window": 4096}
_GEMMA4_DEFAULTS = {"hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256, "global_head_dim": 512,
                    "num_hidden_layers": 30, "max_position_embeddings": 131072, "sliding_window": 512}
_LLAMA4_DEFAULTS = {"hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128, "num_hidden_layers": 48,
                    "max_position_embeddings": 131072, "rope_theta": 500000.0, "attention_chunk_size": 8192,
                    "no_rope_layer_interval": 4, "attn_temperature_tuning": True, "floor_scale": 8192,
                    "attn_scale": 0.1}

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
    "llama4_text": Family(_m("llama4"), layout="interleaved", partial="ignore", nope="llama4",
                          pattern=_llama4_pattern, query_scale="llama4", defaults=_LLAMA4_DEFAULTS),
    "smollm3": Family(_m("smollm3"), partial="ignore", nope="smollm3", pattern=_smollm3_pattern,
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
    "kimi_k2": Family(_m("deepseek_v3"), **_DEEPSEEK),  # Kimi K2's config.json runs DeepSeek-V3's code
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
    **{model_type: Family(_m(model_type.replace("-", "_"))) for model_type in sorted(NO_ROPE_MODEL_TYPES)},
}
"""model_type -> Family (see the module docstring)."""


def family_of(model_type: str | None) -> Family:
    """The registry entry of a model_type, GENERIC when it has none."""
    return FAMILIES.get(model_type, GENERIC)
