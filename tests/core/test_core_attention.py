"""Attention under RoPE and the sinusoidal encoding, against quadratic loops written here.

References: loop_rope (per-pair float64 loop) for the rotated q and k, a hand softmax with
math.exp, an O(n^2) loop for linear attention, a hand-built Toeplitz matrix, a Python loop over
the diagonals of a matrix, and a math.sin / math.cos positional encoding.
"""

from __future__ import annotations

import math

import pytest
import torch

from support.rope_reference import hand_pe, hf_rope, loop_rope, seeded_randn
from rope_viz.analysis import (additive_decomposition, attention_weights, diagonal_profile, encoded_scores,
                               linear_attention, random_tokens, rope_scores, shift_residual, softmax_attention,
                               toeplitz_deviation)
from rope_viz.sinusoidal import sinusoidal_encoding


def hand_softmax_rows(scores: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """Row softmax of a 2-D float64 matrix with math.exp (keys n > m dropped when causal)."""
    out = []
    for m, row in enumerate(scores.tolist()):
        keep = [v if (not causal or n <= m) else None for n, v in enumerate(row)]
        top = max(v for v in keep if v is not None)
        exps = [math.exp(v - top) if v is not None else 0.0 for v in keep]
        total = sum(exps)
        out.append([e / total for e in exps])
    return torch.tensor(out, dtype=torch.float64)


# --------------------------------------------------------------------------------------------
# Scores.
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_scores_match_reference(layout):
    q, k = seeded_randn(2, 6, 16, seed=1), seeded_randn(2, 5, 16, seed=2)
    qp, kp = [0, 1, 2, 3.5, 10, 100], [7, 0, 2.25, 50, -4]
    got = rope_scores(q, k, qp, kp, layout=layout)
    ref = loop_rope(q, qp, 10000.0, layout) @ loop_rope(k, kp, 10000.0, layout).transpose(-1, -2)
    assert got.shape == (2, 6, 5)
    torch.testing.assert_close(got, ref, rtol=0, atol=1e-11)


def test_rope_scores_depend_only_on_offset():
    # the same q at every position and the same k at every position: scores are Toeplitz
    q = seeded_randn(1, 16, seed=3).expand(12, 16)
    k = seeded_randn(1, 16, seed=4).expand(12, 16)
    s = rope_scores(q, k)
    torch.testing.assert_close(s[1:, 1:], s[:-1, :-1], rtol=0, atol=1e-12)
    # and the entry at offset m - n equals q . R_{n-m} k from the reference loop
    for m, n in [(0, 5), (7, 2), (11, 11)]:
        expected = float(q[0] @ loop_rope(k[:1], [n - m])[0])
        assert s[m, n].item() == pytest.approx(expected, abs=1e-11)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_encoded_scores_rope_and_none(layout):
    x = seeded_randn(7, 12, seed=5)
    w_q, w_k = seeded_randn(12, 8, seed=6), seeded_randn(12, 8, seed=7)
    q, k = x @ w_q, x @ w_k
    pos = [0, 1, 2, 3, 4.5, 20, 21]
    got = encoded_scores(x, w_q, w_k, encoding="rope", positions=pos, layout=layout)
    ref = loop_rope(q, pos, 10000.0, layout) @ loop_rope(k, pos, 10000.0, layout).T
    torch.testing.assert_close(got, ref, rtol=0, atol=1e-11)
    torch.testing.assert_close(encoded_scores(x, w_q, w_k, encoding="none"), q @ k.T, rtol=0, atol=1e-12)


def test_encoded_scores_sinusoidal_by_hand():
    x = seeded_randn(9, 10, seed=8)
    w_q, w_k = seeded_randn(10, 4, seed=9), seeded_randn(10, 4, seed=10)
    h = x + torch.from_numpy(hand_pe(range(9), 10))
    ref = (h @ w_q) @ (h @ w_k).T
    torch.testing.assert_close(encoded_scores(x, w_q, w_k, encoding="sinusoidal"), ref, rtol=0, atol=1e-11)


def test_additive_decomposition_terms_sum_to_sinusoidal_scores():
    seq, d_model, d_head = 8, 12, 6
    x = seeded_randn(seq, d_model, seed=11)
    w_q, w_k = seeded_randn(d_model, d_head, seed=12), seeded_randn(d_model, d_head, seed=13)
    pe = sinusoidal_encoding(seq, d_model, dtype=torch.float64)
    terms = additive_decomposition(x, pe, w_q, w_k)
    assert set(terms) == {"content_content", "content_position", "position_content", "position_position"}
    p = torch.from_numpy(hand_pe(range(seq), d_model))
    expected = {
        "content_content": (x @ w_q) @ (x @ w_k).T,
        "content_position": (x @ w_q) @ (p @ w_k).T,
        "position_content": (p @ w_q) @ (x @ w_k).T,
        "position_position": (p @ w_q) @ (p @ w_k).T,
    }
    for name, value in expected.items():
        torch.testing.assert_close(terms[name], value, rtol=0, atol=1e-11, msg=name)
    total = sum(terms.values())
    torch.testing.assert_close(total, encoded_scores(x, w_q, w_k, encoding="sinusoidal"), rtol=0, atol=1e-11)
    h = x + p
    torch.testing.assert_close(total, (h @ w_q) @ (h @ w_k).T, rtol=0, atol=1e-11)


def test_additive_decomposition_batched():
    x = seeded_randn(3, 5, 8, seed=14)
    w_q, w_k = seeded_randn(8, 4, seed=15), seeded_randn(8, 4, seed=16)
    pe = torch.from_numpy(hand_pe(range(5), 8))
    terms = additive_decomposition(x, pe, w_q, w_k)
    # terms that do not involve x may come back unbatched; they broadcast over the batch
    total = sum(t.expand(3, 5, 5) for t in terms.values())
    for b in range(3):
        h = x[b] + pe
        torch.testing.assert_close(total[b], (h @ w_q) @ (h @ w_k).T, rtol=0, atol=1e-11)


# --------------------------------------------------------------------------------------------
# Toeplitz deviation and diagonal profile.
# --------------------------------------------------------------------------------------------

def _toeplitz(values_by_offset: dict[int, float], n: int) -> torch.Tensor:
    return torch.tensor([[values_by_offset[m - k] for k in range(n)] for m in range(n)], dtype=torch.float64)


def test_toeplitz_deviation_of_exact_toeplitz_is_zero():
    n = 9
    vals = {o: math.sin(0.7 * o) + 0.1 * o for o in range(-(n - 1), n)}
    assert toeplitz_deviation(_toeplitz(vals, n)) == 0.0


def test_toeplitz_deviation_of_perturbed_matrix():
    n = 9
    vals = {o: math.cos(0.3 * o) for o in range(-(n - 1), n)}
    t = _toeplitz(vals, n)
    p = t.clone()
    p[5, 2] += 0.25  # offset 3
    assert toeplitz_deviation(p) == pytest.approx(0.25, abs=1e-15)
    p[1, 4] -= 0.75  # offset -3: a larger spread on another diagonal
    assert toeplitz_deviation(p) == pytest.approx(0.75, abs=1e-15)
    q = t.clone()
    q[6, 3] += 0.2  # offset 3 twice, opposite signs: spread 0.2 + 0.1
    q[2, 0] += -0.1  # offset 2 -- a different diagonal
    q[7, 4] -= 0.1  # offset 3
    assert toeplitz_deviation(q) == pytest.approx(0.3, abs=1e-15)


def test_toeplitz_deviation_one_by_one():
    assert toeplitz_deviation(torch.tensor([[3.0]])) == 0.0


@pytest.mark.parametrize("n", [1, 2, 7])
def test_diagonal_profile_against_loop(n):
    s = seeded_randn(n, n, seed=n)
    prof = diagonal_profile(s)
    offsets = list(range(-(n - 1), n))
    assert prof["offset"].tolist() == offsets
    rows = s.tolist()
    for idx, o in enumerate(offsets):
        diag = [rows[m][k] for m in range(n) for k in range(n) if m - k == o]
        assert len(diag) == n - abs(o)
        assert prof["mean"][idx].item() == pytest.approx(sum(diag) / len(diag), abs=1e-14)
        assert prof["min"][idx].item() == min(diag)
        assert prof["max"][idx].item() == max(diag)


def test_diagonal_profile_offset_sign():
    # entry (m=3, n=0) is on offset m - n = +3: the last index for a 4x4 matrix
    s = torch.zeros(4, 4, dtype=torch.float64)
    s[3, 0] = 5.0
    prof = diagonal_profile(s)
    assert prof["max"].tolist() == [0, 0, 0, 0, 0, 0, 5.0]
    assert prof["offset"][-1].item() == 3


# --------------------------------------------------------------------------------------------
# Shift residual: RoPE scores do not change when every position moves by the same amount.
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shift", [1, 7, 2.5, 1000, -3])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_shift_residual_rope_is_zero(shift, layout):
    seq, d = 16, 32
    w_q, w_k = seeded_randn(d, d, seed=20), seeded_randn(d, d, seed=21)
    x64 = random_tokens(seq, d, seed=1, dtype=torch.float64)
    scale64 = encoded_scores(x64, w_q, w_k).abs().max().item()
    res64 = shift_residual(x64, w_q, w_k, shift, layout=layout)
    assert res64.shape == (seq, seq)
    assert res64.max().item() < 1e-10 * scale64
    x32, wq32, wk32 = x64.float(), w_q.float(), w_k.float()
    res32 = shift_residual(x32, wq32, wk32, shift, layout=layout)
    assert res32.dtype == torch.float32
    assert res32.max().item() < 1e-3 * scale64


@pytest.mark.parametrize("shift", [1, 7, 2.5])
def test_shift_residual_sinusoidal_is_clearly_positive(shift):
    seq, d = 16, 32
    w_q, w_k = seeded_randn(d, d, seed=20), seeded_randn(d, d, seed=21)
    x = random_tokens(seq, d, seed=1, dtype=torch.float64)
    res = shift_residual(x, w_q, w_k, shift, encoding="sinusoidal")
    scale = encoded_scores(x, w_q, w_k, encoding="sinusoidal").abs().max().item()
    assert res.max().item() > 0.05 * scale
    # against the hand computation: scores at positions p and p + shift
    p = torch.arange(seq, dtype=torch.float64)

    def hand_scores(pos):
        pe = torch.tensor([[f(m / 10000.0 ** (2 * (c // 2) / d)) for c, f in
                            zip(range(d), [math.sin, math.cos] * (d // 2))] for m in pos.tolist()],
                          dtype=torch.float64)
        h = x + pe
        return (h @ w_q) @ (h @ w_k).T

    torch.testing.assert_close(res, (hand_scores(p) - hand_scores(p + shift)).abs(), rtol=0, atol=1e-10)


def test_shift_residual_none_is_zero():
    x = random_tokens(6, 8, dtype=torch.float64)
    w = seeded_randn(8, 8, seed=3)
    assert shift_residual(x, w, w, 5, encoding="none").max().item() == 0.0


# --------------------------------------------------------------------------------------------
# Softmax attention and weights.
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("causal", [False, True])
def test_attention_weights_against_hand_softmax(causal):
    s = seeded_randn(6, 6, seed=30) * 3
    w = attention_weights(s, causal=causal, scale=0.5)
    torch.testing.assert_close(w, hand_softmax_rows(s * 0.5, causal), rtol=0, atol=1e-14)
    torch.testing.assert_close(w.sum(-1), torch.ones(6, dtype=torch.float64), rtol=0, atol=1e-14)
    if causal:
        assert torch.equal(w.triu(1), torch.zeros_like(w))
        assert w[0, 0].item() == 1.0
    else:
        assert bool((w > 0).all())


def test_attention_weights_causal_batched_float32():
    s = seeded_randn(2, 3, 5, 5, seed=31, dtype=torch.float32)
    w = attention_weights(s, causal=True)
    above = torch.ones(5, 5, dtype=torch.bool).triu(1)
    assert bool((w[..., above] == 0).all())
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 3, 5), rtol=0, atol=1e-6)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_softmax_attention_leaves_v_unrotated(causal, layout):
    seq, d, d_v = 7, 16, 16
    q, k, v = seeded_randn(seq, d, seed=40), seeded_randn(seq, d, seed=41), seeded_randn(seq, d_v, seed=42)
    pos = [0, 1, 2, 5, 6.5, 9, 30]
    weights, out = softmax_attention(q, k, v, pos, causal=causal, layout=layout)
    scores = loop_rope(q, pos, 10000.0, layout) @ loop_rope(k, pos, 10000.0, layout).T
    ref_w = hand_softmax_rows(scores / math.sqrt(d), causal)
    torch.testing.assert_close(weights, ref_w, rtol=0, atol=1e-12)
    torch.testing.assert_close(out, ref_w @ v, rtol=0, atol=1e-12)
    # had V been rotated the output would differ
    rotated_v = loop_rope(v, pos, 10000.0, layout)
    assert (out - ref_w @ rotated_v).abs().max() > 1e-3


def test_softmax_attention_without_rope():
    q, k, v = seeded_randn(5, 8, seed=43), seeded_randn(5, 8, seed=44), seeded_randn(5, 3, seed=45)
    weights, out = softmax_attention(q, k, v, rope=False)
    ref_w = hand_softmax_rows(q @ k.T / math.sqrt(8))
    torch.testing.assert_close(weights, ref_w, rtol=0, atol=1e-12)
    torch.testing.assert_close(out, ref_w @ v, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------------
# Linear attention against an O(n^2) loop.
# --------------------------------------------------------------------------------------------

def hand_phi(t: torch.Tensor, kind: str) -> torch.Tensor:
    if kind == "elu":  # elu(t) + 1 = t + 1 for t > 0, e^t for t <= 0
        return torch.tensor([[[(v + 1.0) if v > 0 else math.exp(v) for v in row] for row in mat]
                             for mat in t.reshape(-1, *t.shape[-2:]).tolist()], dtype=torch.float64).reshape(t.shape)
    return t.clamp(min=0)


def quadratic_linear_attention(q, k, v, pos, layout, rope, rotate_denominator, feature_map="elu"):
    fq, fk = hand_phi(q, feature_map), hand_phi(k, feature_map)
    rq = loop_rope(fq, pos, 10000.0, layout) if rope else fq
    rk = loop_rope(fk, pos, 10000.0, layout) if rope else fk
    dq, dk = (rq, rk) if rotate_denominator else (fq, fk)
    seq = q.shape[-2]
    flat = lambda t: t.reshape(-1, seq, t.shape[-1])  # noqa: E731
    outs, dens = [], []
    for b in range(flat(q).shape[0]):
        rq_b, rk_b, dq_b, dk_b, v_b = flat(rq)[b], flat(rk)[b], flat(dq)[b], flat(dk)[b], flat(v)[b]
        out_rows, den_row = [], []
        for i in range(seq):
            num = torch.zeros(v.shape[-1], dtype=torch.float64)
            den = 0.0
            for j in range(seq):
                num = num + float(rq_b[i] @ rk_b[j]) * v_b[j]
                den += float(dq_b[i] @ dk_b[j])
            out_rows.append(num / den)
            den_row.append(den)
        outs.append(torch.stack(out_rows))
        dens.append(torch.tensor(den_row, dtype=torch.float64))
    return (torch.stack(outs).reshape(*q.shape[:-1], v.shape[-1]),
            torch.stack(dens).reshape(q.shape[:-1]))


@pytest.mark.parametrize("rotate_denominator", [False, True])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("shift", [0.0, -3.0], ids=["standard", "small_features"])
def test_linear_attention_against_quadratic_loop(rotate_denominator, layout, shift):
    # shift = -3 makes phi = elu + 1 ~ e^-3: denominators well below 1
    q, k = seeded_randn(2, 6, 8, seed=50) * 0.3 + shift, seeded_randn(2, 6, 8, seed=51) * 0.3 + shift
    v = seeded_randn(2, 6, 3, seed=52)
    pos = [0, 1, 2, 3.5, 10, 11]
    out, den = linear_attention(q, k, v, pos, layout=layout, rotate_denominator=rotate_denominator)
    ref_out, ref_den = quadratic_linear_attention(q, k, v, pos, layout, True, rotate_denominator)
    assert out.shape == (2, 6, 3) and den.shape == (2, 6)
    if shift < 0 and not rotate_denominator:
        assert float(ref_den.max()) < 1.0
    torch.testing.assert_close(den, ref_den, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(out, ref_out, rtol=1e-10, atol=1e-10)


def test_linear_attention_denominator_unrotated_and_positive():
    q, k, v = seeded_randn(10, 8, seed=53), seeded_randn(10, 8, seed=54), seeded_randn(10, 2, seed=55)
    pos = list(range(0, 100, 10))
    _, den = linear_attention(q, k, v, pos)
    _, den_plain = linear_attention(q, k, v, pos, rope=False)
    torch.testing.assert_close(den, den_plain, rtol=0, atol=1e-12)  # positions do not enter it
    assert bool((den > 0).all())
    _, den_rot = linear_attention(q, k, v, pos, rotate_denominator=True)
    assert (den_rot - den).abs().max() > 1e-3


@pytest.mark.parametrize("feature_map", ["elu", "relu"])
def test_linear_attention_without_rope(feature_map):
    q, k, v = seeded_randn(5, 4, seed=56), seeded_randn(5, 4, seed=57), seeded_randn(5, 3, seed=58)
    q = q.abs() + 0.1 if feature_map == "relu" else q  # keep relu features (and the denominator) positive
    out, den = linear_attention(q, k.abs(), v, rope=False, feature_map=feature_map)
    ref_out, ref_den = quadratic_linear_attention(q, k.abs(), v, None, "interleaved", False, False, feature_map)
    torch.testing.assert_close(out, ref_out, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(den, ref_den, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------------------------
# Tokens.
# --------------------------------------------------------------------------------------------

def test_random_tokens():
    a = random_tokens(5, 7, seed=3)
    assert a.shape == (5, 7) and a.dtype == torch.float32 and a.is_contiguous()
    assert torch.equal(a, random_tokens(5, 7, seed=3))
    assert not torch.equal(a, random_tokens(5, 7, seed=4))
    assert not torch.equal(a[0], a[1])
    same = random_tokens(5, 7, same=True, seed=3, dtype=torch.float64)
    assert same.dtype == torch.float64
    for row in same:
        assert torch.equal(row, same[0])


def test_hf_reference_is_half_layout():
    # the half-layout scores equal rotate_half-based scores
    q, k = seeded_randn(4, 8, seed=60), seeded_randn(4, 8, seed=61)
    torch.testing.assert_close(rope_scores(q, k, layout="half"), hf_rope(q) @ hf_rope(k).T, rtol=0, atol=1e-12)
