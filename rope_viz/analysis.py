"""The measurements behind RoPE Explorer's pages, built on the primitives at `rope_viz`'s top level::

    import rope_viz
    from rope_viz import analysis

    x = analysis.random_tokens(16, 64, same=True)                          # one token repeated
    scores = analysis.encoded_scores(x, torch.eye(64), torch.eye(64))      # RoPE scores (seq, seq)
    analysis.toeplitz_deviation(scores)                                    # ~0: they depend only on m - n

Attention scores under RoPE, the sinusoidal encoding and none, and what tells them apart (shift residual,
Toeplitz deviation, the four-term split, linear attention); RoFormer's long-term decay bound beside a measured
decay; the angle error of dtype recipes at far positions; the score-versus-distance curve of each encoding.
Each function is defined in its own module (rope_viz.attention, .decay, .precision, .biases, .frequencies) and
is public here only.
"""

from .attention import (ENCODINGS, additive_decomposition, attention_costs, attention_weights, depends_only_on_offset,
                        diagonal_profile, dot_product_scale, encoded_norms, encoded_scores, linear_attention,
                        random_attention_inputs, random_projections, random_tokens, rope_scores, shift_residual,
                        softmax_attention, toeplitz_deviation)
from .biases import PROFILE_ENCODINGS, distance_profile
from .decay import count_rises, decay_bound, distance_grid, empirical_decay
from .frequencies import wrapped_angles
from .precision import (RECIPES, applied_rotation, distinct_rotations, exact_angles, norm_error, position_limits,
                        precision_error, recipe_scores, score_error, spacing, worst_angle_errors)

__all__ = [
    "ENCODINGS", "additive_decomposition", "attention_costs", "attention_weights", "depends_only_on_offset",
    "diagonal_profile", "dot_product_scale", "encoded_norms", "encoded_scores", "linear_attention",
    "random_attention_inputs", "random_projections", "random_tokens", "rope_scores", "shift_residual",
    "softmax_attention", "toeplitz_deviation",
    "PROFILE_ENCODINGS", "distance_profile",
    "count_rises", "decay_bound", "distance_grid", "empirical_decay",
    "wrapped_angles",
    "RECIPES", "applied_rotation", "distinct_rotations", "exact_angles", "norm_error", "position_limits",
    "precision_error", "recipe_scores", "score_error", "spacing", "worst_angle_errors",
]
