"""The distance grid and the ripple counter of the decay page, against hand-written loops."""

from __future__ import annotations

import cmath

import pytest
import torch

from rope_viz.analysis import count_rises, decay_bound, distance_grid


def hand_rises(values, rel_tol):
    scale = max(abs(v) for v in values)
    return sum(1 for a, b in zip(values, values[1:]) if b - a > rel_tol * scale)


def test_count_rises_small_cases():
    assert count_rises([3.0, 2.0, 1.0, 0.5]) == 0
    assert count_rises([1.0, 2.0, 1.0, 3.0, 3.0]) == 2
    assert count_rises([5.0]) == 0
    assert count_rises([1.0, 1.0 + 1e-12, 1.0]) == 0  # below the relative tolerance
    assert count_rises([1.0, 1.0 + 1e-12, 1.0], rel_tol=0.0) == 1


def test_count_rises_flat_bound_for_two_dims():
    # with one pair, |S_1| = |e^{i r theta_0}| = 1 at every distance: a flat line, no ripple
    assert count_rises(decay_bound(2, 10000.0, range(500))) == 0


@pytest.mark.parametrize("dim,base", [(8, 10000.0), (32, 100.0), (64, 10000.0)])
def test_count_rises_of_the_bound_against_a_cmath_loop(dim, base):
    theta = [base ** (-2 * i / dim) for i in range(dim // 2)]
    bound = []
    for r in range(200):
        partial, total = 0j, 0.0
        for t in theta:
            partial += cmath.exp(1j * r * t)
            total += abs(partial)
        bound.append(total / len(theta))
    got = count_rises(decay_bound(dim, base, range(200)))
    assert got == hand_rises(bound, 1e-9)
    assert 0 < got < 199  # it ripples: neither monotone nor rising everywhere


@pytest.mark.parametrize("bad", [[[1.0, 2.0]], [1.0, float("nan")], [1.0, float("inf")]])
def test_count_rises_rejects_bad_curves(bad):
    with pytest.raises(ValueError, match="values"):
        count_rises(bad)


def test_count_rises_rejects_bad_tolerance():
    with pytest.raises(ValueError, match="rel_tol"):
        count_rises([1.0, 2.0], rel_tol=-1)


def test_distance_grid_keeps_every_integer_when_it_fits():
    assert distance_grid(10, 11).tolist() == [float(r) for r in range(11)]
    assert distance_grid(10, 500, log=True).tolist() == [float(r) for r in range(11)]


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("max_distance,points", [(4096, 512), (1000, 64), (17, 5)])
def test_distance_grid_is_bounded_sorted_integer_and_spans(max_distance, points, log):
    grid = distance_grid(max_distance, points, log=log)
    assert grid.dtype == torch.float64
    values = grid.tolist()
    assert len(values) <= points
    assert values[0] == 0 and values[-1] == max_distance
    assert all(v == int(v) for v in values)
    assert all(a < b for a, b in zip(values, values[1:]))


def test_distance_grid_log_spacing_is_dense_near_zero():
    linear = distance_grid(4096, 64).tolist()
    log = distance_grid(4096, 64, log=True).tolist()
    assert sum(v <= 10 for v in log) > sum(v <= 10 for v in linear)
    assert log[:4] == [0.0, 1.0, 2.0, 3.0]
    gaps = [b / a for a, b in zip(log[5:], log[6:])]  # nearly constant ratios further out
    assert max(gaps) / min(gaps) < 1.5


@pytest.mark.parametrize("args", [(0, 10), (10, 1), (2.5, 10), (10, True)])
def test_distance_grid_rejects_bad_sizes(args):
    with pytest.raises(ValueError, match="max_distance|points"):
        distance_grid(*args)
