"""rope_viz's public shape: primitives at the top level, the pages' measurements in rope_viz.analysis, each
name public in one of the two only."""

import types

import rope_viz
from rope_viz import analysis


def _public(module) -> set[str]:
    return {name for name in dir(module) if not name.startswith("_")
            and not isinstance(getattr(module, name), types.ModuleType)}


def test_the_top_level_holds_its_declared_primitives_only():
    assert _public(rope_viz) == set(rope_viz.__all__)
    for name in ("inv_freq", "wavelengths", "ROPE_SCALINGS", "scaled_inv_freq", "rotary_tables", "apply_rotary",
                 "RotaryEmbedding", "apply_rope", "ModelRoPE", "LayerRoPE", "real_model", "set_max_elements"):
        assert name in rope_viz.__all__


def test_the_analyses_are_public_in_rope_viz_analysis_only():
    assert _public(analysis) == set(analysis.__all__)
    assert not set(analysis.__all__) & set(rope_viz.__all__)
    for name in ("count_rises", "distance_grid", "dot_product_scale", "toeplitz_deviation", "decay_bound",
                 "precision_error", "distance_profile"):
        assert name in analysis.__all__ and not hasattr(rope_viz, name)
