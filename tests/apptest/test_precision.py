"""The precision page through AppTest: the drawn angle errors, staircase and scores against numpy float32 /
float16 arithmetic and bfloat16 rounding written here (opening in Chinese and at the extremes: test_every_page)."""

import numpy as np
import pytest
import torch

from rope_viz.analysis import random_attention_inputs
from support.apptest import chart, chart_keys, metrics, opened, spec_array, assert_says_where_it_was_timed
from support.rope_reference import hand_bf16, pair_rope

DIM, BASE = 128, 10000.0
WINDOW = 16  # the page's curves: worst error over the 16 positions ending at each point
RECIPE_NAMES = ["bf16 positions", "fp16 positions", "bf16 tables", "fp16 tables", "fp64", "fp32"]  # drawing order


def wrapped(angle):
    return np.abs(np.remainder(angle + np.pi, 2 * np.pi) - np.pi)


def hand_curve(ends, pair, cast, dim=DIM, base=BASE):
    """Worst |float32(cast(m)) * float32(theta) - m * theta| (wrapped) over the WINDOW positions ending at
    each end, against a float64 product (good to ~2e-9 rad at 2^24)."""
    m = np.maximum(ends[:, None] - np.arange(WINDOW)[None, :], 1)
    theta = base ** (-2.0 * pair / dim)
    with np.errstate(over="ignore", invalid="ignore"):
        used = cast(m.astype(np.float32)).astype(np.float32) * np.float32(theta)
        error = wrapped(used.astype(np.float64) - m * theta)
    return error.max(axis=1)


@pytest.fixture
def default_page():
    return opened("precision")


def test_defaults_need_no_notice(default_page):
    assert not default_page.warning
    assert dict(default_page.query_params) == {"lang": "en", "dim": "128", "base": "10000", "pair": "16",
                                               "start": "4090", "far": "8000", "recipe": "bf16-positions",
                                               "seed": "0", "timing": "0"}


@pytest.mark.parametrize("key, pair", [("fastest_pair", 1), ("chosen_pair", 16)])
def test_error_curves_against_float32_arithmetic(default_page, key, pair):
    spec = chart(default_page, key)
    assert [trace["name"] for trace in spec["data"]] == RECIPE_NAMES
    assert spec["layout"]["xaxis"]["type"] == "log" and spec["layout"]["yaxis"]["type"] == "log"
    ends = spec_array(spec["data"][0]["x"]).astype(np.int64)
    assert ends[0] == 1 and ends[-1] == 1 << 24 and 150 <= len(ends) <= 300
    drawn = {trace["name"]: spec_array(trace["y"]) for trace in spec["data"]}
    for name, cast in (("fp32", lambda m: m), ("bf16 positions", hand_bf16),
                       ("fp16 positions", lambda m: m.astype(np.float16))):
        expected = hand_curve(ends, pair, cast)
        shown = np.isfinite(expected) & (expected > 1e-6)
        assert shown.sum() > 40
        np.testing.assert_allclose(drawn[name][shown], expected[shown], rtol=1e-3, err_msg=name)
    assert np.array_equal(np.isnan(drawn["fp16 positions"]), ends >= 65_520)  # float16 positions overflow
    assert np.nanmax(drawn["bf16 positions"]) > 3.0 and drawn["fp64"].max() < 1e-8
    # the model context lengths are marked
    marks = sorted(shape["x0"] for shape in spec["layout"]["shapes"])
    assert marks == [4096, 8192, 32768, 131072, 1048576]
    assert {a["text"] for a in spec["layout"]["annotations"]} == {"4k", "8k", "32k", "128k", "1M"}


def test_staircase_is_the_bfloat16_cast(default_page):
    positions = chart(default_page, "staircase")["data"]
    m = spec_array(positions[0]["x"])
    assert m[0] == 4090 and m[-1] == 4140 and len(m) == 51
    np.testing.assert_array_equal(spec_array(positions[1]["y"]), hand_bf16(m.astype(np.float32)))
    np.testing.assert_array_equal(spec_array(positions[2]["y"]), m.astype(np.float16).astype(np.float64))
    angle = spec_array(chart(default_page, "staircase_angle")["data"][1]["y"])  # pair 16 at the bfloat16 position
    theta = BASE ** (-32.0 / DIM)
    used = (hand_bf16(m.astype(np.float32)) * np.float32(theta)).astype(np.float64)  # a float32 product
    np.testing.assert_allclose(angle, np.remainder(used + np.pi, 2 * np.pi) - np.pi, atol=1e-6)
    shown = metrics(default_page)
    assert shown["Distinct rotations (51 positions)"] == "2"
    assert shown["Largest position shift"] == "16" and shown["bfloat16 step at the window's end"] == "32"


def test_scores_exact_and_with_bfloat16_positions(default_page):
    x, w_q, w_k = random_attention_inputs(64, DIM, seed=0, dtype=torch.float64)
    q, k = (x @ w_q).numpy(), (x @ w_k).numpy()
    far = np.arange(8000 - 63, 8001, dtype=np.float64)
    exact = pair_rope(q, far, BASE) @ pair_rope(k, far, BASE).T
    cast = hand_bf16(far.astype(np.float32)).astype(np.float64)
    collapsed = pair_rope(q, cast, BASE) @ pair_rope(k, cast, BASE).T
    near = np.arange(64, dtype=np.float64)
    at_start = pair_rope(q, near, BASE) @ pair_rope(k, near, BASE).T
    grid = chart(default_page, "scores")["data"]
    np.testing.assert_allclose(spec_array(grid[0]["z"]), exact, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(spec_array(grid[1]["z"]), collapsed, atol=0.02 * np.abs(exact).max())
    difference = spec_array(chart(default_page, "difference")["data"][0]["z"])
    np.testing.assert_allclose(difference, collapsed - exact, atol=0.02 * np.abs(exact).max())
    shown = metrics(default_page)
    assert float(shown["Largest score error"]) == pytest.approx(np.abs(collapsed - exact).max(), rel=0.02)
    assert float(shown["Shift residual, recipe"]) == pytest.approx(np.abs(at_start - collapsed).max(), rel=0.05)
    assert float(shown["Shift residual, float64"]) < 1e-8 and float(shown["Toeplitz deviation, float64"]) < 1e-8
    assert shown["Distinct rotations in the window"] == f"{len(np.unique(cast))} / 64"


def test_fix_chart_marks_where_float64_angles_pay(default_page):
    spec = chart(default_page, "fix")
    traces = {trace["name"]: spec_array(trace["y"]) for trace in spec["data"]}
    assert list(traces) == ["bfloat16 rounding level", "bf16 positions", "bf16 tables", "fp32", "fp64"]
    colour = {trace["name"]: trace["line"]["color"] for trace in spec["data"]}
    assert all(trace["line"]["color"] == colour[trace["name"]]  # one colour per recipe in every chart
               for trace in chart(default_page, "fastest_pair")["data"] if trace["name"] in colour)
    ends = spec_array(spec["data"][1]["x"])
    level = traces["bfloat16 rounding level"]
    assert np.all(level == level[0]) and 2.0 ** -10 < level[0] < 2.0 ** -7
    crossing = ends[np.argmax(traces["fp32"] > level[0])]
    mark = [a for a in spec["layout"]["annotations"] if a["text"].startswith("float64 from")]
    assert mark and mark[0]["text"] == f"float64 from {int(crossing):,}"
    assert 16_384 < crossing < 131_072  # past 32k, before 128k at d = 128, base 10,000
    shown = metrics(default_page)
    assert shown["float64 angles needed from"] == f"{int(crossing):,}"
    assert 0.03 < float(shown["fp32 worst error at 1M"]) < 0.07  # float32 spacing at 1e6 rad is 0.0625


def test_a_pair_past_the_head_is_narrowed_with_a_notice():
    at = opened("precision", {"dim": 8, "pair": 20})
    assert len(at.warning) == 1 and at.query_params["pair"] == "3"
    assert chart(at, "chosen_pair")["layout"]["title"]["text"].startswith("Pair 3")


def test_timing_when_asked(assert_clean):
    at = opened("precision", {"dim": 8, "timing": 1})
    assert_clean(at)
    assert len(chart_keys(at)) == 8
    bars = spec_array(chart(at, "timing")["data"][0]["y"])
    assert len(bars) == 3 and np.all(bars > 0)
    assert float(metrics(at)["float64 ÷ float32"].rstrip("×")) > 0
    assert_says_where_it_was_timed(at)


def test_an_unreadable_pair_on_a_small_head_falls_back_inside_it():
    """The pair's range depends on d: a pair the link garbles falls back to a pair this head has."""
    at = opened("precision", {"dim": "-0", "pair": "\u202e64"})
    assert not at.exception and at.query_params["dim"] == "4" and at.query_params["pair"] == "1"
    assert len(at.warning) == 2
