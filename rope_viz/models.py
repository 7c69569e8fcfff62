"""The RoPE of real models, read from their config.json.

`model_rope(config)` turns a Hugging Face config (a dict, or its JSON text) into a `ModelRoPE`:
head size, rotary size, base, scaling, context length and pair layout, every value checked.
`preset(name)` gives the shipped presets (rope_viz/data/model_configs.json: the RoPE-relevant
part of each model's own config.json, with its source).

    m = rope_viz.preset("Llama-3.1-8B")
    inv_freq, attention_factor = m.inv_freq(seq_len=32768)
    q_rot = m.apply(q, positions)        # q: (..., seq, head_dim), Hugging Face's rotary step
"""

from __future__ import annotations

import copy
import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import torch

from ._checks import check_layout, check_positive
from .rotary import apply_rope
from .scaling import MAX_CONTEXT, rope_type_of, scaled_inv_freq

MAX_CONFIG_BYTES = 256 * 1024
MAX_HEAD_DIM = 1 << 14
MAX_HIDDEN_SIZE = 1 << 20
MAX_HEADS = 1 << 14
DEFAULT_BASE = 10000.0
# Families whose reference implementation rotates interleaved pairs (2i, 2i+1); the rest use
# Hugging Face's rotate_half layout (i, i + r/2).
INTERLEAVED_MODEL_TYPES = frozenset({"gptj", "deepseek_v3", "deepseek_v2"})
_DATA = Path(__file__).with_name("data") / "model_configs.json"


@dataclass(frozen=True)
class ModelRoPE:
    """The rotary embedding of one model.

    head_dim: size of a query/key head as RoPE sees it; rotary_dim: how many of its leading
    coordinates are rotated (the rest pass through); base: theta_0 of base^(-2i/rotary_dim);
    rope_scaling: Hugging Face's rope_scaling dict (read-only) or None; max_position_embeddings:
    the context length M; layout: "half" (rotate_half) or "interleaved"; name: a label.
    """

    name: str
    head_dim: int
    rotary_dim: int
    base: float
    rope_scaling: Mapping | None
    max_position_embeddings: int | None
    layout: str

    @property
    def rope_type(self) -> str:
        return rope_type_of(self.rope_scaling)

    def inv_freq(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """(inv_freq float64 of rotary_dim/2 entries, attention_factor) for a sequence length
        (dynamic NTK and LongRoPE depend on it; None: Hugging Face's value at load time)."""
        return scaled_inv_freq(self.rotary_dim, self.base, _plain(self.rope_scaling),
                               max_position_embeddings=self.max_position_embeddings, seq_len=seq_len)

    def apply(self, x: torch.Tensor, positions=None, *, method: str = "fast") -> torch.Tensor:
        """This model's rotary step on x (..., seq, head_dim): `rope_viz.rotary.apply_rope` with the
        model's rotary_dim, base, layout and scaling (cos and sin times the attention factor)."""
        if isinstance(x, torch.Tensor) and x.dim() >= 1 and x.shape[-1] != self.head_dim:
            raise ValueError(f"x.shape[-1] must be head_dim={self.head_dim} for {self.name}, got {x.shape[-1]}")
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


# ----------------------------------------------------------------------------- reading a config

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


def _int(config: Mapping, key: str, *, maximum: int, required: bool = True, where: str = "config"):
    value = config.get(key)
    if value is None:
        if required:
            raise ValueError(f"{where}[{key!r}] is missing; it must be an integer between 1 and {maximum:,}")
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= maximum:
        raise ValueError(f"{where}[{key!r}] must be an integer between 1 and {maximum:,}, got {value!r}")
    return int(value)


def _number(config: Mapping, key: str, *, where: str = "config"):
    value = config.get(key)
    if value is None:
        return None
    return check_positive(value, f"{where}[{key!r}]")


def _first(config: Mapping, *keys: str) -> str | None:
    return next((key for key in keys if config.get(key) is not None), None)


def _head_dim(config: Mapping) -> int:
    if config.get("qk_rope_head_dim") is not None:  # DeepSeek's MLA: RoPE sees its own 64-wide part
        return _int(config, "qk_rope_head_dim", maximum=MAX_HEAD_DIM)
    if config.get("head_dim") is not None:
        return _int(config, "head_dim", maximum=MAX_HEAD_DIM)
    hidden_key = _first(config, "hidden_size", "n_embd") or "hidden_size"
    heads_key = _first(config, "num_attention_heads", "n_head") or "num_attention_heads"
    hidden = _int(config, hidden_key, maximum=MAX_HIDDEN_SIZE)
    heads = _int(config, heads_key, maximum=MAX_HEADS)
    if hidden % heads:
        raise ValueError(f"config[{hidden_key!r}]={hidden} must be a multiple of config[{heads_key!r}]={heads} "
                         "(or give head_dim)")
    head_dim = hidden // heads
    if head_dim > MAX_HEAD_DIM:
        raise ValueError(f"head size {hidden_key}/{heads_key} = {head_dim} is over {MAX_HEAD_DIM:,}")
    return head_dim


def _rope_parameters(config: Mapping) -> dict | None:
    """The scaling dict: rope_scaling, else 5.x's rope_parameters (one flat dict)."""
    key = "rope_scaling" if config.get("rope_scaling") else "rope_parameters"
    params = config.get(key)
    if params is None:
        return None
    if not isinstance(params, Mapping):
        raise ValueError(f"config[{key!r}] must be a JSON object or null, got {type(params).__name__}")
    for name, value in params.items():
        if not isinstance(name, str):
            raise ValueError(f"config[{key!r}] keys must be strings, got {name!r}")
        if isinstance(value, Mapping):
            raise ValueError(f"config[{key!r}][{name!r}] is a nested object: per-layer RoPE parameters are "
                             "not supported; give one flat dict")
        if isinstance(value, list) and any(isinstance(item, (list, Mapping)) for item in value):
            raise ValueError(f"config[{key!r}][{name!r}] must be a flat list of numbers")
    return dict(params)


def _rotary_dim(config: Mapping, params: Mapping | None, head_dim: int) -> int:
    if config.get("qk_rope_head_dim") is not None:
        return head_dim
    if config.get("rotary_dim") is not None:
        rotary_dim = _int(config, "rotary_dim", maximum=MAX_HEAD_DIM)
        key = "rotary_dim"
    else:
        fraction, key = None, None
        if params is not None and params.get("partial_rotary_factor") is not None:
            fraction = _number(params, "partial_rotary_factor", where="config['rope_parameters']")
            key = "partial_rotary_factor"
        else:
            key = _first(config, "partial_rotary_factor", "rotary_pct")
            fraction = _number(config, key) if key else 1.0
        if fraction > 1:
            raise ValueError(f"config[{key!r}] must be in (0, 1], got {fraction}")
        rotary_dim = int(head_dim * fraction)
    if rotary_dim > head_dim or rotary_dim < 2 or rotary_dim % 2:
        raise ValueError(f"the rotary size from config[{key!r}] must be an even integer in [2, head_dim={head_dim}], "
                         f"got {rotary_dim}")
    return rotary_dim


def _base(config: Mapping, params: Mapping | None) -> float:
    if params is not None and params.get("rope_theta") is not None:
        return _number(params, "rope_theta", where="config['rope_parameters']")
    key = _first(config, "rope_theta", "rotary_emb_base")
    return _number(config, key) if key else DEFAULT_BASE


def _layout(config: Mapping) -> str:
    model_type = config.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise ValueError(f"config['model_type'] must be a string, got {model_type!r}")
    if model_type in ("deepseek_v3", "deepseek_v2") and config.get("rope_interleave") is False:
        return "half"
    return "interleaved" if model_type in INTERLEAVED_MODEL_TYPES else "half"


def model_rope(config, *, name: str | None = None) -> ModelRoPE:
    """A model's RoPE from its config.json (a dict, or JSON text of at most 256 KB).

    head_dim: head_dim, else hidden_size // num_attention_heads (GPT-J: n_embd // n_head;
    DeepSeek-V3: qk_rope_head_dim). rotary_dim: rotary_dim (GPT-J), else head_dim *
    partial_rotary_factor (GPT-NeoX: rotary_pct), which must come out even. base:
    rope_parameters['rope_theta'], else rope_theta, else rotary_emb_base (GPT-NeoX), else 10000.
    Scaling: rope_scaling, else the 5.x rope_parameters (rope_theta / partial_rotary_factor
    removed); a top-level original_max_position_embeddings (Phi-3) overrides the dict's, as in
    transformers, and Phi-3's "su" is LongRoPE. max_position_embeddings (GPT-J: n_positions).
    Layout: interleaved for GPT-J and DeepSeek-V3 (their reference code), half otherwise.

    Every value is checked; a malformed config raises ValueError naming the key.
    """
    config = _parse(config)
    layout = check_layout(_layout(config))
    params = _rope_parameters(config)
    head_dim = _head_dim(config)
    rotary_dim = _rotary_dim(config, params, head_dim)
    base = _base(config, params)
    max_key = _first(config, "max_position_embeddings", "n_positions") or "max_position_embeddings"
    max_position_embeddings = _int(config, max_key, maximum=MAX_CONTEXT, required=False)
    scaling = None
    if params is not None:
        scaling = {key: copy.deepcopy(value) for key, value in params.items()
                   if key not in ("rope_theta", "partial_rotary_factor")}
        rope_type = rope_type_of(scaling)
        if rope_type in ("llama3", "yarn", "longrope") and config.get("original_max_position_embeddings") is not None:
            scaling["original_max_position_embeddings"] = _int(config, "original_max_position_embeddings",
                                                               maximum=MAX_CONTEXT)
        if rope_type == "default" and set(scaling) <= {"rope_type", "type"}:
            scaling = None
    if name is None:
        name = next((value for value in (config.get("_name_or_path"), config.get("model_type"))
                     if isinstance(value, str) and value), "custom model")
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {name!r}")
    model = ModelRoPE(name=name[:200], head_dim=head_dim, rotary_dim=rotary_dim, base=base,
                      rope_scaling=_frozen(scaling), max_position_embeddings=max_position_embeddings,
                      layout=layout)
    model.inv_freq()  # validates the scaling dict against rotary_dim and the context length
    return model


# ----------------------------------------------------------------------------- presets

@lru_cache(maxsize=1)
def _preset_file() -> Mapping:
    with _DATA.open(encoding="utf-8") as handle:
        return json.load(handle)["presets"]


def preset_info(name: str) -> dict:
    """A shipped preset as stored: {"source": Hugging Face URL of its config.json, "checked": what
    was cross-checked, "config": the RoPE-relevant keys of that config.json} (a copy)."""
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
