"""The phase-cancellation page's view: R_n R_m^{-1} = R_{n-m} for one pair, the pair's query and key
turned together over a range of shifts, and the same identity in d dimensions. Everything in float64;
arrays to draw are float32, numbers printed on the page are Python floats."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from rope_viz import angles, inv_freq, rotation_matrix
from rope_viz.analysis import random_tokens
from rope_viz.device import to_numpy
from rope_viz._checks import check_int
from rope_viz.complex2d import relative_rotation, score_identity, shared_shift, shifted_scores

from explorer.pure.knobs import PAGE_KNOBS
from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.questions import Numbers, Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("shift", "matrices", "slide", "block")

SCORE_SHIFTS = tuple(range(65))  # shifts of the d-dimensional score chart


def turn_shifts(theta: float, frames: int = 61) -> torch.Tensor:
    """`frames` integer shifts 0, h, 2h, ... with the smallest step h >= 1 that lets a pair of frequency
    theta turn about once around over them (fast pairs, which need h = 1, turn several times)."""
    if not math.isfinite(theta) or theta <= 0:
        raise ValueError(f"theta must be > 0, got {theta}")
    frames = check_int(frames, "frames", minimum=2)
    step = max(1, round(2 * math.pi / (theta * (frames - 1))))
    return torch.arange(frames, dtype=torch.float64) * step


def query_and_key(dim: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The page's query and key: two rows of one reproducible draw (float64)."""
    q, k = random_tokens(2, dim, seed=seed, dtype=torch.float64)
    return q, k


def theta_of(dim: int, base: float, pair: int) -> float:
    """theta_pair = base^(-2 pair / dim), the frequency of the chosen pair."""
    return float(inv_freq(dim, base, dtype=torch.float64)[pair])


@dataclass(frozen=True)
class PairRotations:
    """The chosen pair's frequency, the angles m·theta and n·theta, the errors of R_m^T = R_m^{-1} = R(-mθ)
    and of R_n R_m^{-1} = R_{n-m}, and the four 2x2 matrices R_m, R_n, R_n R_m^{-1}, R_{n-m} (float32)."""
    theta: float
    m_angle: float
    n_angle: float
    transpose_error: float
    negative_error: float
    relative_error: float
    matrices: list[np.ndarray]


def pair_rotations(m: int, n: int, dim: int, base: float, pair: int) -> PairRotations:
    theta = theta_of(dim, base, pair)
    check = relative_rotation(m, n, theta)
    m_angle, n_angle = angles([m, n], dim, base)[:, pair].tolist()
    return PairRotations(theta=theta, m_angle=m_angle, n_angle=n_angle, transpose_error=check.transpose_error,
                         negative_error=check.negative_error, relative_error=check.relative_error,
                         matrices=[to_numpy(mat) for mat in (check.r_m, check.r_n, check.product, check.relative)])


@dataclass(frozen=True)
class Slide:
    """The pair's query at m + s and key at n + s for the shifts s of `turn_shifts`: the integer shifts,
    both arrows (float32, (frames, 2)), the dot product in each frame and its spread."""
    shifts: list[int]
    query: np.ndarray
    key: np.ndarray
    dots: list[float]
    spread: float


def slide(m: int, n: int, dim: int, base: float, pair: int, seed: int) -> Slide:
    theta = theta_of(dim, base, pair)
    q, k = query_and_key(dim, seed)
    shifts = turn_shifts(theta)
    path = shared_shift(q[2 * pair: 2 * pair + 2].tolist(), k[2 * pair: 2 * pair + 2].tolist(), m, n, theta, shifts)
    return Slide(shifts=[int(s) for s in shifts], query=to_numpy(path.query), key=to_numpy(path.key),
                 dots=[float(dot) for dot in path.dots], spread=path.dot_spread)


@dataclass(frozen=True)
class AllPairs:
    """The d-dimensional identity: R_Θ,m (`block`, float32, (dim, dim)), both sides of (R_m q)^T (R_n k) =
    q^T R_{n-m} k (`rotated`, `relative`) with their difference and the matrix error, and the scores as both
    tokens slide by s (`both`) or only the key does (`key_only`) over `shifts` (float32)."""
    block: np.ndarray
    rotated: float
    relative: float
    difference: float
    matrix_error: float
    shifts: list[int]
    both: np.ndarray
    key_only: np.ndarray


def all_pairs(m: int, n: int, dim: int, base: float, seed: int) -> AllPairs:
    """The identity for the page's query and key, the scores over SCORE_SHIFTS."""
    q, k = query_and_key(dim, seed)
    identity = score_identity(q, k, m, n, base)
    both, key_only = shifted_scores(q, k, m, n, SCORE_SHIFTS, base)
    return AllPairs(block=to_numpy(rotation_matrix(m, dim, base, dtype=torch.float64)),
                    rotated=identity.rotated, relative=identity.relative, difference=identity.difference,
                    matrix_error=identity.matrix_error, shifts=list(SCORE_SHIFTS),
                    both=to_numpy(both), key_only=to_numpy(key_only))


def track(m: int, n: int, dim: int, base: float, pair: int, seed: int) -> dict[str, object]:
    """The drag component's track (explorer.app.components): the query at m and the key at n within the knobs'
    range, the chosen pair, and what its readout needs to score (R_m q)·(R_n k) while they move: every
    pair's query and key coordinates (interleaved pairs 2i, 2i+1, as score_identity) and its frequency
    θ_i. The frame only turns each pair by its angles and adds the dot products, for display: the page's
    numbers are the core's. Plain JSON but for the Phrases of the labels."""
    q, k = query_and_key(dim, seed)
    spec_m, spec_n = PAGE_KNOBS["phase_cancellation"]["m"], PAGE_KNOBS["phase_cancellation"]["n"]
    return {"kind": "track", "knobs": ["m", "n"], "height": 300, "lo": max(spec_m.lo, spec_n.lo),
            "hi": min(spec_m.hi, spec_n.hi), "m": m, "n": n, "pair": pair,
            "thetas": inv_freq(dim, base, dtype=torch.float64).tolist(),
            "q_pairs": q.reshape(-1, 2).tolist(), "k_pairs": k.reshape(-1, 2).tolist(),
            "labels": {name: phrase(f"phase_cancellation.track_{name}") for name in
                       ("group", "hint", "both", "aria_m", "aria_n", "value_m", "value_n", "positions", "angles",
                        "score")}}


# What the page writes, from the values above.
def inverse_metrics(check: PairRotations) -> list[Metric]:
    """Step 1 (pair_rotations): how far R^T is from R^-1 and from R(-angle)."""
    return [metric("phase_cancellation.transpose_error", f"{check.transpose_error:.1e}"),
            metric("phase_cancellation.negative_error", f"{check.negative_error:.1e}")]


def panel_titles(m: int, n: int) -> list[Phrase]:
    """The four 2x2 matrices of step 2: R_m, R_n, their product and R_(n-m)."""
    return [
        phrase("phase_cancellation.panel_rm", m=m),
        phrase("phase_cancellation.panel_rn", n=n),
        phrase("phase_cancellation.panel_product"),
        phrase("phase_cancellation.panel_relative", d=n - m),
    ]


def block_metrics(dims: AllPairs) -> list[Metric]:
    """The d-dimensional check (all_pairs): the score both ways, their difference, the matrices' gap."""
    return [metric("phase_cancellation.lhs", f"{dims.rotated:.4g}",
                   help=phrase("phase_cancellation.digits_help", value=f"{dims.rotated:.15f}")),
            metric("phase_cancellation.rhs", f"{dims.relative:.4g}",
                   help=phrase("phase_cancellation.digits_help", value=f"{dims.relative:.15f}")),
            metric("phase_cancellation.difference", f"{dims.difference:.1e}"),
            metric("phase_cancellation.matrix_error", f"{dims.matrix_error:.1e}")]


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def relative_angle(m: int, n: int, dim: int, base: float, pair: int, **_) -> Numbers:
    """The angle left between the key at n and the query at m for one pair: (n − m)·θ_pair."""
    turned = angles([n - m, m + n, m, n], dim, base)[:, pair].tolist()
    return Numbers({"m": m, "n": n, "i": pair}, turned[0], (-turned[0], *turned[1:], turned[0] + 1.0), "{:.4f}")


QUIZ = (Question("shift_both"), Question("relative_angle", relative_angle), Question("transpose"))
