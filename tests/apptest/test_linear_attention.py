"""The linear-attention page through AppTest: outputs and denominators against an O(n^2) computation
written here with numpy, counted costs (opening in Chinese and at the extremes: test_every_page)."""

import re

import numpy as np
import pytest
import torch

from rope_viz.analysis import random_tokens
from support.apptest import (assert_says_where_it_was_timed, axis_titles, chart, chart_keys, metrics, open_page, opened,
                             page_text, spec_array)
from support.rope_reference import pair_rope


def page_tokens(seq, dim, seed):
    """The page's inputs: q, k, v are three (seq, dim) slices of one random_tokens draw."""
    x = random_tokens(seq, 3 * dim, seed=seed, dtype=torch.float64).numpy()
    return x[:, :dim], x[:, dim:2 * dim], x[:, 2 * dim:]


def hand_attention(seq, dim, base, phi, seed):
    """Both attentions by the full n x n route: (softmax out, linear out, unrotated den, rotated den)."""
    q, k, v = page_tokens(seq, dim, seed)
    feature = (lambda t: np.where(t > 0, t + 1.0, np.exp(np.minimum(t, 0)))) if phi == "elu" else (
        lambda t: np.maximum(t, 0.0))
    fq, fk = feature(q), feature(k)
    rotated = pair_rope(fq, None, base) @ pair_rope(fk, None, base).T  # [R_i phi(q_i)] . [R_j phi(k_j)] for every i, j
    den = (fq @ fk.T).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        linear = rotated @ v / den[:, None]
    logits = pair_rope(q, None, base) @ pair_rope(k, None, base).T / np.sqrt(dim)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    softmax = weights / weights.sum(axis=1, keepdims=True) @ v
    return softmax, linear, den, rotated.sum(axis=1)


def test_defaults_draw_outputs_denominators_and_costs():
    at = opened("linear_attention")
    softmax, linear, den, den_rot = hand_attention(256, 64, 100.0, "elu", 0)
    np.testing.assert_allclose(spec_array(chart(at, "softmax_output")["data"][0]["z"]), softmax, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(spec_array(chart(at, "linear_output")["data"][0]["z"]), linear, rtol=1e-4, atol=1e-6)
    channel = chart(at, "channel")["data"]
    np.testing.assert_allclose(spec_array(channel[0]["y"]), softmax[:, 0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(spec_array(channel[1]["y"]), linear[:, 0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(spec_array(chart(at, "denominators")["data"][0]["y"]), den, rtol=1e-5)
    np.testing.assert_allclose(spec_array(chart(at, "denominators")["data"][1]["y"]), den_rot, rtol=1e-5)
    shown = metrics(at)
    assert float(shown["Smallest unrotated sum"]) == pytest.approx(den.min(), rel=1e-3)
    assert float(shown["Smallest rotated sum"]) == pytest.approx(den_rot.min(), rel=1e-3)
    assert shown["Rotated sums ≤ 0"] == f"{int((den_rot <= 0).sum())} of 256"
    assert int((den_rot <= 0).sum()) >= 1  # the defaults show the failure the page explains
    assert float(shown["Shift all positions by 1000"]) < 1e-9  # offsets only: a shift changes nothing
    assert float(shown["Correlation softmax ↔ linear"]) == pytest.approx(
        np.corrcoef(softmax.ravel(), linear.ravel())[0, 1], abs=1e-3)
    assert dict(at.query_params) == {"lang": "en", "seq": "256", "dim": "64", "base": "100", "phi": "elu",
                                     "seed": "0", "channel": "0", "timing": "0"}


def test_costs_are_the_counted_multiply_adds():
    at = opened("linear_attention", {"seq": 512, "dim": 32})
    costs = chart(at, "costs")
    n = spec_array(costs["data"][0]["x"])
    assert n[0] == 16 and n[-1] == 16384
    np.testing.assert_allclose(spec_array(costs["data"][0]["y"]), n * n * (32 + 32), rtol=1e-6)  # Q K^T, then @ V
    np.testing.assert_allclose(spec_array(costs["data"][1]["y"]), 2 * n * 32 * 33, rtol=1e-6)  # K^T V, Q(.), sums
    assert costs["layout"]["xaxis"]["type"] == "log" and costs["layout"]["yaxis"]["type"] == "log"
    assert "softmax 16,777,216, linear 1,081,344 multiply-adds" in page_text(at)


def test_a_small_base_drives_rotated_denominators_below_zero():
    at = opened("linear_attention", {"seq": 64, "dim": 8, "base": 10, "seed": 2, "channel": 5})
    _, linear, den, den_rot = hand_attention(64, 8, 10.0, "elu", 2)
    nonpositive = int((den_rot <= 0).sum())
    assert nonpositive > 0 and den.min() > 0
    assert metrics(at)["Rotated sums ≤ 0"] == f"{nonpositive} of 64"
    assert "flip the sign of the output" in page_text(at)
    np.testing.assert_allclose(spec_array(chart(at, "channel")["data"][1]["y"]), linear[:, 5], rtol=1e-4, atol=1e-6)


def test_relu_queries_without_features_are_left_blank():
    at = opened("linear_attention", {"seq": 32, "dim": 2, "phi": "relu", "seed": 1})
    _, linear, den, _ = hand_attention(32, 2, 100.0, "relu", 1)
    zero = int((den == 0).sum())
    assert zero > 0  # with d = 2, a quarter of the queries have both entries <= 0
    assert f"{zero} of the 32 queries have φ(q) = 0" in at.info[0].value
    shown = spec_array(chart(at, "linear_output")["data"][0]["z"])
    assert np.isnan(shown).any(axis=1).sum() == zero
    np.testing.assert_allclose(shown, linear, rtol=1e-4, atol=1e-6)  # NaN where the page is blank


def test_measured_timings_when_asked(assert_clean):
    at = opened("linear_attention", {"dim": 8, "timing": 1})
    assert_clean(at)
    assert len(chart_keys(at)) == 6
    timings = chart(at, "timings")
    assert spec_array(timings["data"][0]["x"]).tolist() == [256, 512, 1024, 2048]
    for trace in timings["data"]:
        assert np.all(spec_array(trace["y"]) > 0)
    assert len(axis_titles(timings)) == 2
    assert_says_where_it_was_timed(at)


def test_positions_are_m_and_n_as_on_every_page():
    """The query sits at m and the keys at n (the pair index i and the sequence length N keep their own letters)."""
    formulas = " ".join(formula.value for formula in opened("linear_attention").get("latex"))
    assert r"\mathcal{R}_{n-m}" in formulas and r"\sum_{n=1}^{N}" in formulas, formulas
    assert not re.search(r"_\{?[ij]\b", formulas), formulas


def test_the_try_button_makes_the_denominator_fail_and_the_link_follows():
    at = open_page("linear_attention", {"base": 10000})
    assert metrics(at)["Rotated sums ≤ 0"] == "0 of 256"
    at.button(key="linear_attention.try.fail").click().run()
    _, _, den, den_rot = hand_attention(64, 8, 10.0, "elu", 2)
    assert metrics(at)["Rotated sums ≤ 0"] == f"{int((den_rot <= 0).sum())} of 64" and (den_rot <= 0).any()
    assert {k: at.query_params[k] for k in ("base", "dim", "seq", "seed")} == {
        "base": "10", "dim": "8", "seq": "64", "seed": "2"}
