"""The frequency-clocks page through AppTest: defaults (opening in Chinese and at the extremes: test_every_page)."""

import math

import pytest

from support.apptest import chart, metrics, open_page, opened, page_text


def test_defaults_draw_the_clock_animation():
    at = opened("frequency_clocks")
    clocks = chart(at, "clocks")
    # one frame per position 0..64, play/pause buttons and a slider, all client-side
    assert len(clocks["frames"]) == 65
    buttons = clocks["layout"]["updatemenus"][0]["buttons"]
    assert [b["method"] for b in buttons] == ["animate", "animate"]
    assert len(clocks["layout"]["sliders"][0]["steps"]) == 65
    # the clocks open at the page's position m = 10, not at 0 where every hand points the same way
    assert clocks["layout"]["sliders"][0]["active"] == 10
    assert clocks["layout"]["updatemenus"][0]["y"] > 1  # the play button sits above the clocks
    hand = clocks["data"][len(clocks["frames"][0]["data"])]  # the first hand, after the circles
    assert math.atan2(hand["y"][1], hand["x"][1]) == pytest.approx(math.remainder(10 * 1.0, 2 * math.pi), abs=1e-5)
    assert at.query_params["dim"] == "64" and at.query_params["base"] == "10000"
    # pairs 0..8 turn at least once in 64 positions: 2π · 10000^(2i/64) <= 64 up to i = 8 (2π · 10 ≈ 62.8)
    assert "**9** of the 32 pairs complete at least one full turn" in page_text(at)
    shown = metrics(at)
    assert shown["Angle turned"] == "10 × 1 = 10 rad"  # pair 0 turns by θ_0 = 1 per position
    before, after = shown["|pair| before → after"].split(" → ")
    assert before == after  # a rotation keeps the pair's length


def test_moving_the_position_moves_the_animation():
    at = open_page("frequency_clocks", {"m": 3})
    at.slider(key="frequency_clocks.m").set_value(40).run()
    clocks = chart(at, "clocks")
    assert clocks["layout"]["sliders"][0]["active"] == 40 and at.query_params["m"] == "40"
    assert metrics(at)["Angle turned"] == "40 × 1 = 40 rad"


def test_hand_angles_follow_m_theta():
    at = opened("frequency_clocks", {"dim": 8, "base": 100, "max_pos": 16, "pairs": "1"})
    frame = chart(at, "clocks")["frames"][5]
    x, y = frame["data"][0]["x"][1], frame["data"][0]["y"][1]
    expected = 5 * 100 ** (-2 / 8)  # m * theta_1 by hand
    assert math.atan2(y, x) == pytest.approx(math.remainder(expected, 2 * math.pi), abs=1e-5)


def test_a_small_head_gets_only_the_default_clocks_that_exist(assert_clean):
    at = opened("frequency_clocks", {"dim": 4})  # the usual pairs 0, 1, 2: d = 4 has only pairs 0 and 1
    assert_clean(at)
    assert not at.warning
    assert at.query_params["pairs"] == "0,1"
    assert len(chart(at, "clocks")["frames"][0]["data"]) == 2
