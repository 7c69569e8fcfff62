"""Tables once, then apply (rope_viz.rotary_tables / apply_rotary / RotaryEmbedding) against the hand-written
per-pair loop and Hugging Face's rotate_half formula of support.rope_reference, and their refusals."""

import math

import pytest
import torch

import rope_viz
from support.rope_reference import hf_rope, loop_rope


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("dim,rotary,base", [(8, 8, 10000.0), (16, 8, 500000.0), (64, 64, 100000.0)])
def test_tables_then_apply_match_the_hand_loop(layout, dim, rotary, base):
    x = torch.randn(2, 7, dim, generator=torch.Generator().manual_seed(dim), dtype=torch.float64)
    positions = torch.tensor([0, 1, 5, 9, 300, 4095, 70000])
    cos, sin = rope_viz.rotary_tables(positions, rotary, base=base, dtype=torch.float64)
    got = rope_viz.apply_rotary(x, cos, sin, layout=layout)
    assert torch.allclose(got, loop_rope(x, positions, base, layout, rotary_dim=rotary), atol=1e-9)


def test_tables_are_cos_and_sin_of_position_times_frequency():
    cos, sin = rope_viz.rotary_tables([3], 4, base=100.0, dtype=torch.float64)
    assert cos[0].tolist() == pytest.approx([math.cos(3.0), math.cos(0.3)], abs=1e-12)
    assert sin[0].tolist() == pytest.approx([math.sin(3.0), math.sin(0.3)], abs=1e-12)


def test_the_module_matches_hugging_faces_rotate_half_and_moves_nothing_to_its_state():
    rope = rope_viz.RotaryEmbedding(32, layout="half", base=10000.0)
    q = torch.randn(3, 12, 32, generator=torch.Generator().manual_seed(1))
    k = torch.randn(1, 12, 32, generator=torch.Generator().manual_seed(2))
    positions = torch.arange(12) + 100
    q_rot, k_rot = rope(q, k, positions)
    assert torch.allclose(q_rot.double(), hf_rope(q, positions), atol=1e-5)
    assert torch.allclose(k_rot.double(), hf_rope(k, positions), atol=1e-5)
    assert rope.state_dict() == {} and not list(rope.parameters())  # frequencies are not learned nor saved


def test_a_scaled_module_equals_the_one_call_path():
    scaling = {"rope_type": "dynamic", "factor": 4.0}
    rope = rope_viz.RotaryEmbedding(16, layout="half", rope_scaling=scaling, max_position_embeddings=64)
    x = torch.randn(5, 16, generator=torch.Generator().manual_seed(3))
    positions = torch.tensor([0, 10, 100, 200, 255])  # past 64: dynamic NTK grows its base with the longest one
    expected = rope_viz.apply_rope(x, positions, layout="half", rope_scaling=scaling, max_position_embeddings=64)
    assert torch.equal(rope(x, x, positions)[0], expected)
    plain = rope_viz.apply_rope(x, positions, layout="half")
    assert not torch.allclose(expected, plain)


def test_bad_tables_and_layouts_are_refused_by_name():
    x = torch.randn(4, 8)
    cos, sin = rope_viz.rotary_tables(torch.arange(4), 8)
    with pytest.raises(ValueError, match="layout"):
        rope_viz.apply_rotary(x, cos, sin, layout="neox")
    with pytest.raises(ValueError, match="do not fit"):
        rope_viz.apply_rotary(x, *rope_viz.rotary_tables(torch.arange(5), 8), layout="half")
    with pytest.raises(ValueError, match="do not fit"):
        rope_viz.apply_rotary(x, *rope_viz.rotary_tables(torch.arange(4), 16), layout="half")
    with pytest.raises(ValueError, match="one shape"):
        rope_viz.apply_rotary(x, cos, sin[:, :2], layout="half")
    with pytest.raises(ValueError, match="layout"):
        rope_viz.RotaryEmbedding(8, layout="rotate_half")
