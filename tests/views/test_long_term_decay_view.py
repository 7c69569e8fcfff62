"""The long-term-decay view against the bound, its ripple and the sampled means written out here in float64."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from explorer.pure.views import long_term_decay as view
from explorer.pure.views.phrases import phrase
from support.rope_reference import hand_mean_scores


def hand_bound(dim, base, distances):
    """(1/(d/2)) sum_{j=1..d/2} |S_j|, S_j = sum_{k<j} e^{i r theta_k}, one distance and one j at a time."""
    theta = [base ** (-2.0 * k / dim) for k in range(dim // 2)]
    out = []
    for r in distances:
        total, s = 0.0, 0j
        for t in theta:
            s += np.exp(1j * r * t)
            total += abs(s)
        out.append(total / (dim // 2))
    return np.array(out)


@pytest.mark.parametrize("dim, base, max_r", [(16, 10000.0, 256), (8, 100.0, 64), (128, 1e6, 40)])
def test_bound_curve_at_every_distance(dim, base, max_r):
    curve = view.bound_curve(dim, base, max_r)
    expected = hand_bound(dim, base, range(max_r + 1))
    assert curve.bound.dtype == np.float32 and curve.bound.shape == (max_r + 1,)
    np.testing.assert_allclose(curve.bound, expected, rtol=1e-6)
    assert curve.start == pytest.approx((dim / 2 + 1) / 2, rel=1e-6)  # every arrow aligned: |S_j| = j
    rises = sum(1 for a, b in zip(expected, expected[1:]) if b - a > 1e-9 * expected.max())
    assert curve.rises == rises
    assert curve.low_at == int(np.argmin(expected))
    assert curve.low == pytest.approx(expected.min(), rel=1e-6)
    assert curve.end == pytest.approx(expected[-1], rel=1e-6)
    assert curve.ratio == pytest.approx(expected[-1] / expected[0], rel=1e-6)


def test_two_dimensions_give_a_flat_bound_without_ripple():
    curve = view.bound_curve(2, 10000.0, 64)
    np.testing.assert_allclose(curve.bound, 1.0, rtol=1e-7)
    assert curve.rises == 0 and curve.ratio == pytest.approx(1.0, rel=1e-6)


@pytest.mark.parametrize("tied", [False, True])
def test_sampled_means_at_every_distance_when_they_fit(tied):
    means = view.sampled_means(8, 100.0, 40, 16, 5, log_x=False)
    assert means.distances.tolist() == list(range(41))
    assert all(getattr(means, name).dtype == np.float32 for name in ("distances", "free", "tied"))
    expected = hand_mean_scores(8, 100.0, range(41), 16, 5, tied=tied)
    np.testing.assert_allclose(means.tied if tied else means.free, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("log_x", [False, True])
def test_sampled_distances_when_they_do_not_fit(log_x):
    means = view.sampled_means(4, 10000.0, 4096, 8, 0, log_x=log_x)
    r = means.distances
    assert r[0] == 0 and r[-1] == 4096 and len(r) <= view.EMPIRICAL_POINTS
    assert np.all(np.diff(r) > 0) and np.all(r == np.round(r))
    if log_x:  # geometric from 1: dense near the start, where a log axis has room
        assert r[:17].tolist() == list(range(17))
    else:  # evenly spaced: steps of 4096 / 255, rounded
        np.testing.assert_allclose(r, np.round(np.linspace(0, 4096, 256)), atol=0)
    expected = hand_mean_scores(4, 10000.0, r[[0, 1, 100, -1]].astype(np.float64), 8, 0, tied=False)
    np.testing.assert_allclose(means.free[[0, 1, 100, -1]], expected, rtol=1e-5, atol=1e-5)


def test_sweep_lines_put_the_chosen_base_first_and_dash_the_others():
    asked = []

    def curve(dim, base, max_r):  # a stand-in for bound_curve that records what it was asked for
        asked.append(base)
        return replace(view.bound_curve(dim, base, max_r), bound=np.full(max_r + 1, base, dtype=np.float32))

    lines = view.sweep_lines(8, 1e4, 3, [2, 4, 6], curve=curve)  # 10^4 is the chosen base: drawn once
    assert asked == [1e4, 1e2, 1e6]
    assert [name for name, _ in lines.series] == [phrase("long_term_decay.chosen_series", base="10,000"),
                                                     phrase("long_term_decay.sweep_series", base="100"),
                                                     phrase("long_term_decay.sweep_series", base="1,000,000")]
    assert lines.dashed == [name for name, _ in lines.series[1:]]
    assert view.sweep_lines(8, 1e4, 3, [], curve=curve).dashed == []


def test_ripple_reading_and_the_distances():
    ripple = view.bound_curve(16, 100.0, 40)
    assert ripple.distances.tolist() == list(range(41))
    said = view.ripple_reading(ripple, 100.0, 40)
    assert said.args["base"] == "100" and said.args["share"] == ripple.rises / 40
    assert said.args["start"] == pytest.approx((16 / 2 + 1) / 2)  # B(0) = (d/2 + 1)/2
