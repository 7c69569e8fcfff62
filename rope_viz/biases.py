"""Relative-position biases that are added to attention scores instead of rotating q and k.

ALiBi (Press et al. 2021, "Train Short, Test Long"): each head h adds -slope_h * (m - n) to the
score of query m against key n, a straight line in the distance with a per-head slope.
"""

from __future__ import annotations

import math

import torch

from ._checks import check_budget, check_choice, check_int

ALIBI_VARIANTS = ("causal", "symmetric")


def alibi_slopes(num_heads: int, *, dtype=torch.float64, device=None) -> torch.Tensor:
    """ALiBi's per-head slopes, shape (num_heads,), as BLOOM's `build_alibi_tensor` computes them.

    For a power of two n = num_heads the slopes are the geometric sequence
    slope_h = 2^(-8h/n), h = 1..n (n = 8: 1/2, 1/4, ..., 1/256).
    Otherwise, with p the largest power of two below num_heads, the first p slopes are those of
    p heads, 2^(-8h/p) for h = 1..p, and the remaining num_heads - p slopes are the odd-indexed
    slopes of 2p heads, 2^(-8h/(2p)) for h = 1, 3, 5, ... (the paper's rule).
    Computed in float64, then cast to `dtype`.
    """
    num_heads = check_int(num_heads, "num_heads", minimum=1)
    closest = 2 ** int(math.floor(math.log2(num_heads)))
    heads = torch.arange(1, closest + 1, dtype=torch.float64)
    slopes = torch.pow(2.0, -8.0 * heads / closest)
    if closest != num_heads:
        extra = torch.arange(1, 2 * (num_heads - closest), 2, dtype=torch.float64)
        slopes = torch.cat((slopes, torch.pow(2.0, -8.0 * extra / (2 * closest))))
    return slopes.to(dtype=dtype, device=device)


def alibi_bias(num_heads: int, seq_len: int, key_len: int | None = None, *, variant: str = "causal",
               dtype=torch.float32, device=None) -> torch.Tensor:
    """The additive ALiBi bias, shape (num_heads, seq_len, key_len), for query m and key n.

    variant="causal" (the paper, for decoder models): bias[h, m, n] = -slope_h * (m - n); it is
        meant for keys n <= m (the causal mask hides n > m, where this formula turns positive).
    variant="symmetric" (the bidirectional variant): bias[h, m, n] = -slope_h * |m - n|.
    Queries sit at positions 0..seq_len-1 and keys at 0..key_len-1 (key_len defaults to seq_len).
    Computed in float64, then cast to `dtype`.
    """
    num_heads = check_int(num_heads, "num_heads", minimum=1)
    seq_len = check_int(seq_len, "seq_len", minimum=1)
    key_len = seq_len if key_len is None else check_int(key_len, "key_len", minimum=1)
    check_choice(variant, "variant", ALIBI_VARIANTS)
    check_budget(num_heads * seq_len * key_len, "alibi_bias")
    distance = (torch.arange(seq_len, dtype=torch.float64)[:, None]
                - torch.arange(key_len, dtype=torch.float64)[None, :])
    if variant == "symmetric":
        distance = distance.abs()
    bias = -alibi_slopes(num_heads)[:, None, None] * distance
    return bias.to(dtype=dtype, device=device)
