"""Long-term decay: RoFormer's upper bound and measured mean scores against relative distance."""

from __future__ import annotations

import torch

from ._checks import as_positions, check_base, check_budget, check_dim, check_int
from .frequencies import inv_freq
from .rotary import apply_rope


def decay_bound(dim: int, base: float, distances) -> torch.Tensor:
    """(1/(d/2)) * sum_{j=1..d/2} |S_j| with S_j = sum_{k<j} e^{i r theta_k}, for each distance r.

    This is the factor left after Abel summation bounds |q^T R_r k|; it equals (d/2 + 1)/2 at r = 0.
    """
    dim = check_dim(dim)
    base = check_base(base)
    r = as_positions(distances, name="distances")
    check_budget(r.numel() * dim, "decay_bound")
    phase = torch.outer(r, inv_freq(dim, base, dtype=torch.float64))
    partial_sums = torch.polar(torch.ones_like(phase), phase).cumsum(dim=-1)
    return partial_sums.abs().mean(dim=-1)


def empirical_decay(dim: int, base: float, distances, *, samples: int = 64, tied: bool = False,
                    seed: int = 0) -> torch.Tensor:
    """Mean of q . R_r k over random q, k with entries uniform in [0, 1) (tied=True: q = k).

    Positive-mean entries are the usual picture of "related" vectors; zero-mean ones average to 0.
    """
    dim = check_dim(dim)
    samples = check_int(samples, "samples", minimum=1)
    r = as_positions(distances, name="distances")
    check_budget(samples * r.numel() * dim, "empirical_decay")
    gen = torch.Generator().manual_seed(int(seed))
    q = torch.rand(samples, dim, generator=gen, dtype=torch.float64)
    k = q if tied else torch.rand(samples, dim, generator=gen, dtype=torch.float64)
    k_rot = apply_rope(k[:, None, :].expand(samples, r.numel(), dim), r, base=base)
    return torch.einsum("sd,srd->r", q, k_rot) / samples
