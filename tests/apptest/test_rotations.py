"""The frequency-clocks page through AppTest: defaults, extremes, Chinese, hostile links."""

import math

import pytest

from conftest import axis_titles, chart_specs, has_cjk, open_at_extremes, open_hostile_link, open_page, page_text


def test_defaults_draw_the_clock_animation(assert_clean):
    at = open_page("rotations")
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == 4
    clocks = specs[0]
    # one frame per position 0..64, play/pause buttons and a slider, all client-side
    assert len(clocks["frames"]) == 65
    buttons = clocks["layout"]["updatemenus"][0]["buttons"]
    assert [b["method"] for b in buttons] == ["animate", "animate"]
    assert len(clocks["layout"]["sliders"][0]["steps"]) == 65
    for spec in specs[1:]:
        assert len(axis_titles(spec)) >= 2
    assert at.query_params["dim"] == "64" and at.query_params["base"] == "10000"


def test_hand_angles_follow_m_theta():
    at = open_page("rotations", {"dim": 8, "base": 100, "max_pos": 16, "pairs": "1"})
    frame = chart_specs(at)[0]["frames"][5]
    x, y = frame["data"][0]["x"][1], frame["data"][0]["y"][1]
    expected = 5 * 100 ** (-2 / 8)  # m * theta_1 by hand
    assert math.atan2(y, x) == pytest.approx(math.remainder(expected, 2 * math.pi), abs=1e-5)


@pytest.mark.parametrize("params", [
    {"dim": 2, "base": 10, "max_pos": 8, "pairs": "0"},
    {"dim": 256, "base": 1e7, "max_pos": 512, "pairs": "0,1,2,3,60,100,126,127", "m": 512, "pair": 127},
])
def test_extreme_knobs(params):
    open_at_extremes("rotations", params, charts=4)


def test_chinese():
    at = open_page("rotations", lang="zh")
    assert has_cjk(page_text(at))
    assert has_cjk(" ".join(axis_titles(chart_specs(at)[2])))


def test_hostile_link_is_repaired_with_notices():
    open_hostile_link("rotations", {"dim": "7", "base": "nan", "pairs": "<script>alert(1)</script>",
                                    "max_pos": "1e308"},
                      {"dim": "6", "base": "10000", "max_pos": "512"}, notices=4)
