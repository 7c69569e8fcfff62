"""rope_viz.models layer by layer against transformers 5.24: for every family, its own config class
(defaults, 4.x and 5.x files, seeded variations), its own rotary embedding module and the apply
function of its modeling file; never a whole model. Largest differences are printed at the end."""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import math
import random

import pytest
import torch
from transformers import AutoConfig
from transformers.utils import logging as hf_logging

from rope_viz import model_presets, model_rope, preset_info

hf_logging.set_verbosity_error()

MEASURED: dict[str, float] = {}
# transformers computes inv_freq in float32 (relative rounding up to ~3e-6) and angles m * theta in float32
INV_FREQ_RTOL = 3e-6


def _record(family: str, value: float) -> None:
    MEASURED[family] = max(MEASURED.get(family, 0.0), value)


# ----------------------------------------------------------------------------- transformers' side

MODULE_DIRS = {"llama4_text": "llama4", "gemma3_text": "gemma3", "gemma4_text": "gemma4", "qwen3_5_text": "qwen3_5",
               "qwen3_5_moe_text": "qwen3_5_moe", "qwen2_5_vl_text": "qwen2_5_vl", "qwen3_vl_text": "qwen3_vl",
               "qwen3_vl_moe_text": "qwen3_vl_moe", "kimi_k2": "deepseek_v3"}


def hf_text_config(config: dict):
    """transformers' own config object of the language model in `config` (a config.json dict)."""
    kwargs = json.loads(json.dumps({key: value for key, value in config.items() if key != "model_type"}))
    if (kwargs.get("rope_scaling") or {}).get("type") == "su":
        # transformers 5.24 renames "su" only after standardising, then misses original_max_position_embeddings:
        # give it the later name of the same method
        kwargs["rope_scaling"]["type"] = "longrope"
    # Kimi K2's files name no type transformers registers: their auto_map loads DeepseekV3Config
    hf = AutoConfig.for_model({"kimi_k2": "deepseek_v3"}.get(config["model_type"], config["model_type"]), **kwargs)
    return hf.get_text_config()


def modeling(model_type: str):
    name = MODULE_DIRS.get(model_type, model_type)
    return importlib.import_module(f"transformers.models.{name}.modeling_{name}")


def rotary_module(model_type: str, hf):
    module = modeling(model_type)
    cls = next(obj for name, obj in vars(module).items() if name.endswith("RotaryEmbedding") and inspect.isclass(obj)
               and "Vision" not in name and obj.__module__ == module.__name__)
    return module, cls(hf)


def hf_layer_facts(model_type: str, hf, index: int) -> dict:
    """What transformers' modeling code does in layer `index`, read from its config object."""
    kinds = getattr(hf, "layer_types", None)
    kind = kinds[index] if kinds else "full_attention"
    sliding = getattr(hf, "sliding_window", None)
    if not kinds and sliding is not None and model_type in ("mistral", "phi3", "ministral3", "qwen3_moe"):
        kind = "sliding_attention"  # these attend through config.sliding_window in every layer
    rotary = True
    if getattr(hf, "no_rope_layers", None) is not None and model_type in ("llama4_text", "smollm3"):
        rotary = bool(hf.no_rope_layers[index])
    if kind == "linear_attention":
        rotary = False
    window = {"sliding_attention": sliding, "chunked_attention": getattr(hf, "attention_chunk_size", None)}.get(kind)
    if window is not None and hides_no_key(kind, window, hf.max_position_embeddings):
        kind, window = "full_attention", None
    return {"attention": kind, "rotary": rotary, "window": window}


def hides_no_key(kind: str, window: int, context: int) -> bool:
    """Whether transformers' mask of this layer type lets the last position of the context see the first."""
    from transformers import masking_utils

    if kind == "sliding_attention":
        mask = masking_utils.sliding_window_causal_mask_function(window)
    else:
        mask = masking_utils.chunked_causal_mask_function(window, torch.zeros(1, dtype=torch.long))
    return bool(mask(0, 0, torch.tensor(context - 1), torch.tensor(0)))


def hf_rotate(model_type: str, module, rotary, hf, layer, q: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """q (1, heads, seq, head_dim) rotated by transformers' rotary module and apply function of this layer."""
    if model_type == "llama4_text":
        freqs = rotary(q, ids[None])
        out, _ = module.apply_rotary_emb(q.transpose(1, 2), q.transpose(1, 2), freqs)
        return out.transpose(1, 2)
    if model_type in ("deepseek_v3", "deepseek_v32", "deepseek_v2", "kimi_k2"):
        nope = layer.head_dim - layer.rotary_dim
        q_pass, q_rot = q[..., :nope], q[..., nope:]
        if model_type == "deepseek_v2":
            rotated, _ = module.apply_rotary_emb(q_rot, q_rot, rotary(q, ids[None]))
        else:
            cos, sin = rotary(q, ids[None])
            rotated, _ = module.apply_rotary_pos_emb_interleave(q_rot, q_rot, cos, sin)
            # transformers returns the rotated pairs as [evens | odds]; put them back in place
            half = layer.rotary_dim // 2
            back = torch.empty_like(rotated)
            back[..., 0::2], back[..., 1::2] = rotated[..., :half], rotated[..., half:]
            rotated = back
        return torch.cat((q_pass, rotated), dim=-1)
    position_ids = ids[:, None, :] if ids.dim() == 2 else ids[None]
    if layer.mrope_section is not None and ids.dim() == 1:
        position_ids = ids[None, None].expand(3, 1, -1)
    if "layer_type" in inspect.signature(rotary.forward).parameters:
        cos, sin = rotary(q, position_ids, layer_type=layer.attention)
    else:
        cos, sin = rotary(q, position_ids)
    if "k" not in inspect.signature(module.apply_rotary_pos_emb).parameters:  # Gemma 4 rotates one tensor a call
        return module.apply_rotary_pos_emb(q, cos, sin)
    out, _ = module.apply_rotary_pos_emb(q, q, cos, sin)
    return out


def hf_inv_freq(model_type: str, rotary, layer) -> tuple[torch.Tensor, float]:
    if hasattr(rotary, f"{layer.attention}_inv_freq"):
        return (getattr(rotary, f"{layer.attention}_inv_freq").double(),
                float(getattr(rotary, f"{layer.attention}_attention_scaling")))
    return rotary.inv_freq.double(), float(rotary.attention_scaling)


def positions_past_context(model, count: int = 12, seed: int = 0) -> list[int]:
    """0, 1, a few small ones and positions past the original context (up to max_position_embeddings)."""
    rng = random.Random(seed)
    top = min(model.max_position_embeddings or 8192, 1 << 17)
    original = top
    for layer in model.layers:
        if layer.rotary and layer.rope_scaling is not None:
            original = dict(layer.rope_scaling).get("original_max_position_embeddings") or original
    picks = {0, 1, 17, min(original, top - 1), min(original + 5, top - 1), top - 1}
    while len(picks) < count:
        picks.add(rng.randrange(top))
    return sorted(picks)


def check_against_transformers(config: dict, family: str, seed: int = 0) -> None:
    model = model_rope(copy.deepcopy(config))
    hf = hf_text_config(config)
    model_type = model.model_type
    module, rotary = rotary_module(model_type, hf)
    assert len(model.layers) == hf.num_hidden_layers
    gen = torch.Generator().manual_seed(seed)
    ids = torch.tensor(positions_past_context(model, seed=seed))
    checked = set()
    for index, layer in enumerate(model.layers):
        facts = hf_layer_facts(model_type, hf, index)
        ours = {"attention": layer.attention, "rotary": layer.rotary, "window": layer.window}
        assert ours == facts, (family, index)
        assert isinstance(layer.rotary, bool)
        if not layer.rotary:
            assert layer.rope_type is None and layer.base is None and layer.rotary_dim == 0
            x = torch.randn(2, 3, layer.head_dim, generator=gen)
            assert layer.rotate(x, torch.arange(3)) is x
            if any(other.mrope_section is not None for other in model.layers if other.rotary):
                assert layer.rotate(x, torch.arange(3).expand(3, -1)) is x  # the (3, seq) ids the model hands it
            continue
        key = (layer.attention, layer.head_dim)
        if key in checked:
            continue
        checked.add(key)
        ours, factor = layer.inv_freq()
        theirs, their_factor = hf_inv_freq(model_type, rotary, layer)
        assert ours.dtype == torch.float64 and ours.shape == theirs.shape
        nonzero = theirs != 0
        assert torch.equal(ours == 0, ~nonzero)
        rel = ((ours[nonzero] - theirs[nonzero]).abs() / theirs[nonzero]).max().item()
        _record(f"{family} inv_freq (relative)", rel)
        assert rel < INV_FREQ_RTOL, (family, layer.attention, rel)
        assert factor == pytest.approx(their_factor, rel=1e-6)
        # rotate: float64 on both sides for positions up to 64; past the context against float32 transformers
        q = torch.randn(1, 2, len(ids), layer.head_dim, generator=gen, dtype=torch.float64)
        expected = hf_rotate(model_type, module, rotary, hf, layer, q.float(), ids).double()
        got = layer.rotate(q, ids)
        allowed = (ids.double() * 4e-6 + 3e-6)[:, None] * q.abs().amax(dim=-1, keepdim=True) * max(factor, 1.0)
        excess = ((got - expected).abs() - allowed).max().item()
        _record(f"{family} rotate (abs)", (got - expected).abs().max().item())
        assert excess <= 0, (family, layer.attention, excess)
        got32 = layer.rotate(q.float(), ids)
        assert got32.dtype == torch.float32
        assert (((got32.double() - expected).abs()) - allowed).max().item() <= 0
    for index, layer in enumerate(model.layers):  # query scale
        positions = torch.tensor([0, 1, 8191, 8192, 16383, 16384, 40000, 100000])
        scale = layer.query_scale(positions)
        assert scale.dtype == torch.float64
        expected = hf_query_scale(model_type, hf, index, positions)
        torch.testing.assert_close(scale, expected, rtol=1e-6, atol=0)


def hf_query_scale(model_type: str, hf, index: int, positions: torch.Tensor) -> torch.Tensor:
    """The factor transformers' attention multiplies this layer's queries by (its own formulas)."""
    if model_type == "llama4_text" and hf.attn_temperature_tuning and not hf.no_rope_layers[index]:
        return (torch.log1p(torch.floor((positions.float() + 1.0) / hf.floor_scale)) * hf.attn_scale + 1.0).double()
    if model_type == "ministral3":
        module = modeling("ministral3")
        scale = module.get_llama_4_attn_scale(positions[None].float(), hf.rope_parameters.get("llama_4_scaling_beta"),
                                              hf.rope_parameters.get("original_max_position_embeddings"))
        return scale.reshape(-1).double()
    return torch.ones(len(positions), dtype=torch.float64)


# ----------------------------------------------------------------------------- configs per family

def small(**extra):
    return dict(hidden_size=256, num_attention_heads=4, num_key_value_heads=2, intermediate_size=64, vocab_size=128,
                **extra)


def default_config(model_type: str, **text):
    """transformers' default config of a family written out as a 5.x config.json (to_dict), text kwargs applied."""
    outer = {"llama4_text": "llama4", "gemma3_text": "gemma3", "gemma4_text": None, "qwen3_vl_text": "qwen3_vl",
             "qwen3_5_text": "qwen3_5", "ministral3": "mistral3"}.get(model_type)
    if outer:
        text = dict(text, model_type=model_type)
        config = AutoConfig.for_model(outer, text_config=text).to_dict()
    else:
        config = AutoConfig.for_model(model_type, **text).to_dict()
    return json.loads(json.dumps(config))


FAMILY_DEFAULTS = {
    "llama4": ("llama4_text", {}),
    "gemma3": ("gemma3_text", {}),
    "gemma4": ("gemma4_text", {}),
    "smollm3": ("smollm3", {}),
    "qwen3_next": ("qwen3_next", {}),
    "qwen3_5": ("qwen3_5_text", {}),
    "deepseek_v3": ("deepseek_v3", {}),
    "gpt_oss": ("gpt_oss", {}),
    "ministral3": ("ministral3", {}),
    "glm4": ("glm4", {}),
    "glm4_moe": ("glm4_moe", {"head_dim": 128}),  # its default 4096 / 96 heads is no whole head size
    "phi3": ("phi3", {}),
    "qwen2_5_vl": ("qwen2_5_vl", {}),
    "qwen3_vl": ("qwen3_vl_text", {}),
    "qwen3": ("qwen3", {}),
}


@pytest.mark.parametrize("family", FAMILY_DEFAULTS)
def test_transformers_default_config_of_each_family(family):
    model_type, text = FAMILY_DEFAULTS[family]
    check_against_transformers(default_config(model_type, **text), family)


def variations(family: str, rng: random.Random) -> list[dict]:
    """Seeded 4.x-style (rope_theta + rope_scaling) and 5.x-style (rope_parameters) configs of a family."""
    base = rng.choice([1e4, 5e5, 1e6, 2.5e6])
    layers = rng.choice([4, 6, 8, 12])
    context = rng.choice([4096, 8192])
    scaled = rng.choice([
        None,
        {"rope_type": "linear", "factor": rng.choice([2.0, 4.0])},
        {"rope_type": "yarn", "factor": rng.choice([4.0, 8.0]), "original_max_position_embeddings": context},
        {"rope_type": "dynamic", "factor": 2.0},
        {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": rng.choice([1.0, 4.0]),
         "original_max_position_embeddings": context},
    ])
    common = small(num_hidden_layers=layers, max_position_embeddings=4 * context)
    if family == "llama4":
        flags = [rng.randint(0, 1) for _ in range(layers)]
        text = dict(common, model_type="llama4_text", head_dim=64, rope_theta=base, rope_scaling=scaled,
                    no_rope_layers=flags if any(flags) else [], attention_chunk_size=rng.choice([1024, 8192]),
                    attn_scale=rng.choice([0.1, 0.25]), floor_scale=rng.choice([512, 8192]))
        return [{"model_type": "llama4", "text_config": text}]
    if family == "gemma3":
        text4 = dict(common, model_type="gemma3_text", head_dim=64, rope_theta=base, rope_local_base_freq=1e4,
                     sliding_window=rng.choice([512, 1024]), sliding_window_pattern=rng.choice([2, 3, 6]),
                     rope_scaling=scaled and {k: v for k, v in scaled.items() if k != "original_max_position_embeddings"
                                              or scaled["rope_type"] != "dynamic"})
        text5 = dict(common, model_type="gemma3_text", head_dim=64, sliding_window=512,
                     rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
                                      "full_attention": dict(scaled or {"rope_type": "default"}, rope_theta=base)})
        return [{"model_type": "gemma3", "text_config": text4}, text5 | {"model_type": "gemma3_text"}]
    if family == "gemma4":
        kinds = [rng.choice(["sliding_attention", "full_attention"]) for _ in range(layers)]
        text = dict(common, model_type="gemma4_text", head_dim=64, global_head_dim=128, layer_types=kinds,
                    rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
                                     "full_attention": {"rope_type": "proportional", "rope_theta": base,
                                                        "partial_rotary_factor": rng.choice([0.25, 0.5])}})
        return [text]
    if family == "smollm3":
        flags = [rng.randint(0, 1) for _ in range(layers)]
        return [dict(common, model_type="smollm3", rope_theta=base, rope_scaling=scaled, no_rope_layers=flags,
                     use_sliding_window=rng.choice([False, True]), sliding_window=rng.choice([None, 2048]))]
    if family in ("qwen3_next", "qwen3_5"):
        model_type = "qwen3_next" if family == "qwen3_next" else "qwen3_5_text"
        fraction = rng.choice([0.25, 0.5, 1.0])
        params = {"rope_type": "default", "rope_theta": base, "partial_rotary_factor": fraction}
        if family == "qwen3_5":
            params["mrope_section"] = [4, 2, 2] if fraction == 0.25 else [6, 5, 5]
        config = dict(common, model_type=model_type, head_dim=64, full_attention_interval=rng.choice([2, 4]),
                      rope_parameters=params)
        return [config if family == "qwen3_next" else {"model_type": "qwen3_5", "text_config": config}]
    if family == "deepseek_v3":
        rope = rng.choice([16, 32, 64])
        yarn = {"type": "yarn", "factor": rng.choice([4, 40]), "original_max_position_embeddings": context,
                "mscale": 1.0, "mscale_all_dim": rng.choice([0.0, 0.707, 1.0]), "beta_fast": 32, "beta_slow": 1}
        return [dict(common, model_type="deepseek_v3", qk_rope_head_dim=rope, qk_nope_head_dim=rng.choice([32, 128]),
                     v_head_dim=64, kv_lora_rank=128, q_lora_rank=64, rope_theta=base,
                     rope_interleave=rng.choice([True, False]), rope_scaling=rng.choice([None, yarn]))]
    if family == "gpt_oss":
        return [dict(common, model_type="gpt_oss", head_dim=64, sliding_window=rng.choice([128, 256]),
                     rope_parameters={"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                                      "truncate": rng.choice([False, True]), "original_max_position_embeddings": 4096,
                                      "rope_theta": 150000.0}, max_position_embeddings=131072)]
    if family == "ministral3":
        params = {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": context, "beta_fast": 32.0,
                  "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0, "rope_theta": base,
                  "llama_4_scaling_beta": rng.choice([0.1, 0.3])}
        return [{"model_type": "mistral3", "text_config": dict(common, model_type="ministral3", head_dim=64,
                                                                  rope_parameters=params)}]
    if family in ("glm4", "glm4_moe", "phi3"):
        fraction = rng.choice([0.5, 0.75, 1.0])
        if family == "phi3":  # Phi-3's config takes LongRoPE or nothing
            half = int(64 * fraction) // 2
            scaled = rng.choice([None, {"type": "longrope", "short_factor": [rng.uniform(1, 2) for _ in range(half)],
                                        "long_factor": [rng.uniform(1, 40) for _ in range(half)]}])
            return [dict(common, model_type=family, rope_theta=base, partial_rotary_factor=fraction,
                         rope_scaling=scaled, original_max_position_embeddings=context,
                         sliding_window=rng.choice([None, 2047]))]
        return [dict(common, model_type=family, head_dim=64, rope_theta=base, partial_rotary_factor=fraction,
                     rope_scaling=scaled if scaled is None or scaled["rope_type"] != "llama3" else None)]
    if family == "qwen2_5_vl":
        return [dict(common, model_type="qwen2_5_vl", rope_theta=base,
                     rope_scaling={"type": "mrope", "mrope_section": [8, 12, 12]})]
    if family == "qwen3_vl":
        section = rng.choice([[12, 10, 10], [8, 12, 12]])
        params = {"rope_type": "default", "rope_theta": base, "mrope_section": section}
        text = dict(common, model_type="qwen3_vl_text", head_dim=64, rope_parameters=params)
        return [{"model_type": "qwen3_vl", "text_config": text}]
    if family == "qwen3":
        return [dict(common, model_type="qwen3", head_dim=64, rope_theta=base, rope_scaling=scaled,
                     use_sliding_window=rng.choice([False, True]), sliding_window=1024, max_window_layers=layers // 2)]
    raise AssertionError(family)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("family", FAMILY_DEFAULTS)
def test_seeded_variations_of_each_family(family, seed):
    for config in variations(family, random.Random(1000 * seed + len(family))):
        check_against_transformers(config, family, seed)


# ----------------------------------------------------------------------------- presets

PRESETS = list(model_presets())


# GPT-J and BERT are checked in test_models; DeepSeek-V4 and the other 2026 families in test_model_families
@pytest.mark.parametrize("name", [n for n in PRESETS if preset_info(n)["config"]["model_type"]
                                  not in ("gptj", "bert", "deepseek_v4", "nemotron_h", "mimo_v2_flash",
                                          "glm_moe_dsa", "minimax_m2", "step3p7", "laguna")])
def test_every_preset_against_transformers(name):
    check_against_transformers(preset_info(name)["config"], preset_info(name)["config"]["model_type"])


def test_presets_read_their_published_values():
    scout = model_presets()["meta-llama/Llama-4-Scout-17B-16E"]
    assert [layer.rotary for layer in scout.layers[:4]] == [True, True, True, False]
    assert sum(layer.rotary for layer in scout.layers) == 36
    assert {layer.attention for layer in scout.layers if layer.rotary} == {"chunked_attention"}
    assert {layer.window for layer in scout.layers if layer.rotary} == {8192}
    assert scout.layout == "interleaved" and scout.rope_type == "llama3"
    gemma = model_presets()["google/gemma-3-1b-it"]
    assert [layer.base for layer in gemma.layers[:6]] == [1e4] * 5 + [1e6]
    assert [layer.window for layer in gemma.layers[:6]] == [512] * 5 + [None]
    phi = model_presets()["microsoft/Phi-4-mini-instruct"]
    assert (phi.head_dim, phi.rotary_dim, phi.rope_type) == (128, 96, "longrope")
    # sliding_window 262,144 over 131,072 positions: transformers' sliding mask hides nothing
    assert {(layer.attention, layer.window) for layer in phi.layers} == {("full_attention", None)}
    ministral = model_presets()["mistralai/Ministral-3-3B-Reasoning-2512"]
    assert ministral.layers[0].query_scale([0, 16383, 16384]).tolist() == pytest.approx(
        [1.0, 1.0, 1 + 0.1 * math.log(2)])
    deepseek = model_presets()["DeepSeek-V3"]
    assert (deepseek.head_dim, deepseek.rotary_dim, deepseek.layers[0].rotated_from) == (192, 64, 128)
    mscale = 0.1 * 1.0 * math.log(40) + 1
    assert deepseek.latent.softmax_scale == pytest.approx(192 ** -0.5 * mscale ** 2, rel=1e-12)
    assert (deepseek.latent.cached_per_token, deepseek.latent.uncompressed_per_token) == (576, 128 * (192 + 128))
    bert = model_presets()["Snowflake/snowflake-arctic-embed-m"]
    assert not bert.has_rope and len(bert.layers) == 12 and bert.base is None
    with pytest.raises(ValueError, match="no rotary layer"):
        bert.inv_freq()


def test_mla_softmax_scale_matches_transformers():
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import yarn_apply_mscale

    for name in ("DeepSeek-V3", "deepseek-ai/DeepSeek-V2-Lite"):
        hf = hf_text_config(preset_info(name)["config"])
        expected = yarn_apply_mscale(hf.rope_parameters, (hf.qk_nope_head_dim + hf.qk_rope_head_dim) ** -0.5)
        assert model_presets()[name].latent.softmax_scale == pytest.approx(expected, rel=1e-12)


def test_mrope_layers_take_three_axis_ids_like_transformers():
    config = variations("qwen3_vl", random.Random(5))[0]
    model = model_rope(config)
    hf = hf_text_config(config)
    module, rotary = rotary_module("qwen3_vl_text", hf)
    layer = model.layers[0]
    ids = torch.tensor([[0, 1, 2, 2, 2, 2, 4], [0, 1, 2, 2, 3, 3, 4], [0, 1, 2, 3, 2, 3, 4]])
    q = torch.randn(1, 2, 7, layer.head_dim, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    expected = hf_rotate("qwen3_vl_text", module, rotary, hf, layer, q.float(), ids).double()
    torch.testing.assert_close(layer.rotate(q, ids), expected, rtol=0, atol=1e-5)
    # Text-only ids: one row is read as three equal rows, as transformers does
    torch.testing.assert_close(layer.rotate(q, ids[0]), layer.rotate(q, ids[0].expand(3, -1)), rtol=0, atol=0)


# ----------------------------------------------------------------------------- broken configs

def llama4(**text):
    return {"model_type": "llama4", "text_config": dict(small(num_hidden_layers=4), model_type="llama4_text", **text)}


@pytest.mark.parametrize("config,match", [
    (llama4(no_rope_layers=[1, 1, 0]), "no_rope_layers"),
    (llama4(no_rope_layers="1110"), "no_rope_layers"),
    (dict(small(num_hidden_layers=2), model_type="qwen3", layer_types=["full_attention", "mamba2"]), "layer_types"),
    (dict(small(num_hidden_layers=2), model_type="qwen3", layer_types=["full_attention"]), "layer_types"),
    (dict(small(num_hidden_layers=2), model_type="llama",
          rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}), "no layer has"),
    (dict(small(num_hidden_layers=2), model_type="qwen2_5_vl",
          rope_scaling={"type": "mrope", "mrope_section": [16, 16, 16]}), "mrope_section"),
    (dict(small(num_hidden_layers=2), model_type="llama",
          rope_scaling={"rope_type": "yarn", "original_max_position_embeddings": 2048}), "factor"),
    (dict(small(num_hidden_layers=2), model_type="mistral", sliding_window=-4096), "sliding_window"),
    (dict(small(num_hidden_layers=2), model_type="glm4", partial_rotary_factor=0.3), "even"),
    (dict(small(num_hidden_layers=2), model_type="llama", partial_rotary_factor=0.5,
          rope_scaling={"rope_type": "linear", "factor": 2.0}), "partial_rotary_factor"),
    ({"model_type": "mistral3", "text_config": dict(small(num_hidden_layers=2), model_type="ministral3",
                                                     rope_parameters={"rope_type": "default"})},
     "llama_4_scaling_beta"),
    (dict(small(num_hidden_layers=2), model_type="gemma4_text",
          rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}), "full_attention"),
    (dict(small(num_hidden_layers=2), model_type="qwen3", num_hidden_layers=0), "num_hidden_layers"),
    (dict(small(num_hidden_layers=2), model_type="phi3", rope_scaling={"rope_type": "linear", "factor": 2.0}),
     "rope_type"),
    ({"model_type": "llama4", "text_config": [1, 2]}, "text_config"),
])
def test_broken_configs_raise_value_error_naming_the_key(config, match):
    with pytest.raises(ValueError, match=match):
        model_rope(config)


def test_transformers_refuses_or_breaks_on_the_same_configs():
    """The refusals above follow transformers: each of these fails there too."""
    with pytest.raises(KeyError, match="factor"):
        AutoConfig.for_model("llama", **small(num_hidden_layers=2),
                             rope_scaling={"rope_type": "yarn", "original_max_position_embeddings": 2048})
    with pytest.raises(Exception, match="layer_types"):
        AutoConfig.for_model("qwen3", **small(num_hidden_layers=2), layer_types=["full_attention", "mamba2"])
    with pytest.raises(Exception, match="num_hidden_layers"):  # its layer types come from no_rope_layers
        AutoConfig.for_model("llama4_text", **small(num_hidden_layers=4), no_rope_layers=[1, 1, 0])
    with pytest.raises(Exception, match="longrope"):
        AutoConfig.for_model("phi3", **small(num_hidden_layers=2), rope_scaling={"rope_type": "linear", "factor": 2.0})
    bad = AutoConfig.for_model("qwen2_5_vl", **small(num_hidden_layers=2),
                               rope_scaling={"type": "mrope", "mrope_section": [16, 16, 16]}).get_text_config()
    _, rotary = rotary_module("qwen2_5_vl_text", bad)
    with pytest.raises(RuntimeError):  # the sections split head_dim / 2 = 32 frequencies
        rotary(torch.zeros(1, 1, 4, 64), torch.arange(4).expand(3, 1, -1))


def test_odd_configs_transformers_accepts_are_accepted():
    scout_like = llama4(rope_scaling={"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                                      "high_freq_factor": 1.0, "original_max_position_embeddings": 8192},
                        max_position_embeddings=65536)
    check_against_transformers(scout_like, "llama4")
    params = {"rope_type": "default", "rope_theta": 1e4, "mrope_section": [30, 1, 40]}
    text = dict(small(num_hidden_layers=2), model_type="qwen3_vl_text", head_dim=64, rope_parameters=params)
    odd_sections = {"model_type": "qwen3_vl", "text_config": text}
    check_against_transformers(odd_sections, "qwen3_vl")


def test_gemma4_forces_its_last_layer_to_full_attention():
    kinds = ["sliding_attention"] * 4
    config = dict(small(num_hidden_layers=4), model_type="gemma4_text", head_dim=64, global_head_dim=128,
                  layer_types=kinds)
    model = model_rope(config)
    assert [layer.attention for layer in model.layers] == ["sliding_attention"] * 3 + ["full_attention"]
    assert model.layers[-1].rope_type == "proportional" and model.layers[-1].head_dim == 128
    assert model.layers[-1].rotary_dim == 32 and model.layers[0].rotary_dim == 64
    check_against_transformers(config, "gemma4")


def test_report_measured_differences(capsys):
    with capsys.disabled():
        for key in sorted(MEASURED):
            print(f"\n  largest difference vs transformers 5.24, {key}: {MEASURED[key]:.3g}", end="")


def test_family_defaults_are_transformers_config_defaults():
    """FAMILIES' defaults (for keys hub files omit) equal the defaults of transformers' config classes."""
    import dataclasses

    from rope_viz.models import FAMILIES

    for model_type, family in FAMILIES.items():
        if family.defaults_source:  # a type transformers does not know: its own test checks them at the source
            with pytest.raises(ValueError):
                AutoConfig.for_model(family.follows or model_type)
            continue
        if not family.defaults:
            continue
        hf = AutoConfig.for_model(family.follows or model_type)  # Kimi K2 runs V3's code, MiniMax-M3 its VL text
        fields = {f.name: f.default for f in dataclasses.fields(type(hf))}
        for key, value in family.defaults.items():
            if key == "rope_theta" and "rope_theta" in hf.rope_parameters:  # DeepSeek-V4 keys it by label
                expected = hf.rope_parameters["rope_theta"]
            elif key == "global_head_dim":  # Gemma 4 pops it from the keyword arguments with default 512
                expected = 512
            elif key == "first_k_dense_replace":  # Cohere2-MoE pops it from the keyword arguments with default 0
                expected = 0
            elif key == "no_rope_layer_interval" and key not in fields:  # Mistral Large 4 pops it, default 4
                expected = 4
            elif key == "rope_parameters":  # Mistral Large 4 fills it in __post_init__, Apertus 1.5 builds it
                expected = hf.rope_parameters
            else:
                expected = fields[key]
            assert value == expected, (model_type, key, value, expected)


def test_odd_values_in_the_per_layer_keys_raise_value_error_only():
    """Seeded random configs mixing the per-layer keys with values of every wrong kind: model_rope and every
    layer's rotate / query_scale / inv_freq either work or raise ValueError, never anything else."""
    values = [None, 0, 1, 3, -1, 64, 0.25, 1.5, True, "x", "full_attention", [], [0, 1], [1, 1, 0, 1], {},
              {"rope_type": "yarn"}, 2 ** 40, ["sliding_attention", "full_attention"], [16, 24, 24],
              {"full_attention": {"rope_type": "default"}}, {"sliding_attention": None},
              {"rope_type": "proportional", "partial_rotary_factor": 0.1}]
    keys = ["model_type", "layer_types", "no_rope_layers", "sliding_window", "attention_chunk_size",
            "rope_parameters", "rope_scaling", "qk_rope_head_dim", "qk_nope_head_dim", "partial_rotary_factor",
            "global_head_dim", "attn_scale", "floor_scale", "attn_temperature_tuning", "head_dim",
            "use_sliding_window", "max_window_layers", "sliding_window_pattern", "full_attention_interval",
            "no_rope_layer_interval", "rope_theta", "rope_local_base_freq", "kv_lora_rank", "text_config",
            "position_embedding_type", "rope_interleave"]
    types = ["llama4_text", "gemma3_text", "gemma4_text", "smollm3", "qwen3_next", "qwen3_5_text", "deepseek_v3",
             "gpt_oss", "ministral3", "glm4", "phi3", "qwen2_5_vl", "qwen3_vl_text", "qwen3", "llama4", "mistral3"]
    rng = random.Random(27)
    accepted = 0
    for _ in range(1500):
        config = small(num_hidden_layers=rng.choice([2, 4]), model_type=rng.choice(types))
        for key in rng.sample(keys, rng.randint(1, 4)):
            value = rng.choice(values)
            config[key] = dict(config, **value) if key == "text_config" and isinstance(value, dict) else value
        try:
            model = model_rope(config)
            for layer in model.layers:
                layer.rotate(torch.randn(2, layer.head_dim), [0, 70000])
                layer.query_scale([0, 70000])
            accepted += 1
        except ValueError:
            pass
    assert 100 < accepted < 1500  # both outcomes were exercised


def test_model_level_values_describe_the_first_rotary_full_attention_layer():
    gemma = model_presets()["google/gemma-3-1b-it"]
    assert gemma.base == 1e6 and gemma.reference_layer.index == 5  # layers 0-4 slide at base 10,000
    torch.testing.assert_close(gemma.inv_freq()[0], gemma.layers[5].inv_freq()[0], rtol=0, atol=0)
    scout = model_presets()["meta-llama/Llama-4-Scout-17B-16E"]  # its full-attention layers have no RoPE
    assert scout.reference_layer.index == 0 and scout.reference_layer.attention == "chunked_attention"


def test_kimi_k2_reads_as_deepseek_v3():
    """Kimi K2's config.json names model_type kimi_k2 and runs DeepSeek-V3's modeling code."""
    config = preset_info("DeepSeek-V3")["config"]
    kimi = model_rope(dict(config, model_type="kimi_k2"))
    deepseek = model_rope(config)
    assert kimi.layers == deepseek.layers and kimi.latent == deepseek.latent
    assert kimi.family == deepseek.family == "deepseek_v3"  # the code transformers runs for it
