"""The long-term-decay page's view: RoFormer's bound at every distance with its ripple, and the mean
scores of random vectors sampled over a grid of distances."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from explorer.pure.knobs import SWEEP_BASES, format_base
from rope_viz.analysis import count_rises, decay_bound, distance_grid, empirical_decay
from rope_viz.device import to_numpy

from explorer.pure.views.phrases import Phrase, phrase
from explorer.pure.questions import Numbers, Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("bound", "empirical")

EMPIRICAL_POINTS = 256  # distances at which the sampled means are evaluated


@dataclass(frozen=True)
class BoundCurve:
    """decay_bound at every integer distance 0..max_r and what the page says about it.

    bound: (max_r + 1,) float32 at `distances`; rises: how many steps of the float64 curve go up (count_rises);
    start, low, end: the drawn curve at r = 0, at its minimum (first one, at r = low_at) and at r = max_r;
    ratio: end / start.
    """
    bound: np.ndarray
    distances: np.ndarray
    rises: int
    start: float
    low: float
    low_at: int
    end: float
    ratio: float


def bound_curve(dim: int, base: float, max_r: int) -> BoundCurve:
    exact = decay_bound(dim, base, range(max_r + 1))
    bound = to_numpy(exact)
    low_at = int(bound.argmin())
    return BoundCurve(bound=bound, distances=np.arange(max_r + 1, dtype=np.float32), rises=count_rises(exact),
                      start=float(bound[0]), low=float(bound[low_at]), low_at=low_at, end=float(bound[-1]),
                      ratio=float(bound[-1] / bound[0]))


@dataclass(frozen=True)
class SampledMeans:
    """Mean q . R_r k at float32 `distances`: `free` (independent q and k) and `tied` (q = k), float32."""
    distances: np.ndarray
    free: np.ndarray
    tied: np.ndarray


def sampled_means(dim: int, base: float, max_r: int, samples: int, seed: int, log_x: bool) -> SampledMeans:
    """The means over `samples` random q, k (entries uniform in [0, 1)) at up to EMPIRICAL_POINTS
    distances from 0 to max_r (geometrically spaced when log_x)."""
    grid = distance_grid(max_r, EMPIRICAL_POINTS, log=log_x)
    return SampledMeans(distances=to_numpy(grid),
                        free=to_numpy(empirical_decay(dim, base, grid, samples=samples, seed=seed)),
                        tied=to_numpy(empirical_decay(dim, base, grid, samples=samples, seed=seed, tied=True)))


# What the page draws and writes, from the values above.
@dataclass(frozen=True)
class SweepLines:
    """The bound of each base drawn, named (`series`, the chosen base first), and the names drawn dashed."""
    series: list[tuple[Phrase, np.ndarray]]
    dashed: list[Phrase]


def sweep_lines(dim: int, base: float, max_r: int, exponents: Iterable[int],
                curve: Callable[[int, float, int], BoundCurve] = bound_curve) -> SweepLines:
    """The bound of the chosen base, then of every other base of the sweep (exponent e: base 10^e), those
    dashed. `curve`: bound_curve, or a cached copy of it."""
    series = [(phrase("long_term_decay.chosen_series", base=format_base(base)), curve(dim, base, max_r).bound)]
    for other in (SWEEP_BASES[e] for e in exponents):
        if other != base:
            series.append(
                (phrase("long_term_decay.sweep_series", base=format_base(other)), curve(dim, other, max_r).bound)
            )
    return SweepLines(series=series, dashed=[name for name, _ in series[1:]])


def ripple_reading(ripple: BoundCurve, base: float, max_r: int) -> Phrase:
    """How far the bound (bound_curve) is from falling steadily: its rises, lowest point and end."""
    return phrase("long_term_decay.ripple", max_r=max_r, base=format_base(base), rises=ripple.rises, steps=max_r,
                  share=ripple.rises / max_r, start=ripple.start, low=ripple.low, low_at=ripple.low_at,
                  end=ripple.end, ratio=ripple.ratio)


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def bound_at_zero(dim: int, base: float, **_) -> Numbers:
    """RoFormer's decay bound at distance 0, (d/2 + 1)/2, for the page's d."""
    at_zero = float(decay_bound(dim, base, [0])[0])
    return Numbers({"dim": dim}, at_zero, (dim / 2, dim / 4, 1.0, float(dim), at_zero + 1.0), "{:,.1f}")


QUIZ = (Question("bound_at_zero", bound_at_zero), Question("monotone"))
