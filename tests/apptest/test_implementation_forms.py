"""The implementation page through AppTest: the worked example against math.cos/sin, the method
comparison and its cached timings, layouts, partial rotary, unrotated V; the matrix
method over the size budget (opening in Chinese and at the extremes: test_every_page)."""

import math

import numpy as np
import pytest
import torch

from explorer.pure.knobs import heaviest, lightest
from explorer.pure.views import implementation_forms as view
from rope_viz.analysis import random_tokens
from support.apptest import chart, metrics, open_page, opened, page_text, spec_array, assert_says_where_it_was_timed

def hand_rotation(q1, q2, theta, m):
    c, s = math.cos(m * theta), math.sin(m * theta)
    return q1 * c - q2 * s, q1 * s + q2 * c


def test_defaults_show_the_worked_example():
    at = opened("implementation_forms")
    first, second = hand_rotation(1.0, 2.0, 0.5, 1)
    shown = metrics(at)
    assert shown["q′₁"] == f"{first:.5f}" == "-0.08127"
    assert shown["q′₂"] == f"{second:.5f}" == "2.23459"
    assert shown["|q| before"] == shown["|q′| after"] == f"{math.sqrt(5):.5f}" == "2.23607"
    latex = " ".join(el.value for el in at.latex)
    for value in (math.cos(0.5), math.sin(0.5), -2 * math.sin(0.5), 2 * math.cos(0.5), first, second):
        assert f"{value:.5f}".lstrip("-") in latex
    # the misprint note names the printed value and the length it would have
    info = " ".join(el.value for el in at.info)
    assert "2.2366" in info and f"{math.hypot(0.0812, 2.2366):.4f}" in info and "2.23607" in info
    # the arrow of the rotated vector ends at the hand-computed point
    arrow = chart(at, "worked")["data"][2]
    assert arrow["x"][1] == pytest.approx(first, abs=1e-9) and arrow["y"][1] == pytest.approx(second, abs=1e-9)
    assert at.query_params["q1"] == "1" and at.query_params["theta"] == "0.5" and at.query_params["m"] == "1"
    assert at.query_params["rotary_dim"] == "32"  # a quarter of the pairs of d = 64 by default


def test_defaults_compare_the_methods_and_their_costs():
    at = opened("implementation_forms")
    costs = chart(at, "costs")
    assert costs["layout"]["yaxis"]["type"] == "log"
    assert len(costs["data"][0]["x"]) == 4
    # one row per method in the cost table, six method pairs agreeing to float32 rounding
    cost_table, gap_table = at.table
    assert len(cost_table.value) == 4
    assert len(gap_table.value) == 6
    assert all(float(g) < 1e-5 for g in gap_table.value.iloc[:, 1])


def test_layout_and_value_numbers():
    at = opened("implementation_forms")
    shown = metrics(at)
    assert float(shown["rotated q: interleaved vs half"]) > 0.1
    assert float(shown["scores, same weights"]) > 0.1
    assert float(shown["scores, permuted weights"]) < 1e-4
    assert float(shown["V not rotated (RoPE as used)"]) < 1e-5
    assert float(shown["V rotated, output rotated back by −m"]) < 1e-5
    assert float(shown["V rotated by its position"]) > 0.1
    # with V rotated, query 0 sees only key 0: its output moves by |R_100 v_0 - v_0| (by hand)
    v0 = random_tokens(1, 64, seed=2, dtype=torch.float64)[0].tolist()
    moved = 0.0
    for i in range(32):
        c, s = math.cos(100 * 10000 ** (-2 * i / 64)), math.sin(100 * 10000 ** (-2 * i / 64))
        a, b = v0[2 * i], v0[2 * i + 1]
        moved = max(moved, abs(a * c - b * s - a), abs(a * s + b * c - b))
    values = chart(at, "values")
    rotated = next(tr for tr in values["data"] if tr["name"] == "V rotated by its position")
    assert spec_array(rotated["y"])[0] == pytest.approx(moved, rel=1e-4)
    plain = next(tr for tr in values["data"] if tr["name"] == "V not rotated (RoPE as used)")
    assert spec_array(plain["y"]).max() < 1e-5


def test_partial_rotary_leaves_the_tail_alone():
    at = opened("implementation_forms", {"dim": 16, "rotary_dim": 6, "pos": 7})
    spec = chart(at, "partial")
    rotated, passed = (spec_array(trace["y"]) for trace in spec["data"])
    assert spec_array(spec["data"][0]["x"]).tolist() == [0, 1, 2, 3, 4, 5]
    assert spec_array(spec["data"][1]["x"]).tolist() == list(range(6, 16))
    assert np.all(passed == 0) and np.all(rotated > 0)
    # pair 0 turns by 7 radians (theta_0 = 1): its change is |R(7) x - x| on coordinates 0 and 1
    x0, x1 = random_tokens(1, 16, seed=0, dtype=torch.float64)[0, :2].tolist()
    c, s = math.cos(7), math.sin(7)
    assert rotated[:2] == pytest.approx([abs(x0 * c - x1 * s - x0), abs(x0 * s + x1 * c - x1)], rel=1e-5)
    assert "r = 6 of d = 16" in spec["layout"]["title"]["text"].replace("<br>", " ")
    assert "the other 10 are exactly unchanged" in page_text(at)


def test_timings_are_cached_across_reruns(monkeypatch):
    calls = []
    real = view.time_methods
    monkeypatch.setattr(view, "time_methods", lambda *a, **k: calls.append(1) or real(*a, **k))
    at = open_page("implementation_forms", {"seq": 48, "dim": 24})
    assert len(calls) == 1
    at.slider(key="implementation_forms.shift").set_value(7).run()
    at.slider(key="implementation_forms.m").set_value(3).run()
    assert not at.exception
    assert len(calls) == 1
    assert_says_where_it_was_timed(at)
    assert metrics(at)["q′₁"] == f"{hand_rotation(1.0, 2.0, 0.5, 3)[0]:.5f}"


def test_the_extremes_are_the_ends_of_the_old_ranges():
    assert lightest("implementation_forms") == {
        "q1": "-5",
        "q2": "-5",
        "theta": "-3.142",
        "m": "0",
        "seq": "16",
        "dim": "2",
        "seed": "0",
        "rotary_dim": "2",
        "pos": "0",
        "shift": "0",
    }
    assert heaviest("implementation_forms") == {"q1": "5", "q2": "5", "theta": "3.142", "m": "64", "seq": "512",
                                          "dim": "128", "seed": "999", "rotary_dim": "128", "pos": "4096",
                                          "shift": "4096"}


def test_matrix_over_the_budget_is_left_out(monkeypatch, assert_clean):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "100000")  # 40 x 48 x 48 = 92,160 fits, 64 x 48 x 48 does not
    at = open_page("implementation_forms", {"seq": 64, "dim": 48})
    assert_clean(at)
    assert any("left out of the comparison" in w.value for w in at.warning)
    costs = chart(at, "costs")
    assert "Matrix R·x" not in costs["data"][0]["x"] and "Fast path" in costs["data"][0]["x"]
    assert len(costs["data"][0]["x"]) == 3
