"""RoFormer's long-term decay bound against a cmath double loop, and the measured mean score
against a direct loop over samples, pairs and distances."""

from __future__ import annotations

import cmath
import math

import pytest
import torch

from support.rope_reference import hand_inv_freq
from rope_viz.analysis import decay_bound, empirical_decay


def hand_decay_bound(dim, base, r):
    """(1/(d/2)) sum_{j=1..d/2} |S_j|, S_j = sum_{k=0..j-1} e^{i r theta_k}."""
    theta = hand_inv_freq(dim, base)
    half = dim // 2
    total = 0.0
    for j in range(1, half + 1):
        s = 0j
        for k in range(j):
            s += cmath.exp(1j * r * theta[k])
        total += abs(s)
    return total / half


@pytest.mark.parametrize("dim", [2, 4, 16, 128])
@pytest.mark.parametrize("base", [10.0, 10000.0, 500000.0])
def test_decay_bound_at_zero(dim, base):
    got = decay_bound(dim, base, [0])
    assert got.shape == (1,)
    assert got.item() == pytest.approx((dim / 2 + 1) / 2, rel=1e-14)


@pytest.mark.parametrize("dim,base", [(2, 10000.0), (8, 10000.0), (32, 100.0), (64, 500000.0)])
def test_decay_bound_against_cmath_loop(dim, base):
    distances = [0, 1, 2, 3.5, 10, 50, 123.25, 1000, -7]
    got = decay_bound(dim, base, distances)
    assert got.dtype == torch.float64 and got.shape == (len(distances),)
    for value, r in zip(got.tolist(), distances):
        assert value == pytest.approx(hand_decay_bound(dim, base, r), rel=1e-12, abs=1e-12)


def test_decay_bound_symmetric_and_ripples():
    r = list(range(0, 300))
    up = decay_bound(128, 10000.0, r)
    down = decay_bound(128, 10000.0, [-v for v in r])
    torch.testing.assert_close(up, down, rtol=0, atol=1e-12)  # |S_j(-r)| = |conj S_j(r)|
    diffs = up[1:] - up[:-1]
    assert up[-1] < up[0]  # it does decay overall ...
    assert bool((diffs > 0).any())  # ... but not monotonically
    for idx in (0, 37, 299):
        assert up[idx].item() == pytest.approx(hand_decay_bound(128, 10000.0, r[idx]), rel=1e-12)


def hand_empirical_decay(dim, base, distances, samples, tied, seed):
    """Mean over samples of q . R_r k, with pair rotations written out with math.cos/sin.

    q and k are drawn the way empirical_decay documents it: a torch.Generator seeded with `seed`,
    q = rand(samples, dim) and then (unless tied) k = rand(samples, dim), in float64."""
    gen = torch.Generator().manual_seed(seed)
    q = torch.rand(samples, dim, generator=gen, dtype=torch.float64).tolist()
    k = q if tied else torch.rand(samples, dim, generator=gen, dtype=torch.float64).tolist()
    theta = hand_inv_freq(dim, base)
    out = []
    for r in distances:
        acc = 0.0
        for qs, ks in zip(q, k):
            for i, t in enumerate(theta):
                c, s = math.cos(r * t), math.sin(r * t)
                k0, k1 = ks[2 * i], ks[2 * i + 1]
                acc += qs[2 * i] * (k0 * c - k1 * s) + qs[2 * i + 1] * (k0 * s + k1 * c)
        out.append(acc / len(q))
    return out


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("seed", [0, 5])
def test_empirical_decay_against_loop(tied, seed):
    distances = [0, 1, 2, 10, 33.5, 200]
    got = empirical_decay(16, 10000.0, distances, samples=12, tied=tied, seed=seed)
    assert got.shape == (len(distances),)
    ref = hand_empirical_decay(16, 10000.0, distances, 12, tied, seed)
    assert got.tolist() == pytest.approx(ref, rel=1e-12, abs=1e-12)


def test_empirical_decay_statistics_at_zero():
    # at r = 0 the score is q . k; for independent uniform [0, 1) entries E = dim / 4,
    # for tied q = k it is E|q|^2 = dim / 3 (independent of how the samples are drawn)
    dim, n = 32, 4000
    free = empirical_decay(dim, 10000.0, [0], samples=n, seed=1).item()
    tied = empirical_decay(dim, 10000.0, [0], samples=n, tied=True, seed=1).item()
    assert free == pytest.approx(dim / 4, rel=0.03)
    assert tied == pytest.approx(dim / 3, rel=0.03)


def test_empirical_decay_is_reproducible():
    a = empirical_decay(8, 10000.0, [0, 5, 9], samples=20, seed=3)
    b = empirical_decay(8, 10000.0, [0, 5, 9], samples=20, seed=3)
    c = empirical_decay(8, 10000.0, [0, 5, 9], samples=20, seed=4)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)
