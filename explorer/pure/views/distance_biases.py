"""The distance-biases page's view: what RoPE, xPos, ALiBi, T5 and NoPE add to (or expect of) a score
at each distance, out to twice the longest distance seen L, and the numbers behind the comparison table:
the Toeplitz deviation of each encoding's logits for one repeated token, and what happens past L.

Float64 on the CPU, arrays handed out as float32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from rope_viz import wavelengths
from rope_viz.analysis import (depends_only_on_offset, distance_grid, distance_profile, encoded_scores,
                               random_projections, random_tokens, toeplitz_deviation)
from rope_viz.biases import alibi_bias, alibi_slopes, apply_xpos, t5_bias, t5_relative_position_bucket, xpos_scales
from rope_viz.device import to_numpy

from explorer.pure.views.phrases import Phrase, counted, phrase
from explorer.pure.views.sampling import downsample
from explorer.pure.questions import Numbers, Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("expected", "alibi", "t5_buckets", "t5_bias", "matrices")

CURVE_POINTS = 256  # distances at which the sampled RoPE and xPos means are evaluated
SAMPLES = 64  # random q, k pairs per mean (as on the long-term-decay page)
GAMMA = 0.4  # xPos's gamma, as in the paper
MATRIX_SEQ = 128  # positions of the logit matrices whose Toeplitz deviation is measured
MATRIX_SIDE = 64  # drawn per side
ENCODINGS = ("rope", "xpos", "alibi", "t5", "nope", "sinusoidal")


def bucket_table(num_buckets: int, seed: int) -> torch.Tensor:
    """T5's per-bucket bias for one head, drawn at random (standard normal, from `seed`), standing in for a
    trained table: (num_buckets,) float64."""
    gen = torch.Generator().manual_seed(int(seed) + 1)  # + 1: not the draw of the repeated token
    return torch.randn(num_buckets, generator=gen, dtype=torch.float64)


@dataclass(frozen=True)
class Profiles:
    """Against the distance r = m - n >= 0 of a key behind its query, from 0 to 2 * max_r (float32)."""

    distances: np.ndarray  # up to CURVE_POINTS distances
    expected: dict[str, np.ndarray]  # "rope", "xpos": mean q . k over random q, k (entries uniform in [0, 1));
    # "nope": zeros; each at `distances`
    steps: np.ndarray  # every integer distance
    alibi: np.ndarray  # (heads, len(steps)): the bias of every head at every step
    slopes: np.ndarray  # ALiBi's slope of every head


def profiles(max_r: int, dim: int, base: float, heads: int, scale_base: int, seed: int) -> Profiles:
    grid = distance_grid(2 * max_r, CURVE_POINTS)
    steps = torch.arange(2 * max_r + 1, dtype=torch.float64)

    def sampled(kind: str, **extra) -> np.ndarray:
        return to_numpy(distance_profile(kind, grid, dim=dim, base=base, samples=SAMPLES, seed=seed, **extra))

    return Profiles(distances=to_numpy(grid), steps=to_numpy(steps),
                    expected={"rope": sampled("rope"), "xpos": sampled("xpos", gamma=GAMMA, scale_base=scale_base),
                              "nope": to_numpy(distance_profile("nope", grid))},
                    alibi=to_numpy(distance_profile("alibi", steps, num_heads=heads)),
                    slopes=to_numpy(alibi_slopes(heads)))


@dataclass(frozen=True)
class T5Buckets:
    """T5's bucket and bias (one head, random table) at every offset n - m from -2 max_r to 2 max_r, and how
    many distinct buckets the offsets within L = max_r and between L and 2L use (behind the query)."""

    offsets: np.ndarray
    buckets: np.ndarray
    bias: np.ndarray
    buckets_seen: int  # within L
    buckets_past: int  # between L and 2L
    new_past: int  # of those, the buckets never used within L
    bias_at_max: float  # the bias of a key L behind the query
    bias_at_twice: float  # and 2L behind


def t5_buckets(max_r: int, num_buckets: int, max_distance: int, bidirectional: bool, seed: int) -> T5Buckets:
    offsets = torch.arange(-2 * max_r, 2 * max_r + 1)
    buckets = t5_relative_position_bucket(offsets, bidirectional=bidirectional, num_buckets=num_buckets,
                                          max_distance=max_distance)
    table = bucket_table(num_buckets, seed)
    behind = -offsets  # distance of a key behind the query
    seen = buckets[(behind >= 0) & (behind <= max_r)]
    past = buckets[(behind > max_r)]
    return T5Buckets(offsets=to_numpy(offsets), buckets=to_numpy(buckets), bias=to_numpy(table[buckets]),
                     buckets_seen=int(seen.unique().numel()), buckets_past=int(past.unique().numel()),
                     new_past=int((~torch.isin(past.unique(), seen.unique())).sum()),
                     bias_at_max=float(table[buckets[offsets == -max_r]][0]),
                     bias_at_twice=float(table[buckets[offsets == -2 * max_r]][0]))


@dataclass(frozen=True)
class LogitMatrices:
    """The logits of one repeated token at MATRIX_SEQ positions under each encoding (ENCODINGS), each measured
    over the full matrix and drawn MATRIX_SIDE per side."""

    kept: np.ndarray  # the positions drawn
    drawn: dict[str, np.ndarray]  # encoding -> the matrix drawn
    deviation: dict[str, float]  # encoding -> the largest spread along a diagonal (toeplitz_deviation)
    toeplitz: dict[str, bool]  # encoding -> depends_only_on_offset
    largest: dict[str, float]  # encoding -> the largest |logit|


def logit_matrices(dim: int, base: float, heads: int, num_buckets: int, max_distance: int, bidirectional: bool,
                   scale_base: int, seed: int) -> LogitMatrices:
    """The LogitMatrices (q = x W_q, k = x W_k) of RoPE, xPos, ALiBi (its first head, steepest), T5 (the random
    table), NoPE and, for contrast, the additive sinusoidal encoding."""
    x = random_tokens(MATRIX_SEQ, dim, same=True, seed=seed, dtype=torch.float64)
    w_q, w_k = random_projections(dim, dim, seed=seed, dtype=torch.float64)
    content = encoded_scores(x, w_q, w_k, encoding="none")
    q, k = x @ w_q, x @ w_k
    xpos_q = apply_xpos(q, role="query", base=base, gamma=GAMMA, scale_base=scale_base)
    xpos_k = apply_xpos(k, role="key", base=base, gamma=GAMMA, scale_base=scale_base)
    matrices = {
        "rope": encoded_scores(x, w_q, w_k, encoding="rope", base=base),
        "xpos": xpos_q @ xpos_k.T,
        "alibi": content + alibi_bias(heads, MATRIX_SEQ, dtype=torch.float64)[0],
        "t5": content + t5_bias(bucket_table(num_buckets, seed), MATRIX_SEQ, bidirectional=bidirectional,
                                max_distance=max_distance),
        "nope": content,
        "sinusoidal": encoded_scores(x, w_q, w_k, encoding="sinusoidal", base=base),
    }
    drawn: dict[str, np.ndarray] = {}
    deviation: dict[str, float] = {}
    toeplitz: dict[str, bool] = {}
    largest: dict[str, float] = {}
    for name, matrix in matrices.items():
        drawn[name], kept, _ = downsample(matrix, MATRIX_SIDE)
        deviation[name] = toeplitz_deviation(matrix)
        toeplitz[name] = depends_only_on_offset(matrix, rtol=1e-9)
        largest[name] = float(matrix.abs().max())
    return LogitMatrices(kept=kept, drawn=drawn, deviation=deviation, toeplitz=toeplitz, largest=largest)


@dataclass(frozen=True)
class PastTheLongest:
    """What changes past the longest distance seen, L = max_r, for RoPE/xPos and ALiBi."""

    new_angle_pairs: int  # pairs whose wavelength exceeds L: past L they meet angles never met before
    pairs: int
    alibi_at_max: float  # the steepest head's bias at L and 2L (the same line continues)
    alibi_at_twice: float
    xpos_factor_at_max: float  # xPos's slowest-decaying pair weight zeta^(r/scale_base) at L and 2L
    xpos_factor_at_twice: float


def past_the_longest(max_r: int, dim: int, base: float, heads: int, scale_base: int) -> PastTheLongest:
    alibi = distance_profile("alibi", [max_r, 2 * max_r], num_heads=heads)[0]  # the steepest head
    xpos = xpos_scales([max_r, 2 * max_r], dim, role="query", gamma=GAMMA, scale_base=scale_base).max(dim=1).values
    return PastTheLongest(new_angle_pairs=int((wavelengths(dim, base) > max_r).sum()), pairs=dim // 2,
                          alibi_at_max=float(alibi[0]), alibi_at_twice=float(alibi[1]),
                          xpos_factor_at_max=float(xpos[0]), xpos_factor_at_twice=float(xpos[1]))


# What the page writes, from the values above.
class Mark(NamedTuple):
    """A mark on a chart: its name and the offset it stands at."""

    name: Phrase
    at: int


def t5_marks(max_r: int, max_distance: int, bidirectional: bool) -> list[Mark]:
    """The T5 charts' marks: -L, and max_distance when it falls inside the drawn offsets (+-2L), on both
    sides when the buckets are bidirectional."""
    marks = [Mark(phrase("distance_biases.longest_mark_t5"), -max_r)]
    if max_distance <= 2 * max_r:
        marks.append(Mark(phrase("distance_biases.max_distance_mark"), -max_distance))
        if bidirectional:
            marks.append(Mark(phrase("distance_biases.max_distance_mark_ahead"), max_distance))
    return marks


def t5_reading(t5: T5Buckets, seed: int, num_buckets: int, max_r: int) -> Phrase:
    """What the T5 table (t5_buckets) does within L = max_r and past it."""
    return phrase("distance_biases.t5_text", seed=seed, n=num_buckets, seen=t5.buckets_seen, past=t5.buckets_past,
                  new=t5.new_past, max_r=max_r, twice=2 * max_r, at_max=t5.bias_at_max, at_twice=t5.bias_at_twice)


def summary_table(matrices: LogitMatrices, past: PastTheLongest, t5: T5Buckets, max_r: int) -> dict[str, list]:
    """The comparison table, one row per encoding: how it enters attention, its logits' Toeplitz deviation
    (logit_matrices), whether it depends on m - n only, and what happens past L (past_the_longest, t5_buckets)."""
    pairs = {"new": past.new_angle_pairs, "pairs": past.pairs, "max_r": max_r}
    past_text = {
        "rope": phrase("distance_biases.past_rope", **pairs),
        "xpos": phrase(
            "distance_biases.past_xpos",
            **pairs,
            at_max=past.xpos_factor_at_max,
            at_twice=past.xpos_factor_at_twice,
        ),
        "alibi": phrase(
            "distance_biases.past_alibi", max_r=max_r, at_max=past.alibi_at_max, at_twice=past.alibi_at_twice
        ),
        "t5": counted(
            "distance_biases.past_t5", t5.buckets_past, past=t5.buckets_past, new=t5.new_past, max_r=max_r
        ),
        "nope": phrase("distance_biases.past_nope"),
        "sinusoidal": phrase("distance_biases.past_sinusoidal", max_r=max_r),
    }
    return {"distance_biases.col_encoding": [phrase(f"distance_biases.name_{name}") for name in ENCODINGS],
            "distance_biases.col_enters": [phrase(f"distance_biases.enters_{name}") for name in ENCODINGS],
            "distance_biases.col_deviation": [f"{matrices.deviation[name]:.2g} / {matrices.largest[name]:.3g}"
                                              for name in ENCODINGS],
            "distance_biases.col_toeplitz": [phrase("common.yes" if matrices.toeplitz[name] else "common.no")
                                             for name in ENCODINGS],
            "distance_biases.col_past": [past_text[name] for name in ENCODINGS]}


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def alibi_first_slope(heads: int, **_) -> Numbers:
    """ALiBi's slope for head 1, the steepest, with the page's number of heads."""
    slopes = alibi_slopes(heads).tolist()
    return Numbers({"heads": heads}, slopes[0],
                   (2 ** (-8 / heads), *slopes[1:2], slopes[-1], 1 / heads, 2 ** -8, 1 / 2 ** heads), "{:.4g}")


QUIZ = (Question("alibi_first_slope", alibi_first_slope), Question("shift_both"))
