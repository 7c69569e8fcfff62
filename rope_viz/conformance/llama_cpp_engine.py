"""The llama.cpp adapter: a config written as the GGUF file llama.cpp's converter writes, read as llama.cpp's
loader reads it, and each layer's rows turned by ggml's own rope op (`ggml_rope_ext`, `ggml_rope_multi` for
M-RoPE) called through ctypes on the libggml that llama-cpp-python bundles.

`llamacpp_rotary(config, gguf=None)` returns fn(x, positions, layer, role). Without `gguf`, the config is first
written as a GGUF header with `gguf.GGUFWriter` (`write_gguf`): the keys llama.cpp's converter writes for the
architecture, plus the rope frequency-factor tensors with their values (llama3's `rope_freqs`, LongRoPE's
`rope_factors_long` / `rope_factors_short`); with `gguf`, a real GGUF file (the two the app ships) is read
instead. Where the writer cannot express a config, NotSupported (llama.cpp's converter has no such architecture:
GPT-J, Step 3.7) or AdapterLimit (llama.cpp runs it but this writer has no entry for it yet).

Read in llama.cpp 0c1e57098bba43ac29e6e3b677cdceebdd22334f (the copy vendored in llama-cpp-python 0.3.36):
- conversion/base.py TextModel.set_gguf_parameters (context length, heads, `rope.freq_base`, `rope.scaling.*`
  from `rope_parameters`/`rope_scaling`: linear and yarn write type and factor, yarn its original context
  and, where the config has them, extrapolation/attention factors and betas;
  llama3 writes nothing there), conversion/llama.py (LlamaModel: `rope.dimension_count` = head_dim, q/k rows
  permuted, `rope_freqs` from llama3's low/high frequency factors; Llama4Model: no permute), conversion/phi.py
  (Phi3MiniModel: dims = partial_rotary_factor * head, `rope.scaling.attn_factor` = sqrt(1 + ln(s) / ln(orig)),
  long and short factor tensors), conversion/deepseek.py (DeepseekV2Model: dims = qk_rope_head_dim,
  `rope.scaling.yarn_log_multiplier` = 0.1 * mscale_all_dim), conversion/gemma.py (Gemma3Model: key length =
  head_dim, `attention.sliding_window`, no local base), conversion/gptneox.py (dims = rotary_pct * head),
  conversion/gpt_oss.py (`attention.sliding_window`), conversion/minimax.py (MiniMaxM2Model: dims = rotary_dim),
  conversion/qwen.py (Qwen3NextModel: dims = partial_rotary_factor (0.25) * head, `full_attention_interval`),
  conversion/qwen3vl.py (Qwen3VLTextModel: Qwen3's keys and base.py's `rope.dimension_sections`).
- src/llama-model.cpp llama_model_base::load_hparams and llama_model_rope_type, src/models/<arch>.cpp
  load_arch_hparams and graphs, src/llama-context.cpp (cparams), src/llama-model.cpp get_rope_freq_base /
  get_rope_freq_scale / get_rope_factors: the per-layer base, scale, mode and dims are the kit's reading
  (`gguf_file.llama_cpp_layers`); on top, as this version does: YaRN's betas are 32 and 1 and ext_factor is
  1 under YaRN (only Grok reads the yarn_* keys); the attn_factor handed to ggml is the context's
  `yarn_attn_factor`: get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim) (DeepSeek-2, where
  mscale = mscale_all_dim when it is not 1) or get_mscale(factor, 1), divided by 1 + 0.1 ln(factor) (ggml
  multiplies it back), times `rope.scaling.attn_factor`; LongRoPE's long factors are taken when the context
  (llama.cpp's default: the file's context_length) exceeds the original context; DeepSeek-2's graph turns
  the last n_rot dims of the head (q_pe, k_pe); Qwen3-Next's recurrent layers (all but every
  `full_attention_interval`-th, src/models/qwen3next.cpp) turn none; BERT's graph turns none (only
  Nomic/Jina BERT rotate); Nemotron-H's rope type is NONE; Qwen3-VL's is IMROPE (interleaved sections);
  M-RoPE text positions go in as [t, h, w, 0] (src/llama-graph.cpp).
- ggml/src/ggml-cpu/ops.cpp (rope_f32, rope_yarn) does the turning itself, in float32.

The rows the kit hands over are in the checkpoint's order; where the converter permutes q/k (LlamaModel) the
adapter declares `layout="interleaved"`, the order llama.cpp's NORM mode turns on the permuted rows.
"""

from __future__ import annotations

import ctypes
import importlib.util
import math
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from .adapters import _config_dict
from .engines import ENGINES, AdapterLimit, EngineMissing, NotSupported
from .gguf_file import llama_cpp_layers, read_header

LLAMA_CPP_COMMIT = "0c1e57098bba43ac29e6e3b677cdceebdd22334f"
# config model_type -> GGUF architecture the converter writes (conversion/*.py registrations)
ARCHITECTURES = {"llama": "llama", "mistral": "llama", "qwen2": "qwen2", "qwen3": "qwen3", "qwen3_moe": "qwen3moe",
                 "gemma": "gemma", "gemma3_text": "gemma3", "phi3": "phi3", "gpt_neox": "gptneox",
                 "deepseek_v2": "deepseek2", "deepseek_v3": "deepseek2", "kimi_k2": "deepseek2",
                 "gpt_oss": "gpt-oss", "qwen2_5_vl": "qwen2vl", "llama4": "llama4", "bert": "bert",
                 "nemotron_h": "nemotron_h", "kimi_k25": "deepseek2", "minimax_m2": "minimax-m2",
                 "qwen3_next": "qwen3next", "qwen3_vl": "qwen3vl"}
NO_CONVERTER = {"gptj": "GPTJForCausalLM", "step3p7": "Step3p7FlashForCausalLM"}
PERMUTED = frozenset({"llama", "mistral"})  # LlamaModel.undo_permute (Llama4Model sets it False)
MLA = frozenset({"deepseek2"})  # graphs that turn the last n_rot dims of the head
RECURRENT = frozenset({"qwen3next"})  # recurrent (linear-attention) layers between the full ones turn nothing
UNROTATED = frozenset({"bert", "nemotron_h"})  # graphs that turn nothing (BERT) or rope type NONE (Nemotron-H)
MODES = {"NORM": 0, "NEOX": 2, "MROPE": 8, "IMROPE": 40}
_F32, _I32 = 0, 26


def _rope_parameters(values: dict) -> dict:
    """rope_parameters as conversion/base.py builds them: rope_parameters or rope_scaling, with rope_theta,
    rope_type and partial_rotary_factor mirrored from the top level."""
    params = dict(values.get("rope_parameters") or values.get("rope_scaling") or {})
    params = dict(params.get("full_attention", params))
    for key, names in (("rope_theta", ("rope_theta", "rotary_emb_base")),
                       ("partial_rotary_factor", ("partial_rotary_factor", "rope_pct", "rotary_pct")),
                       ("original_max_position_embeddings", ("original_max_position_embeddings",))):
        for name in names:
            if key not in params and values.get(name) is not None:
                params[key] = values[name]
    if "rope_type" not in params and params.get("type") is not None:
        params["rope_type"] = params["type"]
    return params


def _llama3_factors(params: dict, dims: int) -> np.ndarray:
    """conversion/llama.py LlamaModel.generate_extra_tensors: rope_freqs from llama3's factors."""
    base, factor = params.get("rope_theta", 10000.0), params.get("factor", 8.0)
    low, high = params.get("low_freq_factor", 1.0), params.get("high_freq_factor", 4.0)
    old = params.get("original_max_position_embeddings", 8192)
    freqs = 1.0 / (base ** (np.arange(0, dims, 2, dtype=np.float32) / dims))
    out = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < old / high:
            out.append(1.0)
        elif wavelen > old / low:
            out.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def write_gguf(config, path) -> Path:
    """The GGUF header llama.cpp's converter writes for `config` (a preset name, config dict or JSON text), with
    the rope frequency-factor tensors and no weights (see the module docstring)."""
    import gguf

    values = _config_dict(config)
    nested = values.get("text_config")
    text = {**values, **nested} if isinstance(nested, dict) else values
    model_type = str(values.get("model_type"))
    if model_type in NO_CONVERTER:
        raise NotSupported(f"llama.cpp's converter has no architecture for {model_type!r} "
                           f"({NO_CONVERTER[model_type]} is not registered in conversion/)")
    arch = ARCHITECTURES.get(model_type)
    if arch is None:
        raise AdapterLimit(f"the adapter's GGUF writer has no entry for model_type {model_type!r} (llama.cpp's "
                           "converter registers its architecture; its keys are not written here yet)")
    params = _rope_parameters(text)
    heads = text["num_attention_heads"]
    head = text.get("head_dim") or text["hidden_size"] // heads
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_block_count(text["num_hidden_layers"])
    context = text.get("max_position_embeddings") or text.get("n_positions") or 2048
    writer.add_context_length(context)
    writer.add_embedding_length(text["hidden_size"])
    writer.add_head_count(heads)
    writer.add_head_count_kv(text.get("num_key_value_heads") or heads)
    if params.get("rope_theta") is not None:
        writer.add_rope_freq_base(float(params["rope_theta"]))
    rope_type, factor = str(params.get("rope_type", "default")), params.get("factor")
    if rope_type == "linear" and factor is not None:
        writer.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        writer.add_rope_scaling_factor(factor)
    elif rope_type == "yarn" and factor is not None:
        writer.add_rope_scaling_type(gguf.RopeScalingType.YARN)
        writer.add_rope_scaling_factor(factor)
        writer.add_rope_scaling_orig_ctx_len(params["original_max_position_embeddings"])
        for key, add in (("extrapolation_factor", writer.add_rope_scaling_yarn_ext_factor),
                         ("attention_factor", writer.add_rope_scaling_yarn_attn_factor),
                         ("beta_fast", writer.add_rope_scaling_yarn_beta_fast),
                         ("beta_slow", writer.add_rope_scaling_yarn_beta_slow)):
            if params.get(key) is not None:  # written, and read by Grok's loader alone
                add(params[key])
    elif rope_type in ("su", "longrope"):
        writer.add_rope_scaling_type(gguf.RopeScalingType.LONGROPE)
    dims = head
    tensors: dict[str, np.ndarray] = {}
    if text.get("head_dim") is not None and arch != "deepseek2":  # base.py; LlamaModel and Gemma write it too
        writer.add_key_length(head)
        writer.add_value_length(head)
    if arch == "gptneox":
        dims = int(params.get("partial_rotary_factor", 1.0) * head)
    if arch == "minimax-m2":
        dims = text["rotary_dim"]
    if arch == "qwen3next":
        dims = int(head * params.get("partial_rotary_factor", 0.25))
        writer.add_full_attention_interval(text.get("full_attention_interval", 4))
    if arch == "phi3":
        dims = int(params.get("partial_rotary_factor", 1.0) * text["hidden_size"]) // heads
        orig = params["original_max_position_embeddings"]
        writer.add_rope_scaling_orig_ctx_len(orig)
        if params.get("long_factor"):
            scale = context / orig
            writer.add_rope_scaling_attn_factors(math.sqrt(1 + math.log(scale) / math.log(orig)) if scale > 1 else 1.0)
            tensors["rope_factors_long.weight"] = np.array(params["long_factor"], dtype=np.float32)
            tensors["rope_factors_short.weight"] = np.array(params["short_factor"], dtype=np.float32)
    if arch == "deepseek2":
        dims = text["qk_rope_head_dim"]
        writer.add_key_length(text["kv_lora_rank"] + dims)
        writer.add_key_length_mla(text["qk_nope_head_dim"] + dims)
        if params.get("mscale_all_dim") is not None:
            writer.add_rope_scaling_yarn_log_mul(0.1 * params["mscale_all_dim"])
    if arch in ("gemma3", "gpt-oss") and text.get("sliding_window"):
        writer.add_sliding_window(text["sliding_window"])
    if params.get("mrope_section"):  # base.py: Qwen2-VL's sections, Qwen3-VL's (interleaved by llama.cpp)
        writer.add_rope_dimension_sections((list(params["mrope_section"]) + [0, 0, 0, 0])[:4])
    elif arch in ("qwen2vl", "qwen3vl"):
        raise AdapterLimit(f"the config has no mrope_section: the converter writes no rope.dimension_sections, "
                           f"which llama.cpp's {arch} loader requires (transformers' defaults hold none either)")
    if arch in ("llama", "llama4") and rope_type == "llama3":
        tensors["rope_freqs.weight"] = _llama3_factors(params, dims)
    writer.add_rope_dimension_count(dims)
    for name, data in tensors.items():
        writer.add_tensor(name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(path)


class Ggml:
    """ggml's rope op through ctypes on a libggml-base / libggml-cpu pair (llama-cpp-python's llama_cpp/lib)."""

    def __init__(self, folder):
        folder = Path(folder)
        mode = getattr(ctypes, "RTLD_GLOBAL", 0)
        self.base = ctypes.CDLL(str(folder / "libggml-base.so"), mode=mode)
        self.cpu = ctypes.CDLL(str(folder / "libggml-cpu.so"), mode=mode)
        p, i64, i32, f32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_float
        self.base.ggml_init.restype = p
        self.base.ggml_init.argtypes = [_InitParams]
        self.base.ggml_new_tensor_1d.restype = p
        self.base.ggml_new_tensor_1d.argtypes = [p, i32, i64]
        self.base.ggml_new_tensor_3d.restype = p
        self.base.ggml_new_tensor_3d.argtypes = [p, i32, i64, i64, i64]
        self.base.ggml_get_data.restype = p
        self.base.ggml_get_data.argtypes = [p]
        self.base.ggml_rope_ext.restype = p
        self.base.ggml_rope_ext.argtypes = [p, p, p, p, i32, i32, i32] + [f32] * 6
        self.base.ggml_rope_multi.restype = p
        self.base.ggml_rope_multi.argtypes = [p, p, p, p, i32, ctypes.POINTER(ctypes.c_int * 4), i32, i32] + [f32] * 6
        self.base.ggml_new_graph.restype = p
        self.base.ggml_new_graph.argtypes = [p]
        self.base.ggml_build_forward_expand.argtypes = [p, p]
        self.base.ggml_free.argtypes = [p]
        self.cpu.ggml_graph_compute_with_ctx.restype = i32
        self.cpu.ggml_graph_compute_with_ctx.argtypes = [p, p, i32]

    def rope(self, rows: np.ndarray, positions: np.ndarray, *, n_dims: int, mode: int, n_ctx_orig: int,
             freq_base: float, freq_scale: float, ext_factor: float, attn_factor: float, beta_fast: float,
             beta_slow: float, factors: np.ndarray | None = None, sections=None) -> np.ndarray:
        """rows (tokens, head) float32 turned at positions (tokens,) int32, or (4, tokens) with `sections`."""
        tokens, head = rows.shape
        size = rows.nbytes * 2 + positions.nbytes + (0 if factors is None else factors.nbytes) + (1 << 20)
        ctx = self.base.ggml_init(_InitParams(size, None, False))
        if not ctx:
            raise RuntimeError("ggml_init failed")
        try:
            a = self.base.ggml_new_tensor_3d(ctx, _F32, head, 1, tokens)
            data = np.ascontiguousarray(rows, np.float32)  # held: its buffer must outlive the copy
            ctypes.memmove(self.base.ggml_get_data(a), data.ctypes.data, data.nbytes)
            pos = np.ascontiguousarray(positions, np.int32).reshape(-1)
            b = self.base.ggml_new_tensor_1d(ctx, _I32, pos.size)
            ctypes.memmove(self.base.ggml_get_data(b), pos.ctypes.data, pos.nbytes)
            c = None
            if factors is not None:
                fac = np.ascontiguousarray(factors, np.float32)
                c = self.base.ggml_new_tensor_1d(ctx, _F32, fac.size)
                ctypes.memmove(self.base.ggml_get_data(c), fac.ctypes.data, fac.nbytes)
            numbers = (n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow)
            if sections is None:
                out = self.base.ggml_rope_ext(ctx, a, b, c, n_dims, mode, *numbers)
            else:
                out = self.base.ggml_rope_multi(ctx, a, b, c, n_dims, ctypes.byref((ctypes.c_int * 4)(*sections)),
                                                mode, *numbers)
            graph = self.base.ggml_new_graph(ctx)
            self.base.ggml_build_forward_expand(graph, out)
            if self.cpu.ggml_graph_compute_with_ctx(ctx, graph, 1) != 0:
                raise RuntimeError("ggml_graph_compute_with_ctx failed")
            result = np.empty((tokens, head), dtype=np.float32)
            ctypes.memmove(result.ctypes.data, self.base.ggml_get_data(out), result.nbytes)
            return result
        finally:
            self.base.ggml_free(ctx)


class _InitParams(ctypes.Structure):
    _fields_ = [("mem_size", ctypes.c_size_t), ("mem_buffer", ctypes.c_void_p), ("no_alloc", ctypes.c_bool)]


_LIBRARY: dict[str, Ggml] = {}


def ggml_library() -> Ggml:
    """The libggml llama-cpp-python bundles (EngineMissing, with the install line, where it is absent). The
    package is located, not imported: only its shared libraries are used."""
    spec = importlib.util.find_spec("llama_cpp")
    folder = Path(spec.origin).parent / "lib" if spec and spec.origin else None
    if folder is None or not (folder / "libggml-base.so").is_file():
        raise EngineMissing(f"the llama.cpp adapter needs llama-cpp-python's libggml (not found); install it with: "
                            f"{ENGINES['llama.cpp'].install}")
    key = str(folder)
    if key not in _LIBRARY:
        _LIBRARY[key] = Ggml(folder)
    return _LIBRARY[key]


def _get_mscale(scale: float, mscale: float) -> float:
    return 1.0 if scale <= 1.0 else 0.1 * mscale * math.log(scale) + 1.0


def _factor_tensors(path, names) -> dict:
    """The values of the named tensors of a GGUF file (gguf.GGUFReader maps them; only these are read)."""
    if not names:
        return {}
    import gguf

    reader = gguf.GGUFReader(str(path))
    return {t.name: np.array(t.data, dtype=np.float32).reshape(-1) for t in reader.tensors if t.name in names}


def llamacpp_rotary(config, gguf=None) -> Callable:
    """fn(x, positions, layer, role) rotating as llama.cpp does for `config` (a preset name, config dict or
    JSON text) written as a GGUF file, or for the GGUF file `gguf` (see the module docstring). Raises
    EngineMissing where llama-cpp-python is not installed, NotSupported / AdapterLimit where the config cannot
    be written."""
    library = ggml_library()
    values = _config_dict(config) if gguf is None else {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(gguf) if gguf is not None else write_gguf(values, Path(folder) / "model.gguf")
        header = read_header(path)
        arch = header.architecture
        factors = _factor_tensors(path, [n for n in ("rope_freqs.weight", "rope_factors_long.weight",
                                                     "rope_factors_short.weight") if n in header.tensors])
        layers = None if arch in UNROTATED else llama_cpp_layers(header)
    sections = header.key("{arch}.rope.dimension_sections")
    original = header.key("{arch}.rope.scaling.original_context_length") or header.key("{arch}.context_length")
    context = header.key("{arch}.context_length") or 0
    chosen = factors.get("rope_freqs.weight")
    if chosen is None and factors:  # get_rope_factors: long past the original context, at the default n_ctx
        chosen = factors.get("rope_factors_long.weight" if context > original else "rope_factors_short.weight")
    log_mul = header.key("{arch}.rope.scaling.yarn_log_multiplier")
    log_mul = 0.0 if log_mul is None else (log_mul / 0.1 if arch in MLA else log_mul)
    attn_scale = header.key("{arch}.rope.scaling.attn_factor", 1.0)

    interval = header.key("{arch}.full_attention_interval", 4) if arch in RECURRENT else 0

    def fn(x, positions, layer, role):
        if layers is None or not layers[layer].rotary or (interval and (layer + 1) % interval):
            return x
        spec = layers[layer]
        rows = x.float()
        size = spec.rotary_dim if arch in MLA else rows.shape[-1]
        part = rows[:, rows.shape[-1] - size:].numpy()
        ext = 1.0 if spec.scaling == "yarn" else 0.0
        factor = 1.0 / spec.freq_scale
        attn = 1.0
        if ext:
            mscale = log_mul if arch in MLA and log_mul not in (0.0, 1.0) else 1.0
            attn = _get_mscale(factor, mscale) / _get_mscale(factor, log_mul) if log_mul else _get_mscale(factor, 1.0)
            attn /= 1.0 + 0.1 * math.log(factor)
        attn *= attn_scale
        pos = positions.numpy()
        mode = MODES[spec.mode]
        multi = spec.mode in ("MROPE", "IMROPE")
        if multi:
            rows3 = pos if pos.ndim == 2 else np.stack([pos] * 3)
            pos = np.concatenate([rows3, np.zeros((1, rows3.shape[1]), dtype=rows3.dtype)])
        turned = library.rope(part, pos, n_dims=spec.rotary_dim, mode=mode, n_ctx_orig=spec.original_context,
                              freq_base=spec.base, freq_scale=spec.freq_scale, ext_factor=ext, attn_factor=attn,
                              beta_fast=32.0, beta_slow=1.0, factors=chosen if spec.freq_factors else None,
                              sections=list(sections) if multi else None)
        return torch.cat((rows[:, :rows.shape[-1] - size], torch.from_numpy(turned)), dim=-1)
    permuted = gguf is None and str(values.get("model_type")) in PERMUTED
    permuted = permuted or (gguf is not None and arch == "llama")
    fn.layout = "interleaved" if permuted else None  # type: ignore[attr-defined]
    return fn
