"""Ready adapters from the shapes RoPE code comes in to verify's fn(x, positions, layer).

- `transformers_rotary(config)`: the family's own rotary embedding and apply function from transformers, built
  for a config, so that verify checks transformers itself; a layer index becomes its layer type where the
  rotary embedding takes one (Gemma 3's sliding and full layers), multi-head latent attention turns the last
  `qk_rope_head_dim` dims (interleaved where the config sets `rope_interleave`, as DeepSeek-V3's attention does;
  its answer lists the pairs' halves one after the other, for queries and keys alike, and is put back in order),
  GPT-J's `apply_rotary_pos_emb(tensor, sin, cos)` turns the first `rotary_dim` dims, and a layer the config
  marks as NoPE
  (`no_rope_layers`) or whose layer type has no rotary embedding (a hybrid model's linear attention) is left
  unrotated as the family's decoder leaves it.
- `from_tables(tables)`: a function tables(positions, layer) -> (cos, sin), applied to the rotated dims in a
  layout.
- `from_qk(fn)`: a function fn(q, k, positions) -> (q, k) of (batch, heads, seq, head_dim) tensors, or
  (batch, seq, heads, head_dim) with axes="bshd"; it is called with the probe's rows as queries and as keys, so
  a bug in only one of them shows.

transformers is imported only by transformers_rotary (it stays an optional dependency).
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable

import torch

from ..kernels import rope_eager
from ..models import preset_info
from .probe import config_value

LAYOUTS = ("half", "interleaved")
NO_ROPE_LAYER_TYPES = frozenset({"linear_attention", "mamba"})  # layer types whose layers carry no rotary embedding
AXES = ("bhsd", "bshd")


def _config_dict(config) -> dict:
    """A config.json as a dict, from a preset name (or repository id), a config.json path, its JSON text or a
    dict."""
    if isinstance(config, dict):
        return dict(config)
    config = config_value(config)
    if isinstance(config, str) and config.lstrip().startswith("{"):
        value = json.loads(config)
        if not isinstance(value, dict):
            raise ValueError(f"config must be a JSON object, got {type(value).__name__}")
        return value
    if isinstance(config, str):
        return dict(preset_info(config)["config"])
    raise ValueError(f"config must be a preset name, a config dict or its JSON text, got {type(config).__name__}")


def _parameters(fn) -> set:
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return set()


def transformers_rotary(config) -> Callable:
    """fn(x, positions, layer) running the rotary embedding and apply_rotary_pos_emb of the config's family in
    transformers (its modeling file, found from model_type), on x as one head of one sequence.

    config: a preset name, a config dict or its JSON text. Raises ValueError where transformers has no such
    family or its modeling file has no text rotary embedding."""
    from transformers import AutoConfig
    from transformers.models.auto.configuration_auto import model_type_to_module_name

    values = _config_dict(config)
    model_type = values.pop("model_type", None)
    if not isinstance(model_type, str):
        raise ValueError(f"config must name its model_type, got {model_type!r}")
    try:
        module_name = model_type_to_module_name(model_type)
        modeling = importlib.import_module(f"transformers.models.{module_name}.modeling_{module_name}")
    except (KeyError, ImportError) as err:
        raise ValueError(f"transformers has no model family {model_type!r} to build a rotary embedding for") \
            from err
    try:
        hf_config = AutoConfig.for_model(model_type, **values)
    except (KeyError, ValueError, TypeError) as err:
        raise ValueError(f"transformers refuses this {model_type} config: {err}") from err
    text = hf_config.get_text_config()
    names = [name for name, value in vars(modeling).items() if name.endswith("RotaryEmbedding")
             and inspect.isclass(value) and not any(part in name for part in ("Vision", "Audio"))]
    apply = getattr(modeling, "apply_rotary_pos_emb", None)
    if not names or apply is None:
        raise ValueError(f"transformers' modeling_{module_name} has no text rotary embedding and "
                         "apply_rotary_pos_emb to check")
    rotary = getattr(modeling, names[0])(config=text)
    by_type = "layer_type" in _parameters(rotary.forward)
    layer_types = getattr(text, "layer_types", None)
    uses_rope = getattr(text, "no_rope_layers", None)  # transformers' convention: 1 where the layer uses RoPE
    latent = getattr(text, "qk_rope_head_dim", None)  # multi-head latent attention turns the head's last dims
    interleave = bool(latent and getattr(text, "rope_interleave", False)
                      and hasattr(modeling, "apply_rotary_pos_emb_interleave"))
    if interleave:  # as the family's attention does with rope_interleave
        apply = modeling.apply_rotary_pos_emb_interleave

    sin_cos = _parameters(apply) == {"tensor", "sin", "cos"}  # GPT-J: apply(tensor, sin, cos), its rotary_dim

    def fn(x, positions, layer):
        if uses_rope is not None and not uses_rope[layer]:
            return x
        if layer_types and layer_types[layer] in NO_ROPE_LAYER_TYPES:  # hybrid models' linear attention
            return x
        if sin_cos:  # (batch, seq, heads, dims) rows, the first rotary_dim dims turned, as GPTJAttention does
            size = getattr(text, "rotary_dim", None) or x.shape[-1]
            with torch.no_grad():
                sin, cos = rotary(x, positions[None])
                turned = apply(x[None, :, None, :size], sin, cos)[0, :, 0]
            return torch.cat((turned.to(x.dtype), x[:, size:]), dim=-1)
        kept = x.shape[-1] - latent if latent else 0
        q = x[None, None, :, kept:]
        ids = positions[:, None] if positions.dim() == 2 else positions[None]
        with torch.no_grad():
            cos, sin = rotary(q, ids, layer_types[layer]) if by_type and layer_types else rotary(q, ids)
            turned, _ = apply(q, q, cos, sin)
        turned = turned[0, 0].to(x.dtype)
        if interleave:  # it answers the pairs' halves one after the other (q and k alike, so scores are kept):
            turned = torch.stack(turned.chunk(2, dim=-1), dim=-1).flatten(-2)  # back to the neighbours they were
        return torch.cat((x[:, :kept], turned), dim=-1)
    return fn


def _check_choice(name: str, value, allowed: tuple) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def from_tables(tables: Callable, *, layout: str = "half", duplicated: bool = True) -> Callable:
    """fn(x, positions, layer) from tables(positions, layer) -> (cos, sin), each (seq, width): the first
    rotated dims of x turn in `layout`. duplicated=True (transformers' convention): width is the number of
    rotated dims, each pair's value twice (halves for "half", neighbours for "interleaved"); False: one value per
    pair, width half the rotated dims."""
    _check_choice("layout", layout, LAYOUTS)

    def fn(x, positions, layer):
        cos, sin = (torch.as_tensor(t) for t in tables(positions, layer))
        if duplicated:
            pairs = cos.shape[-1] // 2
            cos, sin = (t[..., :pairs] if layout == "half" else t[..., ::2] for t in (cos, sin))
        return rope_eager(x, cos.to(x.dtype), sin.to(x.dtype), layout)
    return fn


def from_qk(qk: Callable, *, axes: str = "bhsd") -> Callable:
    """fn(x, positions, layer, role) from qk(q, k, positions) -> (q, k), tensors of (batch, heads, seq,
    head_dim) ("bhsd") or (batch, seq, heads, head_dim) ("bshd"); positions (seq,) int64 (qk may also take
    `layer`). The probe's rows go in as the queries (role "query") or as the keys (role "key"), the other one
    holding zeros, so each role is judged on its own."""
    _check_choice("axes", axes, AXES)
    takes_layer = "layer" in _parameters(qk)

    def fn(x, positions, layer, role):
        block = x[None, None] if axes == "bhsd" else x[None, :, None]
        zeros = torch.zeros_like(block)
        q, k = (block, zeros) if role == "query" else (zeros, block)
        out = qk(q, k, positions, layer=layer) if takes_layer else qk(q, k, positions)
        for name, given in zip(("query", "key"), out):
            if tuple(given.shape) != tuple(block.shape):
                other = "bshd" if axes == "bhsd" else "bhsd"
                raise ValueError(f"qk must answer q and k of the shape it was given, {tuple(block.shape)} (axes "
                                 f"{axes!r}); its {name} is {tuple(given.shape)} (does it take axes={other!r}?)")
        turned = out[0] if role == "query" else out[1]
        return turned[0, 0] if axes == "bhsd" else turned[0, :, 0]
    return fn
