"""Rotary position embedding: the dense rotation matrix and four equal ways to apply it.

Pair i of a vector (coordinates (2i, 2i+1) in the interleaved layout, (i, i + r/2) in the
half layout) is turned by the angle m * theta_i at position m. Every method below computes
the same thing; they differ only in cost.
"""

from __future__ import annotations

import torch

from . import kernels
from ._checks import (
    as_positions,
    check_base,
    check_budget,
    check_choice,
    check_dim,
    check_layout,
    check_rotary_dim,
)
from .frequencies import cos_sin, pair_indices, rope_tables

METHODS = ("matrix", "pairs", "complex", "fast")


def rotation_matrices(positions, dim: int, base: float = 10000.0, *, layout: str = "interleaved",
                      dtype=torch.float32, device=None) -> torch.Tensor:
    """R_{Theta,m} for every position m: (len(positions), dim, dim)."""
    dim = check_dim(dim)
    base = check_base(base)
    check_layout(layout)
    pos = as_positions(positions)
    check_budget(pos.numel() * dim * dim, "rotation_matrices")
    cos, sin = cos_sin(pos, dim, base, torch.float64, "cpu")
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


def _check_input(x, positions, base, layout, method, rotary_dim):
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"x must be a torch.Tensor shaped (..., seq, dim), got {type(x).__name__}")
    if x.dim() < 2:
        raise ValueError(f"x must have at least 2 dimensions (..., seq, dim), got shape {tuple(x.shape)}")
    if not x.is_floating_point():
        raise ValueError(f"x must be a floating-point tensor, got dtype {x.dtype}")
    dim = check_dim(x.shape[-1], "x.shape[-1] (dim)")
    base = check_base(base)
    check_layout(layout)
    check_choice(method, "method", METHODS)
    rotary_dim = check_rotary_dim(rotary_dim, dim)
    seq = x.shape[-2]
    if positions is not None:
        positions = as_positions(positions, seq)
    if method == "matrix":
        check_budget(seq * rotary_dim * rotary_dim, "apply_rope(method='matrix')")
    check_budget(x.numel(), "apply_rope")
    return seq, rotary_dim, base, positions


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


def _by_matrix(x, positions, base, layout):
    seq, dim = x.shape[-2], x.shape[-1]
    pos = as_positions(positions, seq)
    mats = rotation_matrices(pos, dim, base, layout=layout, dtype=x.dtype, device=x.device)
    return (mats @ x.unsqueeze(-1)).squeeze(-1)


def _by_pairs(x, positions, base, layout):
    cos, sin = rope_tables(positions, x.shape[-2], x.shape[-1], base, x.dtype, x.device)
    return x * _expand_table(cos, layout) + _rotate_partner(x, layout) * _expand_table(sin, layout)


def _by_complex(x, positions, base, layout):
    cos, sin = rope_tables(positions, x.shape[-2], x.shape[-1], base, x.dtype, x.device)
    rotor = torch.complex(cos, sin)
    if layout == "interleaved":
        z = torch.view_as_complex(x.unflatten(-1, (-1, 2)).contiguous())
        return torch.view_as_real(z * rotor).flatten(-2)
    half = x.shape[-1] // 2
    z = torch.complex(x[..., :half], x[..., half:]) * rotor
    return torch.cat((z.real, z.imag), dim=-1)


def _by_fast(x, positions, base, layout):
    table_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = rope_tables(positions, x.shape[-2], x.shape[-1], base, table_dtype, x.device)
    return kernels.rope_fast(x, cos, sin, layout)


_METHODS = {"matrix": _by_matrix, "pairs": _by_pairs, "complex": _by_complex, "fast": _by_fast}


def apply_rope(x: torch.Tensor, positions=None, *, base: float = 10000.0, layout: str = "interleaved",
               method: str = "fast", rotary_dim: int | None = None) -> torch.Tensor:
    """Rotate every pair of x (..., seq, dim) by position * theta_i.

    positions: one (possibly fractional) position per row of the sequence; default 0..seq-1.
    layout: "interleaved" pairs (2i, 2i+1) as in the paper; "half" pairs (i, i + r/2) as in
        GPT-NeoX and Hugging Face's rotate_half.
    method: "matrix" (R_m x), "pairs" (x*cos + partner*sin), "complex" (x * e^{i m theta}),
        "fast" (the quickest correct path for the device). All agree to rounding error.
    rotary_dim: rotate only the first r coordinates and pass the rest through unchanged.
    """
    seq, rotary_dim, base, positions = _check_input(x, positions, base, layout, method, rotary_dim)
    compute = x if x.dtype in (torch.float32, torch.float64) or method == "fast" else x.float()
    rotated = _METHODS[method](compute[..., :rotary_dim], positions, base, layout)
    if rotary_dim < x.shape[-1]:
        rotated = torch.cat((rotated.to(x.dtype), x[..., rotary_dim:]), dim=-1)
    return rotated.to(x.dtype)
