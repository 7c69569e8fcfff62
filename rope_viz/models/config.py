"""Reading config.json: parsing, values with their family's defaults, what a family's entry says
(Family, whose instances rope_viz.models.families registers), the layer types and the RoPE dict of
each layer type as transformers' configuration code standardises them (4.x `rope_theta` +
`rope_scaling`, 5.x `rope_parameters`, flat or keyed by layer type). Errors name the key."""

from __future__ import annotations

import copy
import json
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .._checks import check_layout, check_positive
from ..scaling import MAX_CONTEXT, rope_type_of
from .layers import LatentAttention

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
# rope_parameters keys a model reads itself (not the rotary embedding): transformers' ignore_keys_at_rope_validation
_MODEL_KEYS = frozenset({"mrope_section", "mrope_interleaved", "llama_4_scaling_beta", "max_position_embeddings"})


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


class Reader:
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
        # numbers.Integral declares no comparison with int in typeshed; every Integral has one
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not minimum <= value <= maximum:  # type: ignore[operator]
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


def per_layer_list(value, key: str, length: int, truncates: bool = False) -> list:
    """A per-layer list of `length` entries (truncates: a longer list is cut to its first `length`, as
    transformers' DeepSeek-V4 config does with the entry its files add for the next-token layer)."""
    if isinstance(value, list) and truncates:
        value = value[:length]
    if not isinstance(value, list) or len(value) != length:
        got = f"{len(value)} entries" if isinstance(value, list) else type(value).__name__
        raise ValueError(f"{key} must list one entry per layer ({length}), got {got}")
    return value


def checked_kinds(value: list, key: str, allowed: tuple) -> list[str]:
    """Layer types with transformers' older names renamed (mamba: linear_attention, ...), each one allowed."""
    kinds = [_LEGACY_LAYER_TYPES.get(kind, kind) if isinstance(kind, str) else kind for kind in value]
    bad = next((kind for kind in kinds if kind not in allowed), None)
    if bad is not None:
        raise ValueError(f"{key} holds {bad!r}; supported layer types: {', '.join(allowed)}")
    return kinds


def _int_list(value, key: str, length: int) -> list[int]:
    if not isinstance(value, list) or len(value) != length or not all(
            isinstance(item, numbers.Integral) and not isinstance(item, bool) for item in value):
        got = f"{len(value)} entries" if isinstance(value, list) else type(value).__name__
        raise ValueError(f"{key} must be a list of {length} integers (one per layer), got {got}")
    return [int(item) for item in value]



# ----------------------------------------------------------------------------- how a family reads its config

def _all_full(r: Reader, layers: int, uses_rope: list[bool]) -> list[str]:
    return ["full_attention"] * layers


def nope_every(key: str = "no_rope_layer_interval", *, empty_is_unset: bool = False) -> Callable:
    """A family's `nope` hook: which layers rotate. The config's `no_rope_layers` (1 where a layer *uses* RoPE)
    when it gives one, else every `key`-th layer (the `key`-th, 2 `key`-th, ... counted from 1) without RoPE.
    empty_is_unset: an empty list counts as not given (Llama 4 reads [] so; SmolLM3 reads it as a list)."""
    def uses_rope(r: Reader, layers: int) -> list[bool]:
        value = r.get("no_rope_layers")
        if value is None or (empty_is_unset and value == []):
            every = r.int(key, maximum=MAX_LAYERS)
            return [bool((i + 1) % every) for i in range(layers)]
        return [bool(flag) for flag in _int_list(value, r.name("no_rope_layers"), layers)]
    uses_rope.__doc__ = f"no_rope_layers, else every {key}-th layer without RoPE"
    return uses_rope


_WINDOW_KEYS = {"sliding_attention": "sliding_window", "chunked_attention": "attention_chunk_size"}


@dataclass(frozen=True)
class Family:
    """How one transformers model family reads its config (its modeling and configuration files).

    The fields are the hooks a family is built from, each said below; rope_viz.models.families opens with a table
    of which to use for what. A hook that is a function reads the config through a `Reader`.
    """

    # the transformers file whose code the reading follows
    source: str
    # "half" pairs (i, i + d/2) or "interleaved" pairs (2i, 2i + 1)
    layout: str = "half"
    # "honour" partial_rotary_factor or "ignore" it (full-head RoPE); default_partial: the factor when none is given
    partial: str = "honour"
    default_partial: float | None = None
    # (reader, layers, uses_rope) -> the layer types, when the config lists no layer_types
    pattern: Callable = _all_full
    # (reader, layers) -> per layer, whether it rotates; nope_every(key): no_rope_layers, else every key-th layer
    nope: Callable | None = None
    # RoPE parameters per layer type with Gemma's defaults: full_rope_default replaces the global layers' default,
    # every_kind_required refuses a dict missing a layer type
    per_layer_type: bool = False
    full_rope_default: Mapping | None = None
    every_kind_required: bool = False
    # multimodal RoPE: "blocks" or "interleaved" sections, and the sections when the config gives none
    mrope: str | None = None
    mrope_section: tuple | None = None
    # multi-head latent attention; reads_rope_interleave: its rope_interleave false switches to the half layout
    mla: bool = False
    reads_rope_interleave: bool = False
    # a factor on the queries: "llama4", "beta", "log" or "ngpt"
    query_scale: str | None = None
    # the config class's defaults for keys hub files omit (a test compares them with transformers' config class);
    # defaults_source: for a model_type transformers does not know, where they come from instead (the published
    # config.json or model card, cited; the family's own test checks them there)
    defaults: Mapping = field(default_factory=dict)
    defaults_source: str = ""
    # the rope types its config class accepts (None: any)
    rope_types: tuple | None = None
    # layer type -> the key holding that type's head size (or a function (reader) -> that size)
    head_dim_keys: Mapping = field(default_factory=dict)
    # the last layer attends fully whatever layer_types says
    last_layer_full: bool = False
    # the layer types its config class allows (None: transformers' generic ones)
    attention_kinds: tuple | None = None
    # a per-layer list longer than the model is cut to its length
    truncates_layer_lists: bool = False
    # layer type -> the key holding its window
    window_keys: Mapping = field(default_factory=lambda: dict(_WINDOW_KEYS))
    # the rotated dims sit last in each head
    rotates_last: bool = False
    # (reader, layer types) -> ({layer type: RoPE dict}, {layer type: where that dict sits}), replacing the generic
    # reading of rope_parameters
    rope_reader: Callable | None = None
    # (reader, layer type) -> tokens per compressed key, or None
    compress: Callable | None = None
    # the attention output's rotated dims turn back by the query's angle
    output_rotation: bool = False
    # False where the family's code rotates nothing (its config's RoPE keys are inert)
    rotary: bool = True
    # only sliding layers rotate: "always" (Flint) or "when_windowed" (EXAONE, Kolibri: while sliding_window is set;
    # without it every layer rotates; a sliding layer keeps its type and window even where the window covers the
    # whole context)
    rope_on_sliding_only: str | None = None
    # the model_type whose code transformers runs for this one, when another (Kimi K2: deepseek_v3)
    follows: str | None = None
    # an explicit partial_rotary_factor wins over rotary_dim (MiniMax-M2 reads rotary_dim / head_dim only without one)
    partial_over_rotary_dim: bool = False
    # (reader) -> the layer types, whose length is then the depth (num_hidden_layers ignored)
    layer_list: Callable | None = None
    # (reader, layer type) -> its window, replacing window_keys
    window: Callable | None = None
    # (reader, layer types) -> (per layer: whether it rotates, its own base or None for its type's)
    layer_rope: Callable | None = None
    # the parts a checkpoint learns (LayerRoPE.learned), read at their initial values
    learned: tuple[str, ...] = ()
    # False where the code never reads a rotary_dim key (MiniMax-M3: only partial_rotary_factor counts)
    reads_rotary_dim: bool = True


GENERIC = Family(source="modeling_rope_utils.py")
"""The reading of a model_type with no entry: transformers' generic RoPE code."""


# ----------------------------------------------------------------------------- reading a config

def _text_config(config: dict, text_types: Mapping, top_level, forced) -> tuple[dict, str | None, str]:
    """(the config holding the language model's keys, its model_type, where that is in the file).
    text_types: a wrapper's model_type -> its text model's, for a text_config naming none; top_level: the
    wrappers that keep the language model's keys at the top level; forced: the wrappers whose text model is
    text_types' whatever model_type their text_config names."""
    outer_type = config.get("model_type")
    if outer_type is not None and not isinstance(outer_type, str):
        raise ValueError(f"config['model_type'] must be a string, got {outer_type!r}")
    text = config.get("text_config")
    if text is None:
        return config, text_types.get(outer_type, outer_type) if outer_type in top_level else outer_type, "config"
    if not isinstance(text, Mapping):
        raise ValueError(f"config['text_config'] must be a JSON object, got {type(text).__name__}")
    text = dict(text)
    model_type = text_types.get(outer_type, outer_type)
    if outer_type not in forced:
        model_type = text.get("model_type", model_type)
    if model_type is not None and not isinstance(model_type, str):
        raise ValueError(f"config['text_config']['model_type'] must be a string, got {model_type!r}")
    return text, model_type, "config['text_config']"


def _head_dim(r: Reader) -> int:
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


def _kind_head_dim(r: Reader, family: Family, kind: str, head_dim: int) -> int:
    """The head size of one layer type: its family's own key (or function) for that type, else head_dim."""
    source = family.head_dim_keys.get(kind)
    if source is None:
        return head_dim
    return source(r) if callable(source) else r.int(source, maximum=MAX_HEAD_DIM)


def check_rope_dict(params, where: str) -> dict:
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


def _uses_rope(r: Reader, family: Family, layers: int) -> list[bool]:
    """Per layer, whether it rotates: every layer, unless the family's `nope` hook says otherwise."""
    return [True] * layers if family.nope is None else family.nope(r, layers)


def _layer_types(r: Reader, family: Family, layers: int, uses_rope: list[bool]) -> list[str]:
    value = r.get("layer_types")
    if value is None:
        kinds = family.pattern(r, layers, uses_rope)
    else:
        value = per_layer_list(value, r.name("layer_types"), layers, family.truncates_layer_lists)
        kinds = checked_kinds(value, r.name("layer_types"), family.attention_kinds or ATTENTION_KINDS)
    if family.last_layer_full and kinds:
        kinds = [*kinds[:-1], "full_attention"]
    return kinds


def rope_parameters(r: Reader, family: Family, kinds: list[str]) -> tuple[dict, str]:
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
        if family.full_rope_default is not None:
            defaults["full_attention"] = dict(family.full_rope_default)
        nested_dicts: dict[str, dict | None]
        if not nested:  # 4.x Gemma 3: rope_scaling scales the global layers only
            scaled = dict(defaults["full_attention"], **check_rope_dict(raw, where)) if raw else None
            nested_dicts = {kind: dict(defaults[kind]) for kind in ("sliding_attention", "full_attention")}
            if scaled:
                nested_dicts["full_attention"] = scaled
        else:
            missing = [kind for kind in present if kind not in raw]
            if family.every_kind_required and missing:
                raise ValueError(f"{where} has no entry for the layer type {missing[0]!r}")
            nested_dicts = {kind: None if raw.get(kind, defaults.get(kind)) is None else
                            check_rope_dict(raw.get(kind, defaults.get(kind)), f"{where}[{kind!r}]")
                            for kind in ("sliding_attention", "full_attention")}
            for kind, base in (("sliding_attention", local or DEFAULT_BASE), ("full_attention", theta or 1e6)):
                if nested_dicts[kind] is not None:
                    nested_dicts[kind].setdefault("rope_theta", base)  # type: ignore[union-attr]  # not None: checked above
        out = {kind: nested_dicts.get(kind) for kind in present}
    elif nested:
        missing = [kind for kind in present if kind not in raw]
        if missing:
            raise ValueError(f"{where} has no entry for the layer type {missing[0]!r}")
        out = {kind: None if raw.get(kind) is None else check_rope_dict(raw[kind], f"{where}[{kind!r}]")
               for kind in present}
        for params in out.values():
            if params is not None:
                params.pop("truncate", None)  # transformers reads truncate from the top level only
    else:
        flat = check_rope_dict(raw, where)
        out = {kind: dict(flat) for kind in present}
    for params in out.values():
        if params is None:
            continue
        params.setdefault("rope_theta", theta or DEFAULT_BASE)
        if partial is not None:
            params.setdefault("partial_rotary_factor", partial)
    return out, where


def _scaling(params: dict, where: str, r: Reader) -> tuple[str, float, dict | None, float]:
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
        return rope_type, base, None, fraction
    return rope_type, base, scaling, fraction


def _rotary_dim(r: Reader, family: Family, head_dim: int, rope_type: str, fraction: float, where: str) -> int:
    if family.mla:
        rotary_dim, key = r.int("qk_rope_head_dim", maximum=MAX_HEAD_DIM), r.name("qk_rope_head_dim")
    elif family.reads_rotary_dim and r.get("rotary_dim") is not None and not (family.partial_over_rotary_dim
                                                   and r.get("partial_rotary_factor") is not None):
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


def _layout(r: Reader, family: Family) -> str:
    if family.reads_rope_interleave and r.get("rope_interleave") is False:
        return "half"
    return check_layout(family.layout)


def _latent(r: Reader, scaling: dict | None) -> LatentAttention:
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


def _temperature(r: Reader, family: Family, rotary: bool, params: dict | None, where: str, kind: str = ""):
    if family.query_scale == "log":  # Inkling: on its full-attention ("hybrid") layers, when log_scaling_n_floor is set
        if kind != "hybrid" or r.get("log_scaling_n_floor") is None:
            return None
        return ("log", check_positive(r.get("log_scaling_alpha"), r.name("log_scaling_alpha")),
                float(r.int("log_scaling_n_floor", maximum=MAX_CONTEXT)))
    if family.query_scale == "llama4":
        if rotary or not r.flag("attn_temperature_tuning", True):
            return None
        return ("llama4", check_positive(r.get("attn_scale"), r.name("attn_scale")),
                float(r.int("floor_scale", maximum=MAX_CONTEXT)))
    if family.query_scale == "ngpt":  # (sqk * sqk_scale)^2 per channel, head_dim at its initial value
        return ("ngpt", float(_head_dim(r)), 1.0)
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


def _window(r: Reader, family: Family, kind: str) -> int | None:
    if family.window is not None:
        return family.window(r, kind)
    key = family.window_keys.get(kind)
    if key is None or r.get(key) is None:
        return None
    return r.int(key, maximum=MAX_CONTEXT)
