"""The RoPE-versus-sinusoidal page through AppTest: defaults, the table, terms, residuals and
lengths checked against loops written here (opening in Chinese and at the extremes: test_every_page)."""

import math

import pytest
import torch

from rope_viz.analysis import random_projections, random_tokens
from support.apptest import chart, charts, opened, spec_array, url_values
from support.rope_reference import hand_pe

SMALL = {"seq": 8, "dim": 4, "base": 100, "seed": 2, "shift": 3}
ROWS = ["shift", "deviation", "relative", "norm", "cost"]
KNOBS = ("seq", "dim", "base", "shift", "seed")


def table_cells(at) -> dict[str, tuple[str, str]]:
    """{row: (RoPE cell, sinusoidal cell)} of the comparison table."""
    frame = at.table[0].value
    assert list(frame.columns) == ["Measured", "RoPE (turn q and k)", "Sinusoidal (add pₘ)"]
    assert len(frame) == len(ROWS)
    return {row: (frame.iloc[i, 1], frame.iloc[i, 2]) for i, row in enumerate(ROWS)}


def hand_logit(xm, xn, m, n, w_q, w_k, dim, base) -> float:
    """(x_m + p_m) W_q . (x_n + p_n) W_k with Python loops in float64."""
    hm = [a + b for a, b in zip(xm, hand_pe([m], dim, base)[0].tolist())]
    hn = [a + b for a, b in zip(xn, hand_pe([n], dim, base)[0].tolist())]
    q = [sum(hm[r] * w_q[r][c] for r in range(dim)) for c in range(dim)]
    k = [sum(hn[r] * w_k[r][c] for r in range(dim)) for c in range(dim)]
    return sum(a * b for a, b in zip(q, k))


def test_defaults():
    at = opened("rope_vs_sinusoidal")
    # table, band, 4 terms, 2 residuals, 3 lengths
    assert {key: len(s["data"]) for key, s in charts(at).items()} == {
        "table": 1, "pe_dot": 3, "terms": 4, "shift": 2, "norms": 3}
    assert spec_array(chart(at, "table")["data"][0]["z"]).shape == (64, 64)
    assert len(at.latex) >= 3
    cells = table_cells(at)
    assert float(cells["shift"][0]) < 1e-3 < 1.0 < float(cells["shift"][1])
    assert cells["relative"] == ("yes", "no")
    assert float(cells["norm"][0]) < 1e-4 < 0.5 < float(cells["norm"][1])
    assert all(cell.endswith(" ns") for cell in cells["cost"])
    assert url_values(at, KNOBS) == {"seq": "64", "dim": "64", "base": "10000", "shift": "100", "seed": "0"}


def test_small_view_against_hand_loops():
    seq, dim, base, seed, shift = (SMALL[k] for k in ("seq", "dim", "base", "seed", "shift"))
    at = opened("rope_vs_sinusoidal", SMALL)
    # the encoding table, cell by cell
    table = spec_array(chart(at, "table")["data"][0]["z"])
    for m in range(seq):
        assert table[m] == pytest.approx(hand_pe([m], dim, base)[0].tolist(), abs=1e-6)
    # PE(m).PE(n) at offset r is sum_t cos(r θ_t)
    mean = spec_array(chart(at, "pe_dot")["data"][2]["y"])
    for r in range(-(seq - 1), seq):
        expected = sum(math.cos(r * base ** (-2 * t / dim)) for t in range(dim // 2))
        assert mean[r + seq - 1] == pytest.approx(expected, abs=1e-5)
    # the four panels add up to the additive logits of one repeated token
    x = random_tokens(seq, dim, same=True, seed=seed, dtype=torch.float64).tolist()
    w_q, w_k = (w.tolist() for w in random_projections(dim, dim, seed=seed, dtype=torch.float64))
    total = sum(spec_array(trace["z"]) for trace in chart(at, "terms")["data"])
    for m, n in [(0, 0), (3, 1), (1, 6), (7, 7)]:
        assert total[m, n] == pytest.approx(hand_logit(x[m], x[n], m, n, w_q, w_k, dim, base), rel=1e-4, abs=1e-4)
    # the shift test on random tokens: the sinusoidal residual by hand, RoPE's at rounding level
    x = random_tokens(seq, dim, seed=seed, dtype=torch.float64).tolist()
    residual = max(abs(hand_logit(x[m], x[n], m, n, w_q, w_k, dim, base)
                       - hand_logit(x[m], x[n], m + shift, n + shift, w_q, w_k, dim, base))
                   for m in range(seq) for n in range(seq))
    cells = table_cells(at)
    assert float(cells["shift"][1]) == pytest.approx(residual, rel=2e-3)
    assert spec_array(chart(at, "shift")["data"][1]["z"]).max() == pytest.approx(residual, rel=1e-4)
    assert float(cells["shift"][0]) < 1e-5 * residual
    # lengths: |x + p_m| of the repeated token by hand, |R_m x| = |x|
    token = random_tokens(1, dim, seed=seed, dtype=torch.float64)[0].tolist()
    lengths = {trace["name"]: spec_array(trace["y"]) for trace in chart(at, "norms")["data"]}
    for m in range(seq):
        assert lengths["|x + p<sub>m</sub>| (sinusoidal)"][m] == pytest.approx(
            math.sqrt(sum((a + b) ** 2 for a, b in zip(token, hand_pe([m], dim, base)[0].tolist()))), rel=1e-5)
        assert lengths["|R<sub>m</sub> x| (RoPE)"][m] == pytest.approx(math.sqrt(sum(a * a for a in token)), rel=1e-5)
