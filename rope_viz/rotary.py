"""Rotary position embedding: the dense rotation matrix and four equal ways to apply it.

Pair i of a vector (coordinates (2i, 2i+1) in the interleaved layout, (i, i + r/2) in the
half layout) is turned by the angle m * theta_i at position m. Every method below computes
the same thing; they differ only in cost.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch

from . import kernels
from ._checks import (as_positions, check_budget, check_choice, check_dim, check_int, check_inv_freq, check_layout,
                      check_positive, check_rotation, check_rotation_qk)
from .frequencies import cos_sin, pair_indices, rope_tables
from .scaling import scaled_inv_freq

METHODS = ("matrix", "pairs", "complex", "fast")


def rotation_matrices(positions, dim: int, base: float = 10000.0, *, layout: str = "interleaved",
                      dtype=torch.float32, device=None, inv_freq=None,
                      attention_factor: float = 1.0) -> torch.Tensor:
    """R_{Theta,m} for every position m: (len(positions), dim, dim).

    inv_freq: explicit frequencies (dim/2 of them, e.g. scaled ones) instead of base^(-2i/dim);
    attention_factor: multiplies every entry (scaled RoPE's cos/sin factor; 1 is a pure rotation).
    """
    dim = check_dim(dim)
    base = check_positive(base, "base")
    check_layout(layout)
    if inv_freq is not None:
        inv_freq = check_inv_freq(inv_freq, dim)
    attention_factor = check_positive(attention_factor, "attention_factor")
    pos = as_positions(positions)
    check_budget(pos.numel() * dim * dim, "rotation_matrices")
    cos, sin = cos_sin(pos, dim, base, torch.float64, "cpu", inv_freq=inv_freq, scale=attention_factor)
    first, second = pair_indices(dim, layout)
    mats = torch.zeros(pos.numel(), dim, dim, dtype=torch.float64)
    mats[:, first, first] = cos
    mats[:, first, second] = -sin
    mats[:, second, first] = sin
    mats[:, second, second] = cos
    return mats.to(dtype=dtype, device=device)


def rotation_matrix(position, dim: int, base: float = 10000.0, *, layout: str = "interleaved",
                    dtype=torch.float32, device=None) -> torch.Tensor:
    """The dense block-diagonal R_{Theta,m} (dim x dim): a 2x2 rotation by m * theta_i on each pair."""
    pos = as_positions(position, 1, name="position")
    return rotation_matrices(pos, dim, base, layout=layout, dtype=dtype, device=device)[0]


def _rotate_partner(x: torch.Tensor, layout: str) -> torch.Tensor:
    """The partner of each coordinate with the sign of the rotation: (-x2, x1) on every pair."""
    if layout == "interleaved":
        pairs = x.unflatten(-1, (-1, 2))
        return torch.stack((-pairs[..., 1], pairs[..., 0]), dim=-1).flatten(-2)
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def _expand_table(table: torch.Tensor, layout: str) -> torch.Tensor:
    """A (seq, r/2) cos or sin table spread to one entry per coordinate: (seq, r)."""
    if layout == "interleaved":
        return table.repeat_interleave(2, dim=-1)
    return torch.cat((table, table), dim=-1)


def _by_matrix(x, positions, base, layout, freqs, scale):
    seq, dim = x.shape[-2], x.shape[-1]
    pos = as_positions(positions, seq)
    mats = rotation_matrices(pos, dim, base, layout=layout, dtype=x.dtype, device=x.device, inv_freq=freqs,
                             attention_factor=scale)
    return (mats @ x.unsqueeze(-1)).squeeze(-1)


def _by_pairs(x, positions, base, layout, freqs, scale):
    cos, sin = rope_tables(positions, x.shape[-2], x.shape[-1], base, x.dtype, x.device, inv_freq=freqs,
                           scale=scale)
    return x * _expand_table(cos, layout) + _rotate_partner(x, layout) * _expand_table(sin, layout)


def _by_complex(x, positions, base, layout, freqs, scale):
    cos, sin = rope_tables(positions, x.shape[-2], x.shape[-1], base, x.dtype, x.device, inv_freq=freqs,
                           scale=scale)
    rotor = torch.complex(cos, sin)
    if layout == "interleaved":
        z = torch.view_as_complex(x.unflatten(-1, (-1, 2)).contiguous())
        return torch.view_as_real(z * rotor).flatten(-2)
    half = x.shape[-1] // 2
    z = torch.complex(x[..., :half], x[..., half:]) * rotor
    return torch.cat((z.real, z.imag), dim=-1)


def _by_fast(x, positions, base, layout, freqs, scale):
    table_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = rope_tables(positions, x.shape[-2], x.shape[-1], base, table_dtype, x.device, inv_freq=freqs,
                           scale=scale)
    return kernels._rope_fast(x, cos, sin, layout)


_METHODS = {"matrix": _by_matrix, "pairs": _by_pairs, "complex": _by_complex, "fast": _by_fast}


class _Rotation(NamedTuple):
    """apply_rope's arguments, checked: what every path rotates by."""
    seq: int
    rotary_dim: int
    positions: torch.Tensor | None  # float64, one per sequence row; None for 0..seq-1
    base: float
    layout: str
    method: str
    freqs: torch.Tensor | None  # explicit or scaled inv_freq; None for base^(-2i/r)
    scale: float  # the attention factor multiplying cos and sin


def _frequencies(positions, seq, rotary_dim, base, rope_scaling, max_position_embeddings, inv_freq,
                 attention_factor):
    """The (inv_freq or None, scale) pair that apply_rope rotates by."""
    if inv_freq is not None and rope_scaling is not None:
        raise ValueError("pass either rope_scaling or inv_freq, not both")
    if inv_freq is not None:
        scale = 1.0 if attention_factor is None else check_positive(attention_factor, "attention_factor")
        return check_inv_freq(inv_freq, rotary_dim), scale
    if attention_factor is not None:
        raise ValueError("attention_factor goes with an explicit inv_freq; rope_scaling sets its own")
    if rope_scaling is None:
        if max_position_embeddings is not None:
            check_int(max_position_embeddings, "max_position_embeddings", minimum=1)
        return None, 1.0
    # Hugging Face's sequence length for dynamic / longrope: the largest position + 1.
    if positions is None or positions.numel() == 0:
        seq_len = max(seq, 1)
    else:
        seq_len = max(int(math.floor(float(positions.max()))) + 1, 1)
    return scaled_inv_freq(rotary_dim, base, rope_scaling, max_position_embeddings=max_position_embeddings,
                           seq_len=seq_len)


def _checked(x, positions, base, layout, method, rotary_dim, rope_scaling, max_position_embeddings, inv_freq,
             attention_factor, k=None) -> _Rotation:
    """Every argument of apply_rope (of apply_rope_qk with k: x is then q) checked, before anything is rotated;
    x, layout and rotary_dim by check_rotation, as every other rotating entry checks them."""
    if k is None:
        rotary_dim = check_rotation(x, layout, rotary_dim=rotary_dim)
    else:
        rotary_dim = check_rotation_qk(x, k, layout, rotary_dim=rotary_dim)
    base = check_positive(base, "base")
    check_choice(method, "method", METHODS)
    seq = x.shape[-2]
    if positions is not None:
        positions = as_positions(positions, seq)
    if method == "matrix":
        check_budget(seq * rotary_dim * rotary_dim, "apply_rope(method='matrix')")
    freqs, scale = _frequencies(positions, seq, rotary_dim, base, rope_scaling, max_position_embeddings,
                                inv_freq, attention_factor)
    return _Rotation(seq, rotary_dim, positions, base, layout, method, freqs, scale)


def _rotate(x: torch.Tensor, r: _Rotation, inplace: bool) -> torch.Tensor:
    """apply_rope on arguments already checked."""
    if r.method == "fast" and x.is_cuda:
        from . import triton_rope  # imported where it can run: Triton compiles for the GPU at import

        if triton_rope.usable(x):
            cos, sin, rows = triton_rope.tables(r.positions, r.seq, r.rotary_dim, r.base, r.freqs, r.scale, x.device)
            done = triton_rope._rope_triton(x, cos, sin, r.layout, r.rotary_dim, x if inplace else None, rows)
            if done is not None:
                return done
    compute = x if x.dtype in (torch.float32, torch.float64) or r.method == "fast" else x.float()
    rotated = _METHODS[r.method](compute[..., :r.rotary_dim], r.positions, r.base, r.layout, r.freqs, r.scale)
    if inplace:
        x[..., :r.rotary_dim].copy_(rotated)
        return x
    if r.rotary_dim < x.shape[-1]:
        rotated = torch.cat((rotated.to(x.dtype), x[..., r.rotary_dim:]), dim=-1)
    return rotated.to(x.dtype)


def apply_rope(x: torch.Tensor, positions=None, *, base: float = 10000.0, layout: str = "interleaved",
               method: str = "fast", rotary_dim: int | None = None, rope_scaling=None,
               max_position_embeddings: int | None = None, inv_freq=None,
               attention_factor: float | None = None, inplace: bool = False) -> torch.Tensor:
    """Rotate every pair of x (..., seq, dim) by position * theta_i.

    positions: one (possibly fractional) position per row of the sequence; default 0..seq-1.
    layout: "interleaved" pairs (2i, 2i+1) as in the paper; "half" pairs (i, i + r/2) as in
        GPT-NeoX and Hugging Face's rotate_half.
    method: "matrix" (R_m x), "pairs" (x*cos + partner*sin), "complex" (x * e^{i m theta}),
        "fast" (the quickest correct path for the device). All agree to rounding error.
    rotary_dim: rotate only the first r coordinates and pass the rest through unchanged.
    rope_scaling: a Hugging Face rope_scaling dict (see rope_viz.scaling.scaled_inv_freq): theta_i
        become the scaled frequencies and the result is multiplied by the attention factor a,
        x' = a * (x cos(m theta_i') + partner * sin(m theta_i')), exactly Hugging Face's rotary step.
        Dynamic and LongRoPE read the sequence length as max(positions) + 1, as Hugging Face does.
    max_position_embeddings: the model's context length, for rope_scaling types that need it.
    inv_freq: explicit frequencies (rotary_dim/2 of them) instead of base^(-2i/r), with an optional
        attention_factor (default 1) multiplying cos and sin.
    inplace: write the result into x and return x (the fast path on CUDA rotates x where it lies;
        elsewhere the result is computed, then copied into x).

    On CUDA the fast path is one Triton kernel (rope_viz.triton_rope) for float32, bfloat16 and
    float16, any strides with a contiguous last dimension, partial rotary included.
    """
    r = _checked(x, positions, base, layout, method, rotary_dim, rope_scaling, max_position_embeddings,
                 inv_freq, attention_factor)
    return _rotate(x, r, inplace)


def apply_rope_qk(q: torch.Tensor, k: torch.Tensor, positions=None, *, base: float = 10000.0,
                  layout: str = "interleaved", method: str = "fast", rotary_dim: int | None = None,
                  rope_scaling=None, max_position_embeddings: int | None = None, inv_freq=None,
                  attention_factor: float | None = None, inplace: bool = False
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotate queries and keys in one call, as attention layers do: (apply_rope(q, ...), apply_rope(k, ...))
    with the same positions and options (apply_rope's). q and k may differ in every dimension but the last
    two (e.g. fewer key heads, as in grouped-query attention). On CUDA the fast path rotates both in one
    launch of the Triton kernel, from one pair of tables."""
    r = _checked(q, positions, base, layout, method, rotary_dim, rope_scaling, max_position_embeddings,
                 inv_freq, attention_factor, k=k)
    if method == "fast" and q.is_cuda and k.is_cuda and q.dtype == k.dtype and q.device == k.device:
        from . import triton_rope

        if triton_rope.usable(q):
            cos, sin, rows = triton_rope.tables(r.positions, r.seq, r.rotary_dim, r.base, r.freqs, r.scale, q.device)
            done = triton_rope._rope_triton_qk(q, k, cos, sin, layout, r.rotary_dim, inplace, rows)
            if done is not None:
                return done
    return _rotate(q, r, inplace), _rotate(k, r, inplace)
