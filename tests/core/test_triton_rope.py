"""The Triton kernel (rope_viz.triton_rope) against a float64 rotation written out here, pair by pair:
every dtype, both layouts, partial rotary, odd lengths, several blocks of rows, strided views (the
transformers layout), position ids, an attention factor, in place; and its refusals.

With a GPU the kernel runs on CUDA. Without one it runs in Triton's interpreter, which must be switched
on before the module is imported (TRITON_INTERPRET=1): same kernel, same indexing and masks, on CPU
tensors, so shapes stay small.
"""

import os

import pytest
import torch

CUDA = torch.cuda.is_available()
if not CUDA:
    os.environ["TRITON_INTERPRET"] = "1"

from rope_viz import apply_rope, apply_rope_qk, triton_rope  # noqa: E402
from rope_viz.frequencies import rope_tables  # noqa: E402
from support.rope_reference import pair_rope  # noqa: E402

DEVICE = "cuda" if CUDA else "cpu"
DTYPES = (torch.float32, torch.bfloat16, torch.float16)
LAYOUTS = ("interleaved", "half")


def reference(x, positions, layout, rotary_dim, base=10000.0, scale=1.0):
    """x (..., seq, dim) with each pair turned by position * base^(-2i/r), written out in float64."""
    return pair_rope(x, positions, base, layout, rotary_dim, scale)

def tables(positions, seq, rotary_dim, scale=1.0):
    pos = None if positions is None else torch.as_tensor(positions, dtype=torch.float64)
    return rope_tables(pos, seq, rotary_dim, 10000.0, torch.float32, DEVICE, scale=scale)


def assert_close(got, expected):
    """Within one unit in the last place of the result's dtype, at the largest magnitude."""
    tolerance = torch.finfo(got.dtype).eps * max(1.0, float(expected.abs().max()))
    assert float((got.to("cpu", torch.float64) - expected).abs().max()) <= tolerance


def random_x(*shape, dtype=torch.float32, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator).to(DEVICE, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_dtype_and_layout_matches_the_float64_rotation(dtype, layout):
    x = random_x(2, 3, 37, 16, dtype=dtype)
    cos, sin = tables(None, 37, 16)
    got = triton_rope.rope_triton(x, cos, sin, layout)
    assert got.dtype == dtype and got.shape == x.shape
    assert_close(got, reference(x, range(37), layout, 16))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_partial_rotary_copies_the_rest_unchanged(layout):
    x = random_x(1, 2, 21, 20, dtype=torch.bfloat16)
    cos, sin = tables(None, 21, 12)
    got = triton_rope.rope_triton(x, cos, sin, layout, rotary_dim=12)
    assert torch.equal(got[..., 12:], x[..., 12:])
    assert_close(got, reference(x, range(21), layout, 12))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rows_past_one_block_and_odd_sizes(layout):
    """150 rows of 10 pairs make three blocks of 64 rows, the last one partly masked; 10 pairs pad to 16."""
    x = random_x(1, 1, 150, 20)
    cos, sin = tables(None, 150, 20)
    assert_close(triton_rope.rope_triton(x, cos, sin, layout), reference(x, range(150), layout, 20))


def test_position_ids_and_an_attention_factor():
    positions = [7, 0, 3, 1000, 65_539, 12_345, 2, 2]
    x = random_x(2, 2, 8, 8)
    cos, sin = tables(positions, 8, 8, scale=1.19)
    assert_close(triton_rope.rope_triton(x, cos, sin, "half"), reference(x, positions, "half", 8, scale=1.19))


def kernel_tables(positions, seq, rotary_dim, *, inv_freq=None, scale=1.0):
    pos = None if positions is None else torch.as_tensor(positions, dtype=torch.float64)
    return triton_rope.tables(pos, seq, rotary_dim, 10000.0, inv_freq, scale, DEVICE)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_position_ids_index_a_cached_table_with_the_same_result(dtype, layout):
    """Decoding at a cache offset: position ids pick rows of a cached table instead of new tables."""
    positions = [4093, 4094, 4095, 4096, 4097, 0, 17, 17, 9]
    x = random_x(2, 3, 9, 16, dtype=dtype)
    cos, sin, rows = kernel_tables(positions, 9, 12)
    assert cos.shape == (8192, 6) and rows.tolist() == positions and rows.dtype == torch.int32
    assert kernel_tables(positions, 9, 12)[0] is cos  # built once, then cached
    own = tables(positions, 9, 12)
    assert torch.equal(cos[rows.long()], own[0]) and torch.equal(sin[rows.long()], own[1])
    gathered = triton_rope.rope_triton(x, cos, sin, layout, rotary_dim=12, rows=rows)
    assert torch.equal(gathered, triton_rope.rope_triton(x, *own, layout, rotary_dim=12))
    assert_close(gathered, reference(x, positions, layout, 12))
    k = random_x(2, 1, 9, 16, dtype=dtype, seed=1)
    q_rot, k_rot = triton_rope.rope_triton_qk(x, k, cos, sin, layout, rotary_dim=12, rows=rows)
    assert torch.equal(q_rot, gathered)
    assert torch.equal(k_rot, triton_rope.rope_triton(k, *own, layout, rotary_dim=12))


@pytest.mark.parametrize("positions, options", [
    (None, {}),  # the default positions: the cached table of exactly seq rows
    ([0.5, 1.0, 2.0], {}),  # fractional
    ([-1, 0, 1], {}),  # negative
    ([0, 1, 2], {"scale": 1.19}),  # an attention factor
    ([0, 1, 2], {"inv_freq": torch.tensor([1.0, 0.1], dtype=torch.float64)}),  # scaled frequencies
    ([0, 1, (1 << 23) // 2], {}),  # a cached table this long would pass CACHED_TABLE_ENTRIES
], ids=["default", "fractional", "negative", "factor", "inv_freq", "too-far"])
def test_other_positions_get_tables_of_their_own(positions, options):
    cos, sin, rows = kernel_tables(positions, 3, 4, **options)
    assert rows is None and cos.shape == sin.shape == (3, 2)
    x = random_x(3, 4)
    pos = range(3) if positions is None else positions
    expected = reference(x, pos, "interleaved", 4, scale=options.get("scale", 1.0))
    if "inv_freq" not in options:
        assert_close(triton_rope.rope_triton(x, cos, sin, "interleaved"), expected)


@pytest.mark.parametrize("rows", [torch.tensor([0, 1]), torch.tensor([0.0, 1.0, 2.0]), torch.tensor([[0, 1, 2]])],
                         ids=["too-few", "float", "2-d"])
def test_bad_rows_raise_value_errors(rows):
    cos, sin, _ = kernel_tables([0, 1, 2], 3, 8)
    with pytest.raises(ValueError, match="rows"):
        triton_rope.rope_triton(random_x(3, 8), cos, sin, "half", rows=rows.to(DEVICE))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_transformers_view_is_read_through_its_strides_and_rotated_in_place(layout):
    """q as a (batch, heads, seq, dim) view of a (batch, seq, heads, dim) tensor, as transformers holds it."""
    storage = random_x(2, 9, 3, 16)
    q = storage.transpose(1, 2)
    assert not q.is_contiguous()
    expected = reference(q, range(9), layout, 8)
    cos, sin = tables(None, 9, 8)
    out = triton_rope.rope_triton(q, cos, sin, layout, rotary_dim=8)
    assert_close(out, expected)
    kept = storage.clone()
    assert triton_rope.rope_triton(q, cos, sin, layout, rotary_dim=8, out=q) is q
    assert torch.equal(q, out)  # in place, the same numbers; written into the tensor behind the view
    assert torch.equal(storage[..., 8:], kept[..., 8:])  # and the coordinates past rotary_dim untouched
    assert not torch.equal(storage[..., :8], kept[..., :8])


@pytest.mark.parametrize("shape", [(11, 8), (4, 11, 8), (2, 2, 2, 11, 8)], ids=str)
def test_any_number_of_leading_dimensions(shape):
    x = random_x(*shape)
    cos, sin = tables(None, 11, 8)
    assert_close(triton_rope.rope_triton(x, cos, sin, "interleaved"), reference(x, range(11), "interleaved", 8))


def test_empty_and_single_row_inputs():
    cos, sin = tables(None, 1, 8)
    one = random_x(3, 1, 8)
    assert_close(triton_rope.rope_triton(one, cos, sin, "half"), reference(one, [0], "half", 8))
    empty = random_x(0, 5, 8)
    assert triton_rope.rope_triton(empty, *tables(None, 5, 8), "half").shape == (0, 5, 8)


def test_inputs_it_cannot_take_are_handed_back():
    cos, sin = tables(None, 6, 8)
    assert triton_rope.rope_triton(random_x(6, 8).double(), cos, sin, "half") is None  # float64: another path
    assert triton_rope.rope_triton(random_x(8, 6).t(), cos, sin, "half") is None  # last dimension strided
    unmergeable = random_x(2, 3, 4, 6, 8).transpose(0, 1)
    assert triton_rope.rope_triton(unmergeable, cos, sin, "half") is None


@pytest.mark.parametrize("bad", [
    dict(rotary_dim=7), dict(rotary_dim=10), dict(rotary_dim=0), dict(layout="diagonal"), dict(tables=(5, 4)),
    dict(out_shape=(6, 4)),
])
def test_bad_arguments_raise_value_errors(bad):
    x = random_x(6, 8)
    cos, sin = tables(None, *bad.get("tables", (6, 8)))
    out = random_x(*bad["out_shape"]) if "out_shape" in bad else None
    with pytest.raises(ValueError):
        triton_rope.rope_triton(x, cos, sin, bad.get("layout", "half"), rotary_dim=bad.get("rotary_dim"), out=out)


def test_apply_rope_takes_the_kernel_on_cuda_only():
    x = random_x(4, 8)
    assert triton_rope.usable(x) is CUDA
    assert not triton_rope.usable(x.double())


@pytest.mark.parametrize("method", ["fast", "pairs", "complex", "matrix"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_apply_rope_in_place_equals_out_of_place(method, layout):
    x = random_x(2, 13, 12)
    expected = apply_rope(x, layout=layout, method=method, rotary_dim=8)
    work = x.clone()
    assert apply_rope(work, layout=layout, method=method, rotary_dim=8, inplace=True) is work
    assert torch.allclose(work, expected, atol=1e-6) and torch.equal(work[..., 8:], x[..., 8:])


def test_q_and_k_in_one_call_with_fewer_key_heads():
    q, k = random_x(2, 8, 10, 16, seed=1), random_x(2, 2, 10, 16, seed=2)
    positions = torch.arange(10) + 100
    q_rot, k_rot = apply_rope_qk(q, k, positions, layout="half", base=500000.0)
    assert torch.equal(q_rot, apply_rope(q, positions, layout="half", base=500000.0))
    assert torch.equal(k_rot, apply_rope(k, positions, layout="half", base=500000.0))
    with pytest.raises(ValueError):
        apply_rope_qk(q, random_x(2, 2, 9, 16))
    with pytest.raises(ValueError, match="torch.Tensor"):
        apply_rope_qk([[1.0, 2.0]], k)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_q_and_k_in_one_launch_equal_two_launches(layout, dtype):
    """Eight query heads and two key heads (grouped-query attention), partial rotary, odd lengths."""
    q, k = random_x(2, 8, 37, 20, dtype=dtype, seed=1), random_x(2, 2, 37, 20, dtype=dtype, seed=2)
    cos, sin = tables(None, 37, 12)
    q_rot, k_rot = triton_rope.rope_triton_qk(q, k, cos, sin, layout, rotary_dim=12)
    assert torch.equal(q_rot, triton_rope.rope_triton(q, cos, sin, layout, rotary_dim=12))
    assert torch.equal(k_rot, triton_rope.rope_triton(k, cos, sin, layout, rotary_dim=12))
    assert_close(k_rot, reference(k, range(37), layout, 12))


def test_q_and_k_in_place_through_transformers_views():
    q_storage, k_storage = random_x(1, 9, 4, 16, seed=3), random_x(1, 9, 2, 16, seed=4)
    q, k = q_storage.transpose(1, 2), k_storage.transpose(1, 2)
    expected = reference(q, range(9), "half", 16), reference(k, range(9), "half", 16)
    cos, sin = tables(None, 9, 16)
    q_rot, k_rot = triton_rope.rope_triton_qk(q, k, cos, sin, "half", inplace=True)
    assert q_rot is q and k_rot is k
    assert_close(q_storage.transpose(1, 2), expected[0])
    assert_close(k_storage.transpose(1, 2), expected[1])


def test_q_and_k_it_cannot_take_together_are_handed_back():
    cos, sin = tables(None, 6, 8)
    assert triton_rope.rope_triton_qk(random_x(6, 8), random_x(6, 8).half(), cos, sin, "half") is None
    with pytest.raises(ValueError, match=r"q and k must agree in \(seq, dim\)"):  # a bad argument, as in apply_rope_qk
        triton_rope.rope_triton_qk(random_x(6, 8), random_x(5, 8), cos, sin, "half")
