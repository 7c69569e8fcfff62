"""The "fast" RoPE path: as close to one pass over memory as the device allows.

Two branches compute the same rotation; `rope_fast` picks one per call.

- eager, always available: the interleaved layout views each pair as one complex number and
  multiplies by cos + i sin (a single vectorised elementwise kernel); the half layout writes
  x * cos for both halves at once and then adds the two cross terms into it in place (three
  kernels, no temporaries).
- compiled: one fused kernel from torch.compile (C++/OpenMP on the CPU, Triton on CUDA) that reads
  x once and writes the result once. It is compiled for dynamic shapes, so one compilation covers
  every head count, sequence length and head size. It is used where it beats the eager branch:
  everywhere except interleaved float32/float64 on the CPU, where the complex multiply is already
  one vectorised pass (the compiled kernel reaches stride-2 pairs one at a time and measured
  about 1.4x a copy there, against about 1.1x).

Compiling takes 10-30 s on a small CPU, so no call ever compiles. The compiled branch runs only
after `warm_up()` has compiled it for that device, dtype and layout (from a benchmark, a script, or
a background thread started by an app), only for tensors of at least COMPILED_MIN_ELEMENTS, and
under the compiler stance "fail_on_recompile": an input the compiled code does not cover runs
eagerly instead of compiling. bfloat16/float16 inputs are computed in float32 and cast back;
float64 inputs stay float64 (the tables come in the matching dtype).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import torch
from torch.utils.weak import WeakIdKeyDictionary

from ._checks import check_rotation

# Smaller tensors stay eager: their eager kernels are short (ATen runs them on one thread below
# 32768 elements), while a compiled call adds guard checks and always starts its OpenMP team,
# which on a busy CPU can cost milliseconds. They are also the app's sizes.
COMPILED_MIN_ELEMENTS = 1 << 18

_compile_lock = threading.Lock()  # held while compiling and while a compiled kernel runs
_warm: set[tuple[str, torch.dtype, str]] = set()  # (device type, x dtype, layout) compiled so far
_rotors = WeakIdKeyDictionary()  # cos table -> (sin table, cos + i sin)


def _complex_view(work: torch.Tensor) -> torch.Tensor:
    """(..., r) real as (..., r/2) complex, pair i = x[2i] + i x[2i+1]; copies only if the
    strides do not allow a view."""
    pairs = work.unflatten(-1, (-1, 2))
    if pairs.stride(-1) != 1 or pairs.storage_offset() % 2 or any(s % 2 for s in pairs.stride()[:-1]):
        pairs = pairs.contiguous()
    return torch.view_as_complex(pairs)


def _rotor(cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """cos + i sin, made once per table: building it costs a pass over the tables on every call
    otherwise. Kept while `cos` lives (rope_tables caches the tables of the default positions)."""
    kept = _rotors.get(cos)
    if kept is None or kept[0] is not sin:
        kept = (sin, torch.complex(cos, sin))
        _rotors[cos] = kept
    return kept[1]


def _eager_interleaved(work, cos, sin):
    return torch.view_as_real(_complex_view(work) * _rotor(cos, sin)).flatten(-2)


def _eager_half(work, cos, sin):
    x_halves = work.unflatten(-1, (2, -1))
    out_halves = x_halves * cos.unsqueeze(-2)  # (x1 cos, x2 cos): the result, still without sin
    out_halves[..., 0, :].addcmul_(x_halves[..., 1, :], sin, value=-1)
    out_halves[..., 1, :].addcmul_(x_halves[..., 0, :], sin)
    return out_halves.flatten(-2)


def _rope_eager(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """The eager branch of _rope_fast (same arguments and result)."""
    work = x if x.dtype == cos.dtype else x.to(cos.dtype)
    rotate = _eager_interleaved if layout == "interleaved" else _eager_half
    return rotate(work, cos, sin).to(x.dtype)


# The fused kernels take x as (rows, seq, pairs, 2) interleaved or (rows, seq, 2, pairs) half: with
# the pair axis its own dimension, no index in the generated loops divides by a symbolic size (an
# integer division per vector, which cost a fifth of the kernel's time here).
def _fused_interleaved(x4, cos, sin):
    work = x4.to(cos.dtype)
    x1, x2 = work[..., 0], work[..., 1]
    return torch.stack((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x4.dtype)


def _fused_half(x4, cos, sin):
    work = x4.to(cos.dtype)
    x1, x2 = work[..., 0, :], work[..., 1, :]
    return torch.stack((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-2).to(x4.dtype)


_FUSED = {"interleaved": _fused_interleaved, "half": _fused_half}
_COMPILED: dict[str, Callable] = {}  # layout -> torch.compile'd _FUSED[layout], made by warm_up


def _pair_view(x: torch.Tensor, layout: str) -> torch.Tensor:
    """x (..., seq, r) split into its pairs, the fused kernels' input: (batch, seq, pairs, 2) for the
    interleaved layout, (batch, seq, 2, pairs) for the half layout, with standard strides whatever x's
    leading dimensions were (a view when x is contiguous)."""
    seq, pairs = x.shape[-2], x.shape[-1] // 2
    return x.reshape(-1, seq, pairs, 2) if layout == "interleaved" else x.reshape(-1, seq, 2, pairs)


def compiled_ready(device, dtype: torch.dtype, layout: str) -> bool:
    """Whether warm_up has compiled the fused kernel for this device type, dtype and layout."""
    return (torch.device(device).type, dtype, layout) in _warm


def _rope_compiled(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor | None:
    """The compiled branch of _rope_fast, or None where it cannot run without compiling: not warmed
    up for this device, dtype and layout, a non-contiguous x, an input the compiled code does not
    cover (the compiler is told to fail rather than compile), or a compilation in progress."""
    if not compiled_ready(x.device, x.dtype, layout) or not x.is_contiguous():
        return None
    if not _compile_lock.acquire(blocking=False):
        return None
    try:
        with torch.compiler.set_stance("fail_on_recompile"):
            return _COMPILED[layout](_pair_view(x, layout), cos.contiguous(), sin.contiguous()).view(x.shape)
    except RuntimeError:  # a guard miss: this input would need a new compilation
        return None
    finally:
        _compile_lock.release()


def _rope_fast(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """Rotate x (..., seq, r) with tables cos, sin (seq, r/2) in float32 (float64 for float64 x);
    the result has x's dtype. Large inputs take the compiled kernel once it is warm. Arguments unchecked:
    the path of apply_rope, apply_rotary and the axial RoPE after their checks."""
    if x.numel() >= COMPILED_MIN_ELEMENTS:
        out = _rope_compiled(x, cos, sin, layout)
        if out is not None:
            return out
    return _rope_eager(x, cos, sin, layout)


def rotate_first(kernel: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, str], torch.Tensor], x: torch.Tensor,
                 cos: torch.Tensor, sin: torch.Tensor, layout: str, rotary_dim: int) -> torch.Tensor:
    """`kernel` (_rope_fast or _rope_eager) on the first rotary_dim coordinates of x, the rest passed through."""
    if rotary_dim == x.shape[-1]:
        return kernel(x, cos, sin, layout)
    return torch.cat((kernel(x[..., :rotary_dim], cos, sin, layout), x[..., rotary_dim:]), dim=-1)


def rope_fast(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """x (..., seq, dim) with its first 2 * cos.shape[-1] coordinates turned by the tables cos, sin (seq, r/2),
    float32 (float64 for float64 x), and the rest passed through; the result has x's dtype. Large inputs take
    the compiled kernel once it is warm. Arguments are checked by rope_viz._checks.check_rotation, as
    apply_rope's are."""
    return rotate_first(_rope_fast, x, cos, sin, layout, check_rotation(x, layout, tables=(cos, sin)))


def rope_eager(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """The eager branch of rope_fast (same arguments, checks and result)."""
    return rotate_first(_rope_eager, x, cos, sin, layout, check_rotation(x, layout, tables=(cos, sin)))


def rope_compiled(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor | None:
    """The compiled branch of rope_fast (same arguments and checks), or None where it cannot run without
    compiling (see _rope_compiled; also tables that cover only part of x's rows)."""
    rotary_dim = check_rotation(x, layout, tables=(cos, sin))
    return _rope_compiled(x, cos, sin, layout) if rotary_dim == x.shape[-1] else None


def warm_up(device=None, dtypes=None) -> bool:
    """Compile the fused kernels on `device` (default CPU) for each dtype (default float32, plus
    bfloat16 on CUDA) and each layout where they beat the eager branch, then let rope_fast use
    them. Blocks for the compilation (seconds); safe to run in a background thread, since calls
    meanwhile run eagerly. Returns True when every kernel compiled and matched the eager branch;
    False (never an exception) where torch.compile is unavailable or fails here, and rope_fast
    then stays eager."""
    device = torch.device(device or "cpu")
    if dtypes is None:
        dtypes = (torch.float32, torch.bfloat16) if device.type == "cuda" else (torch.float32,)
    ok = True
    with _compile_lock:
        for layout in _FUSED:
            for dtype in dtypes:
                if _compiled_pays(device.type, dtype, layout) and (device.type, dtype, layout) not in _warm:
                    ok = _compile_one(device, dtype, layout) and ok
    return ok


def _compiled_pays(device_type: str, dtype: torch.dtype, layout: str) -> bool:
    """Whether the compiled kernel beats the eager branch (see the module docstring)."""
    return not (device_type == "cpu" and layout == "interleaved" and dtype in (torch.float32, torch.float64))


def _compile_one(device: torch.device, dtype: torch.dtype, layout: str) -> bool:
    table_dtype = torch.float64 if dtype == torch.float64 else torch.float32
    # Distinct sizes, none 0 or 1, so that no dimension is specialised to a constant.
    x = torch.randn(3, 5, 14, device=device).to(dtype)
    x4 = _pair_view(x, layout).clone()  # its own tensor, not a view, as the marks below need
    cos, sin = (torch.randn(5, 7, device=device, dtype=table_dtype) for _ in range(2))  # not views
    try:
        from torch._dynamo.decorators import mark_static, mark_unbacked  # imported here: seconds to load

        if layout not in _COMPILED:
            _COMPILED[layout] = torch.compile(_FUSED[layout], dynamic=True, fullgraph=True)
        mark_unbacked(x4, 0)  # one kernel for any number of rows, 1 included
        mark_static(x4, 3 if layout == "interleaved" else 2)  # the pair axis is always 2
        got = _COMPILED[layout](x4, cos, sin).view(x.shape)
    except Exception:  # noqa: BLE001 - no compiler, no backend, an unsupported device: stay eager
        return False
    expected = _rope_eager(x, cos, sin, layout)
    if not torch.allclose(got.to(table_dtype), expected.to(table_dtype), rtol=1e-2, atol=1e-2):
        return False
    _warm.add((device.type, dtype, layout))
    return True
