"""The relative-attention page's view: the RoPE score matrix of one sequence, its profile along m - n,
the shift residual and the softmax weights, each thinned for drawing with full-size statistics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rope_viz.analysis import (attention_weights, diagonal_profile, dot_product_scale, encoded_scores,
                               random_attention_inputs, rope_scores, shift_residual, toeplitz_deviation)
from rope_viz.device import to_numpy

from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.views.sampling import downsample
from explorer.pure.questions import Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("scores", "profile", "residual", "weights")

DRAW_SIDE = 256  # heatmaps draw at most this many rows and columns; statistics use the full matrix
WEIGHT_COLOUR_QUANTILE = 0.995  # weights above this quantile share the brightest colour


def inputs(seq: int, dim: int, same: bool, seed: int, device: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Tokens x and projections W_q, W_k on the device (float32)."""
    return random_attention_inputs(seq, dim, same=same, seed=seed, device=device)


@dataclass(frozen=True)
class ScoreMap:
    """The scores thinned for drawing (`drawn`, with the `kept` positions), their profile along m - n
    (offset, mean, min, max as float32 arrays), and full-size statistics: the Toeplitz `deviation` and
    the `largest` |score|."""
    drawn: np.ndarray
    kept: np.ndarray
    profile: dict[str, np.ndarray]
    deviation: float
    largest: float


def scores(seq: int, dim: int, base: float, same: bool, seed: int, device: str) -> ScoreMap:
    full = encoded_scores(*inputs(seq, dim, same, seed, device), base=base)
    drawn, kept, _ = downsample(full, DRAW_SIDE)
    return ScoreMap(drawn=drawn, kept=kept,
                    profile={name: to_numpy(values) for name, values in diagonal_profile(full).items()},
                    deviation=toeplitz_deviation(full), largest=float(full.abs().max()))


def cell(seq: int, dim: int, base: float, same: bool, seed: int, m: int, n: int, device: str) -> float:
    """The one score A(m, n) = (R_m q_m) . (R_n k_n) of the page's sequence, computed on its own."""
    x, w_q, w_k = inputs(seq, dim, same, seed, device)
    return float(rope_scores(x[m:m + 1] @ w_q, x[n:n + 1] @ w_k, [m], [n], base=base)[0, 0])


@dataclass(frozen=True)
class Residual:
    """|A(m, n) - A(m + k, n + k)| for a shift k: thinned (`drawn`, `kept`), and its `largest` entry."""
    drawn: np.ndarray
    kept: np.ndarray
    largest: float


def residual(seq: int, dim: int, base: float, same: bool, seed: int, shift: int, device: str) -> Residual:
    full = shift_residual(*inputs(seq, dim, same, seed, device), shift, base=base)
    drawn, kept, _ = downsample(full, DRAW_SIDE)
    return Residual(drawn=drawn, kept=kept, largest=float(full.max()))


@dataclass(frozen=True)
class Weights:
    """The softmax weights (scaled by 1/sqrt(d), causal or not) thinned for drawing (`drawn`, `kept`), and
    `top`, the top of their colour scale: a high quantile of the weights drawn (the first rows of a causal
    matrix hold weights near 1 that would wash out the rest)."""
    drawn: np.ndarray
    kept: np.ndarray
    top: float


def weights(seq: int, dim: int, base: float, same: bool, seed: int, causal: bool, device: str) -> Weights:
    full = encoded_scores(*inputs(seq, dim, same, seed, device), base=base)
    drawn, kept, _ = downsample(attention_weights(full, causal=causal, scale=dot_product_scale(dim)), DRAW_SIDE)
    return Weights(drawn=drawn, kept=kept, top=float(np.quantile(drawn, WEIGHT_COLOUR_QUANTILE)))


# What the page writes, from the values above.
def cell_reading(scored: ScoreMap, seq: int, m: int, n: int, score: float, same: bool) -> list[Phrase]:
    """The chosen cell's score against the band of its diagonal (scores' profile; the offset m - n shared
    by seq - |m - n| cells), and what the content makes of that band."""
    at = m - n + seq - 1  # the profile's index of offset m - n
    return [phrase("relative_attention.cell_readout", m=m, n=n, score=score, offset=m - n, count=seq - abs(m - n),
                   low=float(scored.profile["min"][at]), high=float(scored.profile["max"][at])),
            phrase("relative_attention.cell_same" if same else "relative_attention.cell_random")]


def content_text(same: bool) -> Phrase:
    """Why the score map looks as it does for this content: one token repeated, or random tokens."""
    return phrase("relative_attention.same_text" if same else "relative_attention.random_text")


def weights_title(causal: bool) -> Phrase:
    return phrase("relative_attention.weights_title_causal" if causal else "relative_attention.weights_title")


def thinned(kept: np.ndarray, seq: int) -> Phrase | None:
    """The caption of a score map drawn thinned (None when every position is drawn)."""
    return phrase("relative_attention.thinned", s=int(kept[1]), s2=int(kept[2]), n=seq) if len(kept) < seq else None


def score_metrics(scored: ScoreMap) -> list[Metric]:
    return [metric("relative_attention.deviation", f"{scored.deviation:.3g}"),
            metric("relative_attention.largest", f"{scored.largest:.3g}")]


def residual_metrics(moved: Residual, scored: ScoreMap) -> list[Metric]:
    """The largest change after the shift, alone and over the largest score."""
    return [metric("relative_attention.max_residual", f"{moved.largest:.2e}"),
            metric("relative_attention.relative_residual", f"{moved.largest / scored.largest:.1e}")]


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("shift_all"), Question("diagonals"), Question("causal"))
