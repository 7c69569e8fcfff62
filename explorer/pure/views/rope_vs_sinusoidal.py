"""The RoPE-versus-sinusoidal page's view: the sinusoidal table and its dot products, the four-term split
of the additive logits, the shift test, token lengths and the cost per token of each encoding."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from explorer.pure.timing import time_call
from rope_viz import apply_rope
from rope_viz.analysis import (additive_decomposition, depends_only_on_offset, diagonal_profile, encoded_norms,
                               encoded_scores, random_attention_inputs, random_tokens, shift_residual,
                               toeplitz_deviation)
from rope_viz.device import to_numpy
from rope_viz.sinusoidal import sinusoidal_encoding

from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.views.sampling import downsample
from explorer.pure.questions import Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("table", "pe_dot", "terms", "shift", "norms")

TABLE_SIDE = 256  # rows of the encoding table drawn (its columns are never thinned: d <= 256)
GRID_SIDE = 128  # rows and columns drawn per panel of the multi-panel heatmaps
TERMS = ("content_content", "content_position", "position_content", "position_position")
ENCODINGS = ("rope", "sinusoidal")
# the norm chart's lines, in drawing order, each with the concept whose colour it takes (no encoding: NoPE)
NORM_CONCEPTS = {"sinusoidal": "sinusoidal", "rope": "rope", "none": "nope"}
COST_TOKENS = 4096


@dataclass(frozen=True)
class EncodingTable:
    """The sinusoidal table and the dot products of its rows."""

    drawn: np.ndarray  # the table PE (seq, dim) thinned for drawing, with the kept rows and cols
    rows: np.ndarray
    cols: np.ndarray
    profile: dict[str, np.ndarray]  # PE(m)·PE(n) along m - n: offset, mean, min, max (float32)
    deviation: float  # the Toeplitz deviation of PE(m)·PE(n)
    largest: float  # its largest entry


def table(seq: int, dim: int, base: float, device: str) -> EncodingTable:
    """The encoding table of `seq` positions and `dim` coordinates and its rows' dot products."""
    pe = sinusoidal_encoding(seq, dim, base, device=device)
    # no content and identity projections: the logits are the table's own dot products PE(m)·PE(n)
    identity = torch.eye(dim, device=pe.device)
    bare = encoded_scores(torch.zeros_like(pe), identity, identity, encoding="sinusoidal", base=base)
    drawn, rows, cols = downsample(pe, TABLE_SIDE, same_stride=False)
    return EncodingTable(drawn=drawn, rows=rows, cols=cols,
                         profile={name: to_numpy(values) for name, values in diagonal_profile(bare).items()},
                         deviation=toeplitz_deviation(bare), largest=float(bare.max()))


@dataclass(frozen=True)
class Terms:
    """The four terms of the sinusoidal logits for one token repeated, beside the full RoPE and sinusoidal
    logits of the same token."""

    kept: np.ndarray  # the positions drawn
    drawn: dict[str, np.ndarray]  # term (TERMS) -> thinned matrix
    term_deviation: dict[str, float]  # term -> its Toeplitz deviation
    logit_deviation: dict[str, float]  # encoding (ENCODINGS) -> the Toeplitz deviation of its logits
    relative_only: dict[str, bool]  # encoding -> whether its logits depend on m - n only
    largest: float  # the largest |sinusoidal logit|


def terms(seq: int, dim: int, base: float, seed: int, device: str) -> Terms:
    """The Terms of the page's token (seed `seed`) repeated over `seq` positions."""
    x, w_q, w_k = random_attention_inputs(seq, dim, same=True, seed=seed, device=device)
    split = additive_decomposition(x, sinusoidal_encoding(seq, dim, base, device=x.device), w_q, w_k)
    logits = {enc: encoded_scores(x, w_q, w_k, encoding=enc, base=base) for enc in ENCODINGS}
    return Terms(kept=downsample(split["content_content"], GRID_SIDE)[1],
                 drawn={name: downsample(term, GRID_SIDE)[0] for name, term in split.items()},
                 term_deviation={name: toeplitz_deviation(term) for name, term in split.items()},
                 logit_deviation={enc: toeplitz_deviation(s) for enc, s in logits.items()},
                 relative_only={enc: depends_only_on_offset(s) for enc, s in logits.items()},
                 largest=float(logits["sinusoidal"].abs().max()))


@dataclass(frozen=True)
class Residuals:
    """|A(m, n) - A(m + k, n + k)| under each encoding."""

    kept: np.ndarray  # the positions drawn
    drawn: dict[str, np.ndarray]  # encoding (ENCODINGS) -> thinned matrix
    largest: dict[str, float]  # encoding -> its largest entry


def residuals(seq: int, dim: int, base: float, seed: int, shift: int, device: str) -> Residuals:
    """The Residuals of random tokens (seed `seed`) moved by `shift` positions."""
    x, w_q, w_k = random_attention_inputs(seq, dim, seed=seed, device=device)
    full = {enc: shift_residual(x, w_q, w_k, shift, encoding=enc, base=base) for enc in ENCODINGS}
    return Residuals(kept=downsample(full["rope"], GRID_SIDE)[1],
                     drawn={enc: downsample(r, GRID_SIDE)[0] for enc, r in full.items()},
                     largest={enc: float(r.max()) for enc, r in full.items()})


@dataclass(frozen=True)
class Norms:
    """Lengths of one repeated token at every position under each encoding."""

    lengths: dict[str, np.ndarray]  # "rope", "sinusoidal", "none" -> (seq,) float32
    change: dict[str, float]  # encoding (ENCODINGS) -> the largest change from |x|


def norms(seq: int, dim: int, base: float, seed: int, device: str) -> Norms:
    lengths = encoded_norms(random_tokens(seq, dim, same=True, seed=seed, device=device), base=base)
    return Norms(lengths={enc: to_numpy(n) for enc, n in lengths.items()},
                 change={enc: float((lengths[enc] - lengths["none"]).abs().max()) for enc in ENCODINGS})


def cost_per_token(dim: int, base: float, device: str) -> dict[str, float]:
    """Nanoseconds per token, measured on the device, to apply RoPE to COST_TOKENS tokens and to add the
    (precomputed) sinusoidal table to them."""
    where = torch.device(device)
    x = random_tokens(COST_TOKENS, dim, device=where)
    pe = sinusoidal_encoding(COST_TOKENS, dim, base, device=where)
    seconds = {"rope": time_call(lambda: apply_rope(x, base=base), device=where, min_time=0.01),
               "sinusoidal": time_call(lambda: x + pe, device=where, min_time=0.01)}
    return {enc: s * 1e9 / COST_TOKENS for enc, s in seconds.items()}


# What the page writes, from the values above.
def table_metrics(pe: EncodingTable) -> list[Metric]:
    return [metric("rope_vs_sinusoidal.pe_deviation", f"{pe.deviation:.2e}"),
            metric("rope_vs_sinusoidal.pe_largest", f"{pe.largest:.4g}")]


def term_panels(split: Terms) -> list[tuple[Phrase, np.ndarray]]:
    """The four terms (terms) as named heatmap panels, each name with its formula."""
    return [
        (
            phrase(
                "rope_vs_sinusoidal.panel",
                term=phrase(f"rope_vs_sinusoidal.term_{name}"),
                formula=phrase(f"rope_vs_sinusoidal.formula_{name}"),
            ),
            split.drawn[name],
        )
        for name in TERMS
    ]


def term_metrics(split: Terms) -> list[Metric]:
    return [
        metric(
            f"rope_vs_sinusoidal.term_{name}",
            f"{split.term_deviation[name]:.3g}",
            help=phrase("rope_vs_sinusoidal.term_deviation"),
        )
        for name in TERMS
    ]


def residual_metrics(moved: Residuals) -> list[Metric]:
    return [
        metric(
            "rope_vs_sinusoidal.residual_metric",
            f"{moved.largest[enc]:.3g}",
            name=phrase(f"rope_vs_sinusoidal.{enc}_panel"),
        )
        for enc in ENCODINGS
    ]


def compare_table(moved: Residuals, split: Terms, lengths: Norms, cost: dict[str, float], shift: int, dim: int
                  ) -> dict[str, list]:
    """The closing table: each measure (residuals, terms, norms, cost_per_token) for RoPE and sinusoidal."""
    rows: list[tuple[Phrase, dict[str, str | Phrase]]] = [
        (phrase("rope_vs_sinusoidal.row_shift", k=shift), {enc: f"{moved.largest[enc]:.3g}" for enc in ENCODINGS}),
        (
            phrase("rope_vs_sinusoidal.row_deviation"),
            {enc: f"{split.logit_deviation[enc]:.3g}" for enc in ENCODINGS},
        ),
        (
            phrase("rope_vs_sinusoidal.row_relative"),
            {enc: phrase("common.yes" if split.relative_only[enc] else "common.no") for enc in ENCODINGS},
        ),
        (phrase("rope_vs_sinusoidal.row_norm"), {enc: f"{lengths.change[enc]:.3g}" for enc in ENCODINGS}),
        (
            phrase("rope_vs_sinusoidal.row_cost", d=dim, tokens=COST_TOKENS),
            {enc: phrase("rope_vs_sinusoidal.ns", value=cost[enc]) for enc in ENCODINGS},
        ),
    ]
    return {"rope_vs_sinusoidal.col_measure": [label for label, _ in rows],
            **{f"rope_vs_sinusoidal.col_{enc}": [cells[enc] for _, cells in rows] for enc in ENCODINGS}}


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("cross_terms"), Question("pe_product"))
