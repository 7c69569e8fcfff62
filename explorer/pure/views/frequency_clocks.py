"""The frequency-clocks page's view: the clock hands of the chosen pairs at every position, every pair's
angle and wavelength, and one vector turned at position m. Arrays are float32 ready to draw; printed
numbers are Python floats."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from rope_viz import apply_rope, inv_freq, wavelengths
from rope_viz.analysis import random_tokens, wrapped_angles
from rope_viz.device import to_numpy
from rope_viz.frequencies import cos_sin

from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.questions import Numbers, Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("clocks", "angles", "wavelengths", "vector")


def default_pairs(dim: int) -> tuple[int, ...]:
    """The pairs that get a clock unless the visitor picks: the three fastest, a quarter and half of the
    way down, and the slowest (only pairs that exist: d = 4 has pairs 0 and 1)."""
    half = dim // 2
    return tuple(sorted(i for i in {0, 1, 2, half // 4, half // 2, half - 1} if i < half))


@dataclass(frozen=True)
class Clocks:
    """The clock hands of the chosen pairs: cos and sin of m·theta_i for positions m = 0..max_pos
    ((max_pos + 1, len(pairs)) float32 each), and the wavelength of each chosen pair."""
    positions: list[int]
    cos: np.ndarray
    sin: np.ndarray
    waves: list[float]


def clocks(dim: int, base: float, max_pos: int, pairs: tuple[int, ...]) -> Clocks:
    cos, sin = cos_sin(range(max_pos + 1), dim, base, torch.float32, "cpu")
    waves = to_numpy(wavelengths(dim, base))
    return Clocks(positions=list(range(max_pos + 1)), cos=to_numpy(cos[:, list(pairs)]),
                  sin=to_numpy(sin[:, list(pairs)]), waves=[float(waves[i]) for i in pairs])


@dataclass(frozen=True)
class Frequencies:
    """Every pair's theta_i and wavelength 2π/theta_i (float32), the wrapped angle m·theta_i mod 2π at
    positions 0..max_pos ((max_pos + 1, dim/2) float32), the pair numbers, max_pos beside every pair
    (`context`), and how many pairs turn at least once within max_pos positions (`fast`) or never do (`slow`)."""
    thetas: np.ndarray
    waves: np.ndarray
    angles: np.ndarray
    pairs: list[int]
    context: list[int]
    fast: int
    slow: int


def frequencies(dim: int, base: float, max_pos: int) -> Frequencies:
    waves = to_numpy(wavelengths(dim, base))
    fast = int((waves <= max_pos).sum())
    return Frequencies(thetas=to_numpy(inv_freq(dim, base)), waves=waves,
                       angles=to_numpy(wrapped_angles(range(max_pos + 1), dim, base)),
                       pairs=list(range(dim // 2)), context=[max_pos] * (dim // 2), fast=fast, slow=dim // 2 - fast)


@dataclass(frozen=True)
class TurnedVector:
    """One vector before and after RoPE at position m: the chosen pair's two entries before and after, the
    pair's and the whole vector's length (before, after), and the pair's theta and the angle turned, m·theta."""
    before: tuple[float, float]
    after: tuple[float, float]
    pair_norm: tuple[float, float]
    norm: tuple[float, float]
    theta: float
    turned: float


def turned_vector(dim: int, base: float, m: int, seed: int, pair: int) -> TurnedVector:
    """One random vector (float64) turned at position m; theta in float32 as the page prints it."""
    x = random_tokens(1, dim, seed=seed, dtype=torch.float64)
    before, after = x[0].numpy(), apply_rope(x, [m], base=base)[0].numpy()
    b, a = before[2 * pair: 2 * pair + 2], after[2 * pair: 2 * pair + 2]
    theta = float(to_numpy(inv_freq(dim, base))[pair])
    return TurnedVector(before=(float(b[0]), float(b[1])), after=(float(a[0]), float(a[1])),
                        pair_norm=(float(np.linalg.norm(b)), float(np.linalg.norm(a))),
                        norm=(float(np.linalg.norm(before)), float(np.linalg.norm(after))),
                        theta=theta, turned=m * theta)


# What the page writes, from the values above.
def clock_lines(freqs: Frequencies, pairs: tuple[int, ...]) -> list[Phrase]:
    """One caption per clock shown: its pair's theta and wavelength (frequencies)."""
    return [
        phrase("frequency_clocks.clock_caption", i=i, theta=float(freqs.thetas[i]), wave=float(freqs.waves[i]))
        for i in pairs
    ]


def vector_metrics(vector: TurnedVector, m: int) -> list[Metric]:
    """The turned vector's lengths before and after (a rotation keeps them) and the angle it turned."""
    return [metric("frequency_clocks.norm_pair", f"{vector.pair_norm[0]:.6f} → {vector.pair_norm[1]:.6f}"),
            metric("frequency_clocks.norm_all", f"{vector.norm[0]:.6f} → {vector.norm[1]:.6f}"),
            Metric(phrase("frequency_clocks.turned"), phrase("frequency_clocks.turned_value", m=m, theta=vector.theta,
                                                             turned=vector.turned, rad=phrase("frequency_clocks.rad")))]


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def full_turn(dim: int, base: float, **_) -> Numbers:
    """Positions a pair needs for a full turn, 2π/θ_i, for a pair a quarter of the way down (pair 8 at d = 64)."""
    waves = wavelengths(dim, base).tolist()
    pair = len(waves) // 4
    others = [waves[j] for j in (pair + 1, pair - 1, pair + 2, pair - 2, 0, len(waves) - 1) if 0 <= j < len(waves)]
    theta = 2 * math.pi / waves[pair]
    return Numbers({"dim": dim, "base": f"{base:,.0f}", "i": pair}, waves[pair],
                   (*others, theta, waves[pair] / (2 * math.pi), waves[pair] * 2), "{:,.1f}")


QUIZ = (Question("fastest"), Question("full_turn", full_turn), Question("length"))
