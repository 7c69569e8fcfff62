"""The phase-cancellation page's view against rotations written out with math.cos/sin and numpy."""

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from explorer.pure.views import phase_cancellation as view
from explorer.pure.views.phase_cancellation import SCORE_SHIFTS, all_pairs, pair_rotations, slide, theta_of, turn_shifts
from explorer.pure.views.phrases import phrase
from rope_viz.analysis import random_tokens
from support.rope_reference import pair_rope


@pytest.mark.parametrize("theta, step", [(1.0, 1), (0.316, 1), (0.01, 10), (1e-4, 1047)])
def test_turn_shifts(theta, step):
    shifts = turn_shifts(theta, frames=61)
    assert shifts.tolist() == [float(step * f) for f in range(61)]
    if step > 1:
        assert float(shifts[-1]) * theta == pytest.approx(2 * math.pi, rel=0.1)  # about one full turn


@pytest.mark.parametrize("theta", [0.0, -1.0, math.nan, math.inf])
def test_turn_shifts_needs_a_positive_frequency(theta):
    with pytest.raises(ValueError, match="theta"):
        turn_shifts(theta)


def hand_rotation(angle: float) -> np.ndarray:
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])


def page_query_and_key(dim, seed):
    q, k = random_tokens(2, dim, seed=seed, dtype=torch.float64).numpy()
    return q, k


def test_theta_of_a_pair():
    assert theta_of(16, 10000.0, 1) == pytest.approx(10000 ** (-2 / 16), rel=1e-15)
    assert theta_of(64, 500.0, 31) == pytest.approx(500 ** (-62 / 64), rel=1e-15)


@pytest.mark.parametrize("m, n, dim, base, pair", [(2, 5, 16, 10000.0, 1), (100, 7, 64, 1e7, 31), (0, 0, 2, 10.0, 0)])
def test_pair_rotations_by_hand(m, n, dim, base, pair):
    out = pair_rotations(m, n, dim, base, pair)
    theta = base ** (-2 * pair / dim)
    assert out.theta == pytest.approx(theta, rel=1e-15)
    assert out.m_angle == pytest.approx(m * theta, rel=1e-15)
    assert out.n_angle == pytest.approx(n * theta, rel=1e-15)
    assert len(out.matrices) == 4
    for got, angle in zip(out.matrices, (m * theta, n * theta, (n - m) * theta, (n - m) * theta)):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, hand_rotation(angle), atol=1e-7)
    for name in ("transpose_error", "negative_error", "relative_error"):
        assert 0.0 <= getattr(out, name) < 1e-12


@pytest.mark.parametrize("m, n, dim, base, pair, seed", [(2, 5, 16, 10000.0, 1, 0), (128, 0, 64, 1e7, 31, 999)])
def test_slide_turns_both_arrows_and_keeps_their_dot(m, n, dim, base, pair, seed):
    out = slide(m, n, dim, base, pair, seed)
    theta = base ** (-2 * pair / dim)
    step = max(1, round(2 * math.pi / (theta * 60)))
    assert out.shifts == [step * f for f in range(61)]
    q, k = page_query_and_key(dim, seed)
    q2, k2 = q[2 * pair: 2 * pair + 2], k[2 * pair: 2 * pair + 2]
    query = np.array([hand_rotation((m + s) * theta) @ q2 for s in out.shifts])
    key = np.array([hand_rotation((n + s) * theta) @ k2 for s in out.shifts])
    assert out.query.dtype == out.key.dtype == np.float32
    np.testing.assert_allclose(out.query, query, atol=1e-6)
    np.testing.assert_allclose(out.key, key, atol=1e-6)
    dot = float(q2 @ hand_rotation((n - m) * theta) @ k2)  # q^T R_{n-m} k: the same in every frame
    assert out.dots == pytest.approx([dot] * 61, abs=1e-12)
    assert out.spread == pytest.approx(max(out.dots) - min(out.dots), abs=0) and out.spread < 1e-12


@pytest.mark.parametrize("m, n, dim, base, seed", [(2, 5, 16, 10000.0, 0), (128, 0, 64, 1e7, 999), (0, 0, 2, 10.0, 3)])
def test_all_pairs_by_hand(m, n, dim, base, seed):
    out = all_pairs(m, n, dim, base, seed)
    block = np.zeros((dim, dim))
    for i in range(dim // 2):
        block[2 * i: 2 * i + 2, 2 * i: 2 * i + 2] = hand_rotation(m * base ** (-2 * i / dim))
    assert out.block.dtype == np.float32
    np.testing.assert_allclose(out.block, block, atol=1e-7)
    q, k = page_query_and_key(dim, seed)
    rotated = pair_rope(q[None], [m], base)[0] @ pair_rope(k[None], [n], base)[0]
    assert out.rotated == pytest.approx(rotated, abs=1e-12)
    assert out.relative == pytest.approx(q @ pair_rope(k[None], [n - m], base)[0], abs=1e-12)
    assert out.difference == pytest.approx(abs(out.rotated - out.relative), abs=0)
    assert out.difference < 1e-12 and out.matrix_error < 1e-12
    assert out.shifts == list(SCORE_SHIFTS) == list(range(65))
    both = [pair_rope(q[None], [m + s], base)[0] @ pair_rope(k[None], [n + s], base)[0] for s in SCORE_SHIFTS]
    key_only = [pair_rope(q[None], [m], base)[0] @ pair_rope(k[None], [n + s], base)[0] for s in SCORE_SHIFTS]
    assert out.both.dtype == out.key_only.dtype == np.float32
    np.testing.assert_allclose(out.both, both, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out.key_only, key_only, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out.both, rotated, rtol=1e-6, atol=1e-6)  # sliding both changes nothing


def test_what_the_page_writes():
    check = replace(pair_rotations(2, 5, 16, 10000.0, 1), transpose_error=0.0, negative_error=1.5e-16)
    assert [m.value for m in view.inverse_metrics(check)] == ["0.0e+00", "1.5e-16"]
    assert view.panel_titles(3, 10) == [
        phrase("phase_cancellation.panel_rm", m=3),
        phrase("phase_cancellation.panel_rn", n=10),
        phrase("phase_cancellation.panel_product"),
        phrase("phase_cancellation.panel_relative", d=7),
    ]
    dims = replace(all_pairs(2, 5, 16, 10000.0, 0), rotated=1.2345678, relative=1.2345679, difference=1e-7,
                   matrix_error=2e-16)
    lhs, rhs, difference, matrix = view.block_metrics(dims)
    assert (lhs.value, rhs.value) == ("1.235", "1.235")
    assert lhs.help == phrase("phase_cancellation.digits_help", value="1.234567800000000")
    assert (difference.value, matrix.value) == ("1.0e-07", "2.0e-16")


def hand_scored_track(args: dict, m: int, n: int) -> float:
    """What the drag track's readout computes (drag.js), written out with math.cos/sin: each pair turned
    by its angle at m (query) and n (key), the dot products added up."""
    total = 0.0
    for theta, (q0, q1), (k0, k1) in zip(args["thetas"], args["q_pairs"], args["k_pairs"]):
        a, b = m * theta, n * theta
        qx, qy = q0 * math.cos(a) - q1 * math.sin(a), q0 * math.sin(a) + q1 * math.cos(a)
        kx, ky = k0 * math.cos(b) - k1 * math.sin(b), k0 * math.sin(b) + k1 * math.cos(b)
        total += qx * kx + qy * ky
    return total


@pytest.mark.parametrize("m, n, dim, base, pair, seed", [(2, 5, 16, 10000.0, 1, 0), (128, 0, 64, 1e7, 31, 7),
                                                         (40, 40, 2, 10.0, 0, 3)])
def test_track_carries_what_the_readout_needs_to_score_like_the_core(m, n, dim, base, pair, seed):
    args = view.track(m, n, dim, base, pair, seed)
    assert (args["kind"], args["knobs"], args["lo"], args["hi"]) == ("track", ["m", "n"], 0, 128)
    assert (args["m"], args["n"], args["pair"]) == (m, n, pair)
    assert args["thetas"] == pytest.approx([base ** (-2 * i / dim) for i in range(dim // 2)], rel=1e-12)
    q, k = random_tokens(2, dim, seed=seed, dtype=torch.float64)
    assert args["q_pairs"] == [[q[2 * i].item(), q[2 * i + 1].item()] for i in range(dim // 2)]
    assert args["k_pairs"] == [[k[2 * i].item(), k[2 * i + 1].item()] for i in range(dim // 2)]
    core = all_pairs(m, n, dim, base, seed).rotated  # the value the page prints
    assert hand_scored_track(args, m, n) == pytest.approx(core, abs=1e-9)
    # both tokens moved together: the readout's score stays put
    assert hand_scored_track(args, m + 17, n + 17) == pytest.approx(core, abs=1e-9)
    assert all(isinstance(label, type(phrase("x"))) for label in args["labels"].values())
