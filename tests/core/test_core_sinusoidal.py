"""The additive sinusoidal encoding against a math.sin / math.cos loop, and the fact that its
own dot product PE(m) . PE(n) depends only on m - n."""

from __future__ import annotations

import math

import pytest
import torch

from rope_viz.sinusoidal import sinusoidal_at, sinusoidal_encoding
from support.rope_reference import hand_pe


@pytest.mark.parametrize("num,dim,base", [(1, 2, 10000.0), (10, 8, 10000.0), (50, 64, 10000.0), (7, 6, 3.0)])
def test_encoding_columns_by_hand(num, dim, base):
    got = sinusoidal_encoding(num, dim, base, dtype=torch.float64)
    assert got.shape == (num, dim) and got.dtype == torch.float64
    torch.testing.assert_close(got, torch.from_numpy(hand_pe(range(num), dim, base)), rtol=0, atol=1e-12)


def test_encoding_known_entries():
    pe = sinusoidal_encoding(5, 4, dtype=torch.float64)
    # row 0: sin 0 = 0, cos 0 = 1 on every pair
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    # row 3, pair 0 (theta = 1): sin 3, cos 3; pair 1 (theta = 10000^(-1/2) = 0.01): sin .03, cos .03
    assert pe[3].tolist() == pytest.approx([math.sin(3), math.cos(3), math.sin(0.03), math.cos(0.03)], abs=1e-15)


def test_encoding_default_float32():
    pe = sinusoidal_encoding(20, 16)
    assert pe.dtype == torch.float32
    torch.testing.assert_close(pe.double(), torch.from_numpy(hand_pe(range(20), 16)), rtol=0, atol=1e-7)


def test_sinusoidal_at_fractional_and_negative_positions():
    pos = [-2.5, 0.0, 0.25, 17.75, 4096.5]
    got = sinusoidal_at(pos, 12, 10000.0, dtype=torch.float64)
    torch.testing.assert_close(got, torch.from_numpy(hand_pe(pos, 12)), rtol=0, atol=1e-12)


def test_sinusoidal_at_integer_positions_equal_encoding_rows():
    torch.testing.assert_close(sinusoidal_at(list(range(9)), 10, dtype=torch.float64),
                               torch.from_numpy(hand_pe(range(9), 10)), rtol=0, atol=1e-12)


@pytest.mark.parametrize("dim", [8, 64])
def test_pe_dot_product_depends_only_on_offset(dim):
    n = 40
    pe = sinusoidal_encoding(n, dim, dtype=torch.float64)
    gram = pe @ pe.T
    theta = [10000.0 ** (-2 * t / dim) for t in range(dim // 2)]
    for m in range(n):
        for k in range(n):
            # sin a sin b + cos a cos b = cos(a - b): sum over pairs of cos((m - n) theta_t)
            expected = sum(math.cos((m - k) * t) for t in theta)
            assert gram[m, k].item() == pytest.approx(expected, abs=1e-11)
    # Toeplitz: the same on every diagonal
    torch.testing.assert_close(gram[1:, 1:], gram[:-1, :-1], rtol=0, atol=1e-11)
    # and the diagonal is dim/2 (each pair is a unit vector)
    torch.testing.assert_close(gram.diagonal(), torch.full((n,), dim / 2, dtype=torch.float64), rtol=0, atol=1e-12)
