"""The precision page's view: how far each dtype recipe's rotation is from the exact one, position by
position (rope_viz.precision), the staircase of collapsed positions, what it does to attention scores,
and what computing the angles in float64 costs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from explorer.pure.timing import time_angle_fix
from rope_viz.analysis import (RECIPES, applied_rotation, distinct_rotations, exact_angles, position_limits,
                               precision_error, recipe_scores, spacing)
from rope_viz.device import describe, to_numpy
from rope_viz.precision import MAX_POSITION

from explorer.pure.knobs import PAGE_KNOBS
from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.questions import Numbers, Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("fastest_pair", "chosen_pair", "staircase", "staircase_angle", "scores", "difference", "fix")

GRID_POINTS = 192  # log-spaced positions from 1 to 2^24 (duplicates after rounding dropped)
WINDOW = 16  # each point of a curve is the worst error over the WINDOW positions ending there
CONTEXTS = {"4k": 4_096, "8k": 8_192, "32k": 32_768, "128k": 131_072, "1M": 1_048_576}  # model context lengths
FASTEST = 1  # the fastest pair whose float32 angle is not exact (pair 0 has theta = 1: m * 1 is exact)
FLOOR = 1e-14  # errors below this are drawn at it: the exact reference itself is good to ~1e-14 rad
SHORT = 4_096  # the bfloat16 rounding level is read from the tables recipe up to here
STRIP = 51  # the staircase shows positions start .. start + 50
SCORE_WINDOW = 64  # attention scores over the 64 positions ending at the far position
TIMED_LENGTH = 16_384  # positions in the timed cos/sin tables (32,768 at d = 256 took +96 MiB while timed)
FIX_RECIPES = ("bf16-positions", "bf16-tables", "fp32", "fp64")  # the bug, what models do, the fix, float64
# every recipe's curve, the two references of the core's registry (fp64, fp32: first there) drawn last, on top
DRAW_ORDER = RECIPES[2:] + RECIPES[:2]
# one palette index per line, the same in every chart: a recipe's is its place in the core's registry
SERIES_COLORS = {**{recipe: index for index, recipe in enumerate(RECIPES)}, "rounding": len(RECIPES)}


def position_grid() -> np.ndarray:
    """Integer positions from 1 to 2^24, log-spaced, with every CONTEXTS length included (int64)."""
    spread = np.round(np.geomspace(1, MAX_POSITION, GRID_POINTS)).astype(np.int64)
    return np.unique(np.concatenate((spread, list(CONTEXTS.values()))))


def windows(grid: np.ndarray) -> np.ndarray:
    """(len(grid), WINDOW) positions: the WINDOW positions ending at each grid point, clipped at 1."""
    return np.maximum(grid[:, None] - np.arange(WINDOW)[None, :], 1)


@dataclass(frozen=True)
class ErrorCurves:
    """Every recipe's angle error over the position grid.

    positions: (g,) the grid as float32, for drawing; error: {recipe: (g, dim/2) float32, one column per pair,
    floored at FLOOR, NaN where a position overflowed}; worst: {recipe: (g,) the largest over all pairs};
    overflow_from: the first position float16 cannot hold; bf16_rounding: the largest error of the bfloat16
    tables recipe up to SHORT (what storing cos/sin in bfloat16 costs, before the float32 angle matters);
    float64_from: the first grid position where the float32 recipe's worst error exceeds that (None if never);
    at_contexts: {recipe: {context label: worst error there}}.
    """

    positions: np.ndarray
    error: dict[str, np.ndarray]
    worst: dict[str, np.ndarray]
    overflow_from: int
    bf16_rounding: float
    float64_from: int | None
    at_contexts: dict[str, dict[str, float]]


def error_curves(dim: int, base: float) -> ErrorCurves:
    """For every recipe, the worst |angle error| (rad) over the WINDOW positions ending at each grid point."""
    grid = position_grid()
    spans = windows(grid)
    error: dict[str, np.ndarray] = {}
    worst: dict[str, np.ndarray] = {}
    for recipe in RECIPES:
        per_position = precision_error(torch.from_numpy(spans.ravel()), dim, base, recipe=recipe)
        per_point = per_position.view(len(grid), WINDOW, -1).amax(dim=1)  # NaN (overflow) propagates
        floored = per_point.clamp(min=FLOOR)  # clamp keeps NaN
        error[recipe] = to_numpy(floored)
        worst[recipe] = to_numpy(floored.amax(dim=1))
    short = grid <= SHORT
    bf16_rounding = float(np.nanmax(worst["bf16-tables"][short]))
    beyond = np.nonzero(worst["fp32"] > bf16_rounding)[0]
    index = {position: i for i, position in enumerate(grid.tolist())}
    return ErrorCurves(
        positions=grid.astype(np.float32),
        error=error,
        worst=worst,
        overflow_from=position_limits("fp16-positions")["overflow_from"],
        bf16_rounding=bf16_rounding,
        float64_from=int(grid[beyond[0]]) if len(beyond) else None,
        at_contexts={recipe: {label: float(worst[recipe][index[at]]) for label, at in CONTEXTS.items()}
                     for recipe in RECIPES},
    )


def pair_errors(curves: ErrorCurves, pair: int) -> dict[str, np.ndarray]:
    """{recipe: the error curve of one pair} from error_curves (contiguous float32), in DRAW_ORDER."""
    return {recipe: np.ascontiguousarray(curves.error[recipe][:, pair]) for recipe in DRAW_ORDER}


def series_key(series: str) -> str:
    """The text key naming a line: a recipe (RECIPES) or one of "true", "exact", "rounding"."""
    return f"precision.recipe_{series.replace('-', '_')}" if series in RECIPES else f"precision.{series}_series"


def pair_knob(dim: int) -> dict:
    """The pair knob narrowed to a head of `dim`: pairs 0 .. dim/2 - 1, and a link whose pair cannot be read
    falls back to the declared default or, past this head, to its last pair."""
    last = dim // 2 - 1
    return {"hi": last, "default": min(PAGE_KNOBS["precision"]["pair"].default, last)}


@dataclass(frozen=True)
class PositionLimits:
    """Where a dtype's positions stop being exact (rope_viz.position_limits): every integer up to
    exact_up_to is held exactly; overflow_from is the first position cast to +inf (None past 2^24)."""

    exact_up_to: int
    overflow_from: int | None


def limit_metrics(known: dict[str, PositionLimits]) -> list[Metric]:
    """Where positions stop being exact in each dtype (from `limits`)."""
    return [metric("precision.exact_bf16", f"{known['bfloat16'].exact_up_to:,}"),
            metric("precision.exact_fp16", f"{known['float16'].exact_up_to:,}"),
            metric("precision.overflow_fp16", f"{known['float16'].overflow_from:,}"),
            metric("precision.exact_fp32", f"{known['float32'].exact_up_to:,}")]


def limits() -> dict[str, PositionLimits]:
    """position_limits of the position dtypes, keyed by dtype: bfloat16, float16, float32."""
    known = {name: position_limits(recipe) for name, recipe in
             (("bfloat16", "bf16-positions"), ("float16", "fp16-positions"), ("float32", "fp32"))}
    return {name: PositionLimits(found["exact_up_to"], found["overflow_from"]) for name, found in known.items()}


def _drawable(values: torch.Tensor) -> np.ndarray:
    """float32 for drawing, infinities as NaN (a gap in the line)."""
    drawn = to_numpy(values)
    drawn[~np.isfinite(drawn)] = np.nan
    return drawn


@dataclass(frozen=True)
class Staircase:
    """Positions start .. start + STRIP - 1 and the rotation bfloat16 (and float16) positions give them.

    positions: (STRIP,) float32 true positions; bf16_position, fp16_position: the position each recipe
    multiplies by theta (NaN past float16's range); exact_angle, bf16_angle: pair `pair`'s angle wrapped
    to (-pi, pi]; steps: distinct bfloat16 rotations among the positions; widest: the most positions sharing
    one; largest_shift: the largest |bfloat16 position - true position|; gap: the bfloat16 spacing at the
    window's end.
    """

    positions: np.ndarray
    bf16_position: np.ndarray
    fp16_position: np.ndarray
    exact_angle: np.ndarray
    bf16_angle: np.ndarray
    steps: int
    widest: int
    largest_shift: float
    gap: float


def staircase(start: int, dim: int, base: float, pair: int) -> Staircase:
    """The bfloat16 staircase over the STRIP positions from `start`, pair `pair`'s angle beside it."""
    stop = start + STRIP
    positions = torch.arange(start, stop, dtype=torch.float64)
    bf16 = applied_rotation(positions, dim, base, recipe="bf16-positions")
    fp16 = applied_rotation(positions, dim, base, recipe="fp16-positions")
    steps = distinct_rotations(start, stop, dim, base, recipe="bf16-positions", pair=pair)
    return Staircase(
        positions=to_numpy(positions),
        bf16_position=_drawable(bf16["position"]),
        fp16_position=_drawable(fp16["position"]),
        exact_angle=to_numpy(exact_angles(positions, dim, base)[:, pair]),
        bf16_angle=to_numpy(bf16["angle"][:, pair]),
        steps=int(steps["start"].numel()),
        widest=int(steps["count"].max()),
        largest_shift=float((bf16["position"] - positions).abs().max()),
        gap=spacing(float(stop - 1), "bfloat16"),
    )


class StaircaseLines(NamedTuple):
    """The staircase's two charts as lines keyed by series (see series_key): `positions`, the position each
    recipe uses against the true one, and `angles`, the chosen pair's angle exactly and with bfloat16."""

    positions: dict[str, np.ndarray]
    angles: dict[str, np.ndarray]


def staircase_series(stairs: Staircase) -> StaircaseLines:
    return StaircaseLines(positions={"true": stairs.positions, "bf16-positions": stairs.bf16_position,
                                     "fp16-positions": stairs.fp16_position},
                          angles={"exact": stairs.exact_angle, "bf16-positions": stairs.bf16_angle})


def staircase_metrics(stairs: Staircase) -> list[Metric]:
    return [metric("precision.steps", f"{stairs.steps}", count=STRIP),
            metric("precision.widest", f"{stairs.widest}"),
            metric("precision.largest_shift", f"{stairs.largest_shift:,.0f}"),
            metric("precision.gap", f"{stairs.gap:,.0f}")]


@dataclass(frozen=True)
class WindowScores:
    """Attention scores over the SCORE_WINDOW positions ending at the far position: exactly (float64 all the
    way) and with a recipe, as float32 matrices, their difference, and the relative property before and after.

    positions: (w,) float32; exact, scores, difference: (w, w) float32; max_abs_error, relative_error;
    toeplitz_before / toeplitz_after: Toeplitz deviation of one token repeated at every position, in float64
    and with the recipe; shift_before / shift_after: max |scores at 0..w-1 - scores at the far window| in
    float64 and with the recipe; distinct: rotations the recipe gives the window's positions.
    """

    positions: np.ndarray
    exact: np.ndarray
    scores: np.ndarray
    difference: np.ndarray
    max_abs_error: float
    relative_error: float
    toeplitz_before: float
    toeplitz_after: float
    shift_before: float
    shift_after: float
    distinct: int


def scores(far: int, recipe: str, dim: int, base: float, seed: int) -> WindowScores:
    """The scores of the SCORE_WINDOW positions ending at `far`, exactly and with `recipe`."""
    got = recipe_scores(far, dim, base, recipe=recipe, window=SCORE_WINDOW, seed=seed)
    ref = recipe_scores(far, dim, base, recipe="fp64", window=SCORE_WINDOW, seed=seed)
    return WindowScores(
        positions=to_numpy(got["positions"]),
        exact=to_numpy(got["exact"]),
        scores=to_numpy(got["scores"]),
        difference=to_numpy(got["scores"] - got["exact"]),
        max_abs_error=got["max_abs_error"],
        relative_error=got["relative_error"],
        toeplitz_before=got["exact_toeplitz_deviation"],
        toeplitz_after=got["toeplitz_deviation"],
        shift_before=ref["shift_residual"],
        shift_after=got["shift_residual"],
        distinct=got["distinct_rotations"],
    )


def score_metrics(scored: WindowScores) -> list[Metric]:
    """Beside the difference map: how far the recipe's scores are from the exact ones."""
    return [metric("precision.max_abs_error", f"{scored.max_abs_error:.3g}"),
            metric("precision.relative_error", f"{scored.relative_error:.2%}"),
            metric("precision.distinct", f"{scored.distinct} / {SCORE_WINDOW}")]


def relative_metrics(scored: WindowScores) -> list[Metric]:
    """Whether the scores still depend on m - n alone, exactly (before) and with the recipe (after)."""
    shift, toeplitz = phrase("precision.shift_help"), phrase("precision.toeplitz_help")
    return [metric("precision.shift_before", f"{scored.shift_before:.1e}", shift),
            metric("precision.shift_after", f"{scored.shift_after:.1e}", shift),
            metric("precision.toeplitz_before", f"{scored.toeplitz_before:.1e}", toeplitz),
            metric("precision.toeplitz_after", f"{scored.toeplitz_after:.1e}", toeplitz)]


def collapsed_note(scored: WindowScores) -> Phrase | None:
    """A note when the recipe turns the whole window by one rotation (its Toeplitz deviation is then 0 for
    the wrong reason), else None."""
    return phrase("precision.collapsed", window=SCORE_WINDOW) if scored.distinct == 1 else None


def scores_result(scored: WindowScores, recipe: str, far: int) -> Phrase:
    return phrase("precision.scores_result", recipe=phrase(series_key(recipe)), far=far,
                  shift=scored.shift_after, relative=scored.relative_error)


def fix_series(curves: ErrorCurves) -> dict[str, np.ndarray]:
    """The fix chart's lines keyed by series: the bfloat16 rounding level (first, drawn beneath), then the
    worst error over all pairs of each of FIX_RECIPES."""
    return {"rounding": constant_like(curves.positions, curves.bf16_rounding),
            **{recipe: curves.worst[recipe] for recipe in FIX_RECIPES}}


def fix_metrics(curves: ErrorCurves) -> list[Metric]:
    at = curves.at_contexts["fp32"]
    start = curves.float64_from
    return [metric("precision.fp32_at", f"{at['128k']:.2e}", context="128k"),
            metric("precision.fp32_at", f"{at['1M']:.2e}", context="1M"),
            metric("precision.rounding", f"{curves.bf16_rounding:.2e}"),
            metric("precision.float64_from", "—" if start is None else f"{start:,}")]


def fix_result(curves: ErrorCurves) -> Phrase:
    """Where computing the angles in float64 starts to pay, or that it never does on this head."""
    if curves.float64_from is None:
        return phrase("precision.fix_never")
    return phrase("precision.fix_result", position=curves.float64_from, rounding=curves.bf16_rounding)


@dataclass(frozen=True)
class AngleFixTimes:
    """What computing the angles in float64 costs on a device: ways, the three ways timed (float32,
    float64, float64 reduced mod 2 pi); ms, their milliseconds (float32) and labels, the same as bar labels;
    ratio and ratio_reduced over float32; device, its description; length, the positions timed; finite,
    whether the device has float64 at all."""

    ways: tuple[str, ...]
    ms: np.ndarray
    labels: list[str]
    ratio: float
    ratio_reduced: float
    device: str
    length: int
    finite: bool


def angle_fix_times(dim: int, base: float, device: str) -> AngleFixTimes:
    """time_angle_fix on `device` for TIMED_LENGTH positions."""
    timed = time_angle_fix(TIMED_LENGTH, dim, base, device=device)
    ways = ("float32", "float64", "float64_reduced")
    ms = np.array([timed[way] * 1000 for way in ways], dtype=np.float32)
    return AngleFixTimes(ways=ways, ms=ms, labels=[f"{value:.3g}" for value in ms],
                         ratio=timed["ratio"], ratio_reduced=timed["ratio_reduced"],
                         device=describe(torch.device(device)), length=TIMED_LENGTH,
                         finite=all(math.isfinite(timed[way]) for way in ways))


def constant_like(positions: np.ndarray, value: float) -> np.ndarray:
    """A flat float32 line at `value` over `positions` (a threshold drawn beside the curves)."""
    return np.full(len(positions), value, dtype=np.float32)


def timing_metrics(timed: AngleFixTimes) -> list[Metric]:
    return [metric("precision.ratio", f"{timed.ratio:.2f}×"),
            metric("precision.ratio_reduced", f"{timed.ratio_reduced:.2f}×")]


def timing_caption(timed: AngleFixTimes) -> Phrase:
    return phrase("precision.timing_caption" if timed.finite else "precision.timing_no_float64")


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def bf16_gap(start: int, **_) -> Numbers:
    """The gap between neighbouring bfloat16 numbers around the staircase's first position: spacing(start)."""
    position = max(int(start), 1)  # position 0 has no neighbours below it: ask about position 1 instead
    gap = spacing(position, "bfloat16")
    return Numbers({"start": f"{position:,}"}, gap,
                   (spacing(position, "float32"), spacing(position, "float16"), gap / 2, gap * 2, 1.0), "{:,.4g}")


QUIZ = (Question("bf16_gap", bf16_gap), Question("collapse"))
