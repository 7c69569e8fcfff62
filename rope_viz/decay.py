"""Long-term decay: RoFormer's upper bound and measured mean scores against relative distance."""

from __future__ import annotations

import math

import torch

from ._checks import as_positions, check_budget, check_dim, check_int, check_positive
from .frequencies import inv_freq
from .rotary import apply_rope


def decay_bound(dim: int, base: float, distances) -> torch.Tensor:
    """(1/(d/2)) * sum_{j=1..d/2} |S_j| with S_j = sum_{k<j} e^{i r theta_k}, for each distance r.

    This is the factor left after Abel summation bounds |q^T R_r k|; it equals (d/2 + 1)/2 at r = 0.
    """
    dim = check_dim(dim)
    base = check_positive(base, "base")
    r = as_positions(distances, name="distances")
    check_budget(r.numel() * dim, "decay_bound")
    phase = torch.outer(r, inv_freq(dim, base, dtype=torch.float64))
    partial_sums = torch.polar(torch.ones_like(phase), phase).cumsum(dim=-1)
    return partial_sums.abs().mean(dim=-1)


def random_query_keys(samples: int, dim: int, *, tied: bool = False, seed: int = 0):
    """`samples` queries and keys with entries uniform in [0, 1), float64 (tied=True: the keys are the
    queries): the random pairs whose mean score the decay curves average."""
    gen = torch.Generator().manual_seed(int(seed))
    q = torch.rand(samples, dim, generator=gen, dtype=torch.float64)
    return q, q if tied else torch.rand(samples, dim, generator=gen, dtype=torch.float64)


def empirical_decay(dim: int, base: float, distances, *, samples: int = 64, tied: bool = False,
                    seed: int = 0, inv_freq=None) -> torch.Tensor:
    """Mean of q . R_r k over random q, k with entries uniform in [0, 1) (tied=True: q = k).

    Positive-mean entries are the usual picture of "related" vectors; zero-mean ones average to 0.
    inv_freq: explicit frequencies (dim/2 of them, e.g. a scaled RoPE's from
    `rope_viz.scaling.scaled_inv_freq`) instead of base^(-2i/dim).
    """
    dim = check_dim(dim)
    samples = check_int(samples, "samples", minimum=1)
    r = as_positions(distances, name="distances")
    check_budget(samples * r.numel() * dim, "empirical_decay")
    q, k = random_query_keys(samples, dim, tied=tied, seed=seed)
    k_rot = apply_rope(k[:, None, :].expand(samples, r.numel(), dim), r, base=base, inv_freq=inv_freq)
    return torch.einsum("sd,srd->r", q, k_rot) / samples


def distance_grid(max_distance: int, points: int, *, log: bool = False) -> torch.Tensor:
    """At most `points` distinct integer distances from 0 to max_distance (both included), float64.

    Every integer when they fit; otherwise evenly spaced, or (log=True) geometrically spaced from 1
    so that a log-scaled axis is covered evenly, with 0 kept in front.
    """
    max_distance = check_int(max_distance, "max_distance", minimum=1)
    points = check_int(points, "points", minimum=2)
    check_budget(min(max_distance + 1, points), "distance_grid")
    if max_distance + 1 <= points:
        return torch.arange(max_distance + 1, dtype=torch.float64)
    if log:
        spread = torch.logspace(0, math.log10(max_distance), points - 1, dtype=torch.float64)
        grid = torch.cat([torch.zeros(1, dtype=torch.float64), spread])
    else:
        grid = torch.linspace(0, max_distance, points, dtype=torch.float64)
    return grid.round().unique()


def count_rises(values, *, rel_tol: float = 1e-9) -> int:
    """How many consecutive steps of a 1-D curve go up by more than rel_tol * max|values|.

    For decay_bound over consecutive distances this measures the ripple: a monotone decay gives 0.
    The tolerance keeps rounding noise on a flat curve (d = 2 gives the constant 1) from counting.
    """
    curve = torch.as_tensor(values, dtype=torch.float64)
    if curve.dim() != 1:
        raise ValueError(f"values must be a 1-D sequence of numbers, got shape {tuple(curve.shape)}")
    if not bool(torch.isfinite(curve).all()):
        raise ValueError("values must be finite numbers; got NaN or infinity")
    if not 0 <= rel_tol < 1:
        raise ValueError(f"rel_tol must be in [0, 1), got {rel_tol!r}")
    if curve.numel() < 2:
        return 0
    return int((curve.diff() > rel_tol * curve.abs().max()).sum())
