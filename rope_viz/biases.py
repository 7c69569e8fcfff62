"""The relative-position family beside RoPE: additive biases, xPos and NoPE.

- ALiBi (Press et al. 2021, "Train Short, Test Long"): each head h adds -slope_h * (m - n) to the
  score of query m against key n, a straight line in the distance with a per-head slope.
- T5 (Raffel et al. 2020): the offset n - m falls into one of num_buckets buckets (exact for small
  offsets, logarithmic up to max_distance) and each bucket has a learned bias per head.
- xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer"): RoPE whose pair i is also scaled,
  queries by zeta_i^(m/scale_base) and keys by zeta_i^(-n/scale_base), so that the score of the
  pair carries zeta_i^((m-n)/scale_base): a per-pair exponential decay with distance.
- NoPE: no position information at all; only the causal mask orders the tokens.
"""

from __future__ import annotations

import math

import torch

from ._checks import (as_positions, check_budget, check_choice, check_dim, check_int, check_positive,
                      check_rotation)
from .decay import empirical_decay
from .frequencies import pair_indices
from .rotary import apply_rope

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
    bias = -alibi_slopes(num_heads)[:, None, None] * distance + 0.0  # + 0.0: no -0.0 on the diagonal
    return bias.to(dtype=dtype, device=device)


# --- T5 relative position buckets ------------------------------------------------------------

def t5_relative_position_bucket(relative_position, *, bidirectional: bool = True, num_buckets: int = 32,
                                max_distance: int = 128) -> torch.Tensor:
    """T5's bucket of each relative position (key position - query position), int64 in [0, num_buckets).

    As Mesh TensorFlow and transformers' T5Attention._relative_position_bucket define it:
    bidirectional=True gives half of the buckets to keys after the query (offset > 0) and the
    other half to the rest; bidirectional=False (decoders) maps every offset > 0 to bucket 0 and
    uses all buckets for the distance r = -offset >= 0. Within the N buckets left for a distance r,
    with E = N // 2: r < E gets bucket r (exact), otherwise
        E + floor(log(r / E) / log(max_distance / E) * (N - E)), capped at N - 1,
    so distances from max_distance on share the last bucket. The logarithm is taken in float32,
    as in the reference implementations, so bucket edges match trained checkpoints.
    """
    if not isinstance(bidirectional, bool):
        raise ValueError(f"bidirectional must be True or False, got {bidirectional!r}")
    num_buckets = check_int(num_buckets, "num_buckets", minimum=2 if not bidirectional else 4)
    max_distance = check_int(max_distance, "max_distance", minimum=1)
    try:
        offset = torch.as_tensor(relative_position)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"relative_position must be integers, got {relative_position!r}") from err
    if offset.is_floating_point() or offset.is_complex() or offset.dtype == torch.bool:
        raise ValueError(f"relative_position must hold integers, got dtype {offset.dtype}")
    offset = offset.to(torch.int64)
    bucket = torch.zeros_like(offset)
    if bidirectional:
        num_buckets //= 2
        bucket += (offset > 0).to(torch.int64) * num_buckets
        distance = offset.abs()
    else:
        distance = (-offset).clamp(min=0)
    max_exact = num_buckets // 2
    if max_distance <= max_exact:
        raise ValueError(f"max_distance must be > {max_exact} (half of the buckets per direction), "
                         f"got {max_distance}")
    log_ratio = torch.log(distance.to(torch.float32) / max_exact) / math.log(max_distance / max_exact)
    large = max_exact + (log_ratio * (num_buckets - max_exact)).to(torch.int64)
    large = large.clamp(max=num_buckets - 1)
    return bucket + torch.where(distance < max_exact, distance, large)


def t5_bucket_matrix(query_len: int, key_len: int | None = None, *, bidirectional: bool = True,
                     num_buckets: int = 32, max_distance: int = 128) -> torch.Tensor:
    """(query_len, key_len) int64: bucket[m, n] = t5_relative_position_bucket(n - m)."""
    query_len = check_int(query_len, "query_len", minimum=1)
    key_len = query_len if key_len is None else check_int(key_len, "key_len", minimum=1)
    check_budget(query_len * key_len, "t5_bucket_matrix")
    offsets = torch.arange(key_len)[None, :] - torch.arange(query_len)[:, None]
    return t5_relative_position_bucket(offsets, bidirectional=bidirectional, num_buckets=num_buckets,
                                       max_distance=max_distance)


def t5_bias(bucket_table, query_len: int, key_len: int | None = None, *, bidirectional: bool = True,
            max_distance: int = 128) -> torch.Tensor:
    """T5's additive bias from a per-bucket table: bias[h, m, n] = bucket_table[bucket(n - m), h].

    bucket_table: (num_buckets, num_heads) as T5's relative_attention_bias weight, giving
    (num_heads, query_len, key_len); or (num_buckets,) for one head, giving (query_len, key_len).
    The result has the table's dtype (float64 for non-tensor input).
    """
    table = torch.as_tensor(bucket_table, dtype=None if isinstance(bucket_table, torch.Tensor) else torch.float64)
    if table.dim() not in (1, 2) or not table.is_floating_point():
        raise ValueError(f"bucket_table must be a float (num_buckets,) or (num_buckets, num_heads) table, "
                         f"got shape {tuple(table.shape)} dtype {table.dtype}")
    buckets = t5_bucket_matrix(query_len, key_len, bidirectional=bidirectional, num_buckets=table.shape[0],
                               max_distance=max_distance)
    values = table[buckets.to(table.device)]
    return values if table.dim() == 1 else values.permute(2, 0, 1)


# --- xPos -------------------------------------------------------------------------------------

XPOS_ROLES = ("query", "key")


def xpos_zeta(dim: int, gamma: float = 0.4, *, dtype=torch.float64) -> torch.Tensor:
    """xPos's per-pair base zeta_i = (2i/dim + gamma) / (1 + gamma), i = 0 .. dim/2 - 1, in (0, 1).

    gamma = 0.4 in the paper and in torchscale ((arange(0, d, 2) + 0.4 d) / (1.4 d)).
    """
    dim = check_dim(dim)
    gamma = check_positive(gamma, "gamma")
    i = torch.arange(dim // 2, dtype=torch.float64)
    return ((2 * i / dim + gamma) / (1 + gamma)).to(dtype)


def xpos_scales(positions, dim: int, *, role: str = "query", gamma: float = 0.4, scale_base: float = 512.0
                ) -> torch.Tensor:
    """(len(positions), dim/2) float64: zeta_i^(m/scale_base) for queries, zeta_i^(-m/scale_base) for keys."""
    check_choice(role, "role", XPOS_ROLES)
    scale_base = check_positive(scale_base, "scale_base")
    pos = as_positions(positions)
    check_budget(pos.numel() * dim // 2, "xpos_scales")
    sign = 1.0 if role == "query" else -1.0
    return xpos_zeta(dim, gamma)[None, :] ** (sign * pos[:, None] / scale_base)


def apply_xpos(x: torch.Tensor, positions=None, *, role: str = "query", base: float = 10000.0,
               layout: str = "interleaved", gamma: float = 0.4, scale_base: float = 512.0) -> torch.Tensor:
    """xPos of x (..., seq, dim): RoPE at `positions` (default 0..seq-1) with pair i scaled by
    zeta_i^(m/scale_base) (role="query") or zeta_i^(-m/scale_base) (role="key").

    Then q_xpos(m) . k_xpos(n) = sum_i zeta_i^((m-n)/scale_base) * (pair i of q . R_{n-m} k):
    a decay for keys behind the query (m > n), meant for causal attention. The absolute scales grow
    or shrink with |m| (torchscale centres the positions on 0 for that reason); the score depends
    only on m - n. Scales in float64, applied in x's dtype; the rotation is rope_viz.apply_rope.
    """
    dim = check_rotation(x, layout)
    pos = as_positions(positions, x.shape[-2])
    scales = xpos_scales(pos, dim, role=role, gamma=gamma, scale_base=scale_base)
    per_coordinate = torch.empty(pos.numel(), dim, dtype=torch.float64)
    first, second = pair_indices(dim, layout)
    per_coordinate[:, first] = scales
    per_coordinate[:, second] = scales
    return apply_rope(x * per_coordinate.to(dtype=x.dtype, device=x.device), pos, base=base, layout=layout)


# --- NoPE and the comparison curve -------------------------------------------------------------

def apply_nope(x: torch.Tensor, positions=None) -> torch.Tensor:
    """NoPE: no positional encoding; returns x itself (positions are ignored)."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"x must be a torch.Tensor, got {type(x).__name__}")
    return x


PROFILE_ENCODINGS = ("rope", "xpos", "alibi", "t5", "nope")


def distance_profile(encoding: str, distances, *, dim: int = 64, base: float = 10000.0, num_heads: int = 8,
                     num_buckets: int = 32, max_distance: int = 128, bucket_table=None,
                     gamma: float = 0.4, scale_base: float = 512.0, samples: int = 64, seed: int = 0
                     ) -> torch.Tensor:
    """What each encoding adds to or expects of the score of a key r tokens behind the query
    (m - n = r >= 0, the causal direction), for a comparison chart. float64.

    - "rope":  the expected score E[q . R_r k] over random q, k with entries uniform in [0, 1)
               (rope_viz.decay.empirical_decay with `samples` and `seed`), shape (len(r),).
    - "xpos":  the same q, k and the same estimate with pair i weighted by zeta_i^(r/scale_base),
               shape (len(r),); as scale_base grows it tends to the "rope" curve.
    - "alibi": the bias -slope_h * r of each of num_heads heads, shape (num_heads, len(r)).
    - "t5":    causal (bidirectional=False) buckets of offset -r; with bucket_table given
               ((num_buckets,) or (num_buckets, heads)) the bias it assigns, shape (len(r),) or
               (heads, len(r)); without one the bucket number itself, shape (len(r),).
    - "nope":  zeros, shape (len(r),): no position term at all.
    """
    check_choice(encoding, "encoding", PROFILE_ENCODINGS)
    r = as_positions(distances, name="distances")
    if bool((r < 0).any()):
        raise ValueError("distances must be >= 0 (how far the key lies behind the query)")
    if encoding == "nope":
        return torch.zeros_like(r)
    if encoding == "alibi":
        return -alibi_slopes(num_heads)[:, None] * r[None, :] + 0.0
    if encoding == "t5":
        if bool((r != r.round()).any()):
            raise ValueError("distances must be whole numbers for encoding='t5' (buckets are per token)")
        if bucket_table is None:
            buckets = t5_relative_position_bucket(-r.to(torch.int64), bidirectional=False,
                                                  num_buckets=num_buckets, max_distance=max_distance)
            return buckets.to(torch.float64)
        table = torch.as_tensor(bucket_table, dtype=torch.float64)
        if table.dim() not in (1, 2):
            raise ValueError(f"bucket_table must be (num_buckets,) or (num_buckets, heads), got {tuple(table.shape)}")
        buckets = t5_relative_position_bucket(-r.to(torch.int64), bidirectional=False,
                                              num_buckets=table.shape[0], max_distance=max_distance)
        return table[buckets] if table.dim() == 1 else table[buckets].T
    if encoding == "rope":
        return empirical_decay(dim, base, r, samples=samples, seed=seed)
    # xpos: empirical_decay's sampling (same seed, same q and k), each pair's share weighted.
    dim = check_dim(dim)
    base = check_positive(base, "base")
    samples = check_int(samples, "samples", minimum=1)
    check_budget(samples * r.numel() * dim, "distance_profile")
    gen = torch.Generator().manual_seed(int(seed))
    q = torch.rand(samples, dim, generator=gen, dtype=torch.float64)
    k = torch.rand(samples, dim, generator=gen, dtype=torch.float64)
    k_rot = apply_rope(k[:, None, :].expand(samples, r.numel(), dim), r, base=base)
    per_pair = (q[:, None, :] * k_rot).unflatten(-1, (-1, 2)).sum(-1)  # (samples, len(r), dim/2)
    decay = xpos_scales(r, dim, role="query", gamma=gamma, scale_base=scale_base)  # zeta^(r/scale_base)
    return (per_pair * decay).sum(-1).mean(0)
