"""apply_rope, rotation_matrix and rotation_matrices against independent references.

References (support/rope_reference.py): a per-pair float64 Python loop with math.cos/sin,
Meta LLaMA's complex multiply (interleaved) and Hugging Face's rotate_half (half), and literal
numbers for the worked example.
"""

from __future__ import annotations

import math
import zlib

import pytest
import torch

from support.rope_reference import (hand_inv_freq, hand_layout_permutation, hf_rope, llama_rope, loop_rope,
                                    loop_rotation_matrix, seeded_randn)
from rope_viz import apply_rope, layout_permutation, rotation_matrices, rotation_matrix

METHODS = ("matrix", "pairs", "complex", "fast")
LAYOUTS = ("interleaved", "half")


def _tol(dtype):
    return {torch.float64: dict(rtol=0, atol=1e-12), torch.float32: dict(rtol=0, atol=1e-5)}[dtype]


# --------------------------------------------------------------------------------------------
# The worked example: q = [1, 2] turned by 0.5 rad is [-0.08127, 2.23459], |q| = sqrt(5).
# --------------------------------------------------------------------------------------------

WORKED = (-0.08127, 2.23459)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("base", [10000.0, 2.0, 500000.0])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_worked_example_apply_rope(method, layout, base, dtype):
    # dim = 2: theta_0 = base^0 = 1 whatever the base, so position 0.5 is a turn by 0.5 rad.
    q = torch.tensor([[1.0, 2.0]], dtype=dtype)
    out = apply_rope(q, [0.5], base=base, method=method, layout=layout)
    assert out.dtype == dtype
    got = out[0].double().tolist()
    assert got[0] == pytest.approx(WORKED[0], abs=1e-5)
    assert got[1] == pytest.approx(WORKED[1], abs=1e-5)
    assert math.hypot(*got) == pytest.approx(math.sqrt(5), abs=1e-6)
    # The misprinted 2.2366 would need |q| > sqrt(5) = 2.23607: a rotation cannot do that.
    assert abs(got[1] - 2.2366) > 1e-3
    assert math.sqrt(5) < 2.2366


@pytest.mark.parametrize("layout", LAYOUTS)
def test_worked_example_rotation_matrix(layout):
    r = rotation_matrix(0.5, 2, dtype=torch.float64, layout=layout)
    got = (r @ torch.tensor([1.0, 2.0], dtype=torch.float64)).tolist()
    assert got == pytest.approx(list(WORKED), abs=1e-5)
    assert got == pytest.approx([math.cos(0.5) - 2 * math.sin(0.5), math.sin(0.5) + 2 * math.cos(0.5)], abs=1e-15)
    assert math.hypot(*got) == pytest.approx(math.sqrt(5), abs=1e-14)


@pytest.mark.parametrize("method", METHODS)
def test_worked_example_as_theta_half_at_position_one(method):
    # The same example as the notes state it: theta = 0.5 and m = 1. With dim = 4 and base = 4,
    # theta_1 = 4^(-2/4) = 0.5, so pair 1 = (x2, x3) turns by 0.5 rad at position 1.
    x = torch.tensor([[0.0, 0.0, 1.0, 2.0]], dtype=torch.float64)
    out = apply_rope(x, [1], base=4.0, method=method)[0].tolist()
    assert out == pytest.approx([0.0, 0.0, *WORKED], abs=1e-5)
    m = rotation_matrix(1, 4, base=4.0, dtype=torch.float64)
    assert (m @ x[0]).tolist() == pytest.approx([0.0, 0.0, *WORKED], abs=1e-5)


# --------------------------------------------------------------------------------------------
# The references agree with one another (so they are not all wrong the same way).
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim,base", [(2, 10000.0), (8, 10000.0), (16, 500000.0), (6, 3.0)])
def test_references_agree(dim, base):
    x = seeded_randn(2, 5, dim, seed=dim)
    pos = [0.0, 1.0, 7.5, -3.25, 1000.0]
    torch.testing.assert_close(loop_rope(x, pos, base, "interleaved"), llama_rope(x, pos, base), rtol=0, atol=1e-12)
    torch.testing.assert_close(loop_rope(x, pos, base, "half"), hf_rope(x, pos, base), rtol=0, atol=1e-12)
    # The per-pair loop really rotates: position 0 is the identity and others are not.
    out = loop_rope(x, pos, base)
    torch.testing.assert_close(out[:, 0], x[:, 0], rtol=0, atol=0)
    assert (out[:, 2] - x[:, 2]).abs().max() > 1e-3


# --------------------------------------------------------------------------------------------
# Every method and layout equals the references.
# --------------------------------------------------------------------------------------------

SHAPES = [(1, 2), (5, 8), (3, 6, 16), (2, 3, 4, 10), (7, 64)]
POSITION_KINDS = ["default", "ints", "floats"]


def _positions(kind, seq, seed):
    if kind == "default":
        return None
    gen = torch.Generator().manual_seed(seed)
    if kind == "ints":
        return torch.randint(-50, 2000, (seq,), generator=gen).tolist()
    return (torch.rand(seq, generator=gen, dtype=torch.float64) * 600 - 100).tolist()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", POSITION_KINDS)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
def test_methods_match_reference(method, layout, shape, kind, dtype):
    seed = zlib.crc32(repr((method, layout, shape, kind)).encode()) % 1000
    x = seeded_randn(*shape, seed=seed, dtype=dtype)
    pos = _positions(kind, shape[-2], seed)
    base = 10000.0 if kind != "floats" else 500000.0
    out = apply_rope(x, pos, base=base, layout=layout, method=method)
    assert out.dtype == dtype and out.shape == x.shape
    ref = loop_rope(x, pos, base, layout)
    torch.testing.assert_close(out.double(), ref, **_tol(dtype))
    other = llama_rope(x, pos, base) if layout == "interleaved" else hf_rope(x, pos, base)
    torch.testing.assert_close(out.double(), other, **_tol(dtype))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("base", [2.0, 10.0, 10000.0, 1e6])
def test_methods_match_reference_across_bases(method, layout, base):
    x = seeded_randn(3, 4, 12, seed=int(base) % 97)
    pos = [0, 1, 2.5, 31]
    out = apply_rope(x, pos, base=base, layout=layout, method=method)
    torch.testing.assert_close(out, loop_rope(x, pos, base, layout), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_default_positions_are_0_to_seq_minus_1(method, layout):
    x = seeded_randn(2, 9, 8, seed=3)
    default = apply_rope(x, layout=layout, method=method)
    explicit = apply_rope(x, list(range(9)), layout=layout, method=method)
    torch.testing.assert_close(default, explicit, rtol=0, atol=1e-15)
    torch.testing.assert_close(default, loop_rope(x, None, 10000.0, layout), rtol=0, atol=1e-12)
    # Row 0 sits at position 0: unchanged.
    torch.testing.assert_close(default[..., 0, :], x[..., 0, :], rtol=0, atol=0)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("rotary_dim", [2, 4, 8, 12])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
def test_partial_rotary(method, layout, rotary_dim, dtype):
    dim = 16
    x = seeded_randn(2, 5, dim, seed=rotary_dim, dtype=dtype)
    pos = [0.0, 3.0, 17.5, 250.0, -8.0]
    out = apply_rope(x, pos, layout=layout, method=method, rotary_dim=rotary_dim)
    assert out.dtype == dtype and out.shape == x.shape
    # The coordinates past rotary_dim pass through bit for bit.
    assert torch.equal(out[..., rotary_dim:], x[..., rotary_dim:])
    # The first rotary_dim are RoPE of dimension rotary_dim (theta_i = base^(-2i/rotary_dim)).
    ref = loop_rope(x, pos, 10000.0, layout, rotary_dim=rotary_dim)
    torch.testing.assert_close(out.double(), ref, **_tol(dtype))
    head = x[..., :rotary_dim]
    other = llama_rope(head, pos) if layout == "interleaved" else hf_rope(head, pos)
    torch.testing.assert_close(out[..., :rotary_dim].double(), other, **_tol(dtype))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_rotary_dim_equal_to_dim_is_full_rotation(method, layout):
    x = seeded_randn(4, 10, seed=1)
    torch.testing.assert_close(apply_rope(x, method=method, layout=layout, rotary_dim=10),
                               loop_rope(x, None, 10000.0, layout), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype,tol", [(torch.bfloat16, 3e-2), (torch.float16, 4e-3)], ids=["bf16", "f16"])
@pytest.mark.parametrize("rotary_dim", [None, 8])
def test_low_precision_dtype_preserved_and_close(method, layout, dtype, tol, rotary_dim):
    x = seeded_randn(2, 6, 16, seed=7, dtype=dtype)
    pos = [0, 1, 2, 10, 100, 1000]
    out = apply_rope(x, pos, layout=layout, method=method, rotary_dim=rotary_dim)
    assert out.dtype == dtype and out.shape == x.shape
    ref = loop_rope(x, pos, 10000.0, layout, rotary_dim=rotary_dim)  # x is already rounded to dtype
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)
    if rotary_dim is not None:
        assert torch.equal(out[..., rotary_dim:], x[..., rotary_dim:])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype,ulp", [(torch.bfloat16, 2.0 ** -8), (torch.float16, 2.0 ** -11)], ids=["bf16", "f16"])
def test_low_precision_computed_in_float32_then_rounded(method, layout, dtype, ulp):
    # Low-precision inputs are rotated in float32 and rounded once: every entry is within one
    # unit in the last place of the exact result (computing in bf16/f16 itself drifts further).
    x = seeded_randn(4, 32, 64, seed=17, dtype=dtype)
    pos = torch.linspace(0, 3000, 32).tolist()
    out = apply_rope(x, pos, layout=layout, method=method)
    ref = loop_rope(x, pos, 10000.0, layout)
    torch.testing.assert_close(out.double(), ref, rtol=ulp, atol=1e-6)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_norms_preserved(method, layout):
    x = seeded_randn(3, 8, 32, seed=11)
    pos = torch.linspace(-40.0, 4000.0, 8).tolist()
    out = apply_rope(x, pos, layout=layout, method=method)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1), rtol=0, atol=1e-12)
    # ... pair by pair, not only in total.
    ref_first = torch.arange(0, 32, 2) if layout == "interleaved" else torch.arange(16)
    ref_second = ref_first + 1 if layout == "interleaved" else ref_first + 16
    pair_in = x[..., ref_first] ** 2 + x[..., ref_second] ** 2
    pair_out = out[..., ref_first] ** 2 + out[..., ref_second] ** 2
    torch.testing.assert_close(pair_out, pair_in, rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_non_contiguous_input(method, layout):
    base_x = seeded_randn(12, 5, seed=4)
    x = base_x.T  # (5, 12), non-contiguous
    assert not x.is_contiguous()
    torch.testing.assert_close(apply_rope(x, layout=layout, method=method),
                               loop_rope(x.contiguous(), None, 10000.0, layout), rtol=0, atol=1e-12)


def _strided_views():
    big = seeded_randn(6, 11, seed=12)
    return {
        "odd_offset_odd_stride": big[:, 1:9],  # storage offset 1, row stride 11
        "odd_row_stride": big[:, :10],
        "every_other_row": seeded_randn(12, 8, seed=13)[::2],
        "broadcast_rows": seeded_randn(1, 8, seed=14).expand(5, 8),  # row stride 0
        "batch_transposed": seeded_randn(6, 3, 8, seed=15).transpose(0, 1),
    }


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("view", list(_strided_views()))
def test_strided_and_offset_views(method, layout, view):
    x = _strided_views()[view]
    out = apply_rope(x, layout=layout, method=method)
    torch.testing.assert_close(out, loop_rope(x.contiguous(), None, 10000.0, layout), rtol=0, atol=1e-12)
    part = apply_rope(x, layout=layout, method=method, rotary_dim=4)
    torch.testing.assert_close(part, loop_rope(x.contiguous(), None, 10000.0, layout, rotary_dim=4),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_input_not_modified_and_output_not_aliased(method):
    x = seeded_randn(4, 8, seed=5)
    keep = x.clone()
    out = apply_rope(x, method=method)
    assert torch.equal(x, keep)
    out.add_(100.0)  # mutating a result must not leak into a later call (cached tables)
    again = apply_rope(x, method=method)
    torch.testing.assert_close(again, loop_rope(x), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------------
# The dense rotation matrix.
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [2, 4, 10, 32])
@pytest.mark.parametrize("position", [0, 1, 2.5, -7, 1234])
def test_rotation_matrix_matches_hand_built(layout, dim, position):
    got = rotation_matrix(position, dim, 10000.0, layout=layout, dtype=torch.float64)
    assert got.shape == (dim, dim) and got.dtype == torch.float64
    torch.testing.assert_close(got, loop_rotation_matrix(position, dim, 10000.0, layout), rtol=0, atol=1e-13)


@pytest.mark.parametrize("dim", [4, 12, 64])
@pytest.mark.parametrize("position", [1, 3.75, 999])
def test_rotation_matrix_orthogonal_block_diagonal(dim, position):
    r = rotation_matrix(position, dim, 10000.0, dtype=torch.float64)
    eye = torch.eye(dim, dtype=torch.float64)
    torch.testing.assert_close(r @ r.T, eye, rtol=0, atol=1e-13)
    torch.testing.assert_close(r.T @ r, eye, rtol=0, atol=1e-13)
    assert float(torch.linalg.det(r)) == pytest.approx(1.0, abs=1e-12)
    theta = hand_inv_freq(dim, 10000.0)
    for row in range(dim):
        for col in range(dim):
            if row // 2 != col // 2:
                assert r[row, col].item() == 0.0, (row, col)
    for i in range(dim // 2):
        block = r[2 * i:2 * i + 2, 2 * i:2 * i + 2]
        c, s = math.cos(position * theta[i]), math.sin(position * theta[i])
        expected = torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
        torch.testing.assert_close(block, expected, rtol=0, atol=1e-13)


def test_rotation_matrix_default_dtype_float32():
    r = rotation_matrix(3, 8)
    assert r.dtype == torch.float32
    torch.testing.assert_close(r.double(), loop_rotation_matrix(3, 8), rtol=0, atol=1e-7)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rotation_matrices_stack_positions(layout):
    pos = [0, 1, 2.5, -3, 100]
    mats = rotation_matrices(pos, 8, 100.0, layout=layout, dtype=torch.float64)
    assert mats.shape == (5, 8, 8)
    for idx, p in enumerate(pos):
        torch.testing.assert_close(mats[idx], loop_rotation_matrix(p, 8, 100.0, layout), rtol=0, atol=1e-13)


@pytest.mark.parametrize("dim", [2, 8, 24])
@pytest.mark.parametrize("m,n", [(0, 0), (3, 10), (10, 3), (2.5, 7.25), (-5, 400), (1000, 1001)])
def test_relative_property_matrices(dim, m, n):
    q, k = seeded_randn(dim, seed=1), seeded_randn(dim, seed=2)
    rm = rotation_matrix(m, dim, dtype=torch.float64)
    rn = rotation_matrix(n, dim, dtype=torch.float64)
    r_rel = rotation_matrix(n - m, dim, dtype=torch.float64)
    lhs = float((rm @ q) @ (rn @ k))
    rhs = float(q @ (r_rel @ k))
    assert lhs == pytest.approx(rhs, abs=1e-11)
    # cross-check the same number with the hand-built matrices
    assert lhs == pytest.approx(float(q @ (loop_rotation_matrix(n - m, dim) @ k)), abs=1e-11)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("i,j", [(0, 5), (5, 0), (3, 3), (1.5, 20.25), (-7, 90)])
def test_rotation_composition(layout, i, j):
    ri = rotation_matrix(i, 16, layout=layout, dtype=torch.float64)
    rj = rotation_matrix(j, 16, layout=layout, dtype=torch.float64)
    # R_i^-1 = R_i^T (orthogonal), and R_j R_i^-1 = R_{j-i}
    torch.testing.assert_close(torch.linalg.inv(ri), ri.T, rtol=0, atol=1e-12)
    torch.testing.assert_close(rj @ torch.linalg.inv(ri),
                               rotation_matrix(j - i, 16, layout=layout, dtype=torch.float64), rtol=0, atol=1e-12)
    torch.testing.assert_close(rj @ ri.T, loop_rotation_matrix(j - i, 16, layout=layout), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_relative_property_apply_rope(method, layout):
    q, k = seeded_randn(1, 16, seed=8), seeded_randn(1, 16, seed=9)
    for m, n in [(3, 10), (10, 3), (0.5, 17.25), (-20, 1500)]:
        lhs = apply_rope(q, [m], layout=layout, method=method) @ apply_rope(k, [n], layout=layout, method=method).T
        rhs = q @ apply_rope(k, [n - m], layout=layout, method=method).T
        assert float(lhs) == pytest.approx(float(rhs), abs=1e-11)
        # and it is not the unrotated product (the test would notice a no-op rotation)
    assert abs(float(lhs) - float(q @ k.T)) > 1e-6


# --------------------------------------------------------------------------------------------
# Layouts: the same rotation up to the permutation of pair members.
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 4, 6, 16, 64])
def test_layout_permutation_by_hand(dim):
    p = layout_permutation(dim)
    assert p.tolist() == hand_layout_permutation(dim)
    assert sorted(p.tolist()) == list(range(dim))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dim", [2, 8, 32])
def test_layouts_related_by_permutation(method, dim):
    p = torch.tensor(hand_layout_permutation(dim))
    x = seeded_randn(2, 6, dim, seed=dim)
    pos = [0, 1, 4.5, 9, 100, -3]
    half = apply_rope(x[..., p], pos, layout="half", method=method)
    inter = apply_rope(x, pos, layout="interleaved", method=method)
    torch.testing.assert_close(half, inter[..., p], rtol=0, atol=1e-12)
    # and the library's own permutation says the same
    pl = layout_permutation(dim)
    torch.testing.assert_close(apply_rope(x[..., pl], pos, layout="half", method=method), inter[..., pl],
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_layouts_differ_tensor_for_tensor(method):
    x = seeded_randn(4, 8, seed=2)
    pos = [1, 2, 3, 4]
    a = apply_rope(x, pos, layout="interleaved", method=method)
    b = apply_rope(x, pos, layout="half", method=method)
    assert (a - b).abs().max() > 1e-2


@pytest.mark.parametrize("dim", [4, 10])
def test_rotation_matrix_layouts_permuted(dim):
    p = torch.tensor(hand_layout_permutation(dim))
    inter = rotation_matrix(3.5, dim, dtype=torch.float64)
    half = rotation_matrix(3.5, dim, layout="half", dtype=torch.float64)
    torch.testing.assert_close(half, inter[p][:, p], rtol=0, atol=1e-15)
