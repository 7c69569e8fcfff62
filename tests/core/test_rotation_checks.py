"""Every entry that rotates a tensor (apply_rope and its fast paths: the table-based apply_rotary and
RotaryEmbedding, the eager, compiled and fast branches of rope_viz.kernels, the Triton kernel) refuses the same
bad input with the same ValueError, whose words are written out here."""

import os
import re

import pytest
import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # as tests/core/test_triton_rope.py: before triton_rope is imported

import rope_viz  # noqa: E402
from rope_viz import kernels, set_max_elements, triton_rope  # noqa: E402

X_ENTRIES = {
    "apply_rope": lambda x, layout, cos, sin: rope_viz.apply_rope(x, layout=layout),
    "apply_rope(method='matrix')": lambda x, layout, cos, sin: rope_viz.apply_rope(x, layout=layout, method="matrix"),
    "apply_rotary": lambda x, layout, cos, sin: rope_viz.apply_rotary(x, cos, sin, layout=layout),
    "kernels.rope_fast": lambda x, layout, cos, sin: kernels.rope_fast(x, cos, sin, layout),
    "kernels.rope_eager": lambda x, layout, cos, sin: kernels.rope_eager(x, cos, sin, layout),
    "kernels.rope_compiled": lambda x, layout, cos, sin: kernels.rope_compiled(x, cos, sin, layout),
    "triton_rope.rope_triton": lambda x, layout, cos, sin: triton_rope.rope_triton(x, cos, sin, layout),
}
QK_ENTRIES = {
    "apply_rope_qk": lambda q, layout, cos, sin: rope_viz.apply_rope_qk(q, q, layout=layout),
    "RotaryEmbedding": lambda q, layout, cos, sin: rope_viz.RotaryEmbedding(8, layout=layout)(q, q),
    "triton_rope.rope_triton_qk": lambda q, layout, cos, sin: triton_rope.rope_triton_qk(q, q, cos, sin, layout),
}
TABLE_ENTRIES = ("apply_rotary", "kernels.rope_fast", "kernels.rope_eager", "kernels.rope_compiled",
                 "triton_rope.rope_triton")

# (input, layout, the message with NAME for the tensor's name)
BAD = {
    "a list": ([[1.0, 2.0]], "half", "NAME must be a torch.Tensor shaped (..., seq, dim), got list"),
    "integers": (torch.ones(4, 8, dtype=torch.int64), "half",
                 "NAME must be a floating-point tensor, got dtype torch.int64"),
    "one dimension": (torch.ones(8), "half", "NAME must have at least 2 dimensions (..., seq, dim), got shape (8,)"),
    "an odd dim": (torch.ones(4, 7), "half", "NAME.shape[-1] (dim) must be a positive even integer, got 7"),
    "an unknown layout": (torch.ones(4, 8), "neox", "layout must be one of 'interleaved', 'half'; got 'neox'"),
}


def refusal(entry, x, layout, cos, sin) -> str:
    with pytest.raises(ValueError) as caught:
        entry(x, layout, cos, sin)
    return str(caught.value)


@pytest.mark.parametrize("case", BAD)
def test_every_entry_refuses_a_bad_tensor_or_layout_in_the_same_words(case):
    x, layout, message = BAD[case]
    cos, sin = rope_viz.rotary_tables(torch.arange(4), 8)
    for name, entries in (("x", X_ENTRIES), ("q", QK_ENTRIES)):
        for entry_name, entry in entries.items():
            assert refusal(entry, x, layout, cos, sin) == message.replace("NAME", name), entry_name


def test_every_entry_refuses_a_tensor_over_the_budget_in_the_same_words():
    set_max_elements(16)
    x = torch.ones(4, 8)  # 32 elements
    cos, sin = torch.ones(4, 4), torch.zeros(4, 4)  # built before the budget would refuse their own making
    for name, entries in (("x", X_ENTRIES), ("q", QK_ENTRIES)):
        for entry_name, entry in entries.items():
            got = refusal(entry, x, "half", cos, sin)
            assert got.startswith(f"rotating {name} would allocate 32 elements, over the budget of 16"), entry_name


@pytest.mark.parametrize("rows, columns", [(5, 4), (4, 8), (4, 0)], ids=["a row too many", "too wide", "empty"])
def test_every_table_entry_refuses_tables_that_do_not_fit_in_the_same_words(rows, columns):
    x = torch.ones(4, 8)
    cos, sin = torch.ones(rows, columns), torch.zeros(rows, columns)
    expected = (f"tables of shape ({rows}, {columns}) do not fit x of shape (4, 8): they need one row per position "
                "(4) and 1 to dim / 2 = 4 columns")
    for entry_name in TABLE_ENTRIES:
        assert refusal(X_ENTRIES[entry_name], x, "half", cos, sin) == expected, entry_name
    mismatched = refusal(X_ENTRIES["apply_rotary"], x, "half", torch.ones(4, 4), torch.ones(4, 3))
    assert re.fullmatch(r"cos and sin must be two floating-point tensors of one shape .*\(4, 4\) and \(4, 3\)",
                        mismatched)


def test_rotary_dim_is_refused_alike_by_apply_rope_and_the_triton_kernel():
    x = torch.ones(4, 8)
    cos, sin = rope_viz.rotary_tables(torch.arange(4), 8)
    expected = "rotary_dim must be an even integer <= dim=8, got 10"
    assert refusal(lambda *a: rope_viz.apply_rope(x, rotary_dim=10, layout="half"), x, "half", cos, sin) == expected
    assert refusal(lambda *a: triton_rope.rope_triton(x, cos, sin, "half", rotary_dim=10), x, "half", cos, sin) \
        == expected
