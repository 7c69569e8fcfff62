"""Every topic page opens cleanly: at its defaults, in Chinese, and with its knobs at the ends of their ranges,
drawing the charts it should (by their keys). What a page must show beyond that, when it opens in Chinese or at
its extremes, is a small check below, keyed by the page; what it shows at its defaults is in its own file."""

import cmath
import importlib
import math
import re

import numpy as np
import pytest

from explorer.app import live_budget
from explorer.pure.knobs import heaviest, lightest
from explorer.pure.sitemap import TOPICS
from support.apptest import (arrow_tips, axis_titles, chart, chart_keys, charts, check_clean, has_cjk, metrics,
                             open_at_extremes, opened, page_text, spec_array)
from support.rope_reference import hand_rotation_2x2
from support.toy_standin import standin_folder

# the charts each page draws at its defaults, by key, in order: declared beside its view (`CHARTS`)
CHARTS = {page: importlib.import_module(f"explorer.pure.views.{page}").CHARTS for page in TOPICS}
# charts drawn without two axis titles: an animation of clock faces, strips of layers named on one axis
AXISLESS = {"frequency_clocks": {"clocks"}, "model_anatomy": {"strip"}, "real_models": {"strip"}}
# a chart only a knob asks for: the measured timings
TIMING = {"precision": "timing", "linear_attention": "timings"}
# charts left out at the ends of the knobs' ranges
NOT_AT_THE_EXTREMES = {"long_context": {"dynamic_trap"}}
# the extremes each page is opened at: both ends of every knob, and the corners worth their own look; not the
# real-models pages (their heaviest text is read live by the model, minutes) nor the check page (its knobs plant
# a bug, and the notice that says so is what the page is for)
EXTREMES = {page: [lightest(page), heaviest(page)] for page in TOPICS
            if page not in ("real_models", "pairs_in_real_models", "check_implementation")} | {
    "complex_numbers": [lightest("complex_numbers"), heaviest("complex_numbers"),
                        {"a": "0", "b": "0", "theta": "0", "w_mod": "1", "w_angle": "0"}],  # z at the origin
    "phase_cancellation": [lightest("phase_cancellation"), heaviest("phase_cancellation"),
                           {**heaviest("phase_cancellation"), "n": "0"}],  # the largest offset, n - m = -128
    # the distance axis both ways at each end (log_x changes the sampled grid, not the cost)
    "long_term_decay": [lightest("long_term_decay"), {**lightest("long_term_decay"), "log_x": "1"},
                        heaviest("long_term_decay"), {**heaviest("long_term_decay"), "log_x": "0"}],
    "linear_attention": [lightest("linear_attention"), heaviest("linear_attention"),
                         {**lightest("linear_attention"), "phi": "relu"}],
    "relative_attention": [{**ends("relative_attention"), "content": content}
                           for ends in (lightest, heaviest) for content in ("same", "random")],
}


def expected_charts(page: str, params: dict) -> list[str]:
    """The keys of the charts `page` draws with these URL parameters."""
    keys = [key for key in CHARTS[page] if key not in NOT_AT_THE_EXTREMES.get(page, ())]
    if params.get("timing") == "1":
        keys.append(TIMING[page])
    return keys


@pytest.fixture(autouse=True)
def toy_results(request, monkeypatch):
    """The trained-models page reads a stand-in grid trained for a few steps (support.toy_standin)."""
    if getattr(request.node, "callspec", None) and request.node.callspec.params.get("page") == "trained_models":
        monkeypatch.setenv(live_budget.RESULTS_ENV, str(standin_folder()))
        assert live_budget.wait(120)


# ----- in Chinese: what each page's Chinese must reach beyond its text


def all_axes_in_chinese(at, keys=None):
    assert all(has_cjk(" ".join(axis_titles(spec))) for key, spec in charts(at).items() if keys is None or key in keys)


def all_titles_in_chinese(at):
    assert all(has_cjk(spec["layout"]["title"]["text"]) for spec in charts(at).values())


def all_metrics_in_chinese(at):
    assert all(has_cjk(m.label) for m in at.metric)


def some_metric_in_chinese(at):
    assert has_cjk(" ".join(m.label for m in at.metric))


def zh_complex_numbers(at):
    all_axes_in_chinese(at)
    assert has_cjk(chart(at, "rotor")["layout"]["title"]["text"])


def zh_frequency_clocks(at):
    assert has_cjk(" ".join(axis_titles(chart(at, "wavelengths"))))


def zh_phase_cancellation(at):
    assert has_cjk(" ".join(axis_titles(chart(at, "shift"))))
    assert has_cjk(chart(at, "slide")["frames"][5]["layout"]["title"]["text"])


def zh_relative_attention(at):
    all_axes_in_chinese(at)
    all_metrics_in_chinese(at)


def zh_implementation_forms(at):
    all_axes_in_chinese(at, set(CHARTS["implementation_forms"]) - {"worked"})
    assert has_cjk(" ".join(el.value for el in at.info))


def zh_rope_vs_sinusoidal(at):
    all_axes_in_chinese(at)
    frame = at.table[0].value
    assert all(has_cjk(c) for c in frame.columns)
    assert list(frame.iloc[2, 1:]) == ["是", "否"]


def zh_long_term_decay(at):
    all_axes_in_chinese(at)
    assert has_cjk(chart(at, "bound")["data"][0]["name"])


def zh_linear_attention(at):
    all_axes_in_chinese(at)
    some_metric_in_chinese(at)


def zh_long_context(at):
    all_titles_in_chinese(at)
    all_axes_in_chinese(at)
    some_metric_in_chinese(at)


def zh_model_anatomy(at):
    assert has_cjk(at.title[0].value)
    assert "个分块注意力" in page_text(at)


def zh_real_models(at):
    assert has_cjk(at.title[0].value)
    all_titles_in_chinese(at)
    assert "奈特" in page_text(at)


def zh_pairs_in_real_models(at):
    assert has_cjk(at.title[0].value)
    all_titles_in_chinese(at)
    all_axes_in_chinese(at)
    assert "成立" in page_text(at)


def zh_precision(at):
    all_titles_in_chinese(at)
    all_axes_in_chinese(at)
    all_metrics_in_chinese(at)


def zh_images_and_video(at):
    all_titles_in_chinese(at)
    all_axes_in_chinese(at)
    all_metrics_in_chinese(at)


def zh_distance_biases(at):
    all_titles_in_chinese(at)
    all_axes_in_chinese(at)
    assert all(has_cjk(name) for name in at.table[0].value.columns)


def zh_trained_models(at):
    all_titles_in_chinese(at)
    all_axes_in_chinese(at, {"accuracy", "locked"})
    some_metric_in_chinese(at)


IN_CHINESE = {name.removeprefix("zh_"): check for name, check in dict(globals()).items() if name.startswith("zh_")}


# ----- at the extremes: what each page must still get right


def ends_complex_numbers(at, params):
    a, b, theta = float(params["a"]), float(params["b"]), math.radians(float(params["theta"]))
    z, w = complex(a, b), cmath.rect(float(params["w_mod"]), math.radians(float(params["w_angle"])))
    assert arrow_tips(chart(at, "quarter_turn"))["i·z"] == pytest.approx((-b, a), abs=1e-12)
    assert arrow_tips(chart(at, "product"))["z·w"] == pytest.approx(((z * w).real, (z * w).imag), abs=1e-12)
    turned = z * cmath.exp(1j * theta)
    assert arrow_tips(chart(at, "rotor"))["z·e<sup>iθ</sup>"] == pytest.approx((turned.real, turned.imag), abs=1e-12)
    assert ("origin" in page_text(at)) == (a == b == 0)


def ends_frequency_clocks(at, params):
    # lightest: d = 2, one pair, positions 0..8; heaviest: d = 256, positions 0..512, eight clocks, m = 512
    dim, base, max_pos = int(params["dim"]), float(params["base"]), int(params["max_pos"])
    pairs = [int(i) for i in params["pairs"].split(",")]
    clocks = chart(at, "clocks")
    assert len(clocks["frames"]) == max_pos + 1
    assert len(clocks["frames"][-1]["data"]) == len(pairs)  # one hand per chosen pair
    for hand, i in zip(clocks["frames"][-1]["data"], pairs):  # the last frame: position max_pos
        expected = max_pos * base ** (-2 * i / dim)
        drawn = math.atan2(hand["y"][1], hand["x"][1])
        assert math.remainder(drawn - expected, 2 * math.pi) == pytest.approx(0.0, abs=1e-5)
    assert spec_array(chart(at, "angles")["data"][0]["z"]).shape == (max_pos + 1, dim // 2)


def ends_phase_cancellation(at, params):
    dim, m, n, pair = int(params["dim"]), int(params["m"]), int(params["n"]), int(params["pair"])
    assert spec_array(chart(at, "block")["data"][0]["z"]).shape == (dim, dim)
    assert float(metrics(at)["|difference|"]) < 1e-10
    theta = float(params["base"]) ** (-2 * pair / dim)
    panels = [spec_array(tr["z"]) for tr in chart(at, "matrices")["data"]]
    for panel, angle in zip(panels, (m * theta, n * theta, (n - m) * theta, (n - m) * theta)):
        np.testing.assert_allclose(panel, hand_rotation_2x2(angle), atol=1e-6)
    frames = chart(at, "slide")["frames"]
    assert len(frames) == 61
    printed = {re.search(r"q·k = (\S+)", f["layout"]["title"]["text"].replace("<br>", " ")).group(1)
               for f in frames}
    assert len(printed) == 1  # the dot product does not move while both arrows turn


def ends_relative_attention(at, params):
    if params["seq"] == "2048":  # the largest knobs draw thinned heatmaps with exact diagonals
        assert params["causal"] == "1"
        scores = chart(at, "scores")
        z = spec_array(scores["data"][0]["z"])
        assert z.shape == (256, 256)
        assert list(spec_array(scores["data"][0]["y"])[:3]) == [0, 8, 16]  # original positions label the axes
        if params["content"] == "same":
            spread = max(np.ptp(np.diagonal(z, offset=r)) for r in range(-255, 256))
            assert spread < 1e-4 * np.abs(z).max()  # the thinned matrix is still Toeplitz
        assert len(spec_array(chart(at, "profile")["data"][2]["x"])) == 2 * 2048 - 1  # the profile uses every offset
        assert "2048 × 2048" in page_text(at)
    else:
        assert params["shift"] == "0"
        assert float(metrics(at)["Largest residual"]) == 0.0  # a shift of 0 changes nothing at all


def ends_implementation_forms(at, params):
    c, s = math.cos(float(params["m"]) * float(params["theta"])), math.sin(float(params["m"]) * float(params["theta"]))
    q1, q2 = float(params["q1"]), float(params["q2"])
    first, second = q1 * c - q2 * s, q1 * s + q2 * c
    assert metrics(at)["q′₁"] == f"{first:.5f}" and metrics(at)["q′₂"] == f"{second:.5f}"
    dim, rotary_dim = int(params["dim"]), int(params["rotary_dim"])
    rotated, passed = (spec_array(trace["y"]) for trace in chart(at, "partial")["data"])
    assert len(rotated) == rotary_dim and len(passed) == dim - rotary_dim
    assert len(spec_array(chart(at, "values")["data"][0]["y"])) == int(params["seq"])


def ends_rope_vs_sinusoidal(at, params):
    frame = at.table[0].value
    assert list(frame.columns) == ["Measured", "RoPE (turn q and k)", "Sinusoidal (add pₘ)"] and len(frame) == 5
    rows = dict(zip(["shift", "deviation", "relative", "norm", "cost"], frame.iloc[:, 1:].itertuples(index=False)))
    assert rows["relative"][0] == "yes"
    if params["shift"] == "0":
        assert tuple(rows["shift"]) == ("0", "0")  # moving by nothing changes nothing, for both
    else:
        assert spec_array(chart(at, "terms")["data"][0]["z"]).shape == (128, 128)  # drawn 1 in 8
        assert rows["relative"][1] == "no"


def ends_long_term_decay(at, params):
    bound = chart(at, "bound")
    assert len(bound["data"]) == 1 + len(params["sweep"].split(","))  # no sweep base equals the chosen one
    chosen = spec_array(bound["data"][0]["y"])
    assert len(chosen) == int(params["max_r"]) + 1
    assert chosen[0] == pytest.approx((int(params["dim"]) / 2 + 1) / 2, rel=1e-6)
    r = spec_array(chart(at, "empirical")["data"][0]["x"])
    assert r[0] == 0 and r[-1] == int(params["max_r"]) and len(r) <= 256


def ends_linear_attention(at, params):
    seq, dim = int(params["seq"]), int(params["dim"])
    heat = spec_array(chart(at, "linear_output")["data"][0]["z"])
    assert heat.shape == (min(seq, 256), dim)  # thinned rows for drawing
    denominators = spec_array(chart(at, "denominators")["data"][0]["y"])
    assert len(denominators) == seq  # statistics keep every position
    assert np.all(denominators >= 0)


def ends_precision(at, params):
    assert spec_array(chart(at, "staircase")["data"][0]["x"])[0] == int(params["start"])
    assert spec_array(chart(at, "scores")["data"][0]["z"]).shape == (64, 64)


def ends_images_and_video(at, params):
    height, width = int(params["height"]), int(params["width"])
    for name in ("axial", "raster", "mrope"):
        assert spec_array(chart(at, f"maps_{name}")["data"][0]["z"]).shape == (height, width)
    assert spec_array(chart(at, "mrope")["data"][0]["z"]).shape == (height, width)
    assert max(spec_array(chart(at, "scores")["data"][0]["z"]).shape) <= 256


def ends_distance_biases(at, params):
    assert len(chart(at, "alibi")["data"]) == int(params["heads"])
    assert len(at.table[0].value) == 6


def ends_trained_models(at, params):
    factor = float(params["factor"])
    assert spec_array(chart(at, "map_long")["data"][0]["z"]).shape == (round(32 * factor),) * 2


AT_THE_EXTREMES = {name.removeprefix("ends_"): check for name, check in dict(globals()).items()
                   if name.startswith("ends_")}


# ----- the tables over the pages


@pytest.mark.parametrize("page", TOPICS)
def test_opens_at_its_defaults_with_its_charts(page):
    at = opened(page)
    check_clean(at)
    assert chart_keys(at) == list(CHARTS[page])
    drawn = charts(at)
    assert not [key for key, spec in drawn.items() if not (spec["layout"].get("title") or {}).get("text")]
    assert {key for key, spec in drawn.items() if len(axis_titles(spec)) < 2} <= AXISLESS.get(page, set())


@pytest.mark.parametrize("page", TOPICS)
def test_opens_in_chinese(page):
    at = opened(page, lang="zh")
    check_clean(at)
    assert has_cjk(page_text(at))
    assert chart_keys(at) == list(CHARTS[page])
    IN_CHINESE.get(page, lambda at: None)(at)


@pytest.mark.parametrize("page, params", [(page, params) for page in EXTREMES for params in EXTREMES[page]],
                         ids=lambda value: value if isinstance(value, str) else "")
def test_opens_at_the_extremes(page, params):
    at = open_at_extremes(page, params, expected_charts(page, params))
    AT_THE_EXTREMES.get(page, lambda at, params: None)(at, params)


def test_every_page_is_in_the_tables():
    assert [page for page, keys in CHARTS.items() if not (keys and all(isinstance(k, str) for k in keys))] == []
    assert set(IN_CHINESE) | set(AT_THE_EXTREMES) <= set(TOPICS)


def test_a_chart_missing_from_the_page_fails_the_lookup():
    with pytest.raises(AssertionError, match="no chart 'nowhere' on the page, only"):
        chart(opened("long_term_decay"), "nowhere")
