"""The RoPE-versus-sinusoidal page's view against the table, logits, residuals and lengths written out
here with math.sin / math.cos and numpy."""

import math

import numpy as np
import pytest

from explorer.pure.views import rope_vs_sinusoidal as view
from explorer.pure.views.phrases import phrase
from explorer.pure.views.rope_vs_sinusoidal import COST_TOKENS, cost_per_token, norms, residuals, table, terms
from rope_viz.analysis import random_attention_inputs
from support.rope_reference import hand_pe, pair_rope


def page_inputs(seq, dim, seed, same):
    """The page's float32 tokens and projections, as float64 numpy."""
    return (t.double().numpy() for t in random_attention_inputs(seq, dim, same=same, seed=seed))


def hand_logits(seq, dim, base, seed, same, encoding, shift=0):
    """Logits of every query m and key n at positions moved by `shift`: (x + p) W_q . (x + p) W_k for
    the sinusoidal encoding, (R_m x W_q) . (R_n x W_k) for RoPE."""
    x, w_q, w_k = page_inputs(seq, dim, seed, same)
    if encoding == "sinusoidal":
        h = x + hand_pe(range(seq + shift), dim, base)[shift:]
        return (h @ w_q) @ (h @ w_k).T
    positions = np.arange(seq) + shift
    return pair_rope(x @ w_q, positions, base) @ pair_rope(x @ w_k, positions, base).T


def test_table_holds_sines_and_cosines_whose_dot_products_depend_on_the_offset():
    seq, dim, base = 10, 6, 100.0
    out = table(seq, dim, base, "cpu")
    expected = hand_pe(range(seq), dim, base)
    np.testing.assert_allclose(out.drawn, expected, atol=1e-6)
    assert out.rows.tolist() == list(range(seq)) and out.cols.tolist() == list(range(dim))
    profile = out.profile
    assert profile["offset"].tolist() == list(range(-(seq - 1), seq))
    by_offset = [sum(math.cos(r * base ** (-2 * t / dim)) for t in range(dim // 2)) for r in range(-(seq - 1), seq)]
    for name in ("mean", "min", "max"):  # PE(m).PE(n) = sum_t cos((m - n) θ_t): one value per diagonal
        np.testing.assert_allclose(profile[name], by_offset, atol=1e-5)
    assert out.deviation < 1e-5
    assert out.largest == pytest.approx(dim / 2, rel=1e-6)  # PE(m).PE(m) = sum_t sin^2 + cos^2


def test_a_long_table_is_drawn_one_row_in_s_with_every_column():
    out = table(600, 8, 10000.0, "cpu")  # rows: stride ceil(600 / 256) = 3; 8 columns stay
    assert out.rows.tolist() == list(range(0, 600, 3)) and out.cols.tolist() == list(range(8))
    np.testing.assert_allclose(out.drawn, hand_pe(range(600), 8, 10000.0)[::3], atol=1e-4)
    assert len(out.profile["offset"]) == 2 * 600 - 1


def test_the_four_terms_add_up_to_the_additive_logits_of_one_repeated_token():
    seq, dim, base, seed = 8, 4, 100.0, 2
    out = terms(seq, dim, base, seed, "cpu")
    assert out.kept.tolist() == list(range(seq))
    x, w_q, w_k = page_inputs(seq, dim, seed, True)
    p = hand_pe(range(seq), dim, base)
    expected = {"content_content": (x @ w_q) @ (x @ w_k).T, "content_position": (x @ w_q) @ (p @ w_k).T,
                "position_content": (p @ w_q) @ (x @ w_k).T, "position_position": (p @ w_q) @ (p @ w_k).T}
    for name, term in expected.items():
        np.testing.assert_allclose(out.drawn[name], term, rtol=1e-4, atol=1e-5)
        spread = max(np.ptp(np.diagonal(term, offset=r)) for r in range(-(seq - 1), seq))
        assert out.term_deviation[name] == pytest.approx(spread, rel=1e-3, abs=1e-5)
    assert out.term_deviation["content_content"] < 1e-5  # one token: the content term is constant
    logits = hand_logits(seq, dim, base, seed, True, "sinusoidal")
    np.testing.assert_allclose(sum(out.drawn.values()), logits, rtol=1e-4, atol=1e-4)
    assert out.largest == pytest.approx(np.abs(logits).max(), rel=1e-5)
    spread = max(np.ptp(np.diagonal(logits, offset=r)) for r in range(-(seq - 1), seq))
    assert out.logit_deviation["sinusoidal"] == pytest.approx(spread, rel=1e-3)
    assert out.logit_deviation["rope"] < 1e-5 * np.abs(hand_logits(seq, dim, base, seed, True, "rope")).max()
    assert out.relative_only == {"rope": True, "sinusoidal": False}


def test_the_shift_moves_sinusoidal_logits_and_leaves_rope_at_rounding():
    seq, dim, base, seed, shift = 8, 4, 100.0, 2, 3
    out = residuals(seq, dim, base, seed, shift, "cpu")
    assert out.kept.tolist() == list(range(seq))
    moved = np.abs(hand_logits(seq, dim, base, seed, False, "sinusoidal")
                   - hand_logits(seq, dim, base, seed, False, "sinusoidal", shift=shift))
    np.testing.assert_allclose(out.drawn["sinusoidal"], moved, rtol=1e-3, atol=1e-5)
    assert out.largest["sinusoidal"] == pytest.approx(moved.max(), rel=1e-4)
    assert out.largest["rope"] < 1e-5 * moved.max()
    still = residuals(seq, dim, base, seed, 0, "cpu")
    assert still.largest == {"rope": 0.0, "sinusoidal": 0.0}


def test_rope_keeps_the_length_of_a_token_and_the_table_changes_it():
    seq, dim, base, seed = 12, 6, 10.0, 7
    out = norms(seq, dim, base, seed, "cpu")
    token = next(page_inputs(1, dim, seed, True))[0]
    plain = np.linalg.norm(token)
    added = np.linalg.norm(token + hand_pe(range(seq), dim, base), axis=1)
    np.testing.assert_allclose(out.lengths["none"], np.full(seq, plain), rtol=1e-6)
    np.testing.assert_allclose(out.lengths["rope"], np.full(seq, plain), rtol=1e-5)
    np.testing.assert_allclose(out.lengths["sinusoidal"], added, rtol=1e-5)
    assert out.change["rope"] < 1e-5 * plain
    assert out.change["sinusoidal"] == pytest.approx(np.abs(added - plain).max(), rel=1e-4)


def test_cost_per_token_is_a_positive_time_for_each_encoding():
    cost = cost_per_token(8, 10000.0, "cpu")
    assert set(cost) == {"rope", "sinusoidal"}
    for ns in cost.values():  # nanoseconds per token: a call over COST_TOKENS tokens takes well under a second
        assert 0 < ns < 1e9 / COST_TOKENS


def test_what_the_page_writes():
    split = view.Terms(kept=np.arange(2),
                       drawn={name: np.full((2, 2), i, dtype=np.float32) for i, name in enumerate(view.TERMS)},
                       term_deviation=dict(zip(view.TERMS, (0.5, 1.25, 2.0, 0.0))),
                       logit_deviation={"rope": 0.0, "sinusoidal": 3.5},
                       relative_only={"rope": True, "sinusoidal": False}, largest=3.0)
    panels = view.term_panels(split)
    assert [name.args["formula"] for name, _ in panels] == [
        phrase(f"rope_vs_sinusoidal.formula_{t}") for t in view.TERMS
    ]
    assert [float(drawn[0, 0]) for _, drawn in panels] == [0.0, 1.0, 2.0, 3.0]
    assert [m.value for m in view.term_metrics(split)] == ["0.5", "1.25", "2", "0"]
    pe = view.EncodingTable(drawn=np.zeros((1, 1)), rows=np.arange(1), cols=np.arange(1), profile={},
                            deviation=1e-7, largest=32.0)
    assert [m.value for m in view.table_metrics(pe)] == ["1.00e-07", "32"]
    moved = view.Residuals(kept=np.arange(2), drawn={}, largest={"rope": 2e-6, "sinusoidal": 4.5})
    assert [(m.label.args["name"].key, m.value) for m in view.residual_metrics(moved)] == [
        ("rope_vs_sinusoidal.rope_panel", "2e-06"), ("rope_vs_sinusoidal.sinusoidal_panel", "4.5")]
    rows = view.compare_table(moved, split, view.Norms(lengths={}, change={"rope": 1e-7, "sinusoidal": 0.75}),
                              {"rope": 12.0, "sinusoidal": 3.0}, 1000, 64)
    assert rows["rope_vs_sinusoidal.col_measure"][0] == phrase("rope_vs_sinusoidal.row_shift", k=1000)
    assert rows["rope_vs_sinusoidal.col_rope"][:2] == ["2e-06", "0"] and rows["rope_vs_sinusoidal.col_sinusoidal"][
        :2
    ] == ["4.5", "3.5"]
    assert rows["rope_vs_sinusoidal.col_rope"][2] == phrase("common.yes")
    assert rows["rope_vs_sinusoidal.col_sinusoidal"][2] == phrase("common.no")
    assert rows["rope_vs_sinusoidal.col_rope"][4] == phrase("rope_vs_sinusoidal.ns", value=12.0)
    assert rows["rope_vs_sinusoidal.col_measure"][4].args == {"d": 64, "tokens": view.COST_TOKENS}
