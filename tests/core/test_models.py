"""rope_viz.models: every preset against transformers' own config classes and rotary embeddings,
and malformed configs rejected with ValueError."""

from __future__ import annotations

import json
import math

import pytest
import torch
from transformers import AutoConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.deepseek_v3.modeling_deepseek_v3 import (DeepseekV3RotaryEmbedding,
                                                                  apply_rotary_pos_emb_interleave)
from transformers.models.gemma.modeling_gemma import GemmaRotaryEmbedding
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding
from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb as gptj_apply_rotary_pos_emb
from transformers.models.gptj.modeling_gptj import create_sinusoidal_positions
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb
from transformers.models.mistral.modeling_mistral import MistralRotaryEmbedding
from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding
from transformers.models.qwen2.modeling_qwen2 import Qwen2RotaryEmbedding
from transformers.utils import logging as hf_logging

from rope_viz import ModelRoPE, model_presets, model_rope, preset, preset_info
from rope_viz.models import MAX_CONFIG_BYTES

hf_logging.set_verbosity_error()

ROTARY_CLASSES = {
    "llama": LlamaRotaryEmbedding, "mistral": MistralRotaryEmbedding, "qwen2": Qwen2RotaryEmbedding,
    "gemma": GemmaRotaryEmbedding, "phi3": Phi3RotaryEmbedding, "gpt_neox": GPTNeoXRotaryEmbedding,
    "deepseek_v3": DeepseekV3RotaryEmbedding,
}
ORIGINAL = ["Llama-2-7b-hf", "Meta-Llama-3-8B", "Llama-3.1-8B", "Mistral-7B-v0.1", "Mistral-7B-v0.3", "Qwen2.5-7B",
            "Qwen2.5-7B-Instruct + YaRN", "DeepSeek-V3", "Phi-3-mini-128k-instruct (April 2024 release)",
            "Phi-3-mini-128k-instruct (July 2024 update)", "gpt-neox-20b", "gpt-j-6b", "gemma-7b"]
REQUIRED = {"Llama-2-7b-hf", "Meta-Llama-3-8B", "Llama-3.1-8B", "Mistral-7B-v0.1", "Mistral-7B-v0.3", "Qwen2.5-7B",
            "Qwen2.5-7B-Instruct + YaRN", "DeepSeek-V3", "Phi-3-mini-128k-instruct (April 2024 release)",
            "gpt-neox-20b", "gpt-j-6b", "gemma-7b"}
NAMES = list(model_presets())


def hf_config_of(name):
    config = preset_info(name)["config"]
    model_type = config["model_type"]
    kwargs = json.loads(json.dumps({key: value for key, value in config.items() if key != "model_type"}))
    if (kwargs.get("rope_scaling") or {}).get("type") == "su":
        # transformers 5.23 renames "su" to "longrope" only after standardising, then raises KeyError
        # for the missing original_max_position_embeddings: give it the July 2024 name of the same method.
        kwargs["rope_scaling"]["type"] = "longrope"
    return AutoConfig.for_model(model_type, **kwargs)


def test_presets_cover_the_required_models_and_cite_their_source():
    assert REQUIRED <= set(NAMES) and set(ORIGINAL) <= set(NAMES)
    assert len(set(NAMES) - set(ORIGINAL)) >= 10
    for name in NAMES:
        info = preset_info(name)
        assert info["checked"]
        if info["source"].startswith(("https://github.com/ai-dynamo/aiconfigurator/blob/",
                                      "https://github.com/xiaowanCN/aiconfigurator/blob/")):
            # the 2026 presets: a verbatim copy in aiconfigurator (or a fork of it) at a fixed commit, named after
            # the hub repository it copies
            commit, path = info["source"].split("/blob/")[1].split("/", 1)
            assert len(commit) == 40 and path.endswith(name.replace("/", "--") + "_config.json")
            assert "Apache-2.0" in info["licence"]
            continue
        assert info["source"].startswith("https://huggingface.co/") and info["source"].endswith("/config.json")
        if "/" in name:  # the newer presets are named after the exact hub repository they copy
            assert info["source"] == f"https://huggingface.co/{name}/blob/main/config.json"


@pytest.mark.parametrize("name", [n for n in ORIGINAL if preset_info(n)["config"]["model_type"] != "gptj"])
def test_preset_frequencies_match_transformers_rotary_embedding(name):
    model = preset(name)
    config = hf_config_of(name)
    rotary = ROTARY_CLASSES[config.model_type](config)
    ours, factor = model.inv_freq()
    expected = rotary.inv_freq.double()
    assert ours.shape == expected.shape == (model.rotary_dim // 2,)
    assert ((ours - expected).abs() / expected).max().item() < 3e-6
    assert factor == pytest.approx(float(rotary.attention_scaling), rel=1e-12)
    rope_type = config.rope_parameters["rope_type"]
    if rope_type != "default":  # past the original context (LongRoPE's long factors, dynamic's growth)
        long, long_factor = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=model.max_position_embeddings)
        ours, factor = model.inv_freq(seq_len=model.max_position_embeddings)
        assert ((ours - long.double()).abs() / long.double()).max().item() < 3e-6
        assert factor == pytest.approx(float(long_factor), rel=1e-12)


def test_preset_values_from_their_configs():
    assert (preset("Llama-2-7b-hf").base, preset("Llama-2-7b-hf").max_position_embeddings) == (10000.0, 4096)
    assert preset("Meta-Llama-3-8B").base == 500000.0
    llama31 = preset("Llama-3.1-8B")
    assert llama31.rope_type == "llama3" and dict(llama31.rope_scaling)["factor"] == 8.0
    assert preset("Mistral-7B-v0.3").base == 1e6 and preset("Mistral-7B-v0.1").base == 1e4
    assert preset("Qwen2.5-7B").rope_scaling is None and preset("Qwen2.5-7B").max_position_embeddings == 131072
    deepseek = preset("DeepSeek-V3")
    assert (deepseek.head_dim, deepseek.rotary_dim, deepseek.layout) == (192, 64, "interleaved")
    assert deepseek.inv_freq()[1] == 1.0
    assert preset("Qwen2.5-7B-Instruct + YaRN").inv_freq()[1] == pytest.approx(1 + 0.1 * math.log(4))
    neox = preset("gpt-neox-20b")
    assert (neox.head_dim, neox.rotary_dim, neox.layout) == (96, 24, "half")
    gptj = preset("gpt-j-6b")
    assert (gptj.head_dim, gptj.rotary_dim, gptj.layout, gptj.max_position_embeddings) == (256, 64, "interleaved", 2048)
    assert preset("gemma-7b").head_dim == 256
    phi = preset("Phi-3-mini-128k-instruct (April 2024 release)")
    assert phi.rope_type == "longrope"
    assert phi.inv_freq()[1] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))


POSITIONS = [0, 1, 17, 4095, 4096, 8191, 9000, 20000]


@pytest.mark.parametrize("name", ["Llama-3.1-8B", "Qwen2.5-7B-Instruct + YaRN", "gpt-neox-20b", "gemma-7b",
                                  "Phi-3-mini-128k-instruct (April 2024 release)", "Mistral-7B-v0.3"])
def test_model_apply_matches_transformers_rotary_step(name):
    model = preset(name)
    config = hf_config_of(name)
    rotary = ROTARY_CLASSES[config.model_type](config)
    torch.manual_seed(0)
    q = torch.randn(1, 2, len(POSITIONS), model.head_dim)
    k = torch.randn(1, 2, len(POSITIONS), model.head_dim)
    cos, sin = rotary(q, torch.tensor([POSITIONS]))
    r = model.rotary_dim
    q_rot, k_rot = apply_rotary_pos_emb(q[..., :r], k[..., :r], cos, sin)
    q_hf = torch.cat((q_rot, q[..., r:]), dim=-1)
    k_hf = torch.cat((k_rot, k[..., r:]), dim=-1)
    # HF's float32 angles m * theta carry about m * 2^-24 rad of rounding at m = 20000.
    torch.testing.assert_close(model.apply(q, POSITIONS), q_hf, rtol=0, atol=5e-3)
    torch.testing.assert_close(model.apply(k, POSITIONS, method="pairs"), k_hf, rtol=0, atol=5e-3)
    short = POSITIONS[:3]
    cos, sin = rotary(q, torch.tensor([short]))
    q_rot, _ = apply_rotary_pos_emb(q[..., :3, :r], k[..., :3, :r], cos, sin)
    torch.testing.assert_close(model.apply(q[..., :3, :], short)[..., :r], q_rot, rtol=0, atol=2e-5)


def test_deepseek_v3_apply_matches_transformers_interleaved_step():
    """MLA: the 192-wide head passes its first 128 dims through and rotates the last 64 in neighbouring pairs."""
    model = preset("DeepSeek-V3")
    config = hf_config_of("DeepSeek-V3")
    rotary = DeepseekV3RotaryEmbedding(config)
    torch.manual_seed(1)
    q = torch.randn(1, 2, len(POSITIONS), 192)
    cos, sin = rotary(q, torch.tensor([POSITIONS]))
    q_hf, _ = apply_rotary_pos_emb_interleave(q[..., 128:], q[..., 128:], cos, sin)
    # transformers returns the rotated pairs de-interleaved (half layout); ours keeps the input layout
    ours_q = model.apply(q, POSITIONS)
    half_order = torch.cat((torch.arange(0, 64, 2), torch.arange(1, 64, 2)))
    assert torch.equal(ours_q[..., :128], q[..., :128])
    torch.testing.assert_close(ours_q[..., 128:][..., half_order], q_hf, rtol=0, atol=5e-3)


def test_gptj_apply_matches_transformers_gptj_rotary_code():
    model = preset("gpt-j-6b")
    torch.manual_seed(2)
    positions = [0, 3, 100, 1000, 2047]
    x = torch.randn(1, len(positions), 16, 256)  # GPT-J's (batch, seq, heads, head_dim)
    table = create_sinusoidal_positions(2048, model.rotary_dim)[torch.tensor(positions)].unsqueeze(0)
    sin, cos = torch.split(table, model.rotary_dim // 2, dim=-1)
    rotated = gptj_apply_rotary_pos_emb(x[..., :64], sin, cos)
    expected = torch.cat((rotated, x[..., 64:]), dim=-1)
    ours = model.apply(x.transpose(1, 2), positions).transpose(1, 2)
    torch.testing.assert_close(ours, expected, rtol=0, atol=2e-4)


def test_model_rope_reads_5x_rope_parameters_and_json_text():
    text = json.dumps({"model_type": "phi3", "hidden_size": 512, "num_attention_heads": 4,
                       "max_position_embeddings": 2048,
                       "rope_parameters": {"rope_type": "longrope", "short_factor": [2.0] * 32,
                                           "long_factor": [3.0] * 32, "original_max_position_embeddings": 1024,
                                           "rope_theta": 123456.0, "partial_rotary_factor": 0.5}})
    model = model_rope(text)
    assert (model.head_dim, model.rotary_dim, model.base) == (128, 64, 123456.0)
    assert dict(model.rope_scaling) == {"rope_type": "longrope", "short_factor": (2.0,) * 32,
                                        "long_factor": (3.0,) * 32, "original_max_position_embeddings": 1024}
    inv_freq, _ = model.inv_freq()
    expected = [123456.0 ** (-2 * i / 64) / 2 for i in range(32)]
    assert inv_freq.tolist() == pytest.approx(expected, rel=1e-13)
    assert isinstance(model, ModelRoPE)
    with pytest.raises(AttributeError):  # frozen (dataclasses.FrozenInstanceError is an AttributeError)
        model.base = 1.0


def test_model_rope_with_default_rope_parameters_has_no_scaling():
    model = model_rope({"hidden_size": 64, "num_attention_heads": 2,
                        "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}})
    assert model.rope_scaling is None and model.base == 5e5 and model.layout == "half"


def test_apply_checks_head_size():
    with pytest.raises(ValueError, match="head_dim"):
        preset("gemma-7b").apply(torch.randn(4, 128))


# ----------------------------------------------------------------------------- malformed configs

GOOD = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096}


def with_(**changes):
    config = dict(GOOD)
    for key, value in changes.items():
        if value is ...:
            config.pop(key, None)
        else:
            config[key] = value
    return config


@pytest.mark.parametrize("config,match", [
    ("not json", "JSON"),
    ("{\"hidden_size\": 4096,", "JSON"),
    ("[1, 2, 3]", "JSON object"),
    ("42", "JSON object"),
    ("{\"hidden_size\": NaN, \"num_attention_heads\": 32}", "NaN"),
    ("{\"hidden_size\": Infinity, \"num_attention_heads\": 32}", "Infinity"),
    ("[" * 100000 + "]" * 100000, "config"),
    (" " * (MAX_CONFIG_BYTES + 1), "bytes"),
    (b"\xff\xfe", "UTF-8"),
    (None, "JSON object"),
    (with_(hidden_size=...), "hidden_size"),
    (with_(num_attention_heads=...), "num_attention_heads"),
    (with_(hidden_size=-4096), "hidden_size"),
    (with_(hidden_size=0), "hidden_size"),
    (with_(hidden_size=True), "hidden_size"),
    (with_(hidden_size=4096.0), "hidden_size"),
    (with_(hidden_size="4096"), "hidden_size"),
    (with_(hidden_size=[4096]), "hidden_size"),
    (with_(hidden_size={"value": 4096}), "hidden_size"),
    (with_(hidden_size=1 << 40), "hidden_size"),
    (with_(num_attention_heads=3), "multiple"),
    (with_(head_dim=7), "even"),
    (with_(head_dim=-64), "head_dim"),
    (with_(head_dim=1 << 20), "head_dim"),
    (with_(max_position_embeddings=-1), "max_position_embeddings"),
    (with_(max_position_embeddings=1 << 40), "max_position_embeddings"),
    (with_(max_position_embeddings=float("nan")), "max_position_embeddings"),
    (with_(rope_theta=-10000.0), "rope_theta"),
    (with_(rope_theta=0), "rope_theta"),
    (with_(rope_theta=float("inf")), "rope_theta"),
    (with_(rope_theta=False), "rope_theta"),
    (with_(rope_theta="1e4"), "rope_theta"),
    (with_(partial_rotary_factor=1.5), "partial_rotary_factor"),
    (with_(partial_rotary_factor=0.0), "partial_rotary_factor"),
    (with_(rotary_dim=256), "rotary"),
    (with_(rotary_dim=63), "rotary"),
    (with_(rope_scaling="linear"), "rope_scaling"),
    (with_(rope_scaling={"rope_type": "warp", "factor": 2.0}), "rope_type"),
    (with_(rope_scaling={"rope_type": "linear"}), "factor"),
    (with_(rope_scaling={"rope_type": "linear", "factor": -1}), "factor"),
    (with_(rope_scaling={"rope_type": "linear", "factor": {"x": 1}}), "nested"),
    (with_(rope_scaling={"rope_type": "longrope", "short_factor": [1.0] * 63, "long_factor": [1.0] * 64,
                         "original_max_position_embeddings": 4096}), "short_factor"),
    (with_(rope_scaling={"rope_type": "longrope", "short_factor": [[1.0]] * 64, "long_factor": [1.0] * 64,
                         "original_max_position_embeddings": 4096}), "flat list"),
    (with_(rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": -5}),
     "original_max_position_embeddings"),
    (with_(rope_parameters={"rope_type": "default", "sliding": {"rope_type": "default"}}), "nested"),
    (with_(rope_parameters={"sliding_attention": {"rope_type": "default"}}), "no layer has"),
    (with_(rope_parameters={"rope_type": "default", "rope_theta": -1.0}), "rope_theta"),
    (with_(model_type=["llama"]), "model_type"),
    ({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 512}, "rotary"),
    ({"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rotary_pct": -0.25}, "rotary_pct"),
    ({"model_type": "deepseek_v3", "qk_rope_head_dim": 63}, "qk_rope_head_dim|even"),
])
def test_malformed_configs_raise_value_error(config, match):
    with pytest.raises(ValueError, match=match):
        model_rope(config)


def test_partial_rotary_factor_giving_an_odd_rotary_size_is_rejected():
    with pytest.raises(ValueError, match="even"):
        model_rope(with_(model_type="phi3", partial_rotary_factor=0.2890625))  # 128 * 0.2890625 = 37


def test_unknown_preset_and_bad_name():
    with pytest.raises(ValueError, match="name must be one of"):
        preset("GPT-5")
    with pytest.raises(ValueError, match="name"):
        model_rope(GOOD, name=42)


def test_preset_info_is_a_copy():
    info = preset_info("Llama-3.1-8B")
    info["config"]["rope_scaling"]["factor"] = 1000.0
    assert preset_info("Llama-3.1-8B")["config"]["rope_scaling"]["factor"] == 8.0
    assert dict(preset("Llama-3.1-8B").rope_scaling)["factor"] == 8.0
