"""Small attention helpers used by the relative-attention and RoPE-versus-sinusoidal pages,
against values written here: a hand-built Toeplitz matrix, math.sin / math.cos encodings,
Python-float norms."""

from __future__ import annotations

import math

import pytest
import torch

from rope_viz.analysis import (depends_only_on_offset, dot_product_scale, encoded_norms, random_attention_inputs,
                               random_projections, random_tokens)


def hand_toeplitz(n: int) -> torch.Tensor:
    """Entry (m, k) = cos(m - k) + (m - k) / 10, written by a loop."""
    return torch.tensor([[math.cos(m - k) + (m - k) / 10 for k in range(n)] for m in range(n)],
                        dtype=torch.float64)


def hand_norm(values) -> float:
    return math.sqrt(sum(v * v for v in values))


def test_random_projections_are_reproducible_and_scaled():
    w_q, w_k = random_projections(256, 128, seed=3, dtype=torch.float64)
    again_q, again_k = random_projections(256, 128, seed=3, dtype=torch.float64)
    assert w_q.shape == w_k.shape == (256, 128)
    assert torch.equal(w_q, again_q) and torch.equal(w_k, again_k)
    assert not torch.equal(w_q, random_projections(256, 128, seed=4, dtype=torch.float64)[0])
    # entries N(0, 1/d_model): standard deviation 1/16, mean 0 (32768 samples each)
    for w in (w_q, w_k):
        assert float(w.std()) == pytest.approx(1 / 16, rel=0.03)
        assert abs(float(w.mean())) < 0.002
    # W_q and W_k are independent of each other and of the token draws with the same seed
    tokens = random_tokens(256, 128, seed=3, dtype=torch.float64)
    for a, b in ((w_q, w_k), (w_q, tokens)):
        corr = float((a * b).sum() / (a.norm() * b.norm()))
        assert abs(corr) < 0.03


def test_random_projections_keep_the_scale_of_standard_normal_tokens():
    x = random_tokens(512, 128, seed=0, dtype=torch.float64)
    w_q, _ = random_projections(128, 64, seed=0, dtype=torch.float64)
    assert float((x @ w_q).std()) == pytest.approx(1.0, rel=0.05)


def test_random_attention_inputs_bundle_tokens_and_square_projections():
    x, w_q, w_k = random_attention_inputs(6, 4, same=True, seed=7, dtype=torch.float64)
    assert x.shape == (6, 4) and w_q.shape == w_k.shape == (4, 4)
    assert torch.equal(x, random_tokens(6, 4, same=True, seed=7, dtype=torch.float64))
    expected_q, expected_k = random_projections(4, 4, seed=7, dtype=torch.float64)
    assert torch.equal(w_q, expected_q) and torch.equal(w_k, expected_k)
    assert torch.equal(x[0], x[5])  # one token repeated
    with pytest.raises(ValueError, match="seq"):
        random_attention_inputs(0, 4)


def test_dot_product_scale():
    assert dot_product_scale(64) == 0.125
    assert dot_product_scale(2) == pytest.approx(0.7071067811865476)
    for bad in (0, -4, 2.5, True):
        with pytest.raises(ValueError, match="d_head"):
            dot_product_scale(bad)


def test_depends_only_on_offset_accepts_toeplitz_and_rejects_a_perturbed_entry():
    t = hand_toeplitz(12)
    assert depends_only_on_offset(t)
    assert depends_only_on_offset(t.float())  # float32 rounding stays under the tolerance
    bumped = t.clone()
    bumped[7, 3] += 1e-2
    assert not depends_only_on_offset(bumped)
    assert depends_only_on_offset(bumped, rtol=1e-2)
    assert not depends_only_on_offset(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))


@pytest.mark.parametrize("rtol", [-1e-3, float("nan"), float("inf"), "1e-3"])
def test_depends_only_on_offset_rejects_a_bad_tolerance(rtol):
    with pytest.raises(ValueError, match="rtol"):
        depends_only_on_offset(hand_toeplitz(3), rtol=rtol)


def test_depends_only_on_offset_rejects_a_non_square_matrix():
    with pytest.raises(ValueError, match="scores"):
        depends_only_on_offset(torch.zeros(2, 3))


@pytest.mark.parametrize("base", [100.0, 10000.0])
def test_encoded_norms_against_hand_norms(base):
    seq, dim = 9, 6
    x = random_tokens(seq, dim, seed=5, dtype=torch.float64)
    norms = encoded_norms(x, base=base)
    theta = [base ** (-2 * i / dim) for i in range(dim // 2)]
    for m in range(seq):
        row = x[m].tolist()
        pe = [f(m * theta[c // 2]) for c, f in zip(range(dim), [math.sin, math.cos] * (dim // 2))]
        assert float(norms["none"][m]) == pytest.approx(hand_norm(row), rel=1e-12)
        assert float(norms["rope"][m]) == pytest.approx(hand_norm(row), rel=1e-12)  # a rotation
        assert float(norms["sinusoidal"][m]) == pytest.approx(hand_norm([a + b for a, b in zip(row, pe)]),
                                                              rel=1e-12)


def test_encoded_norms_of_the_same_token_everywhere():
    x = random_tokens(64, 16, same=True, seed=1, dtype=torch.float64)
    norms = encoded_norms(x, torch.arange(64) + 1000.0, layout="half")
    assert norms["rope"].shape == (64,)
    assert float((norms["rope"] - norms["none"]).abs().max()) < 1e-12
    assert float(norms["sinusoidal"].max() - norms["sinusoidal"].min()) > 0.5  # the position shows


def test_encoded_norms_keep_batch_dimensions():
    x = torch.randn(2, 3, 5, 8, generator=torch.Generator().manual_seed(0))
    assert encoded_norms(x)["sinusoidal"].shape == (2, 3, 5)


@pytest.mark.parametrize("x, positions, word", [
    (torch.zeros(4), None, "x"),
    (torch.zeros(4, 3), None, "dim"),
    (torch.zeros(4, 4, dtype=torch.int64), None, "x"),
    (torch.zeros(4, 4), [0, 1], "positions"),
])
def test_encoded_norms_bad_input(x, positions, word):
    with pytest.raises(ValueError, match=word):
        encoded_norms(x, positions)
