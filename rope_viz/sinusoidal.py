"""The additive sinusoidal encoding of "Attention Is All You Need"."""

from __future__ import annotations

import torch

from ._checks import as_positions, check_budget, check_dim, check_int
from .frequencies import inv_freq


def sinusoidal_at(positions, dim: int, base: float = 10000.0, *, dtype=torch.float32, device=None) -> torch.Tensor:
    """PE rows for arbitrary (even fractional) positions: column 2t is sin(m * theta_t), 2t+1 is cos."""
    dim = check_dim(dim)
    pos = as_positions(positions)
    check_budget(pos.numel() * dim, "sinusoidal_encoding")
    theta = torch.outer(pos, inv_freq(dim, base, dtype=torch.float64))
    pe = torch.stack((theta.sin(), theta.cos()), dim=-1).flatten(-2)
    return pe.to(dtype=dtype, device=device)


def sinusoidal_encoding(num_positions: int, dim: int, base: float = 10000.0, *, dtype=torch.float32,
                        device=None) -> torch.Tensor:
    """(num_positions, dim): even columns sin(i / base^(2t/d)), odd columns cos(i / base^(2t/d))."""
    num_positions = check_int(num_positions, "num_positions", minimum=1)
    dim = check_dim(dim)
    check_budget(num_positions * dim, "sinusoidal_encoding")
    return sinusoidal_at(torch.arange(num_positions), dim, base, dtype=dtype, device=device)
