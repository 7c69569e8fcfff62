"""The frequency-clocks page's view against theta_i = base^(-2i/d) and rotations written out by hand."""

import math

import numpy as np
import pytest
import torch

from explorer.pure.views.phrases import phrase
from explorer.pure.views.frequency_clocks import (
    TurnedVector,
    clock_lines,
    clocks,
    default_pairs,
    frequencies,
    turned_vector,
    vector_metrics,
)
from rope_viz.analysis import random_tokens


@pytest.mark.parametrize("dim, pairs", [(64, (0, 1, 2, 8, 16, 31)), (256, (0, 1, 2, 32, 64, 127)),
                                        (16, (0, 1, 2, 4, 7)), (4, (0, 1)), (2, (0,))])
def test_default_pairs_exist(dim, pairs):
    assert default_pairs(dim) == pairs


@pytest.mark.parametrize("dim, base, max_pos, pairs", [(8, 100.0, 16, (1,)), (64, 10000.0, 64, (0, 1, 2, 8, 16, 31)),
                                                       (256, 1e7, 512, (0, 60, 127))])
def test_clock_hands_point_at_m_theta(dim, base, max_pos, pairs):
    out = clocks(dim, base, max_pos, pairs)
    m = np.arange(max_pos + 1)[:, None]
    theta = np.array([base ** (-2 * i / dim) for i in pairs])
    assert out.positions == list(range(max_pos + 1))
    assert out.cos.shape == out.sin.shape == (max_pos + 1, len(pairs))
    assert out.cos.dtype == out.sin.dtype == np.float32
    np.testing.assert_allclose(out.cos, np.cos(m * theta), atol=1e-6)
    np.testing.assert_allclose(out.sin, np.sin(m * theta), atol=1e-6)
    assert out.waves == pytest.approx(list(2 * math.pi / theta), rel=1e-6)


@pytest.mark.parametrize("dim, base, max_pos", [(8, 100.0, 16), (64, 10000.0, 64), (2, 10.0, 8), (256, 1e7, 512)])
def test_frequencies_angles_and_fast_pairs(dim, base, max_pos):
    out = frequencies(dim, base, max_pos)
    theta = np.array([base ** (-2 * i / dim) for i in range(dim // 2)])
    np.testing.assert_allclose(out.thetas, theta, rtol=1e-6)
    np.testing.assert_allclose(out.waves, 2 * math.pi / theta, rtol=1e-6)
    assert out.thetas.dtype == out.waves.dtype == out.angles.dtype == np.float32
    hand = np.mod(np.arange(max_pos + 1)[:, None] * theta, 2 * math.pi)
    assert out.angles.shape == (max_pos + 1, dim // 2)
    # compare on the circle: an angle just below 2π and one just above 0 are the same hand
    np.testing.assert_allclose(np.angle(np.exp(1j * (out.angles - hand))), 0.0, atol=1e-4)
    assert np.all((out.angles >= 0) & (out.angles <= 2 * math.pi))
    fast = sum(2 * math.pi / t <= max_pos for t in theta)  # pairs that turn once within the context
    assert (out.fast, out.slow) == (fast, dim // 2 - fast)
    assert out.pairs == list(range(dim // 2))


def test_the_default_context_splits_fast_and_slow_clocks():
    out = frequencies(64, 10000.0, 64)
    # 2π · 10000^(2i/64) <= 64 for i = 0..8 (i = 8: 2π · 10 ≈ 62.8; i = 9: ≈ 83.8)
    assert out.fast == 9 and out.slow == 23


@pytest.mark.parametrize("dim, base, m, seed, pair", [(64, 10000.0, 10, 0, 0), (64, 10000.0, 10, 3, 5),
                                                      (256, 1e7, 512, 999, 127), (2, 10.0, 0, 0, 0)])
def test_turned_vector_by_hand(dim, base, m, seed, pair):
    out = turned_vector(dim, base, m, seed, pair)
    x = random_tokens(1, dim, seed=seed, dtype=torch.float64)[0].numpy()
    theta = base ** (-2 * pair / dim)
    c, s = math.cos(m * theta), math.sin(m * theta)
    a, b = x[2 * pair], x[2 * pair + 1]
    assert out.before == pytest.approx((a, b), abs=0)
    assert out.after == pytest.approx((a * c - b * s, a * s + b * c), abs=1e-12)
    assert out.pair_norm == pytest.approx((math.hypot(a, b), math.hypot(a, b)), abs=1e-12)
    assert out.norm == pytest.approx((np.linalg.norm(x), np.linalg.norm(x)), abs=1e-12)  # a rotation keeps length
    assert out.theta == pytest.approx(theta, rel=1e-7)  # float32, as printed
    assert out.turned == pytest.approx(m * theta, rel=1e-7)


def test_what_the_page_writes():
    out = frequencies(8, 100.0, 16)
    assert out.context == [16] * 4
    lines = clock_lines(out, (0, 3))
    assert [line.args["i"] for line in lines] == [0, 3]
    assert lines[1].args["theta"] == pytest.approx(100.0 ** (-6 / 8), rel=1e-6)
    assert lines[1].args["wave"] == pytest.approx(2 * math.pi * 100.0 ** (6 / 8), rel=1e-6)
    vector = TurnedVector(before=(1.0, 0.0), after=(0.0, 1.0), pair_norm=(1.0, 1.0), norm=(2.5, 2.5), theta=0.125,
                          turned=0.375)
    pair, whole, turned = vector_metrics(vector, 3)
    assert (pair.value, whole.value) == ("1.000000 → 1.000000", "2.500000 → 2.500000")
    assert turned.value == phrase("frequency_clocks.turned_value", m=3, theta=0.125, turned=0.375,
                                  rad=phrase("frequency_clocks.rad"))
