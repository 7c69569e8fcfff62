"""ALiBi against the paper's slope rule and BLOOM's build_alibi_tensor, T5 buckets against
transformers' T5Attention._relative_position_bucket, xPos against the paper's formula."""

from __future__ import annotations

import math

import pytest
import torch

from rope_viz.analysis import distance_profile
from rope_viz.biases import (alibi_bias, alibi_slopes, apply_nope, apply_xpos, t5_bias, t5_bucket_matrix,
                             t5_relative_position_bucket, xpos_zeta)


def paper_slopes(n: int) -> list[float]:
    """Press et al.: for n a power of 2, the geometric sequence starting at 2^(-8/n) with that ratio;
    otherwise the 2^floor(log2 n) slopes of that power plus every other slope of twice that power."""
    def power_of_two(k):
        start = 2.0 ** (-8.0 / k)
        return [start ** (i + 1) for i in range(k)]
    if math.log2(n).is_integer():
        return power_of_two(n)
    p = 2 ** math.floor(math.log2(n))
    return power_of_two(p) + power_of_two(2 * p)[0::2][: n - p]


@pytest.mark.parametrize("heads", [4, 8, 12])
def test_alibi_slopes_match_the_paper(heads):
    got = alibi_slopes(heads).tolist()
    expected = paper_slopes(heads)
    assert len(got) == heads
    assert max(abs(a - b) for a, b in zip(got, expected)) < 1e-15


def test_alibi_slopes_published_values():
    assert alibi_slopes(8).tolist() == [2.0 ** -k for k in range(1, 9)]


@pytest.mark.parametrize("heads", [1, 3, 5, 6, 8, 12, 16, 20, 24, 40, 64, 112])
def test_alibi_matches_bloom(heads):
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor

    seq = 7
    bloom = build_alibi_tensor(torch.ones(1, seq), heads, torch.float32)[:, 0, :]  # slope_h * n
    ours = alibi_bias(heads, seq, dtype=torch.float64)
    # BLOOM keeps slope_h * n for key n and relies on softmax's shift invariance per query row:
    # ours is -slope_h * (m - n) = slope_h * n - slope_h * m, the same up to a constant per row.
    shifted = ours + alibi_slopes(heads)[:, None, None] * torch.arange(seq, dtype=torch.float64)[None, :, None]
    diff = (shifted - bloom.double()[:, None, :]).abs().max().item()
    assert diff < 1e-6 * seq, diff
    slope_diff = (alibi_slopes(heads) - bloom[:, 1].double()).abs().max().item()
    assert slope_diff < 1e-7, slope_diff


def test_alibi_bias_by_hand():
    # two heads: slopes 2^(-8/2) = 1/16 and 1/256
    bias = alibi_bias(2, 3, variant="causal", dtype=torch.float64)
    assert bias[0].tolist() == [[0.0, 1 / 16, 2 / 16], [-1 / 16, 0.0, 1 / 16], [-2 / 16, -1 / 16, 0.0]]
    sym = alibi_bias(2, 3, variant="symmetric", dtype=torch.float64)
    assert sym[1].tolist() == [[0.0, -1 / 256, -2 / 256], [-1 / 256, 0.0, -1 / 256], [-2 / 256, -1 / 256, 0.0]]


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (16, 64), (64, 256), (8, 20), (10, 37), (32, 50)])
def test_t5_buckets_match_transformers(bidirectional, num_buckets, max_distance):
    from transformers.models.t5.modeling_t5 import T5Attention

    offsets = torch.arange(-600, 601)
    expected = T5Attention._relative_position_bucket(offsets, bidirectional=bidirectional,
                                                     num_buckets=num_buckets, max_distance=max_distance)
    got = t5_relative_position_bucket(offsets, bidirectional=bidirectional, num_buckets=num_buckets,
                                      max_distance=max_distance)
    assert torch.equal(got, expected.to(torch.int64))


def test_t5_bias_matches_compute_bias():
    from transformers import T5Config
    from transformers.models.t5.modeling_t5 import T5Attention

    config = T5Config(d_model=16, d_kv=4, num_heads=3, relative_attention_num_buckets=12,
                      relative_attention_max_distance=40, is_decoder=True)
    attention = T5Attention(config, has_relative_attention_bias=True)
    with torch.no_grad():
        attention.relative_attention_bias.weight.normal_()
        expected = attention.compute_bias(9, 11)[0]
    table = attention.relative_attention_bias.weight.detach()
    got = t5_bias(table, 9, 11, bidirectional=False, max_distance=40)
    assert torch.equal(got, expected)
    assert torch.equal(t5_bucket_matrix(2, 3, bidirectional=True, num_buckets=8, max_distance=20),
                       torch.tensor([[0, 5, 6], [1, 0, 5]]))


def paper_xpos(x, positions, role, gamma, scale_base, base=10000.0):
    """xPos written from the paper: pair i of x at position m is rotated by m * base^(-2i/d)
    and scaled by zeta_i^(+-m/scale_base), zeta_i = (2i/d + gamma)/(1 + gamma); per-pair loop."""
    d = x.shape[-1]
    out = x.detach().to(torch.float64).clone()
    sign = 1.0 if role == "query" else -1.0
    for k, m in enumerate(positions):
        for i in range(d // 2):
            zeta = (2.0 * i / d + gamma) / (1.0 + gamma)
            scale = zeta ** (sign * m / scale_base)
            angle = m * base ** (-2.0 * i / d)
            a, b = float(x[k, 2 * i]), float(x[k, 2 * i + 1])
            out[k, 2 * i] = scale * (a * math.cos(angle) - b * math.sin(angle))
            out[k, 2 * i + 1] = scale * (a * math.sin(angle) + b * math.cos(angle))
    return out


@pytest.mark.parametrize("role", ["query", "key"])
def test_xpos_matches_the_paper(role):
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(6, 16, generator=gen, dtype=torch.float64)
    positions = [0, 1, 5, 100, 700, -300]
    got = apply_xpos(x, positions, role=role)
    expected = paper_xpos(x, positions, role, 0.4, 512.0)
    assert (got - expected).abs().max().item() < 1e-12


def test_xpos_zeta_values_and_relative_score():
    assert xpos_zeta(8).tolist() == pytest.approx([(2 * i / 8 + 0.4) / 1.4 for i in range(4)], abs=1e-16)
    gen = torch.Generator().manual_seed(12)
    q = torch.randn(1, 16, generator=gen, dtype=torch.float64)
    k = torch.randn(1, 16, generator=gen, dtype=torch.float64)

    def score(m, n):
        return float((apply_xpos(q, [m], role="query") * apply_xpos(k, [n], role="key")).sum())
    # q.k carries zeta^((m-n)/scale_base): depends on m - n only
    assert score(40, 10) == pytest.approx(score(1040, 1010), rel=1e-10)
    # and equals the paper's loop
    expected = float((paper_xpos(q, [40], "query", 0.4, 512.0) * paper_xpos(k, [10], "key", 0.4, 512.0)).sum())
    assert score(40, 10) == pytest.approx(expected, rel=1e-12)


def test_nope_and_profiles():
    x = torch.randn(3, 4)
    assert apply_nope(x) is x
    r = torch.arange(0, 200, 7, dtype=torch.float64)
    assert distance_profile("nope", r).abs().max().item() == 0.0
    alibi = distance_profile("alibi", r, num_heads=4)
    assert alibi.shape == (4, r.numel())
    assert torch.allclose(alibi, -torch.tensor(paper_slopes(4), dtype=torch.float64)[:, None] * r, atol=1e-13)
    buckets = distance_profile("t5", r, num_buckets=16, max_distance=64)
    from transformers.models.t5.modeling_t5 import T5Attention
    ref = T5Attention._relative_position_bucket(-r.long(), bidirectional=False, num_buckets=16, max_distance=64)
    assert buckets.tolist() == [float(v) for v in ref.tolist()]
    table = torch.linspace(0.0, -3.0, 16, dtype=torch.float64)
    assert distance_profile("t5", r, bucket_table=table, max_distance=64).tolist() == table[ref].tolist()
    # xPos: the same Monte-Carlo estimate as RoPE at r = 0, and the RoPE curve again once the
    # decay is switched off (huge scale_base)
    rope = distance_profile("rope", r, dim=32, samples=32)
    xpos = distance_profile("xpos", r, dim=32, samples=32)
    no_decay = distance_profile("xpos", r, dim=32, samples=32, scale_base=1e15)
    assert xpos[0].item() == pytest.approx(rope[0].item(), rel=1e-12)
    assert (no_decay - rope).abs().max().item() < 1e-9
    # uniform [0, 1) entries: E[q . R_r k] = sum_i 2 * (1/2)^2 cos(r theta_i) (mean 1/2 per entry);
    # 32 samples leave a standard error of about 0.22 (measured worst point 0.36)
    theta = [10000.0 ** (-2.0 * i / 32) for i in range(16)]
    analytic = torch.tensor([sum(0.5 * math.cos(d * t) for t in theta) for d in r.tolist()])
    assert (rope - analytic).abs().max().item() < 1.0


@pytest.mark.parametrize("call, message", [
    (lambda: alibi_slopes(0), "num_heads"),
    (lambda: alibi_bias(4, 3, variant="both"), "variant"),
    (lambda: t5_relative_position_bucket(torch.tensor([1.5])), "relative_position"),
    (lambda: t5_relative_position_bucket(torch.tensor([1]), num_buckets=32, max_distance=8), "max_distance"),
    (lambda: apply_xpos(torch.zeros(2, 4), role="value"), "role"),
    (lambda: apply_xpos(torch.zeros(2, 4), gamma=-1.0), "gamma"),
    (lambda: distance_profile("sinusoid", [1.0]), "encoding"),
    (lambda: distance_profile("alibi", [-1.0]), "distances"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()
