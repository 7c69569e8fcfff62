"""The relative-attention page through AppTest: defaults, a score checked by hand, the thinned
2048-position view (opening in Chinese and at the extremes: test_every_page)."""

import math
import re

import numpy as np
import pytest
import torch

from rope_viz.analysis import random_projections, random_tokens
from support.apptest import chart, charts, metrics, opened, page_text, spec_array, url_values

KNOBS = ("seq", "dim", "base", "content", "shift", "causal", "seed", "m", "n")


def metric_numbers(at) -> dict[str, float]:
    return {label: float(value) for label, value in metrics(at).items()}


def hand_score(q, k, m, n, dim, base):
    """(R_m q) . (R_n k) with every pair turned by a math.cos / math.sin loop, in float64."""
    total = 0.0
    for i in range(dim // 2):
        theta = base ** (-2 * i / dim)
        (ca, sa), (cb, sb) = (math.cos(m * theta), math.sin(m * theta)), (math.cos(n * theta), math.sin(n * theta))
        q0, q1 = q[2 * i] * ca - q[2 * i + 1] * sa, q[2 * i] * sa + q[2 * i + 1] * ca
        k0, k1 = k[2 * i] * cb - k[2 * i + 1] * sb, k[2 * i] * sb + k[2 * i + 1] * cb
        total += q0 * k0 + q1 * k1
    return total


def test_defaults():
    at = opened("relative_attention")
    assert [s["data"][0]["type"] for s in charts(at).values()] == ["heatmap", "scatter", "heatmap", "heatmap"]
    assert spec_array(chart(at, "scores")["data"][0]["z"]).shape == (128, 128)
    assert len(at.latex) >= 2
    values = metric_numbers(at)
    largest = values["Largest |score|, for scale"]
    # the same token everywhere: Toeplitz up to float32 rounding; the shift leaves only rounding
    assert values["Toeplitz deviation (max − min on one diagonal)"] < 1e-5 * largest
    assert values["Largest residual"] < 1e-5 * largest
    assert url_values(at, KNOBS) == {
        "seq": "128", "dim": "64", "base": "10000", "content": "same", "shift": "100", "causal": "0", "seed": "0",
        "m": "96", "n": "32"}


def test_scores_match_a_hand_dot_product_and_the_profile_their_diagonals():
    seq, dim, base, seed = 16, 8, 100.0, 3
    at = opened(
        "relative_attention", {"seq": seq, "dim": dim, "base": base, "content": "random", "seed": seed, "shift": 5}
    )
    scores, profile = chart(at, "scores"), chart(at, "profile")
    z = spec_array(scores["data"][0]["z"])
    assert list(spec_array(scores["data"][0]["x"])) == list(range(seq))
    x = random_tokens(seq, dim, seed=seed, dtype=torch.float64)
    w_q, w_k = random_projections(dim, dim, seed=seed, dtype=torch.float64)
    for m, n in [(0, 0), (5, 2), (2, 5), (15, 0), (9, 9)]:
        q = [sum(x[m, r].item() * w_q[r, c].item() for r in range(dim)) for c in range(dim)]
        k = [sum(x[n, r].item() * w_k[r, c].item() for r in range(dim)) for c in range(dim)]
        assert z[m, n] == pytest.approx(hand_score(q, k, m, n, dim, base), rel=1e-4, abs=1e-5)
    # the band chart: offsets -15..15, the mean of each diagonal m - n = r, min and max around it
    high, low, mean = (spec_array(profile["data"][i]["y"]) for i in range(3))
    offsets = spec_array(profile["data"][2]["x"])
    assert list(offsets) == list(range(-(seq - 1), seq))
    for r in (-15, -3, 0, 7):
        diagonal = [z[m, m - r] for m in range(seq) if 0 <= m - r < seq]
        assert mean[r + seq - 1] == pytest.approx(np.mean(diagonal), rel=1e-4, abs=1e-5)
        assert low[r + seq - 1] == pytest.approx(min(diagonal)) and high[r + seq - 1] == pytest.approx(max(diagonal))
    # random content: far from Toeplitz, yet the shift by 5 leaves only rounding
    values = metric_numbers(at)
    assert values["Toeplitz deviation (max − min on one diagonal)"] > 0.1
    assert values["Largest residual"] < 1e-5 * values["Largest |score|, for scale"]


def test_the_chosen_cell_is_read_by_hand_and_marked_on_both_charts():
    seq, dim, base, seed, m, n = 16, 8, 100.0, 3, 11, 4
    at = opened("relative_attention", {"seq": seq, "dim": dim, "base": base, "content": "random", "seed": seed,
                                       "m": m, "n": n})
    x = random_tokens(seq, dim, seed=seed, dtype=torch.float64)
    w_q, w_k = random_projections(dim, dim, seed=seed, dtype=torch.float64)
    q = [sum(x[m, r].item() * w_q[r, c].item() for r in range(dim)) for c in range(dim)]
    k = [sum(x[n, r].item() * w_k[r, c].item() for r in range(dim)) for c in range(dim)]
    expected = hand_score(q, k, m, n, dim, base)
    shown = re.search(r"A\(11, 4\) = (-?[0-9.e+-]+)\. Its diagonal, offset m − n = 7, holds 9 cells", page_text(at))
    assert shown and float(shown.group(1)) == pytest.approx(expected, rel=1e-3), page_text(at)
    scores, profile = chart(at, "scores"), chart(at, "profile")
    ring = [trace for trace in scores["data"] if (trace.get("marker") or {}).get("symbol") == "square-open"]
    assert [(list(spec_array(t["x"])), list(spec_array(t["y"]))) for t in ring] == [([n], [m])]
    # the dotted diagonal runs from row 7 (key 0) to row 15 (key 8): every cell with m - n = 7
    diagonal = [t for t in scores["data"] if (t.get("line") or {}).get("dash") == "dot"]
    assert [(list(spec_array(t["x"])), list(spec_array(t["y"]))) for t in diagonal] == [([0, 8], [7, 15])]
    # every cell can be picked (16 positions, fewer than the pick layer's limit) and carries its score
    pick = next(t for t in scores["data"] if t.get("meta") == "pick layer")
    z = spec_array(scores["data"][0]["z"])
    cells = [(int(a), int(b)) for a, b in zip(spec_array(pick["y"]), spec_array(pick["x"]))]
    assert sorted(cells) == [(a, b) for a in range(seq) for b in range(seq)]
    assert spec_array(pick["customdata"]) == pytest.approx(np.array([z[a, b] for a, b in cells]))
    marker = [t for t in profile["data"] if (t.get("marker") or {}).get("symbol") == "square-open"]
    assert [list(spec_array(marker[0]["x"])), marker[0]["y"][0]] == [[m - n], pytest.approx(expected, rel=1e-3)]
    assert [shape["x0"] for shape in profile["layout"]["shapes"]] == [m - n]
    assert url_values(at, ("m", "n")) == {"m": "11", "n": "4"}


def test_the_chosen_cell_stays_inside_a_shorter_sequence():
    at = opened("relative_attention", {"seq": 8, "m": 100, "n": 3})
    assert url_values(at, ("m", "n")) == {"m": "7", "n": "3"}
    assert "A(7, 3) = " in page_text(at)


def test_causal_weights_are_rows_of_a_softmax():
    at = opened("relative_attention", {"seq": 24, "dim": 16, "causal": 1})
    weights = spec_array(chart(at, "weights")["data"][0]["z"])
    assert np.allclose(weights.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(weights[np.triu_indices(24, k=1)] == 0.0)
    assert weights[0, 0] == pytest.approx(1.0)
