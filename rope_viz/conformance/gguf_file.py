"""A GGUF file's RoPE as llama.cpp will run it, layer by layer, beside the model's config.json.

Only the header is read (the key/value metadata and the tensor names), never a tensor's data: a file cut after
its header reads the same as the whole file. The keys are the `gguf` package's own names (gguf.Keys); the
header is walked here because gguf.GGUFReader builds every vocabulary entry as a numpy view (9.1 s for Gemma 3's
262,144 tokens on two busy cores) and maps the tensors, where this walk skips an array by its lengths (0.15 s).

What llama.cpp does with the keys, read in ggml-org/llama.cpp:
- src/llama-model.cpp @ 00342301d01add50835550e8a916f12097d94517, llama_model::load_hparams: `rope.freq_base`
  (default 10,000), `rope.dimension_count` (default the key length; llama, deci and falcon refuse a file where
  they differ: "invalid n_rot"), `rope.scaling.type` (default "linear"; none, linear, yarn, longrope, anything
  else aborts), `rope.scaling.factor` (or the older `rope.scale_linear`; 0 or absent means 1),
  `rope.scaling.original_context_length` (default `context_length`), `rope.scaling.attn_factor` (default 1).
  Sliding layers take the global base and scale unless the architecture says otherwise: case LLM_ARCH_GEMMA3
  sets `set_swa_pattern(6)` (layer il slides when il % 6 < 5) and `rope_freq_base_train_swa = 10000.0f`,
  `rope_freq_scale_train_swa = 1.0f` itself: Gemma 3's local base is not in its GGUF, llama.cpp hard-codes it;
  case LLM_ARCH_GEMMA2 sets `set_swa_pattern(2)`. Later versions read `attention.sliding_window_pattern` (a
  per-layer array, or a period) and `rope.freq_base_swa` first, with those values as defaults
  (llama_model_base::load_swa_pattern and get_key(LLM_KV_ROPE_FREQ_BASE_SWA), as unslothai/llama.cpp @ aa0ff198
  src/models/gemma-embedding2.cpp shows for a sibling architecture); this reading follows them, which for a file
  without those keys is the same. `get_rope_freq_base` / `get_rope_freq_scale` pick the sliding values on
  sliding layers. `llama_model_rope_type` gives each architecture its mode: NORM turns pairs (2i, 2i+1) (the
  interleaved layout), NEOX pairs (i, i + n_rot/2) (the half layout), MROPE the multimodal sections (IMROPE
  interleaves them: Qwen3-VL and Qwen3.5, in llama.cpp 0c1e57098bba). Llama 4 and
  SmolLM3 leave every 4th layer unrotated (n_no_rope_layer_step = 4, set in code; Llama 4 rotates them all when
  `attention.sliding_window` is 0).
- src/llama-context.cpp @ 4c7103b96d720ea6057eec6ac11a49727f9ecd43, the llama_context constructor: scaling
  type "none" forces freq_scale = 1; ext_factor is 1 under YaRN and 0 otherwise; n_ctx_orig is the original
  context; attn_factor is yarn_attn_factor (`rope.scaling.yarn_attn_factor` where the architecture reads it,
  default 1) times `rope.scaling.attn_factor`. (DeepSeek-2's `rope.scaling.yarn_log_multiplier` enters its
  attention scale in its own graph code, which this reading leaves out.)
- ggml/src/ggml.c ggml_rope_yarn_corr_dims and ggml/src/ggml-cpu/ops.cpp rope_yarn_ramp / rope_yarn
  (@ 1f08e2d662715ead7987c365eced4f273d90e431): pair i turns by theta_e = p * base^(-2i/n_rot) (divided by
  `rope_freqs` where the file has that tensor); theta_i = freq_scale * theta_e; with ext_factor != 0,
  low = max(0, floor(c(beta_fast))), high = min(n_rot - 1, ceil(c(beta_slow))),
  c(b) = n_rot * ln(n_ctx_orig / (2 pi b)) / (2 ln base), ramp = 1 - clamp((i - low) / max(0.001, high - low)),
  theta = theta_i (1 - ramp) + theta_e ramp, and cos and sin are multiplied by
  attn_factor * (1 + 0.1 ln(1 / freq_scale)); beta_fast 32, beta_slow 1 unless
  `rope.scaling.yarn_beta_fast` / `yarn_beta_slow` say otherwise.

llama.cpp's conversion permutes the q and k rows of llama-family checkpoints (convert_hf_to_gguf.py:
LlamaModel.undo_permute = True) so that NORM on the GGUF's rows is the half layout on the checkpoint's rows:
the comparison with config.json is made on the checkpoint's rows.
"""

from __future__ import annotations

import dataclasses
import math
import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..models import ModelRoPE
from .probe import load_model

MAX_KEYS = 1 << 16
MAX_TENSORS = 1 << 20
MAX_STRING = 1 << 20
KEPT_ARRAY = 4096  # arrays longer than this (the vocabulary) are skipped, not kept
MAX_KEPT = 1 << 16  # array entries kept over the whole header
MAX_DEPTH = 4  # arrays of arrays nested deeper are refused
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9

# llama_model_rope_type at the commit above (the architectures this reading knows)
NORM = ("llama", "llada", "llama4", "deci", "baichuan", "starcoder", "internlm2", "minicpm", "xverse", "command-r",
        "cohere2", "olmo", "arctic", "deepseek", "deepseek2", "plm", "chatglm", "glm4", "granite", "granitemoe",
        "granitehybrid", "chameleon", "bailingmoe", "smollm3", "arcee", "ernie4_5", "ernie4_5-moe")
NEOX = ("falcon", "falcon-h1", "grok", "dbrx", "stablelm", "bitnet", "qwen", "qwen2", "dream", "qwen2moe", "qwen3",
        "qwen3moe", "qwen3next", "llada-moe", "olmo2", "olmoe", "phi2", "phi3", "phimoe", "plamo", "plamo2", "gemma",
        "gemma2", "gemma3", "gemma3n", "starcoder2", "openelm", "gptneox", "codeshell", "orion", "nemotron", "exaone",
        "exaone4", "minicpm3", "bailingmoe2", "dots1", "hunyuan-moe", "gpt-oss", "hunyuan-dense", "lfm2", "lfm2moe",
        "smallthinker", "glm4moe", "seed_oss", "grovemoe", "apertus", "minimax-m2")
MROPE = ("qwen2vl",)
IMROPE = ("qwen3vl", "qwen3vlmoe", "qwen35", "qwen35moe")  # interleaved M-RoPE (llama.cpp 0c1e57098bba)
# conversions that permute q/k rows (LlamaModel and its subclasses, LLaDA)
PERMUTED = frozenset({"llama", "llada", "granite", "granitemoe", "granitehybrid", "arcee", "smollm3"})
# architectures whose every n-th layer llama.cpp leaves unrotated ((il + 1) % n == 0: n_no_rope_layer_step, set in
# code, no GGUF key; Llama 4 rotates every layer when its file says attention.sliding_window = 0)
NOPE_EVERY = {"llama4": 4, "smollm3": 4}
# architecture -> (sliding period llama.cpp sets itself, sliding base it sets itself or None for the global one)
SLIDING = {"gemma2": (2, None), "gemma3": (6, 10000.0)}
ROPE_FREQ_TENSORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")


@dataclass(frozen=True)
class GGUFHeader:
    """The metadata of a GGUF file: version, every key with its value (arrays longer than KEPT_ARRAY are left
    out), the tensor names and the header's size in bytes."""

    version: int
    values: dict
    tensors: tuple
    header_bytes: int

    @property
    def architecture(self) -> str:
        arch = self.values.get("general.architecture")
        if not isinstance(arch, str):
            raise ValueError("the GGUF header has no general.architecture string, so no model can be read from it")
        return arch

    def key(self, template: str, default=None):
        """The value of a gguf.Keys template ("{arch}.rope.freq_base") for this file's architecture."""
        return self.values.get(template.format(arch=self.architecture), default)


class _Cursor:
    def __init__(self, buffer, size: int):
        self.buffer, self.size, self.at, self.kept = buffer, size, 0, 0

    def take(self, fmt: str):
        width = struct.calcsize(fmt)
        if self.at + width > self.size:
            raise ValueError(f"the GGUF header runs past the end of the file at byte {self.at + width:,} (the "
                             f"file has {self.size:,} bytes): cut inside its header, or not a GGUF file")
        (value,) = struct.unpack_from(fmt, self.buffer, self.at)
        self.at += width
        return value

    def skip(self, count: int) -> None:
        if self.at + count > self.size:
            raise ValueError(f"the GGUF header runs past the end of the file at byte {self.at + count:,} (the "
                             f"file has {self.size:,} bytes): cut inside its header, or not a GGUF file")
        self.at += count

    def string(self) -> str:
        length = self.take("<Q")
        if length > MAX_STRING:
            raise ValueError(f"a GGUF string at byte {self.at:,} claims {length:,} bytes (at most {MAX_STRING:,})")
        start = self.at
        self.skip(length)
        return bytes(self.buffer[start:self.at]).decode("utf-8", errors="replace")

    def value(self, kind: int, key: str, depth: int = 0):
        """The value of one key; an array is kept only when it holds scalars or strings, at most KEPT_ARRAY of
        them and MAX_KEPT over the whole header, else it is skipped by its lengths (None)."""
        if kind in _SCALARS:
            return self.take(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind != _ARRAY:
            raise ValueError(f"GGUF key {key[:80]!r} has value type {kind}, which is not one of GGUF's 13 types")
        if depth >= MAX_DEPTH:
            raise ValueError(f"GGUF key {key[:80]!r} nests arrays deeper than {MAX_DEPTH}")
        item, count = self.take("<I"), self.take("<Q")
        if item != _ARRAY and count <= KEPT_ARRAY and self.kept + count <= MAX_KEPT:
            self.kept += count
            return [self.value(item, key, depth + 1) for _ in range(count)]
        if item in _SCALARS:
            self.skip(count * struct.calcsize(_SCALARS[item]))
        elif item == _STRING:
            for _ in range(count):
                self.skip(self.take("<Q"))
        else:
            for _ in range(count):
                self.value(item, key, depth + 1)
        return None


def _gguf():
    """The gguf package (the [real] extra): the format's constants and key names."""
    try:
        import gguf
    except ImportError as err:  # pragma: no cover - the [real] extra is missing
        raise ValueError("reading a GGUF file needs the gguf package (pip install 'rope-viz[real]' or "
                         "pip install gguf)") from err
    return gguf


def _walk(buffer, size: int) -> GGUFHeader:
    cursor = _Cursor(buffer, size)
    gguf = _gguf()
    magic = cursor.take("<I")
    if magic != gguf.GGUF_MAGIC:
        raise ValueError(f"not a GGUF file: it starts with {bytes(buffer[:4])!r}, not b'GGUF'")
    version = cursor.take("<I")
    if version not in gguf.READER_SUPPORTED_VERSIONS:
        raise ValueError(f"GGUF version must be one of {gguf.READER_SUPPORTED_VERSIONS}, got {version}")
    tensor_count, key_count = cursor.take("<Q"), cursor.take("<Q")
    if key_count > MAX_KEYS or tensor_count > MAX_TENSORS:
        raise ValueError(f"the GGUF header claims {key_count:,} keys and {tensor_count:,} tensors (at most "
                         f"{MAX_KEYS:,} and {MAX_TENSORS:,})")
    values = {}
    for _ in range(key_count):
        key = cursor.string()
        kind = cursor.take("<I")
        value = cursor.value(kind, key)
        if value is not None:
            values[key] = value
    names = []
    for _ in range(tensor_count):
        names.append(cursor.string())
        dims = cursor.take("<I")
        cursor.skip(8 * dims + 4 + 8)  # shape, type, offset
    return GGUFHeader(version, values, tuple(names), cursor.at)


def read_header(source) -> GGUFHeader:
    """The header of a GGUF file (a path, or its bytes: the whole file or any prefix holding the header)."""
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            return _walk(memoryview(source), len(source))
        path = Path(source)
        with path.open("rb") as handle:
            size = path.stat().st_size
            if size == 0:
                raise ValueError(f"{path} is empty, not a GGUF file")
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:  # pages are read as touched
                return _walk(mapped, size)
    except (UnicodeDecodeError, struct.error) as err:
        raise ValueError(f"not a readable GGUF header: {err}") from err


@dataclass(frozen=True)
class GGUFLayer:
    """One decoder layer as llama.cpp rotates it: mode (NORM, NEOX, MROPE, IMROPE or NONE), layout on the GGUF's rows
    and on the checkpoint's rows (they differ where the conversion permuted q/k), base and where it comes from,
    freq_scale, rotated dims of the head, scaling type, YaRN's ext_factor, original context, betas and
    attention factor, and the frequency-factor tensors the file holds (their values are never read)."""

    index: int
    sliding: bool
    mode: str
    layout: str | None
    checkpoint_layout: str | None
    base: float
    base_from: str
    freq_scale: float
    rotary_dim: int
    head_dim: int
    scaling: str
    ext_factor: float
    original_context: int
    beta_fast: float
    beta_slow: float
    attention_factor: float
    freq_factors: tuple = ()

    @property
    def rotary(self) -> bool:
        return self.mode != "NONE"

    def frequencies(self, base: float | None = None) -> torch.Tensor:
        """Per pair, the angle at position 1 (float64) by ggml's formulas (see the module docstring), the
        frequency-factor tensors left out; `base` replaces the layer's own (to compare the rest alone)."""
        base = self.base if base is None else base
        pairs = torch.arange(self.rotary_dim // 2, dtype=torch.float64)
        extrap = base ** (-2.0 * pairs / self.rotary_dim)
        interp = self.freq_scale * extrap
        if not self.ext_factor:
            return interp

        def corr(beta: float) -> float:
            return self.rotary_dim * math.log(self.original_context / (2 * math.pi * beta)) / (2 * math.log(base))
        low = max(0.0, math.floor(corr(self.beta_fast)))
        high = min(self.rotary_dim - 1.0, math.ceil(corr(self.beta_slow)))
        ramp = 1 - ((pairs - low) / max(0.001, high - low)).clamp(0, 1)
        mix = ramp * self.ext_factor
        return interp * (1 - mix) + extrap * mix

    def describe(self) -> str:
        if not self.rotary:
            return "no RoPE"
        rows = self.layout if self.layout == self.checkpoint_layout else \
            f"{self.layout} on q/k rows the conversion permuted = {self.checkpoint_layout} on the checkpoint's"
        parts = [f"base {self.base:,.0f} ({self.base_from})", f"{self.rotary_dim}/{self.head_dim} dims",
                 f"{self.mode} = {rows}"]
        if self.scaling != "none" and (self.freq_scale != 1.0 or self.ext_factor):
            parts.append(f"{self.scaling} x{1 / self.freq_scale:g} from {self.original_context:,}")
        if self.attention_factor != 1.0:
            parts.append(f"attention factor {self.attention_factor:.4f}")
        if self.freq_factors:
            parts.append(f"divided by {', '.join(self.freq_factors)} (values not read)")
        return ", ".join(parts)


def _float(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, got {repr(value)[:80]}")
    return float(value)


def _int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a whole number >= 0, got {repr(value)[:80]}")
    return value


def _mode(arch: str) -> str:
    if arch in NORM:
        return "NORM"
    if arch in NEOX:
        return "NEOX"
    if arch in MROPE:
        return "MROPE"
    if arch in IMROPE:
        return "IMROPE"
    raise ValueError(f"architecture {arch[:40]!r} is not in this kit's table of llama.cpp rope modes (llama.cpp's "
                     f"llama_model_rope_type): known are {', '.join(NORM + NEOX + MROPE + IMROPE)}")


def _sliding(header: GGUFHeader, keys, n_layers: int) -> list[bool]:
    arch = header.architecture
    pattern = header.key(keys.Attention.SLIDING_WINDOW_PATTERN)
    if isinstance(pattern, list):
        if len(pattern) != n_layers:
            raise ValueError(f"{arch}.attention.sliding_window_pattern must hold one entry per layer ({n_layers}), "
                             f"got {len(pattern)}")
        return [bool(entry) for entry in pattern]
    period = pattern if pattern is not None else SLIDING.get(arch, (0, None))[0]
    period = _int(period, f"{arch}.attention.sliding_window_pattern")
    return [period > 0 and il % period < period - 1 for il in range(n_layers)]


def llama_cpp_layers(header: GGUFHeader) -> tuple[GGUFLayer, ...]:
    """Every decoder layer of the file as llama.cpp rotates it (see the module docstring)."""
    keys, arch = _gguf().Keys, header.architecture
    mode = _mode(arch)
    n_layers = _int(header.key(keys.LLM.BLOCK_COUNT), f"{arch}.block_count")
    heads = header.key(keys.Attention.HEAD_COUNT)
    heads = heads[0] if isinstance(heads, list) and heads else heads
    embedding = header.key(keys.LLM.EMBEDDING_LENGTH)
    head_dim = header.key(keys.Attention.KEY_LENGTH)
    if head_dim is None:
        if not heads or not embedding:
            raise ValueError(f"{arch}.attention.key_length is absent and head_count/embedding_length cannot give it")
        head_dim = _int(embedding, f"{arch}.embedding_length") // _int(heads, f"{arch}.attention.head_count")
    head_dim = _int(head_dim, f"{arch}.attention.key_length")
    rotary_dim = _int(header.key(keys.Rope.DIMENSION_COUNT, head_dim), f"{arch}.rope.dimension_count")
    if rotary_dim > head_dim or rotary_dim % 2:
        raise ValueError(f"{arch}.rope.dimension_count must be even and at most the key length {head_dim}, "
                         f"got {rotary_dim}")
    if arch in ("llama", "deci", "falcon") and rotary_dim != head_dim:
        raise ValueError(f"llama.cpp refuses this file (invalid n_rot: {arch}.rope.dimension_count is {rotary_dim}, "
                         f"{arch} needs the key length {head_dim}): rotated_dims")
    base = _float(header.key(keys.Rope.FREQ_BASE, 10000.0), f"{arch}.rope.freq_base")
    scaling = header.key(keys.Rope.SCALING_TYPE, "linear")
    if scaling not in ("none", "linear", "yarn", "longrope"):
        raise ValueError(f"{arch}.rope.scaling.type must be none, linear, yarn or longrope (llama.cpp aborts on "
                         f"anything else), got {str(scaling)[:40]!r}")
    factor = header.key(keys.Rope.SCALING_FACTOR)
    if factor is None:
        factor = header.values.get(f"{arch}.rope.scale_linear", 0.0)
    factor = _float(factor, f"{arch}.rope.scaling.factor")
    freq_scale = 1.0 if scaling == "none" or factor == 0.0 else 1.0 / factor
    context = _int(header.key(keys.LLM.CONTEXT_LENGTH, 0), f"{arch}.context_length")
    original = _int(header.key(keys.Rope.SCALING_ORIG_CTX_LEN, context) or context,
                    f"{arch}.rope.scaling.original_context_length")
    ext_factor = _float(header.key(keys.Rope.SCALING_YARN_EXT_FACTOR, 1.0 if scaling == "yarn" else 0.0),
                        f"{arch}.rope.scaling.yarn_ext_factor")
    if ext_factor and original < 1:
        raise ValueError(f"{arch}.rope.scaling.original_context_length must be positive under YaRN, got {original}")
    attn_factor = _float(header.key(keys.Rope.SCALING_ATTN_FACTOR, 1.0), f"{arch}.rope.scaling.attn_factor") * \
        _float(header.key(keys.Rope.SCALING_YARN_ATTN_FACTOR, 1.0), f"{arch}.rope.scaling.yarn_attn_factor")
    beta_fast = _float(header.key(keys.Rope.SCALING_YARN_BETA_FAST, 32.0), f"{arch}.rope.scaling.yarn_beta_fast")
    beta_slow = _float(header.key(keys.Rope.SCALING_YARN_BETA_SLOW, 1.0), f"{arch}.rope.scaling.yarn_beta_slow")
    sliding = _sliding(header, keys, n_layers)
    swa_base = header.key(keys.Rope.FREQ_BASE_SWA)
    fixed = SLIDING.get(arch, (0, None))[1]
    factors = tuple(name.removesuffix(".weight") for name in ROPE_FREQ_TENSORS if name in header.tensors)
    nope_every = NOPE_EVERY.get(arch, 0)
    if arch == "llama4" and header.key(keys.Attention.SLIDING_WINDOW) == 0:
        nope_every = 0
    layout = {"NORM": "interleaved", "NEOX": "half", "MROPE": "half", "IMROPE": "half"}[mode]
    checkpoint = "half" if mode == "NORM" and arch in PERMUTED else layout
    layers = []
    for il in range(n_layers):
        layer_base, source, layer_scale = base, "rope.freq_base", freq_scale
        if sliding[il]:
            if swa_base is not None:
                layer_base, source = _float(swa_base, f"{arch}.rope.freq_base_swa"), "rope.freq_base_swa"
            elif fixed is not None:
                layer_base, source = fixed, f"llama.cpp's fixed {fixed:,.0f} for {arch} sliding layers"
            if fixed is not None:
                layer_scale = 1.0
        mscale = attn_factor * (1.0 + 0.1 * math.log(1.0 / layer_scale) if ext_factor else 1.0)
        rotates = not nope_every or (il + 1) % nope_every != 0
        layers.append(GGUFLayer(il, sliding[il], mode if rotates else "NONE", layout, checkpoint, layer_base, source,
                                layer_scale,
                                rotary_dim, head_dim, scaling if layer_scale != 1.0 else "none", ext_factor,
                                original, beta_fast, beta_slow, mscale, factors))
    return tuple(layers)


@dataclass(frozen=True)
class Finding:
    """One difference between llama.cpp's rotation of a layer and the config's: the bug class
    (rope_viz.conformance.BUG_CLASSES) it amounts to, and what differs."""

    bug: str
    what: str


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-30)


def compare_layer(gguf_layer: GGUFLayer, layer) -> tuple[Finding, ...]:
    """What differs between llama.cpp's rotation of a layer and the config's LayerRoPE of the same index."""
    if gguf_layer.rotary != layer.rotary:
        return (Finding("nope", "llama.cpp rotates it, the config does not" if gguf_layer.rotary else
                        "the config rotates it, llama.cpp does not"),)
    if not layer.rotary:
        return ()
    found = []
    if gguf_layer.checkpoint_layout != layer.layout:
        found.append(Finding("layout", f"llama.cpp pairs {gguf_layer.checkpoint_layout} on the checkpoint's rows, "
                                       f"the config {layer.layout}"))
    if gguf_layer.rotary_dim != layer.span or gguf_layer.head_dim != layer.head_dim:
        found.append(Finding("rotated_dims", f"llama.cpp turns {gguf_layer.rotary_dim} of {gguf_layer.head_dim} "
                                             f"dims, the config {layer.span} of {layer.head_dim}"))
        return tuple(found)
    if not _close(gguf_layer.base, layer.base):
        found.append(Finding("base", f"llama.cpp's base is {gguf_layer.base:,.0f} ({gguf_layer.base_from}), "
                                     f"the config's {layer.base:,.0f}"))
    inv_freq, factor = layer.inv_freq()
    plain, _ = dataclasses.replace(layer, rope_scaling=None, rope_type="default").inv_freq() \
        if layer.rope_scaling else (inv_freq, 1.0)
    by_factors = layer.rope_type in ("llama3", "longrope")
    if gguf_layer.freq_factors and not by_factors:
        found.append(Finding("scaling", f"llama.cpp divides by {', '.join(gguf_layer.freq_factors)}, the config's "
                                        f"{layer.rope_type} scaling has no such factors"))
    elif by_factors and not gguf_layer.freq_factors:
        found.append(Finding("scaling", f"the config's {layer.rope_type} scaling needs frequency factors, the "
                                        "file has no rope_freqs or rope_factors tensor: llama.cpp turns without them"))
    ours = gguf_layer.frequencies(base=layer.base)
    theirs = plain if by_factors and gguf_layer.freq_factors else inv_freq
    if not torch.allclose(ours, theirs, rtol=1e-6, atol=0):
        worst = int(((ours - theirs).abs() / theirs.abs().clamp(min=1e-300)).argmax())
        found.append(Finding("scaling", f"llama.cpp's {gguf_layer.scaling} frequencies differ from the config's "
                                        f"{layer.rope_type} from pair {_first(ours, theirs)} (most at pair {worst})"))
    if not _close(gguf_layer.attention_factor, factor):
        found.append(Finding("attention_factor", f"llama.cpp's attention factor is "
                                                 f"{gguf_layer.attention_factor:.4f}, the config's {factor:.4f}"))
    return tuple(found)


def _first(ours: torch.Tensor, theirs: torch.Tensor) -> int:
    bad = torch.nonzero(~torch.isclose(ours, theirs, rtol=1e-6, atol=0))
    return int(bad[0]) if len(bad) else 0


@dataclass(frozen=True)
class GGUFReport:
    """The file's architecture, its layers as llama.cpp rotates them, and, with a config, the config's model
    and each layer's findings (empty tuples where it agrees)."""

    architecture: str
    layers: tuple
    model: ModelRoPE | None = None
    findings: tuple = field(default=())

    @property
    def ok(self) -> bool:
        return not any(self.findings)

    def rows(self) -> list[dict]:
        """Layers grouped where llama.cpp's reading, the config's and the findings agree."""
        from .verify import describe, layer_ranges
        groups: dict[tuple, list[int]] = {}
        for i, layer in enumerate(self.layers):
            config = describe(self.model.layers[i]) if self.model is not None else ""
            found = self.findings[i] if self.findings else ()
            groups.setdefault((layer.describe(), config, found), []).append(i)
        return [{"layers": layer_ranges(members), "llama.cpp": key[0], "config": key[1],
                 "bugs": [finding.bug for finding in key[2]], "differences": [finding.what for finding in key[2]]}
                for key, members in groups.items()]

    def table(self) -> str:
        lines = []
        for row in self.rows():
            lines.append(f"layers {row['layers']}")
            lines.append(f"  llama.cpp: {row['llama.cpp']}")
            if self.model is not None:
                lines.append(f"  config:    {row['config']}")
                for bug, what in zip(row["bugs"], row["differences"]):
                    lines.append(f"  {bug}: {what}")
                if not row["bugs"]:
                    lines.append("  agrees")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"architecture": self.architecture, "ok": self.ok, "rows": self.rows()}


def check_gguf(source, config=None) -> GGUFReport:
    """The GGUF file `source` (a path or its bytes) as llama.cpp reads its RoPE, and, given `config` (a preset
    name, a config dict or its JSON text), every difference from the config named as a bug class."""
    header = read_header(source)
    layers = llama_cpp_layers(header)
    if config is None:
        return GGUFReport(header.architecture, layers)
    model = load_model(config)
    if len(model.layers) != len(layers):
        raise ValueError(f"the GGUF file has {len(layers)} layers ({header.architecture}.block_count), the config "
                         f"{len(model.layers)}: they describe different models")
    findings = tuple(compare_layer(g, layer) for g, layer in zip(layers, model.layers))
    return GGUFReport(header.architecture, layers, model, findings)
