"""rope_viz: Rotary Position Embedding (RoPE) and its comparison encodings in PyTorch.

Everything the RoPE Explorer app shows is computed here: math and its fast paths only, with torch and
numpy as the only requirements (no Streamlit, no Plotly, no clocks). `pip install .` in the repository
installs it on its own, for a notebook::

    import torch, rope_viz
    q = torch.randn(8, 64)
    cos, sin = rope_viz.rotary_tables(torch.arange(8), 64)            # tables once...
    q_rot = rope_viz.apply_rotary(q, cos, sin, layout="half")         # ...then apply: Hugging Face's pairs
    rope = rope_viz.RotaryEmbedding(64, layout="half")                # the same as an nn.Module
    q_rot = rope_viz.apply_rope(q, layout="half")                     # one call: positions 0..7
"""

from ._checks import max_elements
from .attention import (ENCODINGS, additive_decomposition, attention_costs, attention_weights, depends_only_on_offset,
                        diagonal_profile, dot_product_scale, encoded_norms, encoded_scores, linear_attention,
                        random_attention_inputs, random_projections, random_tokens, rope_scores, shift_residual,
                        softmax_attention, toeplitz_deviation)
from .axial import (AXIAL_FREQUENCIES, apply_axial_rope, apply_mixed_rope, axial_angles, axial_frequencies,
                    mixed_angles, mixed_frequencies, patch_grid, rotate_pairs)
from .biases import (PROFILE_ENCODINGS, alibi_bias, alibi_slopes, apply_nope, apply_xpos, distance_profile, t5_bias,
                     t5_bucket_matrix, t5_relative_position_bucket, xpos_scales, xpos_zeta)
from .decay import count_rises, decay_bound, distance_grid, empirical_decay
from .device import describe, get_device, to_numpy
from .embedding import RotaryEmbedding, apply_rotary, rotary_tables
from .frequencies import angles, inv_freq, layout_permutation, pair_indices, wavelengths, wrapped_angles
from .models import LatentAttention, LayerRoPE, ModelRoPE, model_presets, model_rope, preset, preset_info
from .mrope import MROPE_SECTION, apply_mrope, mrope_angles, mrope_axes, mrope_position_ids
from .precision import (RECIPES, applied_rotation, distinct_rotations, exact_angles, norm_error, position_limits,
                        precision_error, recipe_scores, score_error, spacing, worst_angle_errors)
from .real import real_model
from .rotary import METHODS, apply_rope, apply_rope_qk, rotation_matrices, rotation_matrix
from .scaling import ROPE_SCALINGS, ROPE_TYPES, scaled_inv_freq
from .sinusoidal import sinusoidal_at, sinusoidal_encoding

__all__ = [
    "RotaryEmbedding", "apply_rotary", "rotary_tables",
    "ENCODINGS", "METHODS", "additive_decomposition", "angles", "apply_rope", "apply_rope_qk", "attention_costs",
    "attention_weights", "count_rises", "distance_grid",
    "decay_bound", "describe", "diagonal_profile", "empirical_decay", "encoded_scores", "get_device",
    "inv_freq", "layout_permutation", "linear_attention", "max_elements", "pair_indices",
    "random_tokens", "rope_scores", "rotation_matrices", "rotation_matrix",
    "shift_residual", "sinusoidal_at", "sinusoidal_encoding", "softmax_attention",
    "to_numpy", "toeplitz_deviation", "wavelengths", "wrapped_angles",
    "depends_only_on_offset", "dot_product_scale", "encoded_norms", "random_projections",
    "random_attention_inputs",
    "LatentAttention", "LayerRoPE", "ModelRoPE", "ROPE_SCALINGS", "ROPE_TYPES", "model_presets", "model_rope",
    "preset", "preset_info", "real_model",
    "scaled_inv_freq",
    "RECIPES", "applied_rotation", "distinct_rotations", "exact_angles", "norm_error", "position_limits",
    "precision_error", "recipe_scores", "score_error", "spacing", "worst_angle_errors",
    "AXIAL_FREQUENCIES", "apply_axial_rope", "apply_mixed_rope", "axial_angles", "axial_frequencies",
    "mixed_angles", "mixed_frequencies", "patch_grid", "rotate_pairs",
    "PROFILE_ENCODINGS", "alibi_bias", "alibi_slopes", "apply_nope", "apply_xpos", "distance_profile",
    "t5_bias", "t5_bucket_matrix", "t5_relative_position_bucket", "xpos_scales", "xpos_zeta",
    "MROPE_SECTION", "apply_mrope", "mrope_angles", "mrope_axes", "mrope_position_ids",
]
