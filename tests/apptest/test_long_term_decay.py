"""The long-term decay page through AppTest: the bound and the sampled means against formulas
written here in float64, the measured ripple (opening in Chinese and at the extremes: test_every_page)."""

import re

import numpy as np
import pytest

from explorer.pure.knobs import heaviest, lightest
from support.apptest import chart, charts, opened, spec_array


def hand_bound(dim, base, distances):
    """(1/(d/2)) sum_{j=1..d/2} |S_j| with S_j = sum_{k<j} e^{i r theta_k}, theta_k = base^(-2k/d)."""
    theta = np.array([base ** (-2.0 * k / dim) for k in range(dim // 2)])
    arrows = np.exp(1j * np.outer(np.asarray(distances, dtype=np.float64), theta))
    return np.abs(np.cumsum(arrows, axis=1)).mean(axis=1)


def cos_sum(dim, base, distances):
    """sum_i cos(r theta_i): the shape of the expected score q . R_r k for entries uniform in [0, 1)."""
    theta = np.array([base ** (-2.0 * i / dim) for i in range(dim // 2)])
    return np.cos(np.outer(np.asarray(distances, dtype=np.float64), theta)).sum(axis=1)


def ripple_text(at) -> str:
    return next(md.value for md in at.markdown if "**" in md.value and re.search(r"\*\*\d+\*\*", md.value))


def test_defaults_draw_the_bound_sweep_and_the_measured_means():
    at = opened("long_term_decay")
    bound = chart(at, "bound")["data"]
    # the chosen base 10,000 plus the sweep 10^5 and 10^6 (10^4 is the chosen one, drawn once)
    assert [t["name"] for t in bound] == ["base 10,000 (chosen)", "base 100,000", "base 1,000,000"]
    assert [t["line"]["dash"] for t in bound] == ["solid", "dash", "dash"]
    chosen = spec_array(bound[0]["y"])
    assert len(chosen) == 1025 and spec_array(bound[0]["x"])[-1] == 1024
    assert chosen[0] == pytest.approx((128 / 2 + 1) / 2, rel=1e-6)  # every arrow aligned: |S_j| = j
    for trace, base in zip(bound, (1e4, 1e5, 1e6)):
        assert spec_array(trace["y"])[[0, 1, 37, 500, 1024]] == pytest.approx(
            hand_bound(128, base, [0, 1, 37, 500, 1024]), rel=1e-5)
    assert [t["name"] for t in chart(at, "empirical")["data"]] == ["independent q, k", "q = k"]
    assert dict(at.query_params) | {"lang": "en"} == {
        "lang": "en", "dim": "128", "base": "10000", "max_r": "1024", "log_x": "1", "sweep": "4,5,6",
        "samples": "64", "seed": "0"}


def test_measured_ripple_matches_an_independent_count():
    at = opened("long_term_decay", {"dim": 16, "base": 10000, "max_r": 256})
    bound = hand_bound(16, 10000.0, range(257))
    steps = np.diff(bound)
    rises = int((steps > 1e-9 * np.abs(bound).max()).sum())
    assert 0 < rises < 256
    text = ripple_text(at)
    assert f"**{rises}** of the 256 steps" in text
    assert f"at r = {int(bound.argmin())}" in text
    np.testing.assert_allclose(spec_array(chart(at, "bound")["data"][0]["y"]), bound, rtol=1e-5)


def test_two_dimensions_give_a_flat_bound_with_no_ripple():
    at = opened("long_term_decay", {"dim": 2, "max_r": 64, "sweep": "4"})
    assert "**0** of the 64 steps" in ripple_text(at)
    np.testing.assert_allclose(spec_array(chart(at, "bound")["data"][0]["y"]), 1.0, rtol=1e-6)


def test_sampled_means_follow_the_cosine_sum():
    at = opened("long_term_decay", {"dim": 16, "base": 100, "max_r": 64, "samples": 128, "seed": 3})
    free, tied = chart(at, "empirical")["data"]
    r = spec_array(free["x"])
    assert r.tolist() == list(range(65))  # every integer distance fits
    # E[q . R_r k] = sum_i E[h_i] cos(r theta_i): E[h_i] = 2 * (1/2)^2 for independent entries,
    # 2 * E[u^2] = 2/3 for q = k (u uniform in [0, 1))
    assert spec_array(free["y"]) == pytest.approx(0.5 * cos_sum(16, 100.0, r), abs=0.45)
    assert spec_array(tied["y"]) == pytest.approx(2 / 3 * cos_sum(16, 100.0, r), abs=0.6)
    assert spec_array(free["y"])[0] == pytest.approx(16 / 4, abs=0.3)
    assert spec_array(tied["y"])[0] == pytest.approx(16 / 3, abs=0.3)


def test_log_axis_spreads_the_sampled_distances_geometrically():
    at = opened("long_term_decay", {"max_r": 4096, "log_x": 1})
    assert all(spec["layout"]["xaxis"]["type"] == "log" for spec in charts(at).values())
    r = spec_array(chart(at, "empirical")["data"][0]["x"])
    assert r[0] == 0 and r[-1] == 4096 and len(r) <= 256
    assert np.all(np.diff(r) > 0) and np.all(r == np.round(r))
    assert (r <= 16).sum() >= 10  # dense near the start, where a log axis has room
    assert len(spec_array(chart(at, "bound")["data"][0]["y"])) == 4097  # the bound itself keeps every integer


def test_the_extremes_are_the_ends_of_the_ranges():
    assert lightest("long_term_decay") == {
        "dim": "2",
        "base": "10",
        "max_r": "16",
        "log_x": "0",
        "sweep": "2",
        "samples": "8",
        "seed": "0",
    }
    assert heaviest("long_term_decay") == {"dim": "256", "base": "10000000", "max_r": "4096", "log_x": "1",
                                 "sweep": "2,3,5,6,8,9", "samples": "128", "seed": "999"}
