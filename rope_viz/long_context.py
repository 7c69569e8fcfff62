"""RoPE past its trained length: what each scaling method does to each pair, which angles a model
never saw in training, how sharp softmax stays, and the dynamic-NTK cache mismatch.

Notation as in `rope_viz.scaling`: theta_i the unscaled frequencies, theta_i' the scaled ones, L the
original (trained) context, T the target length, s the scaling factor.
"""

from __future__ import annotations

import math

import torch

from ._checks import as_positions, check_budget, check_dim, check_int, check_positive
from .decay import random_query_keys
from .rotary import apply_rope

FULL_TURN = 2 * math.pi


def _vector(values, name: str) -> torch.Tensor:
    out = torch.as_tensor(values, dtype=torch.float64)
    if out.dim() != 1 or out.numel() == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of numbers, got shape {tuple(out.shape)}")
    if not bool(torch.isfinite(out).all()) or bool((out <= 0).any()):
        raise ValueError(f"{name} must hold finite numbers > 0")
    return out


def scale_factors(inv_freq, scaled_inv_freq) -> torch.Tensor:
    """theta_i / theta_i' per pair: 1 where a method leaves the pair alone, s where it interpolates it
    fully (every position m is read as m / s), in between where it blends."""
    theta = _vector(inv_freq, "inv_freq")
    scaled = _vector(scaled_inv_freq, "scaled_inv_freq")
    if theta.shape != scaled.shape:
        raise ValueError(f"inv_freq and scaled_inv_freq must have the same length, got {theta.numel()} "
                         f"and {scaled.numel()}")
    return theta / scaled


def pair_bands(factors, factor: float, *, rel_tol: float = 1e-6) -> dict[str, list[int]]:
    """Pairs sorted into "kept" (factor 1), "interpolated" (factor s) and "blended" (anything else),
    each a list of pair indices. With s = 1 every pair counts as kept."""
    ratio = _vector(factors, "factors")
    factor = check_positive(factor, "factor")
    kept = (ratio - 1).abs() <= rel_tol
    interpolated = ((ratio / factor - 1).abs() <= rel_tol) & ~kept
    blended = ~kept & ~interpolated
    return {name: torch.nonzero(mask).flatten().tolist()
            for name, mask in (("kept", kept), ("interpolated", interpolated), ("blended", blended))}


def largest_angles(inv_freq, length: int) -> torch.Tensor:
    """The largest angle each pair reaches over `length` positions, length * theta_i, capped at one full
    turn (2 pi): past a full turn every angle of the circle has been visited."""
    theta = _vector(inv_freq, "inv_freq")
    length = check_int(length, "length", minimum=1)
    return (length * theta).clamp(max=FULL_TURN)


def unseen_pairs(trained_inv_freq, trained_length: int, inv_freq, length: int, *,
                 rel_tol: float = 1e-9) -> torch.Tensor:
    """Which pairs turn further at `length` with `inv_freq` than they ever did in training (bool per pair):
    their capped largest angle exceeds the capped largest angle of training."""
    trained = largest_angles(trained_inv_freq, trained_length)
    reached = largest_angles(inv_freq, length)
    if trained.shape != reached.shape:
        raise ValueError(f"trained_inv_freq and inv_freq must have the same length, got {trained.numel()} "
                         f"and {reached.numel()}")
    return reached > trained * (1 + rel_tol)


def softmax_entropy(scores, *, dim: int = -1) -> torch.Tensor:
    """Entropy (in nats) of softmax(scores) along `dim`: log n for a flat row, 0 for a one-hot one."""
    logits = torch.as_tensor(scores, dtype=torch.float64)
    log_p = torch.log_softmax(logits, dim=dim)
    return -(log_p.exp() * log_p).sum(dim=dim)


def row_scores(dim: int, query_position: int, key_positions, inv_freq, *, attention_factor: float = 1.0,
               seed: int = 0) -> torch.Tensor:
    """Logits q.k / sqrt(d) of one random query at `query_position` against random keys at
    `key_positions` (standard-normal entries), both rotated with `inv_freq` and cos/sin multiplied by
    `attention_factor` (so every logit is scaled by its square), float64."""
    dim = check_dim(dim)
    keys = as_positions(key_positions, name="key_positions")
    check_budget(keys.numel() * dim, "row_scores")
    gen = torch.Generator().manual_seed(int(seed))
    q = torch.randn(1, dim, generator=gen, dtype=torch.float64)
    k = torch.randn(keys.numel(), dim, generator=gen, dtype=torch.float64)
    q_rot = apply_rope(q, [float(query_position)], inv_freq=inv_freq, attention_factor=attention_factor)
    k_rot = apply_rope(k, keys, inv_freq=inv_freq, attention_factor=attention_factor)
    return (k_rot @ q_rot[0]) / math.sqrt(dim)


def mixed_frequency_scores(dim: int, query_position: int, key_positions, query_inv_freq, key_inv_freq, *,
                           samples: int = 64, tied: bool = False, seed: int = 0) -> torch.Tensor:
    """Mean score (R_m q) . (R_n k) over random q, k (entries uniform in [0, 1), tied: q = k) when the
    query at m is rotated with `query_inv_freq` and the keys at n with `key_inv_freq`, as in a key cache
    filled under dynamic NTK at a shorter length. Equal frequencies give empirical_decay at m - n."""
    dim = check_dim(dim)
    samples = check_int(samples, "samples", minimum=1)
    keys = as_positions(key_positions, name="key_positions")
    check_budget(samples * keys.numel() * dim, "mixed_frequency_scores")
    q, k = random_query_keys(samples, dim, tied=tied, seed=seed)
    q_rot = apply_rope(q[:, None, :], [float(query_position)], inv_freq=query_inv_freq)[:, 0]
    k_rot = apply_rope(k[:, None, :].expand(samples, keys.numel(), dim), keys, inv_freq=key_inv_freq)
    return torch.einsum("sd,srd->r", q_rot, k_rot) / samples
