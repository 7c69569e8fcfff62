"""The relative-attention page's view against scores, diagonals and softmax weights written out here
with numpy (pairs turned with np.cos / np.sin)."""

import numpy as np
import pytest

from explorer.pure.views import relative_attention as view
from explorer.pure.views.phrases import phrase
from explorer.pure.views.relative_attention import residual, scores, weights
from rope_viz.analysis import random_attention_inputs
from support.rope_reference import pair_rope


def hand_scores(seq, dim, base, same, seed, shift=0):
    """(R_m x_m W_q) . (R_n x_n W_k) for every m, n (positions moved by `shift`), in float64 from the
    page's float32 inputs."""
    x, w_q, w_k = (t.double().numpy() for t in random_attention_inputs(seq, dim, same=same, seed=seed))
    positions = np.arange(seq) + shift
    return pair_rope(x @ w_q, positions, base) @ pair_rope(x @ w_k, positions, base).T


def diagonals(matrix):
    """{offset m - n: the entries on that diagonal}."""
    n = len(matrix)
    return {r: np.array([matrix[m, m - r] for m in range(n) if 0 <= m - r < n]) for r in range(-(n - 1), n)}


def test_scores_are_rotated_dot_products_profiled_along_their_diagonals():
    seq, dim, base = 12, 6, 100.0
    hand = hand_scores(seq, dim, base, False, 4)
    out = scores(seq, dim, base, False, 4, "cpu")
    assert out.drawn.dtype == np.float32
    np.testing.assert_allclose(out.drawn, hand, rtol=1e-4, atol=1e-5)
    assert out.kept.tolist() == list(range(seq))
    profile, diag = out.profile, diagonals(hand)
    assert profile["offset"].tolist() == list(range(-(seq - 1), seq))
    np.testing.assert_allclose(profile["mean"], [diag[r].mean() for r in range(-(seq - 1), seq)], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(profile["min"], [diag[r].min() for r in range(-(seq - 1), seq)], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(profile["max"], [diag[r].max() for r in range(-(seq - 1), seq)], rtol=1e-4, atol=1e-5)
    spread = max(np.ptp(d) for d in diag.values())
    assert spread > 0.1  # random content: the diagonals are not constant
    assert out.deviation == pytest.approx(spread, rel=1e-4)
    assert out.largest == pytest.approx(np.abs(hand).max(), rel=1e-5)


def test_one_token_everywhere_gives_constant_diagonals():
    hand = hand_scores(40, 8, 10000.0, True, 1)
    assert max(np.ptp(d) for d in diagonals(hand).values()) < 1e-9 * np.abs(hand).max()  # exact math: Toeplitz
    out = scores(40, 8, 10000.0, True, 1, "cpu")
    assert out.deviation < 1e-5 * out.largest  # float32 rounding only
    assert out.largest == pytest.approx(np.abs(hand).max(), rel=1e-5)


def test_long_sequences_are_drawn_one_in_s_while_statistics_use_every_score():
    seq, dim, base = 600, 4, 50.0  # stride ceil(600 / 256) = 3 on both axes
    hand = hand_scores(seq, dim, base, False, 0)
    out = scores(seq, dim, base, False, 0, "cpu")
    assert out.kept.tolist() == list(range(0, seq, 3))
    np.testing.assert_allclose(out.drawn, hand[::3, ::3], rtol=1e-4, atol=1e-4)
    assert len(out.profile["offset"]) == 2 * seq - 1
    assert out.largest == pytest.approx(np.abs(hand).max(), rel=1e-5)


def test_a_shift_leaves_only_rounding_and_no_shift_leaves_nothing():
    seq, dim, base, seed = 20, 8, 100.0, 2
    moved = hand_scores(seq, dim, base, False, seed, shift=37)
    before = hand_scores(seq, dim, base, False, seed)
    assert np.abs(moved - before).max() < 1e-9 * np.abs(before).max()  # exact math: nothing changes
    out = residual(seq, dim, base, False, seed, 37, "cpu")
    assert out.drawn.shape == (seq, seq) and out.kept.tolist() == list(range(seq))
    assert 0 <= out.largest < 1e-5 * np.abs(before).max()
    assert out.largest == pytest.approx(float(out.drawn.max()))
    still = residual(seq, dim, base, False, seed, 0, "cpu")
    assert still.largest == 0.0 and not still.drawn.any()


@pytest.mark.parametrize("causal", [False, True])
def test_weights_are_a_scaled_softmax_of_each_row(causal):
    seq, dim, base, seed = 24, 16, 10000.0, 5
    logits = hand_scores(seq, dim, base, False, seed) / np.sqrt(dim)
    if causal:
        logits[np.triu_indices(seq, k=1)] = -np.inf
    hand = np.exp(logits - logits.max(axis=1, keepdims=True))
    hand /= hand.sum(axis=1, keepdims=True)
    out = weights(seq, dim, base, False, seed, causal, "cpu")
    np.testing.assert_allclose(out.drawn, hand, rtol=1e-4, atol=1e-6)
    assert out.top == pytest.approx(np.quantile(hand, 0.995), rel=1e-4)
    if causal:  # the first query sees only itself: its weight 1 lies above the top of the colour scale
        assert hand[0, 0] == 1.0 and out.top < 1.0


def test_what_the_page_writes():
    profile = {"min": np.array([-1.0, -2.0, -3.0, -4.0, -5.0]), "max": np.array([1.0, 2.0, 3.0, 4.0, 5.0])}
    scored = view.ScoreMap(drawn=np.zeros((3, 3), np.float32), kept=np.arange(3), profile=profile, deviation=0.00012345,
                           largest=12.5)
    readout, remark = view.cell_reading(scored, 3, 2, 0, 0.5, same=True)  # offset 2: index 2 + 3 - 1 = 4
    assert readout == phrase(
        "relative_attention.cell_readout", m=2, n=0, score=0.5, offset=2, count=1, low=-5.0, high=5.0
    )
    assert remark == phrase("relative_attention.cell_same")
    assert view.cell_reading(scored, 3, 0, 2, 0.5, same=False)[0].args["low"] == -1.0  # offset -2: index 0
    assert view.cell_reading(scored, 3, 0, 2, 0.5, same=False)[1] == phrase("relative_attention.cell_random")
    assert view.thinned(np.arange(0, 512, 4), 2048) == phrase("relative_attention.thinned", s=4, s2=8, n=2048)
    assert view.thinned(np.arange(64), 64) is None
    assert (view.content_text(True), view.content_text(False)) == (phrase("relative_attention.same_text"),
                                                                   phrase("relative_attention.random_text"))
    assert (view.weights_title(True), view.weights_title(False)) == (phrase("relative_attention.weights_title_causal"),
                                                                     phrase("relative_attention.weights_title"))
    assert [m.value for m in view.score_metrics(scored)] == ["0.000123", "12.5"]
    assert [m.value for m in view.residual_metrics(view.Residual(drawn=np.zeros((3, 3), np.float32), kept=np.arange(3),
                                                                   largest=2.5e-6), scored)] == ["2.50e-06", "2.0e-07"]
