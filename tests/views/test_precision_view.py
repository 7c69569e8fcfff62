"""explorer.pure.views.precision against angles, casts and scores written out here with numpy (float32 and float16
arithmetic, bfloat16 rounding by hand on the bit pattern) and mpmath for the exact angle."""

from __future__ import annotations

import math
from dataclasses import replace

import mpmath
import numpy as np
import pytest
import torch

from explorer.pure.figures import PALETTE
from explorer.pure.knobs import PAGE_KNOBS
from explorer.pure.text import LANGS, text
from explorer.pure.views.phrases import Phrase
from explorer.pure.views import precision as view
from rope_viz.analysis import RECIPES, random_attention_inputs
from support.rope_reference import hand_bf16, pair_rope

DIM, BASE = 16, 10000.0  # small, so that every pair of every grid point stays cheap


def exact_error(applied: float, m: int, i: int, dim: int, base: float) -> float:
    """|wrap(applied - m * base^(-2i/d))| at 40 digits."""
    with mpmath.workdps(40):
        diff = mpmath.mpf(applied) - m * mpmath.power(base, mpmath.mpf(-2 * i) / dim)
        two_pi = 2 * mpmath.pi
        return float(abs(diff - two_pi * mpmath.nint(diff / two_pi)))


@pytest.fixture(scope="module")
def curves():
    return view.error_curves(DIM, BASE)


def test_grid_spans_one_to_two_to_the_24_with_the_context_lengths():
    grid = view.position_grid()
    assert grid[0] == 1 and grid[-1] == 1 << 24
    assert np.all(np.diff(grid) > 0) and 150 <= len(grid) <= view.GRID_POINTS + len(view.CONTEXTS)
    assert set(view.CONTEXTS.values()) <= set(grid.tolist())
    spans = view.windows(grid)
    assert spans.shape == (len(grid), view.WINDOW) and spans.min() == 1
    assert np.array_equal(spans[:, 0], grid)


def test_the_smallest_head_has_the_pair_the_page_follows():
    assert PAGE_KNOBS["precision"]["dim"].lo // 2 > view.FASTEST


@pytest.mark.parametrize("at", [4_096, 131_072, 1_048_576])
def test_fp32_and_bf16_curves_of_pair_1_against_mpmath(curves, at):
    """The drawn point at `at` is the worst error over the WINDOW positions ending there."""
    row = int(np.nonzero(curves.positions == at)[0][0])
    theta = np.float32(BASE ** (-2.0 / DIM))
    positions = range(at - view.WINDOW + 1, at + 1)
    fp32 = max(exact_error(float(np.float32(m) * theta), m, 1, DIM, BASE) for m in positions)
    bf16 = max(exact_error(float(hand_bf16(np.float32(m)) * theta), m, 1, DIM, BASE) for m in positions)
    assert curves.error["fp32"][row, 1] == pytest.approx(fp32, rel=1e-5)
    assert curves.error["bf16-positions"][row, 1] == pytest.approx(bf16, rel=1e-5)
    assert curves.worst["fp32"][row] == pytest.approx(curves.error["fp32"][row].max())


def test_pair_0_is_exact_in_float32_and_errors_are_floored(curves):
    assert np.all(curves.error["fp32"][:, 0] == np.float32(view.FLOOR))  # m * 1 is a whole number
    assert np.all(curves.error["fp64"] < 1e-8)
    for table in curves.error.values():
        assert np.all(table[~np.isnan(table)] >= np.float32(view.FLOOR))
    small = curves.positions <= 256  # bfloat16 holds every position up to 256
    assert np.all(curves.error["bf16-positions"][small] < 1e-5)


def test_fp16_positions_overflow_from_65520(curves):
    assert curves.overflow_from == 65_520
    with np.errstate(over="ignore"):
        assert np.isinf(np.float16(65_520.0)) and np.float16(65_519.0) == 65_504.0
    window_end = curves.positions
    nan_rows = np.isnan(curves.worst["fp16-positions"])
    assert np.array_equal(nan_rows, window_end >= 65_520)  # a window holding one overflowed position is NaN


def test_float64_needed_where_fp32_passes_the_bf16_rounding(curves):
    level, start = curves.bf16_rounding, curves.float64_from
    assert 2.0 ** -10 < level < 2.0 ** -7  # one bfloat16 rounding: 8 significant bits
    fp32 = curves.worst["fp32"]
    before = curves.positions < start
    assert np.all(fp32[before] <= level) and fp32[curves.positions == start][0] > level
    # pair 1 at 1M turns 3.2e5 rad (d = 16): the float32 spacing there is 2^-5, so half of it is 0.0156
    assert curves.at_contexts["fp32"]["1M"] > 0.0156


def test_pair_errors_and_constant_line(curves):
    lines = view.pair_errors(curves, 3)
    assert set(lines) == set(RECIPES)
    assert np.array_equal(lines["fp32"], curves.error["fp32"][:, 3]) and lines["fp32"].flags.c_contiguous
    flat = view.constant_like(curves.positions, 0.5)
    assert flat.dtype == np.float32 and flat.shape == curves.positions.shape and np.all(flat == 0.5)


def test_staircase_against_hand_casts():
    stairs = view.staircase(4090, 64, BASE, 0)
    m = np.arange(4090, 4141, dtype=np.float32)
    cast = hand_bf16(m)
    assert np.array_equal(stairs.positions, m)
    assert np.array_equal(stairs.bf16_position, cast)
    assert np.array_equal(stairs.fp16_position, m.astype(np.float16).astype(np.float32))
    assert stairs.steps == len(np.unique(cast)) == 2  # 4096 (steps of 16 below) and 4128 (steps of 32)
    assert stairs.widest == np.unique(cast, return_counts=True)[1].max()
    assert stairs.largest_shift == np.abs(cast - m).max() == 16
    assert stairs.gap == 32
    # pair 0 turns by the position itself: the bfloat16 angle is the cast position, wrapped
    np.testing.assert_allclose(stairs.bf16_angle, np.remainder(cast.astype(np.float64) + np.pi, 2 * np.pi) - np.pi,
                               atol=1e-4)
    np.testing.assert_allclose(stairs.exact_angle, np.remainder(m.astype(np.float64) + np.pi, 2 * np.pi) - np.pi,
                               atol=1e-6)


def test_staircase_past_float16_range_draws_gaps():
    stairs = view.staircase(65_500, 8, BASE, 1)
    assert np.isnan(stairs.fp16_position[stairs.positions >= 65_520]).all()
    assert np.isfinite(stairs.fp16_position[stairs.positions < 65_520]).all()


def test_scores_against_numpy_rotations():
    dim, base, far, seed = 32, BASE, 8000, 3
    got = view.scores(far, "bf16-positions", dim, base, seed)
    x, w_q, w_k = random_attention_inputs(view.SCORE_WINDOW, dim, seed=seed, dtype=torch.float64)
    q, k = (x @ w_q).numpy(), (x @ w_k).numpy()
    far_positions = np.arange(far - view.SCORE_WINDOW + 1, far + 1, dtype=np.float64)
    exact = pair_rope(q, far_positions, base) @ pair_rope(k, far_positions, base).T
    cast = hand_bf16(far_positions.astype(np.float32)).astype(np.float64)
    collapsed = pair_rope(q, cast, base) @ pair_rope(k, cast, base).T
    near = np.arange(view.SCORE_WINDOW, dtype=np.float64)
    at_start = pair_rope(q, near, base) @ pair_rope(k, near, base).T
    assert np.array_equal(got.positions, far_positions.astype(np.float32))
    np.testing.assert_allclose(got.exact, exact, rtol=1e-5, atol=1e-4)
    # the recipe multiplies in float32: compare with a tolerance of the float32 angle error (~1e-3 rad)
    np.testing.assert_allclose(got.scores, collapsed, atol=0.05 * np.abs(exact).max())
    assert got.max_abs_error == pytest.approx(np.abs(collapsed - exact).max(), rel=0.02)
    assert got.shift_after == pytest.approx(np.abs(at_start - collapsed).max(), rel=0.02)
    assert got.shift_before < 1e-8 and got.toeplitz_before < 1e-8
    assert got.distinct == len(np.unique(cast)) and got.relative_error > 0.1
    np.testing.assert_allclose(got.difference, got.scores - got.exact, atol=1e-4)


def test_fp64_scores_keep_the_relative_property():
    got = view.scores(1_000_000, "fp64", 16, BASE, 0)
    assert got.max_abs_error < 1e-6 and got.shift_after < 1e-6 and got.toeplitz_after < 1e-6
    assert got.distinct == view.SCORE_WINDOW


def test_angle_fix_times_on_the_cpu():
    timed = view.angle_fix_times(8, BASE, "cpu")
    assert timed.ways == ("float32", "float64", "float64_reduced") and timed.finite
    assert timed.ms.dtype == np.float32 and np.all(timed.ms > 0)
    assert math.isclose(timed.ratio, timed.ms[1] / timed.ms[0], rel_tol=1e-3)
    assert timed.device == "cpu" and timed.length == view.TIMED_LENGTH


def test_limits():
    known = view.limits()
    assert known["bfloat16"].exact_up_to == 256 and known["float16"].exact_up_to == 2048
    assert known["float16"].overflow_from == 65_520 and known["float32"].exact_up_to == 1 << 24


# ----------------------------------------------------------------------------- what the page places


def rendered(said: Phrase, lang: str) -> str:
    """A Phrase in words, as the page's layout helpers put it (nested Phrases first)."""
    args = {name: rendered(value, lang) if isinstance(value, Phrase) else value for name, value in said.args.items()}
    return text(said.key, lang, **args)


def test_lines_are_drawn_with_the_references_on_top_in_fixed_colours(curves):
    assert view.DRAW_ORDER == ("bf16-positions", "fp16-positions", "bf16-tables", "fp16-tables", "fp64", "fp32")
    assert list(view.pair_errors(curves, 1)) == list(view.DRAW_ORDER)
    indices = list(view.SERIES_COLORS.values())
    assert set(view.SERIES_COLORS) == set(RECIPES) | {"rounding"}
    assert len(set(indices)) == len(indices) and max(indices) < len(PALETTE)  # no two lines share a colour


@pytest.mark.parametrize("lang", LANGS)
def test_every_series_has_a_name(lang):
    names = [text(view.series_key(series), lang) for series in (*RECIPES, "true", "exact", "rounding")]
    assert len(set(names)) == len(names)
    assert view.series_key("bf16-positions") == "precision.recipe_bf16_positions"


@pytest.mark.parametrize(("dim", "hi", "default"), [(4, 1, 1), (8, 3, 3), (34, 16, 16), (128, 63, 16)])
def test_the_pair_knob_narrows_to_the_head(dim, hi, default):
    assert view.pair_knob(dim) == {"hi": hi, "default": default}


def test_staircase_lines_and_metrics():
    stairs = view.staircase(4090, DIM, BASE, 1)
    lines = view.staircase_series(stairs)
    assert list(lines.positions) == ["true", "bf16-positions", "fp16-positions"]
    assert list(lines.angles) == ["exact", "bf16-positions"]
    assert lines.positions["bf16-positions"] is stairs.bf16_position
    shown = {m.label.key: m.value for m in view.staircase_metrics(stairs)}
    # 4,090..4,140 in bfloat16: 4,090..4,112 give 4,096 (23 positions; 4,112 is a tie and goes to the even
    # 4,096), 4,113..4,140 give 4,128 (28 positions); 4,112 moves furthest, by 16
    assert shown == {"precision.steps": "2", "precision.widest": "28", "precision.largest_shift": "16",
                     "precision.gap": "32"}


def test_score_notes():
    collapsed = view.scores(1_000_000, "bf16-positions", DIM, BASE, 0)
    kept = view.scores(1_000, "fp32", DIM, BASE, 0)
    assert view.collapsed_note(collapsed) == Phrase("precision.collapsed", {"window": view.SCORE_WINDOW})
    assert view.collapsed_note(kept) is None
    assert [m.value for m in view.score_metrics(kept)][2] == f"{view.SCORE_WINDOW} / {view.SCORE_WINDOW}"
    assert {m.help.key for m in view.relative_metrics(kept)} == {"precision.shift_help", "precision.toeplitz_help"}
    said = rendered(view.scores_result(collapsed, "bf16-positions", 1_000_000), "en")
    assert "bf16 positions" in said and "1,000,000" in said


def test_fix_lines_metrics_and_verdict(curves):
    fix = view.fix_series(curves)
    assert list(fix) == ["rounding", *view.FIX_RECIPES]
    assert np.all(fix["rounding"] == np.float32(curves.bf16_rounding))
    assert np.array_equal(fix["fp32"], curves.worst["fp32"])
    values = [m.value for m in view.fix_metrics(curves)]
    start = curves.float64_from
    assert values[3] == ("—" if start is None else f"{start:,}")
    never = replace(curves, float64_from=None)
    assert view.fix_result(never) == Phrase("precision.fix_never")
    assert view.fix_result(replace(curves, float64_from=40_000)).args["position"] == 40_000
    assert [m.value for m in view.fix_metrics(never)][3] == "—"


def test_limit_metrics_read_the_cores_limits():
    assert [m.value for m in view.limit_metrics(view.limits())] == ["256", "2,048", "65,520", "16,777,216"]


def timed_as(**measured) -> view.AngleFixTimes:
    """Timings as a device might report them: three ways at 1, 2 and 3 ms unless `measured` says otherwise."""
    ms = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    return view.AngleFixTimes(**{"ways": ("float32", "float64", "float64_reduced"), "ms": ms, "labels": ["1", "2", "3"],
                                 "ratio": 2.0, "ratio_reduced": 3.0, "device": "cpu", "length": view.TIMED_LENGTH,
                                 "finite": True, **measured})


def test_timing_caption_says_when_float64_is_missing():
    assert view.timing_caption(timed_as(finite=True)).key == "precision.timing_caption"
    assert view.timing_caption(timed_as(finite=False)).key == "precision.timing_no_float64"
    labels = [m.value for m in view.timing_metrics(timed_as(ratio=1.234, ratio_reduced=0.5))]
    assert labels == ["1.23×", "0.50×"]


@pytest.mark.parametrize("lang", LANGS)
def test_every_phrase_the_view_returns_reads_in_both_languages(curves, lang):
    stairs = view.staircase(4090, DIM, BASE, 1)
    scored = view.scores(1_000_000, "bf16-positions", DIM, BASE, 0)
    timed = timed_as(finite=True, ratio=2.0, ratio_reduced=1.0)
    metrics = [*view.limit_metrics(view.limits()), *view.staircase_metrics(stairs), *view.score_metrics(scored),
               *view.relative_metrics(scored), *view.fix_metrics(curves), *view.timing_metrics(timed)]
    phrases = [m.label for m in metrics] + [m.help for m in metrics if m.help is not None] + [
        view.collapsed_note(scored), view.scores_result(scored, "fp16-tables", 1_000_000), view.fix_result(curves),
        view.fix_result(replace(curves, float64_from=None)), view.timing_caption(timed)]
    for said in phrases:
        assert rendered(said, lang).strip()
