"""rope_viz.complex2d against cmath, math.cos/sin written out by hand, and literal known values."""

from __future__ import annotations

import cmath
import math

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rope_viz.complex2d import (IMAGINARY_UNIT, complex_multiply, conjugate, distance, from_polar, multiply_in_polar,
                                relative_rotation, rotate_by_matrix, rotation_2x2, rotor, score_identity, shared_shift,
                                shifted_scores, to_polar)

POINTS = [(2.0, 1.0), (3.0, 4.0), (-1.5, 0.25), (0.0, -2.0), (1e-3, 7.0), (-3.0, -3.0)]
ANGLES = [0.0, 0.5, math.pi / 2, 2.0, -1.25, math.pi, 7.5]
coordinate = st.floats(-100, 100, allow_nan=False)


def hand_rotate(x: float, y: float, angle: float) -> tuple[float, float]:
    c, s = math.cos(angle), math.sin(angle)
    return x * c - y * s, x * s + y * c


def hand_score(q: list[float], k: list[float], m: float, n: float, base: float) -> float:
    """(R_m q) . (R_n k), interleaved pairs, one math.cos/sin per pair."""
    d = len(q)
    total = 0.0
    for i in range(d // 2):
        theta = base ** (-2.0 * i / d)
        qx, qy = hand_rotate(q[2 * i], q[2 * i + 1], m * theta)
        kx, ky = hand_rotate(k[2 * i], k[2 * i + 1], n * theta)
        total += qx * kx + qy * ky
    return total


def assert_matrix(actual: torch.Tensor, hand: list[list[float]], atol: float) -> None:
    torch.testing.assert_close(actual, torch.tensor(hand, dtype=torch.float64), rtol=0, atol=atol)


def vectors(dim: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, dim, generator=gen, dtype=torch.float64)
    return q, k


# ---------------------------------------------------------------------------------------------
# complex numbers as points


@pytest.mark.parametrize("z", POINTS)
def test_to_polar_matches_cmath(z):
    modulus, angle = to_polar(z)
    expected = cmath.polar(complex(*z))
    assert modulus == pytest.approx(expected[0], abs=1e-15)
    assert angle == pytest.approx(expected[1], abs=1e-15)


@pytest.mark.parametrize("r", [0.0, 0.5, 1.0, 2.75])
@pytest.mark.parametrize("angle", ANGLES)
def test_from_polar_matches_cmath_rect(r, angle):
    expected = cmath.rect(r, angle)
    assert from_polar(r, angle) == pytest.approx((expected.real, expected.imag), abs=1e-15)


def test_known_values():
    assert to_polar((3.0, 4.0))[0] == 5.0
    assert to_polar((0.0, 0.0)) == (0.0, 0.0)
    assert complex_multiply(IMAGINARY_UNIT, (3.0, 4.0)) == (-4.0, 3.0)  # i(3 + 4i) = -4 + 3i
    assert complex_multiply(IMAGINARY_UNIT, IMAGINARY_UNIT) == (-1.0, 0.0)  # i^2 = -1
    assert complex_multiply((3.0, 4.0), conjugate((3.0, 4.0))) == (25.0, 0.0)  # z z* = |z|^2
    assert rotor(math.pi / 2) == pytest.approx((0.0, 1.0), abs=1e-16)
    assert rotor(math.pi) == pytest.approx((-1.0, 0.0), abs=1e-15)


@pytest.mark.parametrize("z", POINTS)
@pytest.mark.parametrize("w", POINTS[:3])
def test_complex_multiply_matches_python_complex(z, w):
    expected = complex(*z) * complex(*w)
    assert complex_multiply(z, w) == pytest.approx((expected.real, expected.imag), rel=1e-15, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(coordinate, coordinate, coordinate, coordinate)
@example(2.0, 5e-324, 1.0, 0.0)  # a subnormal imaginary part
def test_product_multiplies_lengths_and_adds_angles(a, b, c, d):
    z, w = (a, b), (c, d)
    modulus, angle = multiply_in_polar(z, w)
    product = complex(a, b) * complex(c, d)
    assert modulus == pytest.approx(abs(product), rel=1e-12, abs=1e-12)
    if abs(product) > 1e-6:
        # equal angles up to whole turns: compare the points they name on the unit circle (with math, not
        # cmath: cmath.phase and cmath.rect raise OverflowError when a part is subnormal, such as 5e-324)
        expected = math.atan2(product.imag, product.real)
        assert (math.cos(angle), math.sin(angle)) == pytest.approx((math.cos(expected), math.sin(expected)), abs=1e-9)


@pytest.mark.parametrize("z", POINTS)
def test_conjugate_mirrors_in_the_real_axis(z):
    assert conjugate(z) == (complex(*z).conjugate().real, complex(*z).conjugate().imag)


@pytest.mark.parametrize("angle", ANGLES)
def test_rotor_is_exp_i_angle_and_its_conjugate_inverts_it(angle):
    expected = cmath.exp(1j * angle)
    assert rotor(angle) == pytest.approx((expected.real, expected.imag), abs=1e-15)
    assert to_polar(rotor(angle))[0] == pytest.approx(1.0, abs=1e-15)
    assert complex_multiply(rotor(angle), conjugate(rotor(angle))) == pytest.approx((1.0, 0.0), abs=1e-15)
    assert conjugate(rotor(angle)) == pytest.approx(rotor(-angle), abs=1e-15)


@pytest.mark.parametrize("z", POINTS)
@pytest.mark.parametrize("angle", ANGLES)
def test_matrix_and_rotor_turn_the_same_way(z, angle):
    by_hand = hand_rotate(*z, angle)
    by_cmath = complex(*z) * cmath.exp(1j * angle)
    assert rotate_by_matrix(z, angle) == pytest.approx(by_hand, abs=1e-13)
    assert complex_multiply(z, rotor(angle)) == pytest.approx((by_cmath.real, by_cmath.imag), abs=1e-13)
    assert distance(rotate_by_matrix(z, angle), complex_multiply(z, rotor(angle))) < 1e-14
    back = complex_multiply(complex_multiply(z, rotor(angle)), conjugate(rotor(angle)))
    assert distance(back, z) < 1e-14


def test_worked_example_q12_turned_by_half_a_radian():
    x, y = rotate_by_matrix((1.0, 2.0), 0.5)
    assert (x, y) == pytest.approx((-0.08127, 2.23459), abs=5e-6)
    assert math.hypot(x, y) == pytest.approx(math.sqrt(5), abs=1e-15)  # not 2.2366


def test_rotation_2x2_entries():
    mats = rotation_2x2([0.3, -2.0])
    assert mats.shape == (2, 2, 2) and mats.dtype == torch.float64
    for mat, a in zip(mats, (0.3, -2.0)):
        assert_matrix(mat, [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], atol=1e-16)


# ---------------------------------------------------------------------------------------------
# phase cancellation


@pytest.mark.parametrize("m, n, theta", [(0, 0, 1.0), (2, 5, 0.316), (10, 3, 1.0), (100, 117, 0.01), (7, 7, 2.5)])
def test_relative_rotation_against_hand_matrices(m, n, theta):
    check = relative_rotation(m, n, theta)
    d = (n - m) * theta
    hand_relative = [[math.cos(d), -math.sin(d)], [math.sin(d), math.cos(d)]]
    hand_negative = [[math.cos(m * theta), math.sin(m * theta)], [-math.sin(m * theta), math.cos(m * theta)]]
    assert_matrix(check.relative, hand_relative, atol=1e-15)
    assert_matrix(check.product, hand_relative, atol=1e-13)
    assert_matrix(check.negative_m, hand_negative, atol=1e-15)
    assert_matrix(check.inverse_m, hand_negative, atol=1e-13)
    assert_matrix(check.r_m @ check.inverse_m, [[1.0, 0.0], [0.0, 1.0]], atol=1e-13)
    assert max(check.transpose_error, check.negative_error, check.relative_error) < 1e-13


def test_relative_rotation_depends_on_the_offset_only():
    a, b = relative_rotation(3, 8, 0.7), relative_rotation(40, 45, 0.7)
    assert not torch.allclose(a.r_m, b.r_m)
    assert torch.allclose(a.product, b.product, atol=1e-13)


def test_shared_shift_keeps_the_dot_product():
    q, k, m, n, theta = (1.0, 2.0), (-0.5, 1.5), 2, 5, 0.4
    shifts = [0, 1, 2, 7, 30]
    path = shared_shift(q, k, m, n, theta, shifts)
    # Re(q e^{i m t} * conj(k e^{i n t})) is the dot product of the turned vectors
    expected = (complex(*q) * cmath.exp(1j * m * theta) * (complex(*k) * cmath.exp(1j * n * theta)).conjugate()).real
    assert path.dots.tolist() == pytest.approx([expected] * len(shifts), abs=1e-12)
    assert path.dot_spread < 1e-12
    for row, s in zip(path.query.tolist(), shifts):
        assert row == pytest.approx(hand_rotate(*q, (m + s) * theta), abs=1e-13)
    for row, s in zip(path.key.tolist(), shifts):
        assert row == pytest.approx(hand_rotate(*k, (n + s) * theta), abs=1e-13)


@pytest.mark.parametrize("dim, base, m, n", [(2, 10000.0, 0, 3), (16, 10000.0, 2, 5), (64, 500.0, 100, 37),
                                             (8, 1e7, 128, 128)])
def test_score_identity_against_a_hand_loop(dim, base, m, n):
    q, k = vectors(dim, seed=dim + m)
    result = score_identity(q, k, m, n, base)
    expected = hand_score(q.tolist(), k.tolist(), m, n, base)
    assert result.rotated == pytest.approx(expected, abs=1e-12)
    assert result.relative == pytest.approx(hand_score(q.tolist(), k.tolist(), 0, n - m, base), abs=1e-12)
    assert result.difference < 1e-12
    assert result.matrix_error < 1e-12


def test_shifted_scores():
    dim, base, m, n = 16, 100.0, 3, 9
    q, k = vectors(dim, seed=4)
    shifts = list(range(12))
    both, key_only = shifted_scores(q, k, m, n, shifts, base)
    assert both.tolist() == pytest.approx([hand_score(q.tolist(), k.tolist(), m, n, base)] * 12, abs=1e-12)
    assert key_only.tolist() == pytest.approx(
        [hand_score(q.tolist(), k.tolist(), m, n + s, base) for s in shifts], abs=1e-12)
    assert float(key_only.max() - key_only.min()) > 0.1  # moving one token does change the score


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("call, name", [
    (lambda: from_polar(-1.0, 0.0), "modulus"),
    (lambda: from_polar(1.0, float("nan")), "angle"),
    (lambda: to_polar("ab"), "z[0]"),
    (lambda: to_polar((1.0,)), "z"),
    (lambda: complex_multiply((1.0, 2.0), (float("inf"), 0.0)), "w[0]"),
    (lambda: rotor(True), "angle"),
    (lambda: relative_rotation(1, 2, float("nan")), "theta"),
    (lambda: score_identity(torch.ones(4, dtype=torch.float64), torch.ones(6, dtype=torch.float64), 0, 1), "k"),
    (lambda: score_identity(torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64), 0, 1), "dim"),
    (lambda: score_identity([1.0, 2.0], [1.0, 2.0], 0, 1), "q"),
    (lambda: score_identity(torch.ones(4), torch.ones(4), -1, 1), "m"),
    (lambda: shifted_scores(torch.ones(4), torch.ones(4), 0, 1.5, [0, 1]), "n"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name.replace("[", r"\[").replace("]", r"\]")):
        call()
