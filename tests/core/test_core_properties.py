"""Hypothesis properties over dims, bases, positions, dtypes, layouts and methods.

Every example is checked against the float64 per-pair loop of rope_reference (and Meta's complex
multiply / Hugging Face's rotate_half), plus the invariants a rotation must keep: norms, the
relative property and R_j R_i^T = R_{j-i}.
"""

from __future__ import annotations

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from support.rope_reference import (hand_layout_permutation, hf_rope, llama_rope, loop_rope, loop_rotation_matrix,
                                    seeded_randn)
from rope_viz import apply_rope, rotation_matrix

SETTINGS = settings(max_examples=60, deadline=None)

dims = st.integers(1, 32).map(lambda h: 2 * h)
bases = st.floats(math.log(2.0), math.log(1e6)).map(math.exp)
int_positions = st.integers(-2000, 2000).map(float)
float_positions = st.floats(-500.0, 500.0, allow_nan=False, allow_infinity=False)
position = st.one_of(int_positions, float_positions)
dtypes = st.sampled_from([torch.float32, torch.float64])
layouts = st.sampled_from(["interleaved", "half"])
methods = st.sampled_from(["matrix", "pairs", "complex", "fast"])
batch_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple)
seeds = st.integers(0, 2 ** 31 - 1)


def _atol(dtype, x):
    scale = max(1.0, float(x.abs().max())) if x.numel() else 1.0
    return (1e-12 if dtype == torch.float64 else 1e-5) * scale


@st.composite
def rope_cases(draw):
    dim = draw(dims)
    seq = draw(st.integers(1, 6))
    return dict(
        dim=dim,
        seq=seq,
        batch=draw(batch_shapes),
        base=draw(bases),
        positions=draw(st.lists(position, min_size=seq, max_size=seq)),
        dtype=draw(dtypes),
        layout=draw(layouts),
        method=draw(methods),
        rotary_dim=draw(st.one_of(st.none(), st.integers(1, dim // 2).map(lambda h: 2 * h))),
        seed=draw(seeds),
    )


@SETTINGS
@given(rope_cases())
def test_matches_reference(case):
    x = seeded_randn(*case["batch"], case["seq"], case["dim"], seed=case["seed"], dtype=case["dtype"])
    out = apply_rope(x, case["positions"], base=case["base"], layout=case["layout"], method=case["method"],
                     rotary_dim=case["rotary_dim"])
    assert out.dtype == case["dtype"] and out.shape == x.shape
    ref = loop_rope(x, case["positions"], case["base"], case["layout"], rotary_dim=case["rotary_dim"])
    torch.testing.assert_close(out.double(), ref, rtol=0, atol=_atol(case["dtype"], x))
    r = case["rotary_dim"] or case["dim"]
    assert torch.equal(out[..., r:], x[..., r:])
    head = x[..., :r]
    other = (llama_rope if case["layout"] == "interleaved" else hf_rope)(head, case["positions"], case["base"])
    torch.testing.assert_close(out[..., :r].double(), other, rtol=0, atol=_atol(case["dtype"], x))


@SETTINGS
@given(rope_cases())
def test_preserves_norms(case):
    x = seeded_randn(*case["batch"], case["seq"], case["dim"], seed=case["seed"], dtype=case["dtype"])
    out = apply_rope(x, case["positions"], base=case["base"], layout=case["layout"], method=case["method"],
                     rotary_dim=case["rotary_dim"])
    torch.testing.assert_close(out.double().norm(dim=-1), x.double().norm(dim=-1), rtol=0,
                               atol=_atol(case["dtype"], x) * math.sqrt(case["dim"]))


@SETTINGS
@given(dim=dims, base=bases, m=position, n=position, dtype=dtypes, layout=layouts, method=methods, seed=seeds)
def test_relative_property(dim, base, m, n, dtype, layout, method, seed):
    q = seeded_randn(1, dim, seed=seed, dtype=dtype)
    k = seeded_randn(1, dim, seed=seed + 1, dtype=dtype)
    kw = dict(base=base, layout=layout, method=method)
    lhs = float((apply_rope(q, [m], **kw).double() * apply_rope(k, [n], **kw).double()).sum())
    rhs = float((q.double() * apply_rope(k, [n - m], **kw).double()).sum())
    tol = (1e-11 if dtype == torch.float64 else 2e-5) * dim
    assert abs(lhs - rhs) <= tol
    # the same number from the reference loop
    ref = float((q.double() * loop_rope(k, [n - m], base, layout)).sum())
    assert abs(lhs - ref) <= tol


@SETTINGS
@given(dim=dims, base=bases, i=position, j=position, layout=layouts, seed=seeds)
def test_rotation_matrix_properties(dim, base, i, j, layout, seed):
    ri = rotation_matrix(i, dim, base, layout=layout, dtype=torch.float64)
    rj = rotation_matrix(j, dim, base, layout=layout, dtype=torch.float64)
    eye = torch.eye(dim, dtype=torch.float64)
    torch.testing.assert_close(ri @ ri.T, eye, rtol=0, atol=1e-13)
    torch.testing.assert_close(ri, loop_rotation_matrix(i, dim, base, layout), rtol=0, atol=1e-12)
    # R_j R_i^-1 = R_{j-i}
    torch.testing.assert_close(rj @ ri.T, loop_rotation_matrix(j - i, dim, base, layout), rtol=0, atol=1e-11)
    # (R_i q) . (R_j k) = q . R_{j-i} k
    q, k = seeded_randn(dim, seed=seed), seeded_randn(dim, seed=seed + 1)
    r_rel = rotation_matrix(j - i, dim, base, layout=layout, dtype=torch.float64)
    assert abs(float((ri @ q) @ (rj @ k)) - float(q @ (r_rel @ k))) <= 1e-11 * dim


@SETTINGS
@given(dim=dims, base=bases, seq=st.integers(1, 5), data=st.data(), dtype=dtypes, method=methods, seed=seeds)
def test_layouts_related_by_permutation(dim, base, seq, data, dtype, method, seed):
    positions = data.draw(st.lists(position, min_size=seq, max_size=seq))
    x = seeded_randn(seq, dim, seed=seed, dtype=dtype)
    p = torch.tensor(hand_layout_permutation(dim))
    half = apply_rope(x[..., p], positions, base=base, layout="half", method=method)
    inter = apply_rope(x, positions, base=base, layout="interleaved", method=method)
    torch.testing.assert_close(half.double(), inter[..., p].double(), rtol=0, atol=_atol(dtype, x))
