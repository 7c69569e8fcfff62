"""Attention scores under RoPE, the additive sinusoidal encoding and no encoding, and the
measurements that tell them apart (shift residual, Toeplitz deviation, four-term split)."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from ._checks import as_positions, check_budget, check_choice, check_int, check_real
from .rotary import apply_rope
from .sinusoidal import sinusoidal_at

ENCODINGS = ("rope", "sinusoidal", "none")
FEATURE_MAPS = {"elu": lambda t: F.elu(t) + 1.0, "relu": F.relu}


def _check_tensor(t, name: str, ndim: int | None = None) -> torch.Tensor:
    if not isinstance(t, torch.Tensor) or not t.is_floating_point():
        raise ValueError(f"{name} must be a floating-point torch.Tensor, got {type(t).__name__}")
    if ndim is not None and t.dim() != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(t.shape)}")
    return t


def _check_projections(x, w_q, w_k):
    _check_tensor(x, "x")
    if x.dim() < 2:
        raise ValueError(f"x must be shaped (..., seq, d_model), got shape {tuple(x.shape)}")
    _check_tensor(w_q, "w_q", 2)
    _check_tensor(w_k, "w_k", 2)
    if w_q.shape != w_k.shape or w_q.shape[0] != x.shape[-1]:
        raise ValueError(
            f"w_q and w_k must both be (d_model={x.shape[-1]}, d_head); "
            f"got {tuple(w_q.shape)} and {tuple(w_k.shape)}"
        )
    check_budget(x.shape[-2] ** 2 * max(1, x.numel() // (x.shape[-2] * x.shape[-1])), "attention scores")


def rope_scores(q, k, query_positions=None, key_positions=None, *, base: float = 10000.0,
                layout: str = "interleaved") -> torch.Tensor:
    """(R_m q_m) . (R_n k_n) for every query m and key n: (..., seq_q, seq_k)."""
    _check_tensor(q, "q")
    _check_tensor(k, "k")
    check_budget(q.shape[-2] * k.shape[-2], "rope_scores")
    q_rot = apply_rope(q, query_positions, base=base, layout=layout)
    k_rot = apply_rope(k, key_positions, base=base, layout=layout)
    return q_rot @ k_rot.transpose(-1, -2)


def encoded_scores(x, w_q, w_k, *, encoding: str = "rope", positions=None, base: float = 10000.0,
                   layout: str = "interleaved") -> torch.Tensor:
    """Logits q_m . k_n for tokens x (..., seq, d_model) with projections w_q, w_k (d_model, d_head).

    rope: rotate q = x W_q and k = x W_k by their positions.
    sinusoidal: add PE(position) to x before both projections.
    none: no position information at all.
    """
    check_choice(encoding, "encoding", ENCODINGS)
    _check_projections(x, w_q, w_k)
    seq = x.shape[-2]
    if encoding == "sinusoidal":
        h = x + sinusoidal_at(as_positions(positions, seq), x.shape[-1], base, dtype=x.dtype, device=x.device)
        return (h @ w_q) @ (h @ w_k).transpose(-1, -2)
    q, k = x @ w_q, x @ w_k
    if encoding == "rope":
        return rope_scores(q, k, positions, positions, base=base, layout=layout)
    return q @ k.transpose(-1, -2)


def additive_decomposition(x, pe, w_q, w_k) -> dict[str, torch.Tensor]:
    """The four terms of (x_m + p_m) W_q W_k^T (x_n + p_n)^T; they add up to the full logits."""
    _check_projections(x, w_q, w_k)
    _check_tensor(pe, "pe")
    if pe.shape[-2:] != x.shape[-2:]:
        raise ValueError(f"pe must match x's last two dimensions {tuple(x.shape[-2:])}, got {tuple(pe.shape)}")
    xq, xk, pq, pk = x @ w_q, x @ w_k, pe @ w_q, pe @ w_k
    return {
        "content_content": xq @ xk.transpose(-1, -2),
        "content_position": xq @ pk.transpose(-1, -2),
        "position_content": pq @ xk.transpose(-1, -2),
        "position_position": pq @ pk.transpose(-1, -2),
    }


def shift_residual(x, w_q, w_k, shift: float, *, encoding: str = "rope", positions=None,
                   base: float = 10000.0, layout: str = "interleaved") -> torch.Tensor:
    """|A(m, n) - A(m + k, n + k)|: the same tokens scored at their positions and k steps later."""
    seq = x.shape[-2] if isinstance(x, torch.Tensor) and x.dim() >= 2 else 0
    pos = as_positions(positions, seq)
    check_real(shift, "shift")
    kwargs: dict[str, Any] = dict(encoding=encoding, base=base, layout=layout)
    before = encoded_scores(x, w_q, w_k, positions=pos, **kwargs)
    after = encoded_scores(x, w_q, w_k, positions=pos + float(shift), **kwargs)
    return (before - after).abs()


def _diagonal_index(n: int, device) -> torch.Tensor:
    """For an n x n matrix, the index m - n + (n - 1) of each entry's diagonal, flattened."""
    rows = torch.arange(n, device=device)
    return (rows[:, None] - rows[None, :] + (n - 1)).reshape(-1)


def _check_square(scores) -> torch.Tensor:
    _check_tensor(scores, "scores", 2)
    if scores.shape[0] != scores.shape[1] or scores.shape[0] == 0:
        raise ValueError(f"scores must be a non-empty square matrix, got shape {tuple(scores.shape)}")
    return scores


def diagonal_profile(scores) -> dict[str, torch.Tensor]:
    """Mean, min and max of the scores on each diagonal, indexed by offset m - n = -(n-1) .. n-1."""
    n = _check_square(scores).shape[0]
    index = _diagonal_index(n, scores.device)
    flat = scores.reshape(-1)
    size = 2 * n - 1

    def reduce(how: str) -> torch.Tensor:
        return torch.zeros(size, dtype=scores.dtype, device=scores.device).scatter_reduce(
            0, index, flat, reduce=how, include_self=False)

    return {
        "offset": torch.arange(-(n - 1), n, device=scores.device),
        "mean": reduce("mean"),
        "min": reduce("amin"),
        "max": reduce("amax"),
    }


def toeplitz_deviation(scores) -> float:
    """The largest spread (max - min) along any diagonal; 0 means the scores depend only on m - n."""
    profile = diagonal_profile(scores)
    return float((profile["max"] - profile["min"]).max())


def attention_weights(scores, *, causal: bool = False, scale: float = 1.0) -> torch.Tensor:
    """softmax(scale * scores) over keys; with causal=True a query m sees only keys n <= m."""
    _check_tensor(scores, "scores")
    logits = scores * scale
    if causal:
        m, n = scores.shape[-2:]
        mask = torch.ones(m, n, dtype=torch.bool, device=scores.device).tril()
        logits = logits.masked_fill(~mask, float("-inf"))
    return torch.softmax(logits, dim=-1)


def softmax_attention(q, k, v, positions=None, *, causal: bool = False, base: float = 10000.0,
                      layout: str = "interleaved", rope: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention with RoPE on q and k only; v is never rotated.

    Returns (weights (..., seq, seq), output (..., seq, d_v)).
    """
    _check_tensor(v, "v")
    if rope:
        scores = rope_scores(q, k, positions, positions, base=base, layout=layout)
    else:
        scores = q @ k.transpose(-1, -2)
    weights = attention_weights(scores, causal=causal, scale=1.0 / math.sqrt(q.shape[-1]))
    return weights, weights @ v


def linear_attention(q, k, v, positions=None, *, base: float = 10000.0, layout: str = "interleaved",
                     rope: bool = True, rotate_denominator: bool = False, feature_map: str = "elu"
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """Linear attention sum_j sim(q_i, k_j) v_j / sum_j sim(q_i, k_j) with sim = phi(q)^T phi(k).

    With rope=True the numerator uses the rotated features R_i phi(q_i), R_j phi(k_j) while the
    denominator keeps the unrotated, always-positive phi(q_i)^T phi(k_j) (rotate_denominator=True
    rotates it too, which can make it zero or negative). Computed in O(seq * d^2) without ever
    forming the seq x seq matrix. Returns (output (..., seq, d_v), denominator (..., seq)).
    """
    for t, name in ((q, "q"), (k, "k"), (v, "v")):
        _check_tensor(t, name)
    check_choice(feature_map, "feature_map", tuple(FEATURE_MAPS))
    phi = FEATURE_MAPS[feature_map]
    fq, fk = phi(q), phi(k)
    nq, nk = fq, fk
    if rope:
        nq = apply_rope(fq, positions, base=base, layout=layout)
        nk = apply_rope(fk, positions, base=base, layout=layout)
    numerator = nq @ (nk.transpose(-1, -2) @ v)
    dq, dk = (nq, nk) if rotate_denominator else (fq, fk)
    denominator = dq @ dk.sum(dim=-2).unsqueeze(-1)
    return numerator / denominator, denominator.squeeze(-1)


def random_tokens(seq: int, dim: int, *, same: bool = False, seed: int = 0, dtype=torch.float32,
                  device=None) -> torch.Tensor:
    """Reproducible standard-normal content vectors (seq, dim); same=True repeats one vector."""
    seq = check_int(seq, "seq", minimum=1)
    dim = check_int(dim, "dim", minimum=1)
    check_budget(seq * dim, "random_tokens")
    gen = torch.Generator().manual_seed(int(seed))
    rows = 1 if same else seq
    x = torch.randn(rows, dim, generator=gen, dtype=torch.float64).expand(seq, dim)
    return x.to(dtype=dtype, device=device).contiguous()


# Added to the seed of the projections (the CPU generator keeps 32 bits of a seed), so that
# random_projections(seed=s) never repeats the draws of random_tokens(seed=s).
_PROJECTION_STREAM = 0x9E3779B9


def random_projections(d_model: int, d_head: int, *, seed: int = 0, dtype=torch.float32, device=None
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """Reproducible query and key projections W_q, W_k, each (d_model, d_head), with independent
    N(0, 1/d_model) entries, so x W keeps the scale of a standard-normal x. They are drawn from a
    stream of their own: random_tokens(..., seed=s) and random_projections(..., seed=s) are unrelated."""
    d_model = check_int(d_model, "d_model", minimum=1)
    d_head = check_int(d_head, "d_head", minimum=1)
    check_budget(2 * d_model * d_head, "random_projections")
    gen = torch.Generator().manual_seed((int(seed) + _PROJECTION_STREAM) % (1 << 32))
    w = torch.randn(2, d_model, d_head, generator=gen, dtype=torch.float64) / math.sqrt(d_model)
    w = w.to(dtype=dtype, device=device)
    return w[0], w[1]


def dot_product_scale(d_head: int) -> float:
    """1 / sqrt(d_head): the factor scaled dot-product attention multiplies its logits by."""
    return 1.0 / math.sqrt(check_int(d_head, "d_head", minimum=1))


def depends_only_on_offset(scores, *, rtol: float = 1e-4) -> bool:
    """Whether a square score matrix is Toeplitz (a function of m - n alone) up to rounding:
    its toeplitz_deviation is at most rtol times its largest absolute entry."""
    rtol = check_real(rtol, "rtol", at_least=0)
    return toeplitz_deviation(scores) <= rtol * float(scores.abs().max())


def encoded_norms(x, positions=None, *, base: float = 10000.0, layout: str = "interleaved"
                  ) -> dict[str, torch.Tensor]:
    """The length of each token x_m (..., seq, dim) after encoding its position m:
    "rope" |R_m x_m| (a rotation: equal to |x_m|), "sinusoidal" |x_m + PE(m)| (changes with m),
    "none" |x_m|. Each is (..., seq)."""
    _check_tensor(x, "x")
    if x.dim() < 2:
        raise ValueError(f"x must be shaped (..., seq, dim), got shape {tuple(x.shape)}")
    pos = as_positions(positions, x.shape[-2])
    pe = sinusoidal_at(pos, x.shape[-1], base, dtype=x.dtype, device=x.device)
    return {
        "rope": apply_rope(x, pos, base=base, layout=layout).norm(dim=-1),
        "sinusoidal": (x + pe).norm(dim=-1),
        "none": x.norm(dim=-1),
    }


def attention_costs(seq_lens, dim: int, d_v: int | None = None) -> dict[str, torch.Tensor]:
    """Multiply-adds in the matrix products of one attention head, for each sequence length n (float64).

    softmax: Q K^T (n * n * d), then weights @ V (n * n * d_v): n^2 (d + d_v), quadratic in n.
    linear: K^T V (n * d * d_v), Q (K^T V) (n * d * d_v), sum_j phi(k_j) and phi(q_i) . sum (n * d each):
    2 n d (d_v + 1), linear in n. Feature maps, rotations and the softmax itself cost O(n d) or
    O(n^2) alike in both and are left out.
    """
    dim = check_int(dim, "dim", minimum=1)
    d_v = dim if d_v is None else check_int(d_v, "d_v", minimum=1)
    n = as_positions(seq_lens, name="seq_lens")
    if bool((n < 0).any()):
        raise ValueError("seq_lens must be lengths >= 0")
    return {"softmax": n * n * (dim + d_v), "linear": 2 * n * dim * (d_v + 1)}


def random_attention_inputs(seq: int, dim: int, *, same: bool = False, seed: int = 0, dtype=torch.float32,
                            device=None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Tokens x (seq, dim) from random_tokens and square projections W_q, W_k (dim, dim) from
    random_projections, all from one seed: the inputs of encoded_scores and shift_residual."""
    x = random_tokens(seq, dim, same=same, seed=seed, dtype=dtype, device=device)
    return (x, *random_projections(dim, dim, seed=seed, dtype=dtype, device=device))
