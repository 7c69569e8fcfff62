"""The RoPE of real models, layer by layer, read from their config.json as transformers runs it.

`model_rope(config)` turns a Hugging Face config (a dict, or its JSON text; transformers 4.x
`rope_theta` + `rope_scaling` or 5.x `rope_parameters`, flat or keyed by layer type; a multimodal
config's `text_config` is the one read) into a `ModelRoPE` whose `layers` hold one `LayerRoPE` per
decoder layer: its attention (full, sliding window, chunked, linear), whether it rotates at all
(NoPE and linear-attention layers do not), its base, scaling, head and rotated sizes, pair layout,
multimodal sections and the factor its queries are multiplied by. `preset(name)` gives the shipped
presets (rope_viz/data/model_configs.json: each model's published config.json, with its source).

    m = rope_viz.preset("Llama-4-Scout-17B-16E-Instruct")
    layer = m.layers[3]                       # a NoPE layer with global attention
    layer.rotary, layer.attention             # False, "full_attention"
    layer.query_scale(positions)              # Llama 4's temperature on its NoPE layers
    m.layers[0].rotate(q, positions)          # exactly the model's rotation of q in layer 0
    inv_freq, attention_factor = m.inv_freq(seq_len=32768)   # the first rotary full-attention layer
    v4 = rope_viz.preset("nvidia/DeepSeek-V4-Flash-NVFP4").layers[2]   # blocks of 4 tokens per key
    v4.compressed_positions(21)               # 0, 4, 8, 12, 16: each key turns at its block's first position
    v4.shared_output(q, kv, 21, keys)         # keys = values, the output turned back by the query's angle

Each family's own modeling code in transformers 5.24 decides what a key means (rope_viz.models.families.FAMILIES): plain
Llama and Qwen3 ignore `partial_rotary_factor` while GLM, Phi-3 and Qwen3.5 honour it; Llama 4, GLM
and DeepSeek pair neighbouring dims; `no_rope_layers` holds 1 where a layer *uses* RoPE.
"""

from .config import ATTENTION_KINDS, GENERIC, MAX_CONFIG_BYTES, Family
from .families import FAMILIES, NO_ROPE_MODEL_TYPES, family_of
from .layers import LatentAttention, LayerRoPE, ModelRoPE
from .presets import find_preset, model_presets, preset, preset_info, preset_repo
from .reading import model_rope

__all__ = ["ATTENTION_KINDS", "FAMILIES", "GENERIC", "MAX_CONFIG_BYTES", "NO_ROPE_MODEL_TYPES", "Family",
           "LatentAttention", "LayerRoPE", "ModelRoPE", "family_of", "find_preset", "model_presets", "model_rope",
           "preset", "preset_info", "preset_repo"]
