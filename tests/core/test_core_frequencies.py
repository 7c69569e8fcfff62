"""inv_freq, wavelengths, angles, wrapped_angles, pair_indices, layout_permutation and the
precision of positions, against values written out by hand with Python floats and math."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from support.rope_reference import hand_inv_freq, hand_layout_permutation
from rope_viz import angles, apply_rope, inv_freq, layout_permutation, pair_indices, wavelengths
from rope_viz.analysis import wrapped_angles
from rope_viz.sinusoidal import sinusoidal_at


@pytest.mark.parametrize("dim", [2, 4, 8, 64, 128])
@pytest.mark.parametrize("base", [2.0, 10.0, 10000.0, 500000.0, 1e6, 1.5])
def test_inv_freq_float64_by_hand(dim, base):
    got = inv_freq(dim, base, dtype=torch.float64)
    assert got.dtype == torch.float64 and got.shape == (dim // 2,)
    expected = [base ** (-2 * i / dim) for i in range(dim // 2)]
    for g, e in zip(got.tolist(), expected):
        assert g == pytest.approx(e, rel=1e-14)
    assert got[0].item() == 1.0  # theta_0 = base^0


@pytest.mark.parametrize("dim", [2, 16, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_inv_freq_float32_is_rounded_float64(dim, base):
    got = inv_freq(dim, base)
    assert got.dtype == torch.float32
    expected32 = torch.tensor(hand_inv_freq(dim, base), dtype=torch.float64).to(torch.float32)
    # correctly rounded: equal to the float32 rounding of the float64 value (allow one ulp)
    torch.testing.assert_close(got, expected32, rtol=1.2e-7, atol=0)


def test_inv_freq_known_values():
    # d = 4, base = 10000: theta = [1, 10000^(-1/2)] = [1, 0.01]
    assert inv_freq(4, 10000.0, dtype=torch.float64).tolist() == pytest.approx([1.0, 0.01], rel=1e-15)
    # d = 6, base = 8: [1, 8^(-1/3), 8^(-2/3)] = [1, 1/2, 1/4]
    assert inv_freq(6, 8.0, dtype=torch.float64).tolist() == pytest.approx([1.0, 0.5, 0.25], rel=1e-15)
    # decreasing: pair 0 is the fastest hand
    t = inv_freq(64, 10000.0, dtype=torch.float64)
    assert bool((t[1:] < t[:-1]).all())


def test_inv_freq_accepts_numpy_and_int_arguments():
    a = inv_freq(np.int64(8), np.float64(100.0), dtype=torch.float64)
    b = inv_freq(8, 100, dtype=torch.float64)
    assert a.tolist() == pytest.approx(hand_inv_freq(8, 100.0), rel=1e-14)
    assert torch.equal(a, b)


@pytest.mark.parametrize("dim,base", [(8, 10000.0), (32, 500000.0)])
def test_wavelengths(dim, base):
    got = wavelengths(dim, base)
    expected = [2 * math.pi / t for t in hand_inv_freq(dim, base)]
    assert got.tolist() == pytest.approx(expected, rel=1e-13)
    assert got[0].item() == pytest.approx(2 * math.pi, rel=1e-15)


def test_angles_by_hand():
    pos = [0, 1, 2.5, -3, 1000.125]
    got = angles(pos, 8, 100.0)
    assert got.shape == (5, 4) and got.dtype == torch.float64
    theta = hand_inv_freq(8, 100.0)
    for r, m in enumerate(pos):
        for i, t in enumerate(theta):
            assert got[r, i].item() == pytest.approx(m * t, rel=1e-14, abs=1e-300)


def test_wrapped_angles_in_range_and_congruent():
    pos = [0, 1, 7, -5, 123.75, 99999]
    got = wrapped_angles(pos, 16, 10000.0)
    assert bool((got >= 0).all()) and bool((got < 2 * math.pi).all())
    theta = hand_inv_freq(16, 10000.0)
    for r, m in enumerate(pos):
        for i, t in enumerate(theta):
            a = got[r, i].item()
            assert math.cos(a) == pytest.approx(math.cos(m * t), abs=1e-9)
            assert math.sin(a) == pytest.approx(math.sin(m * t), abs=1e-9)
    # position 7, pair 0 (theta = 1): 7 - 2*pi
    assert got[2, 0].item() == pytest.approx(7 - 2 * math.pi, abs=1e-12)
    # negative position wraps to a positive angle: -5 + 2*pi
    assert got[3, 0].item() == pytest.approx(-5 + 2 * math.pi, abs=1e-12)


@pytest.mark.parametrize("dim", [2, 6, 16])
def test_pair_indices_by_hand(dim):
    a, b = pair_indices(dim, "interleaved")
    assert a.tolist() == [2 * i for i in range(dim // 2)]
    assert b.tolist() == [2 * i + 1 for i in range(dim // 2)]
    a, b = pair_indices(dim, "half")
    assert a.tolist() == list(range(dim // 2))
    assert b.tolist() == list(range(dim // 2, dim))
    assert pair_indices(dim)[0].tolist() == [2 * i for i in range(dim // 2)]  # default interleaved


@pytest.mark.parametrize("dim", [2, 4, 8, 10])
def test_layout_permutation_maps_pairs(dim):
    p = layout_permutation(dim).tolist()
    assert p == hand_layout_permutation(dim)
    # pair i = (2i, 2i+1) interleaved lands at (i, i + dim/2) in the half layout
    for i in range(dim // 2):
        assert p[i] == 2 * i and p[i + dim // 2] == 2 * i + 1


# Regression: positions given as Python floats used to be read as float32 (torch's default
# dtype), rounding e.g. 123.456789 to 123.456787 and turning pair 0 by the wrong angle.
@pytest.mark.parametrize("method", ["matrix", "pairs", "complex", "fast"])
def test_python_float_positions_keep_float64_precision(method):
    p = 123.456789
    x = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    got = apply_rope(x, [p], method=method)[0].tolist()
    assert got == pytest.approx([math.cos(p), math.sin(p)], abs=1e-13)
    assert angles([p, 1e7 + 0.1], 2)[:, 0].tolist() == [p, 1e7 + 0.1]
    assert sinusoidal_at([p], 2, dtype=torch.float64)[0].tolist() == pytest.approx([math.sin(p), math.cos(p)],
                                                                                     abs=1e-13)


def test_positions_accept_tensors_numpy_and_ints():
    x = torch.ones(3, 4, dtype=torch.float64)
    a = apply_rope(x, [0, 1, 2])
    b = apply_rope(x, torch.tensor([0, 1, 2]))
    c = apply_rope(x, np.array([0.0, 1.0, 2.0]))
    d = apply_rope(x, torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64))
    for other in (b, c, d):
        torch.testing.assert_close(a, other, rtol=0, atol=0)
