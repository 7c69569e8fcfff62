"""The rotation speeds of RoPE: theta_i = base^(-2i/d) for the pair i = 0 .. d/2 - 1."""

from __future__ import annotations

import math
from functools import lru_cache

import torch

from ._checks import as_positions, check_budget, check_dim, check_layout, check_positive


def inv_freq(dim: int, base: float = 10000.0, *, dtype=torch.float32, device=None) -> torch.Tensor:
    """theta_i = base^(-2i/dim) for i = 0 .. dim/2 - 1 (radians per position step).

    Computed in float64 and then cast, so float32 callers get correctly rounded values.
    """
    dim = check_dim(dim)
    base = check_positive(base, "base")
    exponents = torch.arange(0, dim, 2, dtype=torch.float64) / dim
    return (base ** -exponents).to(dtype=dtype, device=device)


_plain_inv_freq = inv_freq  # for functions whose `inv_freq` argument shadows the name


def wavelengths(dim: int, base: float = 10000.0) -> torch.Tensor:
    """Positions per full turn of each pair, 2*pi / theta_i (float64)."""
    return 2 * math.pi / inv_freq(dim, base, dtype=torch.float64)


def angles(positions, dim: int, base: float = 10000.0) -> torch.Tensor:
    """The rotation angle m * theta_i of every pair at every position: (len(positions), dim/2), float64."""
    dim = check_dim(dim)
    pos = as_positions(positions)
    check_budget(pos.numel() * dim // 2, "angles")
    return torch.outer(pos, inv_freq(dim, base, dtype=torch.float64))


def wrapped_angles(positions, dim: int, base: float = 10000.0) -> torch.Tensor:
    """m * theta_i reduced to [0, 2*pi): where each clock hand points."""
    return torch.remainder(angles(positions, dim, base), 2 * math.pi)


def cos_sin(positions, rotary_dim: int, base: float, dtype, device, *, inv_freq=None, scale: float = 1.0):
    """scale * cos and scale * sin of m * theta_i for 1-D positions, each (len(positions), rotary_dim/2),
    computed in float64 then cast.

    theta_i = base^(-2i/rotary_dim) unless `inv_freq` (float64, rotary_dim/2 entries, e.g. from
    `rope_viz.scaling.scaled_inv_freq`) is given; `scale` is the attention factor of scaled RoPE
    (1 for plain RoPE), applied to both tables as Hugging Face does.
    """
    freqs = inv_freq if inv_freq is not None else _plain_inv_freq(rotary_dim, base, dtype=torch.float64)
    theta = torch.outer(as_positions(positions).cpu(), freqs)
    cos, sin = theta.cos(), theta.sin()
    if scale != 1.0:
        cos, sin = cos * scale, sin * scale
    return cos.to(dtype=dtype, device=device), sin.to(dtype=dtype, device=device)


@lru_cache(maxsize=32)
def _default_cos_sin(seq: int, rotary_dim: int, base: float, dtype, device: str):
    return cos_sin(torch.arange(seq, dtype=torch.float64), rotary_dim, base, dtype, device)


def rope_tables(positions, seq: int, rotary_dim: int, base: float, dtype, device, *, inv_freq=None,
                scale: float = 1.0):
    """cos/sin tables for a sequence (see cos_sin); plain RoPE at the default positions 0..seq-1 is
    cached."""
    if positions is None and inv_freq is None and scale == 1.0:
        return _default_cos_sin(seq, rotary_dim, float(base), dtype, str(device))
    pos = torch.arange(seq, dtype=torch.float64) if positions is None else as_positions(positions, seq)
    return cos_sin(pos, rotary_dim, base, dtype, device, inv_freq=inv_freq, scale=scale)


def layout_permutation(dim: int) -> torch.Tensor:
    """Index p with x_half = x_interleaved[..., p]: pair members (2i, 2i+1) move to (i, i + dim/2)."""
    dim = check_dim(dim)
    return torch.cat((torch.arange(0, dim, 2), torch.arange(1, dim, 2)))


def pair_indices(dim: int, layout: str = "interleaved") -> tuple[torch.Tensor, torch.Tensor]:
    """The two coordinates that form pair i: (2i, 2i+1) interleaved, (i, i + dim/2) half."""
    dim = check_dim(dim)
    check_layout(layout)
    half = dim // 2
    if layout == "interleaved":
        return torch.arange(0, dim, 2), torch.arange(1, dim, 2)
    return torch.arange(half), torch.arange(half, dim)
