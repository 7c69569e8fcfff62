"""Counted multiply-adds of softmax and linear attention against products counted by hand."""

from __future__ import annotations

import pytest
import torch

from rope_viz.analysis import attention_costs


def counted(n, d, d_v):
    """Multiply-adds of each matrix product, written out product by product."""
    softmax = n * n * d  # scores Q K^T: n x n entries, d terms each
    softmax += n * n * d_v  # weights @ V: n x d_v entries, n terms each
    linear = d * d_v * n  # K^T V: d x d_v entries, n terms each
    linear += n * d_v * d  # Q (K^T V): n x d_v entries, d terms each
    linear += d * n  # sum_j phi(k_j)
    linear += n * d  # phi(q_i) . that sum
    return softmax, linear


@pytest.mark.parametrize("d,d_v", [(64, None), (8, 3), (128, 128)])
def test_attention_costs_match_counted_products(d, d_v):
    lengths = [1, 2, 16, 100, 4096]
    costs = attention_costs(lengths, d, d_v)
    for i, n in enumerate(lengths):
        softmax, linear = counted(n, d, d if d_v is None else d_v)
        assert costs["softmax"][i].item() == softmax
        assert costs["linear"][i].item() == linear


def test_linear_wins_beyond_about_d():
    d = 64
    n = torch.arange(1, 1000)
    costs = attention_costs(n, d)
    cheaper = n[costs["linear"] < costs["softmax"]]
    assert cheaper.min().item() == d + 2  # 2 n d (d + 1) < n^2 (2 d) exactly when n > d + 1
    assert bool((cheaper == torch.arange(cheaper.min().item(), 1000)).all())


@pytest.mark.parametrize("args", [([4], 0), ([4], 8, 0), ([-1], 8), ([float("nan")], 8)])
def test_attention_costs_rejects_bad_sizes(args):
    with pytest.raises(ValueError, match="dim|d_v|seq_lens"):
        attention_costs(*args)
