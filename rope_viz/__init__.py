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

The top level holds the primitives: frequencies and their scaling, tables and their application, apply_rope,
the readers of a model's RoPE and the real models. Beside it, each name public in one place:
`rope_viz.analysis` (the measurements behind the app's pages), `rope_viz.axial` and `rope_viz.mrope` (RoPE over
image and video positions), `rope_viz.biases` (ALiBi, T5, xPos, NoPE), `rope_viz.sinusoidal`, `rope_viz.models`,
`rope_viz.real`, `rope_viz.long_context`, `rope_viz.device` and `rope_viz.toy` (not imported by `import rope_viz`).

No allocation budget applies by default: set_max_elements(n) bounds every tensor the core builds to n
elements, for the whole process, as the app does for its server (ROPE_VIZ_MAX_ELEMENTS overrides it).
"""

from . import analysis, axial, biases, device, mrope, sinusoidal  # noqa: F401 - rope_viz.analysis.x after import rope_viz
from ._checks import LAYOUTS, max_elements, set_max_elements
from .embedding import RotaryEmbedding, apply_rotary, rotary_tables
from .frequencies import angles, inv_freq, layout_permutation, pair_indices, wavelengths
from .models import LatentAttention, LayerRoPE, ModelRoPE, model_presets, model_rope, preset, preset_info
from .real import real_model
from .rotary import METHODS, apply_rope, apply_rope_qk, rotation_matrices, rotation_matrix
from .scaling import ROPE_SCALINGS, ROPE_TYPES, scaled_inv_freq

__all__ = [
    "LAYOUTS", "max_elements", "set_max_elements",
    "angles", "inv_freq", "layout_permutation", "pair_indices", "wavelengths",
    "ROPE_SCALINGS", "ROPE_TYPES", "scaled_inv_freq",
    "RotaryEmbedding", "apply_rotary", "rotary_tables",
    "METHODS", "apply_rope", "apply_rope_qk", "rotation_matrices", "rotation_matrix",
    "LatentAttention", "LayerRoPE", "ModelRoPE", "model_presets", "model_rope", "preset", "preset_info",
    "real_model",
]
