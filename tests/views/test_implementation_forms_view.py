"""explorer.pure.views.implementation_forms against hand arithmetic with math.cos/sin, literal values and the float64
loop reference in rope_reference.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from explorer.pure.views import implementation_forms as worked
from rope_viz.analysis import random_tokens
from support.rope_reference import loop_rope, pair_rope, seeded_randn


def test_worked_example_literal_values():
    r = worked.worked_rotation(1.0, 2.0, 0.5, 1)
    assert r.angle == 0.5
    assert r.cos == pytest.approx(0.8775825618903728, abs=1e-15)
    assert r.sin == pytest.approx(0.479425538604203, abs=1e-15)
    assert round(r.result[0], 5) == -0.08127
    assert round(r.result[1], 5) == 2.23459
    assert r.norm_before == pytest.approx(math.sqrt(5), abs=1e-15)
    assert r.norm_after == pytest.approx(math.sqrt(5), abs=1e-14)


@pytest.mark.parametrize("q1,q2,theta,m", [(1, 2, 0.5, 1), (-3.5, 0.25, 2.9, 7), (0, 0, 1, 3), (4, -5, -1.3, 0)])
def test_every_step_by_hand(q1, q2, theta, m):
    r = worked.worked_rotation(q1, q2, theta, m)
    a = m * theta
    c, s = math.cos(a), math.sin(a)
    assert r.angle == pytest.approx(a, abs=1e-15)
    assert (r.cos, r.sin) == pytest.approx((c, s), abs=1e-15)
    assert r.matrix[0] == pytest.approx((c, -s), abs=1e-15)
    assert r.matrix[1] == pytest.approx((s, c), abs=1e-15)
    assert r.terms[0] == pytest.approx((q1 * c, -q2 * s), abs=1e-14)
    assert r.terms[1] == pytest.approx((q1 * s, q2 * c), abs=1e-14)
    assert r.result == pytest.approx((q1 * c - q2 * s, q1 * s + q2 * c), abs=1e-14)
    assert r.norm_before == pytest.approx(math.hypot(q1, q2), abs=1e-14)
    assert r.norm_after == pytest.approx(r.norm_before, abs=1e-13)


def test_the_printed_note_value_breaks_the_norm():
    check = worked.check_printed_result()
    assert check.printed == (-0.0812, 2.2366)
    assert check.printed_norm == pytest.approx(math.sqrt(0.0812 ** 2 + 2.2366 ** 2), abs=1e-12)
    assert round(check.printed_norm, 4) == 2.2381
    assert check.true_norm == pytest.approx(math.sqrt(5), abs=1e-15)
    # the note's own table: cos 0.5 = 0.8776, sin 0.5 = 0.4794
    assert check.with_rounded_table == pytest.approx((0.8776 - 2 * 0.4794, 0.4794 + 2 * 0.8776), abs=1e-9)
    assert check.with_rounded_table[1] == pytest.approx(2.2346, abs=1e-9)


@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-12), (torch.float32, 1e-5)])
def test_methods_agree_to_rounding(dtype, tol):
    x = seeded_randn(24, 16, seed=3, dtype=dtype)
    gaps = worked.method_gaps(x)
    assert set(gaps) == {("matrix", "pairs"), ("matrix", "complex"), ("matrix", "fast"), ("pairs", "complex"),
                         ("pairs", "fast"), ("complex", "fast")}
    assert max(gaps.values()) < tol
    reference = loop_rope(x)
    assert float((reference - x.double()).abs().max()) > 0.1  # rotation did something to compare


def test_method_gaps_see_a_difference_when_there_is_one():
    x = seeded_randn(8, 4, seed=1)
    gaps = worked.method_gaps(x, ("pairs", "fast"), base=10.0)
    assert gaps[("pairs", "fast")] < 1e-12
    assert len(gaps) == 1


def test_time_methods_returns_positive_seconds():
    x = seeded_randn(8, 8, dtype=torch.float32)
    seconds = worked.time_methods(x, ("pairs", "fast"), repeat=2, min_time=0.0)
    assert set(seconds) == {"pairs", "fast"}
    assert all(0 < s < 5 for s in seconds.values())


def test_coordinate_pairs_literal():
    assert worked.coordinate_pairs(8, "interleaved").tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert worked.coordinate_pairs(8, "half").tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert worked.coordinate_pairs(2, "half").tolist() == [0, 0]


@pytest.mark.parametrize("dim", [4, 8, 32])
def test_layouts_differ_until_the_weights_are_permuted(dim):
    x = seeded_randn(12, dim, seed=1)
    w_q, w_k = seeded_randn(dim, dim, seed=2) / dim ** 0.5, seeded_randn(dim, dim, seed=3) / dim ** 0.5
    gaps = worked.layout_gaps(x, w_q, w_k)
    assert gaps.rotated > 1e-2
    assert gaps.scores_same_weights > 1e-2
    assert gaps.scores_permuted_weights < 1e-10
    # independent: the loop reference with columns permuted by hand gives the interleaved scores
    perm = [2 * i for i in range(dim // 2)] + [2 * i + 1 for i in range(dim // 2)]
    q, k = x @ w_q, x @ w_k
    scores = loop_rope(q) @ loop_rope(k).T
    half = loop_rope(q[:, perm], layout="half") @ loop_rope(k[:, perm], layout="half").T
    assert float((scores - half).abs().max()) < 1e-10
    same = loop_rope(q, layout="half") @ loop_rope(k, layout="half").T
    assert gaps.scores_same_weights == pytest.approx(float((scores - same).abs().max()), abs=1e-10)


@pytest.mark.parametrize("rotary_dim", [2, 6, 16])
def test_rotation_change_stops_at_rotary_dim(rotary_dim):
    x = seeded_randn(16, seed=4)
    change = worked.rotation_change(x, 37, rotary_dim, base=100.0)
    expected = (loop_rope(x.unsqueeze(0), [37.0], base=100.0, rotary_dim=rotary_dim)[0] - x).abs()
    assert torch.allclose(change, expected, atol=1e-12)
    assert torch.all(change[rotary_dim:] == 0)
    assert float(change[:rotary_dim].max()) > 1e-3


def test_value_rotation_breaks_shift_invariance():
    q, k, v = (seeded_randn(10, 8, seed=s) for s in (1, 2, 3))
    gaps = worked.value_rotation_gaps(q, k, v, 25)
    assert set(gaps) == {"plain", "rotated_values", "rotated_back"}
    assert float(gaps["plain"].max()) < 1e-10
    assert float(gaps["rotated_back"].max()) < 1e-10
    assert float(gaps["rotated_values"].min()) > 1e-3
    # the first query sees only itself: its output is R_m v_0, so the gap is |R_25 v_0 - R_0 v_0|
    first = (loop_rope(v[:1], [25.0]) - v[:1]).abs().max()
    assert float(gaps["rotated_values"][0]) == pytest.approx(float(first), abs=1e-12)


def test_zero_shift_moves_nothing():
    q, k, v = (seeded_randn(6, 4, seed=s) for s in (7, 8, 9))
    gaps = worked.value_rotation_gaps(q, k, v, 0)
    assert all(float(g.max()) == 0 for g in gaps.values())


# The functions the page caches, from its knob values; its tokens are random_tokens(seq, dim, seed=seed).


def test_pair_owners_literal():
    owners = worked.pair_owners(6)
    assert owners.dtype == np.float32
    assert owners.tolist() == [[0, 0, 1, 1, 2, 2], [0, 1, 2, 0, 1, 2]]  # rows in the order of LAYOUTS
    assert worked.LAYOUTS == ("interleaved", "half")


@pytest.mark.parametrize("dim, rotary_dim, position", [(16, 6, 7), (8, 8, 100), (4, 2, 0)])
def test_partial_change_of_the_pages_token(dim, rotary_dim, position):
    x = random_tokens(1, dim, seed=3)[0].double().tolist()
    change = worked.partial_change(dim, 3, position, rotary_dim)
    assert change.dtype == np.float32 and change.shape == (dim,)
    expected = [abs(a - b) for a, b in zip(pair_rope(np.array([x]), [position], rotary_dim=rotary_dim)[0], x)]
    np.testing.assert_allclose(change, expected, atol=2e-6)
    assert np.all(change[rotary_dim:] == 0)


def test_value_shift_gaps_of_the_pages_tokens():
    gaps = worked.value_shift_gaps(12, 8, 4, 30, "cpu")
    assert set(gaps) == set(worked.VALUE_VARIANTS)
    assert all(g.dtype == np.float32 and g.shape == (12,) for g in gaps.values())
    assert gaps["plain"].max() < 1e-5 and gaps["rotated_back"].max() < 1e-5
    # v is drawn with seed + 2; query 0 sees only key 0, so its output moves by |R_30 v_0 - v_0|
    v0 = random_tokens(12, 8, seed=6)[0].double().tolist()
    moved = max(abs(a - b) for a, b in zip(pair_rope(np.array([v0]), [30])[0], v0))
    assert gaps["rotated_values"][0] == pytest.approx(moved, rel=1e-4)


def test_batch_method_gaps_and_the_budget(monkeypatch):
    gaps = worked.batch_method_gaps(16, 8, 0, "cpu")
    assert len(gaps) == 6 and max(gaps.values()) < 1e-5
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "1000")  # the matrix method needs 16 x 8 x 8 = 1,024
    with pytest.raises(ValueError):
        worked.batch_method_gaps(16, 8, 0, "cpu")
    assert set(worked.batch_method_gaps(16, 8, 0, "cpu", ("pairs", "fast"))) == {("pairs", "fast")}


def test_batch_method_microseconds_in_the_order_asked(monkeypatch):
    seen = []

    def fake(x, methods):
        seen.append((tuple(x.shape), methods))
        return {"fast": 2e-6, "pairs": 5e-6}

    monkeypatch.setattr(worked, "time_methods", fake)
    micro = worked.batch_method_microseconds(24, 6, "cpu", ("pairs", "fast"))
    assert seen == [((24, 6), ("pairs", "fast"))]
    assert micro.dtype == np.float32 and micro.tolist() == pytest.approx([5.0, 2.0], rel=1e-6)


def test_batch_layout_gaps_match_only_with_permuted_weights():
    gaps = worked.batch_layout_gaps(16, 8, 1, "cpu")
    assert gaps.rotated > 1e-2 and gaps.scores_same_weights > 1e-2
    assert gaps.scores_permuted_weights < 1e-4


# --- what the page writes -------------------------------------------------------------------------------------
def test_worked_latex_spells_out_every_product():
    r = worked.worked_rotation(1.0, 2.0, 0.5, 1)
    latex = worked.worked_latex(r, 0.5, 1, r"\text{rad}")
    assert latex.startswith(r"\begin{aligned}") and latex.endswith(r"\end{aligned}")
    assert r"m\theta &= 1 \times 0.5 = 0.50000\ \text{rad}" in latex
    # negative entries in brackets, the sums to the result that a rotation must give
    assert r"0.87758 \times 1 + (-0.47943) \times 2" in latex
    assert r"&= 0.87758 + (-0.95885) = -0.08127" in latex
    assert r"|q| &= 2.23607 \ \longrightarrow\ |q'| = 2.23607" in latex
    assert [m.value for m in worked.worked_metrics(r)] == ["-0.08127", "2.23459", "2.23607", "2.23607"]
    assert worked.printed_note().args["printed_norm"] == pytest.approx(math.hypot(-0.0812, 2.2366))


def test_affordable_method_gaps_leave_the_matrix_out_over_the_budget(monkeypatch):
    every = worked.affordable_method_gaps(16, 8, 0, "cpu")
    assert every.methods == worked.METHODS and not every.dropped and len(every.gaps) == 6
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "1000")  # the matrix method needs 16 x 8 x 8 = 1,024
    fewer = worked.affordable_method_gaps(16, 8, 0, "cpu")
    assert fewer.dropped and "matrix" not in fewer.methods and len(fewer.methods) == 3
    assert all("matrix" not in pair for pair in fewer.gaps)


def test_tables_metrics_and_ranges():
    cost = worked.cost_table(("pairs", "fast"), np.array([5.0, 2.0], dtype=np.float32))
    assert cost["implementation_forms.col_time"] == ["5.0", "2.0"]
    assert cost["implementation_forms.col_relative"] == ["2.5×", "1.0×"]
    assert [p.key for p in cost["implementation_forms.col_method"]] == ["implementation_forms.method_pairs",
                                                                  "implementation_forms.method_fast"]
    gaps = worked.gap_table({("pairs", "fast"): 3e-7})
    assert gaps["implementation_forms.col_gap"] == ["3.0e-07"]
    assert gaps["implementation_forms.col_pair"][0].args["b"].key == "implementation_forms.method_fast"
    assert [m.value for m in worked.layout_metrics(
        worked.LayoutGaps(rotated=0.5, scores_same_weights=0.25, scores_permuted_weights=1e-7))] == [
        "5.00e-01", "2.50e-01", "1.00e-07"]
    assert worked.rotary_dim_range(64) == {"hi": 64, "default": 32}
    assert worked.rotary_dim_range(6) == {"hi": 6, "default": 2}  # a quarter, rounded down to a pair
    assert worked.rotary_dim_range(2)["default"] == 2


def test_partial_split_and_value_lines():
    split = worked.partial_split(8, 3, 5, 6)
    change = worked.partial_change(8, 3, 5, 6)
    assert split.rotated.coordinates.tolist() == [0, 1, 2, 3, 4, 5] and split.passed.coordinates.tolist() == [6, 7]
    np.testing.assert_array_equal(np.concatenate([split.rotated.change, split.passed.change]), change)
    lines = worked.value_lines(12, 8, 4, 30, "cpu")
    assert lines.queries.tolist() == list(range(12))
    assert [m.value for m in lines.metrics] == [f"{float(lines.gaps[n].max()):.2e}"
                                                   for n in worked.VALUE_VARIANTS]
    owners = worked.pair_map(6)
    assert owners.coordinates.tolist() == list(range(6)) and owners.owners.shape == (2, 6)


def test_gap_sentence_says_exact_agreement_when_there_is_no_difference():
    assert worked.gap_sentence(0.0).key == "implementation_forms.gap_none"
    rounded = worked.gap_sentence(2.4e-7)
    assert rounded.key == "implementation_forms.gap_rounding" and rounded.args == {"gap": 2.4e-7}
