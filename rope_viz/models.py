"""The RoPE of real models, layer by layer, read from their config.json as transformers runs it.

`model_rope(config)` turns a Hugging Face config (a dict, or its JSON text; transformers 4.x
`rope_theta` + `rope_scaling` or 5.x `rope_parameters`, flat or keyed by layer type; a multimodal
config's `text_config` is the one read) into a `ModelRoPE` whose `layers` hold one `LayerRoPE` per
decoder layer: its attention (full, sliding window, chunked, linear), whether it rotates at all
(NoPE and linear-attention layers do not), its base, scaling, head and rotated sizes, pair layout,
multimodal sections and the factor its queries are multiplied by. `preset(name)` gives the shipped
presets (rope_viz/data/model_configs.json: each model's published config.json, with its source).

    m = rope_viz.preset("Llama-4-Scout-17B-16E-Instruct")
    layer = m.layers[3]                       # a NoPE layer with global attention
    layer.rotary, layer.attention             # False, "full_attention"
    layer.query_scale(positions)              # Llama 4's temperature on its NoPE layers
    m.layers[0].rotate(q, positions)          # exactly the model's rotation of q in layer 0
    inv_freq, attention_factor = m.inv_freq(seq_len=32768)   # the first rotary full-attention layer

Each family's own modeling code in transformers 5.24 decides what a key means (see FAMILIES): plain
Llama and Qwen3 ignore `partial_rotary_factor` while GLM, Phi-3 and Qwen3.5 honour it; Llama 4, GLM
and DeepSeek pair neighbouring dims; `no_rope_layers` holds 1 where a layer *uses* RoPE.
"""

from __future__ import annotations

import copy
import json
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import torch

from ._checks import check_budget, check_integer_positions, check_layout, check_positive
from .axial import rotate_pairs
from .mrope import mrope_axes
from .rotary import apply_rope
from .scaling import MAX_CONTEXT, rope_type_of, scaled_inv_freq

MAX_CONFIG_BYTES = 256 * 1024
MAX_HEAD_DIM = 1 << 14
MAX_HIDDEN_SIZE = 1 << 20
MAX_HEADS = 1 << 14
MAX_LAYERS = 1024
DEFAULT_BASE = 10000.0
DEFAULT_LAYERS = 32  # transformers' LlamaConfig default, for a config that names neither its type nor its depth
ATTENTION_KINDS = ("full_attention", "sliding_attention", "chunked_attention", "linear_attention",
                   "indexed_attention")
# transformers' older names of the same layer types (configuration_utils._LEGACY_LAYER_TYPE_REMAP)
_LEGACY_LAYER_TYPES = {"attention": "full_attention", "mamba": "linear_attention",
                       "deepseek_sparse_attention": "indexed_attention"}
# Families with no rotary embedding at all (absolute, relative-bias or ALiBi positions)
NO_ROPE_MODEL_TYPES = frozenset({"bert", "roberta", "xlm-roberta", "distilbert", "albert", "electra", "gpt2",
                                 "opt", "bloom", "mpt", "t5", "bart", "whisper", "deberta", "deberta-v2"})
# A multimodal wrapper's text model, when its text_config names no model_type
_TEXT_MODEL_TYPES = {"gemma3": "gemma3_text", "gemma4": "gemma4_text", "llama4": "llama4_text",
                     "qwen3_vl": "qwen3_vl_text", "qwen3_vl_moe": "qwen3_vl_moe_text", "qwen3_5": "qwen3_5_text",
                     "qwen3_5_moe": "qwen3_5_moe_text", "qwen2_5_vl": "qwen2_5_vl_text", "qwen2_vl": "qwen2_vl_text",
                     "mistral3": "mistral", "kimi_k25": "deepseek_v3"}
# rope_parameters keys a model reads itself (not the rotary embedding): transformers' ignore_keys_at_rope_validation
_MODEL_KEYS = frozenset({"mrope_section", "mrope_interleaved", "llama_4_scaling_beta", "max_position_embeddings"})
_DATA = Path(__file__).with_name("data") / "model_configs.json"


# ----------------------------------------------------------------------------- one layer

@dataclass(frozen=True)
class LayerRoPE:
    """What one decoder layer does with positions.

    attention: "full_attention", "sliding_attention", "chunked_attention", "linear_attention" or
    "indexed_attention"; window: the sliding window or attention chunk in tokens (None for full);
    rotary: False for NoPE and linear-attention layers; rope_type/base: None where not rotary;
    head_dim: the query/key head size (MLA: qk_nope_head_dim + qk_rope_head_dim); rotary_dim: how
    many of its dims turn (0 where not rotary); layout: "half" (i, i + r/2) or "interleaved" (2i, 2i+1);
    rotated_from: the first rotated dim (MLA: qk_nope_head_dim, the rotated dims sit last);
    mrope_section / mrope_interleaved: the multimodal sections (None for 1-D RoPE);
    temperature: (kind, strength, length) of the query scale, or None.
    """

    index: int
    attention: str
    window: int | None
    rotary: bool
    rope_type: str | None
    base: float | None
    head_dim: int
    rotary_dim: int
    layout: str
    rope_scaling: Mapping | None = None
    max_position_embeddings: int | None = None
    rotated_from: int = 0
    mrope_section: tuple | None = None
    mrope_interleaved: bool = False
    temperature: tuple | None = None

    @property
    def span(self) -> int:
        """Dims the rotation runs over: rotary_dim, or the whole head for "proportional" (whose
        unrotated pairs have frequency 0)."""
        return self.head_dim if self.rope_type == "proportional" else self.rotary_dim

    def inv_freq(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """(inv_freq float64, attention_factor) as transformers' rotary embedding of this layer computes
        them: rotary_dim // 2 entries (head_dim // 2 for "proportional", zeros for its unrotated pairs);
        an empty tensor and 1.0 where the layer is not rotary. seq_len: dynamic NTK and LongRoPE depend
        on it (None: the value at load time)."""
        if not self.rotary:
            return torch.zeros(0, dtype=torch.float64), 1.0
        return scaled_inv_freq(self.span, self.base, _plain(self.rope_scaling),
                               max_position_embeddings=self.max_position_embeddings, seq_len=seq_len)

    def _positions(self, positions, seq: int) -> torch.Tensor:
        """(3, seq) M-RoPE ids or (seq,) ids as float64, whole numbers in [0, MAX_CONTEXT]."""
        if self.mrope_section is not None:
            ids = torch.as_tensor(positions) if not isinstance(positions, torch.Tensor) else positions
            if ids.dim() == 2:
                if ids.shape != (3, seq):
                    raise ValueError(f"positions must have shape ({seq},) or (3, {seq}) (time, height, width), "
                                     f"got {tuple(ids.shape)}")
                return torch.stack([check_integer_positions(row, maximum=MAX_CONTEXT) for row in ids])
        pos = check_integer_positions(positions, maximum=MAX_CONTEXT)
        if pos.shape != (seq,):
            raise ValueError(f"positions must hold one id per sequence position ({seq}), got {pos.numel()}")
        return pos

    def rotate(self, x: torch.Tensor, positions) -> torch.Tensor:
        """x (..., seq, head_dim) float32/float64 rotated exactly as the model rotates its queries and keys
        in this layer, the attention factor included; x itself where the layer is not rotary.
        positions: (seq,) whole-number ids, or (3, seq) time/height/width ids for M-RoPE layers (which
        also take 1-D text ids). Angles are float64; a float32 x gets float32 cos and sin."""
        if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64) or x.dim() < 2:
            raise ValueError(f"x must be a float32 or float64 tensor of shape (..., seq, head_dim={self.head_dim}), "
                             f"got {type(x).__name__}{tuple(getattr(x, 'shape', ()))}")
        if x.shape[-1] != self.head_dim:
            raise ValueError(f"x.shape[-1] must be head_dim={self.head_dim} in layer {self.index}, got {x.shape[-1]}")
        pos = self._positions(positions, x.shape[-2])
        if not self.rotary:
            return x
        seq_len = int(pos.max().item()) + 1 if pos.numel() else None
        inv_freq, attention_factor = self.inv_freq(seq_len=seq_len)
        check_budget(pos.shape[-1] * inv_freq.numel(), "rotate")
        if pos.dim() == 2 or self.mrope_section is not None:
            ids = pos if pos.dim() == 2 else pos.expand(3, -1)
            axes = mrope_axes(self.mrope_section, inv_freq.numel(), interleaved=self.mrope_interleaved)
            table = ids[axes].T * inv_freq
        else:
            table = pos[:, None] * inv_freq
        start, stop = self.rotated_from, self.rotated_from + self.span
        turned = rotate_pairs(x[..., start:stop], table, layout=self.layout) * attention_factor
        return torch.cat((x[..., :start], turned, x[..., stop:]), dim=-1)

    def query_scale(self, positions) -> torch.Tensor:
        """The factor (float64, one per position) the model multiplies this layer's queries by:
        Llama 4's temperature on its NoPE layers, 1 + attn_scale * ln(1 + floor((m + 1) / floor_scale))
        with m the cache position; Ministral 3's llama_4_scaling_beta, 1 + beta * ln(1 + floor(m / L))
        with L the original context; ones where the model has none (MLA's mscale enters the softmax
        scale instead: ModelRoPE.latent)."""
        pos = check_integer_positions(positions, maximum=MAX_CONTEXT)
        if self.temperature is None:
            return torch.ones_like(pos)
        kind, strength, length = self.temperature
        offset = 1.0 if kind == "llama4" else 0.0
        return 1.0 + strength * torch.log1p(torch.floor((pos + offset) / length))


@dataclass(frozen=True)
class LatentAttention:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): every head's query and key are
    qk_nope_head_dim unrotated dims followed by qk_rope_head_dim rotated ones; the rotated key part is
    one vector shared by all heads, cached beside the kv_lora_rank-wide latent.

    softmax_scale: (qk_nope_head_dim + qk_rope_head_dim)^-0.5 times mscale^2, mscale =
    0.1 * mscale_all_dim * ln(factor) + 1 when the config scales with YaRN and names mscale_all_dim."""

    num_heads: int
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    softmax_scale: float

    @property
    def cached_per_token(self) -> int:
        """Numbers cached per token and layer: the latent plus the shared rotated key."""
        return self.kv_lora_rank + self.qk_rope_head_dim

    @property
    def uncompressed_per_token(self) -> int:
        """What full multi-head keys and values would cache per token and layer."""
        return self.num_heads * (self.qk_nope_head_dim + self.qk_rope_head_dim + self.v_head_dim)


# ----------------------------------------------------------------------------- the model

@dataclass(frozen=True)
class ModelRoPE:
    """The rotary embedding of one model, layer by layer.

    layers: one LayerRoPE per decoder layer. name, model_type (the text model's), latent (MLA, else
    None). head_dim, rotary_dim, base, rope_scaling (read-only, None for plain RoPE), layout and
    max_position_embeddings describe the first rotary layer of full attention (the first rotary layer
    when none attends fully); a model with no rotary layer has rotary_dim 0 and base None.
    """

    name: str
    head_dim: int
    rotary_dim: int
    base: float | None
    rope_scaling: Mapping | None
    max_position_embeddings: int | None
    layout: str
    layers: tuple = ()
    model_type: str | None = None
    latent: LatentAttention | None = field(default=None)

    @property
    def rope_type(self) -> str:
        return rope_type_of(self.rope_scaling)

    @property
    def has_rope(self) -> bool:
        return any(layer.rotary for layer in self.layers)

    @property
    def reference_layer(self) -> LayerRoPE:
        """The layer m.inv_freq / m.head_dim / ... describe."""
        rotary = [layer for layer in self.layers if layer.rotary]
        if not rotary:
            raise ValueError(f"{self.name} has no rotary layer (its positions are not encoded by RoPE)")
        return next((layer for layer in rotary if layer.attention == "full_attention"), rotary[0])

    def inv_freq(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """(inv_freq float64, attention_factor) of the reference layer (see LayerRoPE.inv_freq)."""
        return self.reference_layer.inv_freq(seq_len)

    def apply(self, x: torch.Tensor, positions=None, *, method: str = "fast") -> torch.Tensor:
        """The reference layer's rotary step on x (..., seq, head_dim). Plain layers go through
        `rope_viz.rotary.apply_rope` (any of its methods); MLA, proportional and M-RoPE layers through
        LayerRoPE.rotate."""
        layer = self.reference_layer
        if isinstance(x, torch.Tensor) and x.dim() >= 1 and x.shape[-1] != self.head_dim:
            raise ValueError(f"x.shape[-1] must be head_dim={self.head_dim} for {self.name}, got {x.shape[-1]}")
        if layer.rotated_from or layer.rope_type == "proportional" or layer.mrope_section is not None:
            if positions is None and isinstance(x, torch.Tensor) and x.dim() >= 2:
                positions = torch.arange(x.shape[-2])
            return layer.rotate(x, positions)
        return apply_rope(x, positions, base=self.base, layout=self.layout, method=method,
                          rotary_dim=self.rotary_dim, rope_scaling=_plain(self.rope_scaling),
                          max_position_embeddings=self.max_position_embeddings)


def _plain(scaling):
    """A frozen rope_scaling back to a plain dict (lists for the factor tuples)."""
    if scaling is None:
        return None
    return {key: list(value) if isinstance(value, tuple) else value for key, value in scaling.items()}


def _frozen(scaling: dict | None):
    if scaling is None:
        return None
    return MappingProxyType({key: tuple(value) if isinstance(value, list) else value
                             for key, value in scaling.items()})


# ----------------------------------------------------------------------------- reading values

def _reject_constant(token):
    raise ValueError(f"config is not valid JSON: {token} is not a number JSON allows")


def _parse(config) -> dict:
    if isinstance(config, (bytes, bytearray)):
        if len(config) > MAX_CONFIG_BYTES:
            raise ValueError(f"config is {len(config):,} bytes; at most {MAX_CONFIG_BYTES:,} are accepted")
        try:
            config = bytes(config).decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError("config must be UTF-8 JSON text") from err
    if isinstance(config, str):
        size = len(config.encode("utf-8", "surrogatepass"))
        if size > MAX_CONFIG_BYTES:
            raise ValueError(f"config is {size:,} bytes; at most {MAX_CONFIG_BYTES:,} are accepted")
        try:
            config = json.loads(config, parse_constant=_reject_constant)
        except RecursionError as err:
            raise ValueError("config is nested too deeply to be a model config") from err
        except json.JSONDecodeError as err:
            raise ValueError(f"config is not valid JSON: {err.msg} at line {err.lineno} column {err.colno}") from err
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a JSON object (a dict of config.json keys), got {type(config).__name__}")
    return dict(config)


class _Reader:
    """Values of one (text) config with its family's defaults; errors name the key as the config has it."""

    def __init__(self, config: Mapping, defaults: Mapping, where: str):
        self.config, self.defaults, self.where = config, defaults, where

    def get(self, key: str):
        value = self.config.get(key)
        return self.defaults.get(key) if value is None and key not in self.config else value

    def name(self, key: str) -> str:
        return f"{self.where}[{key!r}]"

    def int(self, key: str, *, maximum: int, required: bool = True, minimum: int = 1):
        value = self.get(key)
        if value is None:
            if required:
                raise ValueError(f"{self.name(key)} is missing; it must be an integer between {minimum} and "
                                 f"{maximum:,}")
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not minimum <= value <= maximum:
            raise ValueError(f"{self.name(key)} must be an integer between {minimum} and {maximum:,}, got {value!r}")
        return int(value)

    def number(self, key: str):
        value = self.get(key)
        return None if value is None else check_positive(value, self.name(key))

    def flag(self, key: str, default: bool) -> bool:
        value = self.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ValueError(f"{self.name(key)} must be true or false, got {value!r}")
        return value

    def first(self, *keys: str) -> str | None:
        return next((key for key in keys if self.get(key) is not None), None)


def _int_list(value, key: str, length: int) -> list[int]:
    if not isinstance(value, list) or len(value) != length or not all(
            isinstance(item, numbers.Integral) and not isinstance(item, bool) for item in value):
        got = f"{len(value)} entries" if isinstance(value, list) else type(value).__name__
        raise ValueError(f"{key} must be a list of {length} integers (one per layer), got {got}")
    return [int(item) for item in value]


# ----------------------------------------------------------------------------- families

def _all_full(r: _Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    return ["full_attention"] * layers


def _all_sliding_when_windowed(r: _Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Mistral, Mixtral, Phi-3, Ministral 3: sliding_window (when set) on every layer."""
    return ["sliding_attention" if r.get("sliding_window") is not None else "full_attention"] * layers


def _qwen2_pattern(r: _Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Qwen2 / Qwen3: sliding from layer max_window_layers on, when use_sliding_window."""
    sliding = r.flag("use_sliding_window", False) and r.get("sliding_window") is not None
    first = r.int("max_window_layers", maximum=MAX_LAYERS, minimum=0) if sliding else layers
    return ["sliding_attention" if sliding and i >= first else "full_attention" for i in range(layers)]


def _every_nth_full(key: str, default: int, other: str) -> Callable:
    def pattern(r: _Reader, layers: int, uses_rope: list[bool]) -> list[str]:
        every = r.int(key, maximum=MAX_LAYERS) if r.get(key) is not None else default
        return [other if (i + 1) % every else "full_attention" for i in range(layers)]
    pattern.__doc__ = f"{other} except every {key} (default {default})-th layer, which attends fully."
    return pattern


def _llama4_pattern(r: _Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """Llama 4: chunked attention on RoPE layers, full attention on NoPE layers."""
    return ["chunked_attention" if rope else "full_attention" for rope in uses_rope]


def _smollm3_pattern(r: _Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    """SmolLM3: sliding only on NoPE layers and only with use_sliding_window (off in its release)."""
    sliding = r.flag("use_sliding_window", False) and r.get("sliding_window") is not None
    return ["sliding_attention" if sliding and not rope else "full_attention" for rope in uses_rope]


def _indexed(r: _Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    return ["indexed_attention"] * layers


@dataclass(frozen=True)
class _Family:
    """How one transformers model family reads its config (its modeling and configuration files)."""

    layout: str = "half"
    partial: str = "honour"           # "honour" partial_rotary_factor, or "ignore" it (full-head RoPE)
    default_partial: float | None = None
    pattern: Callable = _all_full     # layer types when the config lists none
    nope: str | None = None           # "llama4" ([] or null: every 4th layer) or "smollm3" (null only)
    per_layer_type: bool = False      # Gemma 3/4: RoPE parameters per layer type
    mrope: str | None = None          # "blocks" or "interleaved"
    mrope_section: tuple | None = None
    mla: bool = False
    query_scale: str | None = None    # "llama4" (NoPE temperature) or "beta" (llama_4_scaling_beta)
    defaults: Mapping = field(default_factory=dict)
    rope_types: tuple | None = None   # the rope types its config class accepts (None: any)


_LLAMA_LIKE = _Family(partial="ignore")
_QWEN35 = dict(partial="honour", default_partial=0.25, mrope="interleaved", mrope_section=(11, 11, 10),
               pattern=_every_nth_full("full_attention_interval", 4, "linear_attention"))
_DEEPSEEK = dict(layout="interleaved", partial="ignore", mla=True,
                 defaults={"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "kv_lora_rank": 512})
FAMILIES = {
    "llama": _LLAMA_LIKE,
    "qwen2": _Family(partial="ignore", pattern=_qwen2_pattern, defaults={"max_window_layers": 28}),
    "qwen3": _Family(partial="ignore", pattern=_qwen2_pattern, defaults={"max_window_layers": 28}),
    "qwen3_moe": _Family(partial="ignore", pattern=_all_sliding_when_windowed),
    "mistral": _Family(partial="ignore", pattern=_all_sliding_when_windowed),
    "mixtral": _Family(partial="ignore", pattern=_all_sliding_when_windowed),
    "gemma": _LLAMA_LIKE, "gemma2": _Family(partial="ignore", pattern=_every_nth_full("sliding_window_pattern", 2,
                                                                                       "sliding_attention")),
    "gemma3_text": _Family(partial="ignore", per_layer_type=True,
                           pattern=_every_nth_full("sliding_window_pattern", 6, "sliding_attention"),
                           defaults={"hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256,
                                     "num_hidden_layers": 26, "max_position_embeddings": 131072,
                                     "sliding_window": 4096}),
    "gemma4_text": _Family(partial="ignore", per_layer_type=True,
                           pattern=_every_nth_full("sliding_window_pattern", 6, "sliding_attention"),
                           defaults={"hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256,
                                     "global_head_dim": 512, "num_hidden_layers": 30,
                                     "max_position_embeddings": 131072, "sliding_window": 512}),
    "llama4_text": _Family(layout="interleaved", partial="ignore", nope="llama4", pattern=_llama4_pattern,
                           query_scale="llama4",
                           defaults={"hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128,
                                     "num_hidden_layers": 48, "max_position_embeddings": 131072,
                                     "rope_theta": 500000.0, "attention_chunk_size": 8192,
                                     "no_rope_layer_interval": 4, "attn_temperature_tuning": True,
                                     "floor_scale": 8192, "attn_scale": 0.1}),
    "smollm3": _Family(partial="ignore", nope="smollm3", pattern=_smollm3_pattern,
                       defaults={"rope_theta": 2000000.0, "no_rope_layer_interval": 4}),
    "qwen3_next": _Family(partial="honour", default_partial=0.25,
                          pattern=_every_nth_full("full_attention_interval", 4, "linear_attention")),
    "qwen3_5_text": _Family(**_QWEN35), "qwen3_5_moe_text": _Family(**_QWEN35),
    "qwen2_vl_text": _Family(partial="ignore", mrope="blocks", mrope_section=(16, 24, 24), pattern=_qwen2_pattern,
                             defaults={"max_window_layers": 80}),
    "qwen2_5_vl_text": _Family(partial="ignore", mrope="blocks", mrope_section=(16, 24, 24), pattern=_qwen2_pattern,
                               defaults={"max_window_layers": 80}),
    "qwen3_vl_text": _Family(partial="ignore", mrope="interleaved", mrope_section=(24, 20, 20),
                             defaults={"head_dim": 128, "rope_theta": 500000.0}),
    "qwen3_vl_moe_text": _Family(partial="ignore", mrope="interleaved", mrope_section=(24, 20, 20),
                                 defaults={"rope_theta": 500000.0}),
    "deepseek_v2": _Family(**_DEEPSEEK), "deepseek_v3": _Family(**_DEEPSEEK), "kimi_k2": _Family(**_DEEPSEEK),
    "deepseek_v32": _Family(**dict(_DEEPSEEK, pattern=_indexed)),
    "gpt_oss": _Family(partial="ignore", pattern=_every_nth_full("sliding_window_pattern", 2, "sliding_attention"),
                       defaults={"head_dim": 64, "sliding_window": 128, "rope_theta": 150000.0}),
    "ministral3": _Family(partial="ignore", pattern=_all_sliding_when_windowed, query_scale="beta"),
    "glm": _Family(layout="interleaved", default_partial=0.5),
    "glm4": _Family(layout="interleaved", default_partial=0.5),
    "glm4_moe": _Family(default_partial=0.5),
    "phi3": _Family(pattern=_all_sliding_when_windowed, rope_types=("default", "longrope")),
    "gptj": _Family(layout="interleaved"),
}
"""model_type -> _Family; a type not listed reads like transformers' generic code (half layout,
partial_rotary_factor honoured, every layer full attention)."""


# ----------------------------------------------------------------------------- reading a config

def _text_config(config: dict) -> tuple[dict, str | None, str]:
    """(the config holding the language model's keys, its model_type, where that is in the file)."""
    outer_type = config.get("model_type")
    if outer_type is not None and not isinstance(outer_type, str):
        raise ValueError(f"config['model_type'] must be a string, got {outer_type!r}")
    text = config.get("text_config")
    if text is None:  # Qwen2-VL and Qwen2.5-VL keep the language model's keys at the top level
        return config, _TEXT_MODEL_TYPES.get(outer_type, outer_type) if outer_type in ("qwen2_vl", "qwen2_5_vl") \
            else outer_type, "config"
    if not isinstance(text, Mapping):
        raise ValueError(f"config['text_config'] must be a JSON object, got {type(text).__name__}")
    text = dict(text)
    model_type = text.get("model_type", _TEXT_MODEL_TYPES.get(outer_type, outer_type))
    if model_type is not None and not isinstance(model_type, str):
        raise ValueError(f"config['text_config']['model_type'] must be a string, got {model_type!r}")
    return text, model_type, "config['text_config']"


def _head_dim(r: _Reader) -> int:
    if r.get("head_dim") is not None:
        return r.int("head_dim", maximum=MAX_HEAD_DIM)
    hidden_key = r.first("hidden_size", "n_embd") or "hidden_size"
    heads_key = r.first("num_attention_heads", "n_head") or "num_attention_heads"
    hidden = r.int(hidden_key, maximum=MAX_HIDDEN_SIZE)
    heads = r.int(heads_key, maximum=MAX_HEADS)
    if hidden % heads:
        raise ValueError(f"{r.name(hidden_key)}={hidden} must be a multiple of {r.name(heads_key)}={heads} "
                         "(or give head_dim)")
    head_dim = hidden // heads
    if head_dim > MAX_HEAD_DIM:
        raise ValueError(f"head size {hidden_key}/{heads_key} = {head_dim} is over {MAX_HEAD_DIM:,}")
    return head_dim


def _check_rope_dict(params, where: str) -> dict:
    if not isinstance(params, Mapping):
        raise ValueError(f"{where} must be a JSON object or null, got {type(params).__name__}")
    for name, value in params.items():
        if not isinstance(name, str):
            raise ValueError(f"{where} keys must be strings, got {name!r}")
        if isinstance(value, Mapping):
            raise ValueError(f"{where}[{name!r}] is a nested object: only the layer types of the config's "
                             f"layers ({', '.join(ATTENTION_KINDS)}) may key RoPE parameters")
        if isinstance(value, list) and any(isinstance(item, (list, Mapping)) for item in value):
            raise ValueError(f"{where}[{name!r}] must be a flat list of numbers")
    return dict(params)


def _uses_rope(r: _Reader, family: _Family, layers: int) -> list[bool]:
    """Per layer, whether it rotates: no_rope_layers holds 1 where a layer *uses* RoPE."""
    if family.nope is None:
        return [True] * layers
    value = r.get("no_rope_layers")
    if value is None or (value == [] and family.nope == "llama4"):  # Llama 4 reads [] as "not given"
        every = r.int("no_rope_layer_interval", maximum=MAX_LAYERS)
        return [bool((i + 1) % every) for i in range(layers)]
    return [bool(flag) for flag in _int_list(value, r.name("no_rope_layers"), layers)]


def _layer_types(r: _Reader, family: _Family, layers: int, uses_rope: list[bool], model_type) -> list[str]:
    value = r.get("layer_types")
    if value is None:
        kinds = family.pattern(r, layers, uses_rope)
    else:
        if not isinstance(value, list) or len(value) != layers:
            got = f"{len(value)} entries" if isinstance(value, list) else type(value).__name__
            raise ValueError(f"{r.name('layer_types')} must list one layer type per layer ({layers}), got {got}")
        kinds = [_LEGACY_LAYER_TYPES.get(kind, kind) if isinstance(kind, str) else kind for kind in value]
        bad = next((kind for kind in kinds if kind not in ATTENTION_KINDS), None)
        if bad is not None:
            raise ValueError(f"{r.name('layer_types')} holds {bad!r}; supported layer types: "
                             f"{', '.join(ATTENTION_KINDS)}")
    if model_type == "gemma4_text" and kinds:
        kinds = [*kinds[:-1], "full_attention"]  # transformers forces Gemma 4's last layer to full attention
    return kinds


def _rope_parameters(r: _Reader, family: _Family, kinds: list[str], model_type) -> tuple[dict, str]:
    """The RoPE dict of each layer type, rope_theta and partial_rotary_factor filled in as transformers'
    standardize_rope_params does (a 4.x rope_scaling wins over rope_parameters, like its loader), and
    where the dict sits in the file."""
    key = "rope_scaling" if r.get("rope_scaling") else "rope_parameters"
    raw = r.get(key)
    where = r.name(key)
    raw = {} if raw is None else raw
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} must be a JSON object or null, got {type(raw).__name__}")
    present = set(kinds)
    nested = [name for name in raw if name in ATTENTION_KINDS]
    if nested and not present & set(nested):
        raise ValueError(f"{where} is keyed by layer types {nested} that no layer has (layer types: "
                         f"{', '.join(sorted(present))})")
    theta_key = r.first("rope_theta", "rotary_emb_base")
    theta = r.number(theta_key) if theta_key else None
    partial_key = r.first("partial_rotary_factor", "rotary_pct")
    partial = r.number(partial_key) if partial_key else family.default_partial
    if family.per_layer_type:
        local = r.number("rope_local_base_freq")
        defaults = {"sliding_attention": {"rope_type": "default", "rope_theta": local or DEFAULT_BASE},
                    "full_attention": {"rope_type": "default", "rope_theta": theta or 1_000_000.0}}
        if model_type == "gemma4_text":
            defaults["full_attention"] = {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                          "rope_theta": 1_000_000.0}
        if not nested:  # 4.x Gemma 3: rope_scaling scales the global layers only
            scaled = dict(defaults["full_attention"], **_check_rope_dict(raw, where)) if raw else None
            nested_dicts = {kind: dict(defaults[kind]) for kind in ("sliding_attention", "full_attention")}
            if scaled:
                nested_dicts["full_attention"] = scaled
        else:
            missing = [kind for kind in present if kind not in raw]
            if model_type == "gemma4_text" and missing:
                raise ValueError(f"{where} has no entry for the layer type {missing[0]!r}")
            nested_dicts = {kind: None if raw.get(kind, defaults.get(kind)) is None else
                            _check_rope_dict(raw.get(kind, defaults.get(kind)), f"{where}[{kind!r}]")
                            for kind in ("sliding_attention", "full_attention")}
            for kind, base in (("sliding_attention", local or DEFAULT_BASE), ("full_attention", theta or 1e6)):
                if nested_dicts[kind] is not None:
                    nested_dicts[kind].setdefault("rope_theta", base)
        out = {kind: nested_dicts.get(kind) for kind in present}
    elif nested:
        missing = [kind for kind in present if kind not in raw]
        if missing:
            raise ValueError(f"{where} has no entry for the layer type {missing[0]!r}")
        out = {kind: None if raw.get(kind) is None else _check_rope_dict(raw[kind], f"{where}[{kind!r}]")
               for kind in present}
        for params in out.values():
            if params is not None:
                params.pop("truncate", None)  # transformers reads truncate from the top level only
    else:
        flat = _check_rope_dict(raw, where)
        out = {kind: dict(flat) for kind in present}
    for params in out.values():
        if params is None:
            continue
        params.setdefault("rope_theta", theta or DEFAULT_BASE)
        if partial is not None:
            params.setdefault("partial_rotary_factor", partial)
    return out, where


def _scaling(params: dict, where: str, r: _Reader) -> tuple[str, float, dict | None, float]:
    """(rope_type, base, the dict scaled_inv_freq reads or None, partial_rotary_factor) of one layer type."""
    name = params.get("rope_type", params.get("type", "default"))
    if name == "mrope":  # Qwen2-VL / Qwen2.5-VL's old label for plain frequencies in three sections
        name = "default"
    rope_type = rope_type_of({"rope_type": name})
    base = check_positive(params.get("rope_theta"), f"{where}['rope_theta']")
    fraction = params.get("partial_rotary_factor")
    fraction = 1.0 if fraction is None else check_positive(fraction, f"{where}['partial_rotary_factor']")
    if fraction > 1:
        raise ValueError(f"{where}['partial_rotary_factor'] must be in (0, 1], got {fraction}")
    if rope_type in ("linear", "dynamic", "yarn", "llama3") and "factor" not in params:
        raise ValueError(f"{where}['factor'] is required for rope_type {rope_type!r} (transformers refuses "
                         "the config without it)")
    scaling = {key: copy.deepcopy(value) for key, value in params.items()
               if key not in {"rope_theta", "partial_rotary_factor", "type"} | _MODEL_KEYS}
    scaling["rope_type"] = rope_type
    if rope_type == "proportional":
        scaling["partial_rotary_factor"] = fraction
    if rope_type in ("llama3", "yarn", "longrope") and r.get("original_max_position_embeddings") is not None:
        scaling["original_max_position_embeddings"] = r.int("original_max_position_embeddings", maximum=MAX_CONTEXT)
    if rope_type == "default":
        scaling = None
    return rope_type, base, scaling, fraction


def _rotary_dim(r: _Reader, family: _Family, head_dim: int, rope_type: str, fraction: float, where: str) -> int:
    if family.mla:
        rotary_dim, key = r.int("qk_rope_head_dim", maximum=MAX_HEAD_DIM), r.name("qk_rope_head_dim")
    elif r.get("rotary_dim") is not None:
        rotary_dim, key = r.int("rotary_dim", maximum=MAX_HEAD_DIM), r.name("rotary_dim")
    elif rope_type == "proportional":
        rotary_dim, key = 2 * int(fraction * head_dim // 2), f"{where}['partial_rotary_factor']"
        if rotary_dim < 2:
            raise ValueError(f"{key} = {fraction} turns no pair of the {head_dim}-wide head")
        return rotary_dim
    elif family.partial == "ignore" and rope_type == "default":
        rotary_dim, key = head_dim, r.name("head_dim")
    else:
        rotary_dim, key = int(head_dim * fraction), f"{where}['partial_rotary_factor']"
        if family.partial == "ignore" and rotary_dim != head_dim:
            raise ValueError(f"{key} = {fraction} with rope_type {rope_type!r}: this family rotates the whole "
                             f"head ({head_dim}), so its scaled frequencies would not fit")
    if rotary_dim > head_dim or rotary_dim < 2 or rotary_dim % 2:
        raise ValueError(f"the rotary size from {key} must be an even integer in [2, head_dim={head_dim}], "
                         f"got {rotary_dim}")
    return rotary_dim


def _layout(r: _Reader, family: _Family, model_type) -> str:
    if family.mla and model_type != "deepseek_v32" and r.get("rope_interleave") is False:
        return "half"
    return check_layout(family.layout)


def _latent(r: _Reader, scaling: dict | None) -> LatentAttention:
    nope = r.int("qk_nope_head_dim", maximum=MAX_HEAD_DIM, minimum=0)
    rope = r.int("qk_rope_head_dim", maximum=MAX_HEAD_DIM)
    scale = (nope + rope) ** -0.5
    if scaling is not None and scaling.get("mscale_all_dim"):
        factor = check_positive(scaling.get("factor"), "rope_scaling['factor']")
        mscale = 1.0 if factor <= 1 else 0.1 * float(scaling["mscale_all_dim"]) * math.log(factor) + 1.0
        scale *= mscale * mscale
    heads_key = r.first("num_attention_heads", "n_head") or "num_attention_heads"
    return LatentAttention(num_heads=r.int(heads_key, maximum=MAX_HEADS),
                           kv_lora_rank=r.int("kv_lora_rank", maximum=MAX_HIDDEN_SIZE),
                           qk_nope_head_dim=nope, qk_rope_head_dim=rope,
                           v_head_dim=r.int("v_head_dim", maximum=MAX_HEAD_DIM), softmax_scale=scale)


def _temperature(r: _Reader, family: _Family, rotary: bool, params: dict | None, where: str):
    if family.query_scale == "llama4":
        if rotary or not r.flag("attn_temperature_tuning", True):
            return None
        return ("llama4", check_positive(r.get("attn_scale"), r.name("attn_scale")),
                float(r.int("floor_scale", maximum=MAX_CONTEXT)))
    if family.query_scale == "beta" and params is not None:
        beta = params.get("llama_4_scaling_beta")
        if beta is None:
            raise ValueError(f"{where}['llama_4_scaling_beta'] is missing; Ministral 3 scales its queries by it")
        beta = float(check_positive(beta, f"{where}['llama_4_scaling_beta']"))
        original = params.get("original_max_position_embeddings") or r.get("original_max_position_embeddings")
        if original is None:
            raise ValueError(f"{where}['original_max_position_embeddings'] is missing; llama_4_scaling_beta "
                             "divides positions by it")
        return ("beta", beta, float(check_positive(original, f"{where}['original_max_position_embeddings']")))
    return None


def _window(r: _Reader, kind: str) -> int | None:
    key = {"sliding_attention": "sliding_window", "chunked_attention": "attention_chunk_size"}.get(kind)
    if key is None or r.get(key) is None:
        return None
    return r.int(key, maximum=MAX_CONTEXT)


def model_rope(config, *, name: str | None = None) -> ModelRoPE:
    """A model's RoPE, layer by layer, from its config.json (a dict, or JSON text of at most 256 KB).

    The language model's keys are read from `text_config` when the config has one. head_dim: head_dim,
    else hidden_size // num_attention_heads (GPT-J: n_embd // n_head; MLA: qk_nope_head_dim +
    qk_rope_head_dim, of which the last qk_rope_head_dim turn). Layers: num_hidden_layers (n_layer),
    their types from layer_types or the family's pattern; RoPE per layer type from rope_parameters
    (flat, or keyed by layer type), else rope_scaling + rope_theta; partial_rotary_factor only where
    the family's code reads it. Absent keys take the family's transformers defaults (FAMILIES).

    Every value is checked; a malformed config raises ValueError naming the key.
    """
    config = _parse(config)
    text, model_type, where = _text_config(config)
    family = FAMILIES.get(model_type, _Family())
    r = _Reader(text, family.defaults, where)
    layers_key = r.first("num_hidden_layers", "n_layer", "num_layers") or "num_hidden_layers"
    count = r.int(layers_key, maximum=MAX_LAYERS) if r.get(layers_key) is not None else DEFAULT_LAYERS
    max_key = r.first("max_position_embeddings", "n_positions") or "max_position_embeddings"
    max_position_embeddings = r.int(max_key, maximum=MAX_CONTEXT, required=False)
    no_rope = model_type in NO_ROPE_MODEL_TYPES or text.get("position_embedding_type") in (
        "absolute", "relative_key", "relative_key_query")
    uses_rope = [False] * count if no_rope else _uses_rope(r, family, count)
    kinds = _layer_types(r, family, count, uses_rope, model_type)
    if family.mla:
        head_dim = r.int("qk_nope_head_dim", maximum=MAX_HEAD_DIM, minimum=0) + r.int("qk_rope_head_dim",
                                                                                      maximum=MAX_HEAD_DIM)
    else:
        head_dim = _head_dim(r)
    rope_dicts, rope_where = ({}, where) if no_rope else _rope_parameters(r, family, kinds, model_type)
    layout = "half" if no_rope else _layout(r, family, model_type)
    by_kind, latent = {}, None
    for kind, params in rope_dicts.items():
        where_kind = rope_where + (f"[{kind!r}]" if len(rope_dicts) > 1 else "")
        if params is None:
            by_kind[kind] = None
            continue
        rope_type, base, scaling, fraction = _scaling(params, where_kind, r)
        if family.rope_types is not None and rope_type not in family.rope_types:
            raise ValueError(f"{where_kind}['rope_type'] is {rope_type!r}; a {model_type} config takes "
                             f"{' or '.join(map(repr, family.rope_types))}")
        kind_head = head_dim
        if model_type == "gemma4_text" and kind == "full_attention":
            kind_head = r.int("global_head_dim", maximum=MAX_HEAD_DIM)
        rotary_dim = _rotary_dim(r, family, kind_head, rope_type, fraction, where_kind)
        section = None
        if family.mrope is not None:
            section = tuple(params.get("mrope_section") or family.mrope_section)
            mrope_axes(list(section), rotary_dim // 2, interleaved=family.mrope == "interleaved")
        by_kind[kind] = dict(rope_type=rope_type, base=base, head_dim=kind_head, rotary_dim=rotary_dim,
                             rope_scaling=_frozen(scaling), mrope_section=section,
                             mrope_interleaved=family.mrope == "interleaved",
                             temperature=_temperature(r, family, True, params, where_kind))
        if family.mla:
            latent = _latent(r, scaling)
    layers = []
    for index, (kind, rope) in enumerate(zip(kinds, uses_rope)):
        settings = by_kind.get(kind)
        rotary = bool(rope) and kind != "linear_attention" and settings is not None
        window = _window(r, kind)
        if window is not None and max_position_embeddings is not None and window >= max_position_embeddings:
            # transformers' sliding or chunked mask hides no key within the context (Phi-4-mini's 262,144 over
            # 131,072 positions): the layer attends fully
            kind, window = "full_attention", None
        common = dict(index=index, attention=kind, window=window, layout=layout,
                      max_position_embeddings=max_position_embeddings)
        if rotary:
            layers.append(LayerRoPE(rotary=True, rotated_from=head_dim - settings["rotary_dim"] if family.mla else 0,
                                    **settings, **common))
        else:
            layer_head = settings["head_dim"] if settings else head_dim
            # an M-RoPE model hands every layer its (3, seq) ids, those without RoPE included
            sections = {key: settings[key] for key in ("mrope_section", "mrope_interleaved")} if settings else {}
            layers.append(LayerRoPE(rotary=False, rope_type=None, base=None, head_dim=layer_head, rotary_dim=0,
                                    temperature=_temperature(r, family, False, None, where), **sections, **common))
    for layer in {layer.attention: layer for layer in layers if layer.rotary}.values():
        layer.inv_freq()  # validates each layer type's scaling against its rotary size and context length
    if name is None:
        name = next((value for value in (config.get("_name_or_path"), config.get("model_type"))
                     if isinstance(value, str) and value), "custom model")
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {name!r}")
    model = ModelRoPE(name=name[:200], head_dim=head_dim, rotary_dim=0, base=None, rope_scaling=None,
                      max_position_embeddings=max_position_embeddings, layout=layout, layers=tuple(layers),
                      model_type=model_type, latent=latent)
    if model.has_rope:
        ref = model.reference_layer
        model = ModelRoPE(name=model.name, head_dim=ref.head_dim, rotary_dim=ref.rotary_dim, base=ref.base,
                          rope_scaling=ref.rope_scaling, max_position_embeddings=max_position_embeddings,
                          layout=ref.layout, layers=model.layers, model_type=model_type, latent=latent)
    return model


# ----------------------------------------------------------------------------- presets

@lru_cache(maxsize=1)
def _preset_file() -> Mapping:
    with _DATA.open(encoding="utf-8") as handle:
        return json.load(handle)["presets"]


def preset_info(name: str) -> dict:
    """A shipped preset as stored: {"source": where its config.json was read, "checked": what was
    cross-checked (and whether the copy was cut down or re-saved), "config": that config.json, or its
    RoPE-relevant keys} (a copy)."""
    presets = _preset_file()
    if name not in presets:
        raise ValueError(f"name must be one of {', '.join(map(repr, presets))}; got {name!r}")
    return copy.deepcopy(presets[name])


def preset(name: str) -> ModelRoPE:
    """The ModelRoPE of a shipped preset (see model_presets for the names)."""
    return model_rope(preset_info(name)["config"], name=name)


@lru_cache(maxsize=1)
def _all_presets() -> dict:
    return {name: preset(name) for name in _preset_file()}


def model_presets() -> dict[str, ModelRoPE]:
    """Every shipped preset by name, in the data file's order."""
    return dict(_all_presets())
