"""The kit's adapters: transformers' own rotary embedding per family (Llama 3.1's llama3 scaling, Gemma 3's sliding and
full layers) passes and a changed config fails where it changed; a (cos, sin) table function and a (q, k, positions)
function written here by hand (Llama 2: base 10,000, head 128, half layout) pass, in both tensor axes orders."""

from __future__ import annotations

import pytest
import torch

from rope_viz import preset_info
from rope_viz.conformance import verify
from rope_viz.conformance.adapters import from_qk, from_tables, transformers_rotary


@pytest.mark.parametrize("name", ["Llama-3.1-8B", "google/gemma-3-1b-it"])
def test_transformers_own_rotary_passes_per_family(name):
    report = verify(name, transformers_rotary(name))
    assert report.ok, report.table()


def test_gemma3_layers_are_mapped_to_their_own_layer_type():
    config = {**preset_info("google/gemma-3-1b-it")["config"], "rope_local_base_freq": 1_000_000}
    report = verify("google/gemma-3-1b-it", transformers_rotary(config))
    by_base = {v.layer.base: (v.ok, v.bug) for v in report.verdicts}
    assert by_base == {10000.0: (False, "base"), 1_000_000.0: (True, None)}


def _angles(positions: torch.Tensor) -> torch.Tensor:
    """Llama 2's angles, by hand: position times 10000^(-2i/128), float32 as transformers computes them."""
    inv_freq = 1.0 / 10000.0 ** (torch.arange(0, 128, 2, dtype=torch.float32) / 128)
    return positions.float()[:, None] * inv_freq


def test_a_table_function_passes_in_its_layout_and_fails_in_the_other():
    def tables(positions, layer):  # transformers' convention: each pair's value in both halves
        angles = _angles(positions)
        return angles.cos().repeat(1, 2), angles.sin().repeat(1, 2)
    assert verify("Llama-2-7b-hf", from_tables(tables)).ok
    report = verify("Llama-2-7b-hf", from_tables(lambda p, layer: (_angles(p).cos(), _angles(p).sin()),
                                                 layout="interleaved", duplicated=False))
    assert report.verdicts[0].bug == "layout"


def _turn(x, positions, seq_axis):
    """rotate_half by hand on (.., seq, .., 128) with the sequence on `seq_axis`."""
    angles = _angles(positions)
    shape = [1] * x.dim()
    shape[seq_axis], shape[-1] = len(positions), 64
    cos, sin = angles.cos().reshape(shape), angles.sin().reshape(shape)
    first, second = x[..., :64], x[..., 64:]
    return torch.cat((first * cos - second * sin, second * cos + first * sin), dim=-1)


@pytest.mark.parametrize("axes, seq_axis", [("bhsd", 2), ("bshd", 1)])
def test_a_qk_function_passes_in_either_axes_order(axes, seq_axis):
    def qk(q, k, positions):
        return _turn(q, positions, seq_axis), _turn(k, positions, seq_axis)
    assert verify("Llama-2-7b-hf", from_qk(qk, axes=axes)).ok


def test_a_qk_function_that_forgets_the_key_is_named_on_the_key_only():
    report = verify("Llama-2-7b-hf", from_qk(lambda q, k, positions: (_turn(q, positions, 2), k)))
    verdict = report.verdicts[0]
    assert (verdict.bug, verdict.roles) == ("nope", ("key",))


def test_bad_choices_are_refused():
    with pytest.raises(ValueError, match="layout must be one of"):
        from_tables(lambda p, layer: (p, p), layout="neox")
    with pytest.raises(ValueError, match="axes must be one of"):
        from_qk(lambda q, k, p: (q, k), axes="sbhd")
    with pytest.raises(ValueError, match="no model family 'not_a_model'"):
        transformers_rotary({"model_type": "not_a_model"})
