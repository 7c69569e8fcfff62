"""The model-anatomy view against values written out here: layer patterns from the published configs,
wavelengths, Llama 4's temperature, latent attention's cache and the layout trap by a float64 pair loop."""

import json
import math

import numpy as np
import pytest
import torch

from explorer.pure.views import model_anatomy as view
from explorer.pure.views.phrases import Phrase
from support.rope_reference import pair_rope

SCOUT, GEMMA, DEEPSEEK, BERT = ("meta-llama/Llama-4-Scout-17B-16E", "google/gemma-3-1b-it", "DeepSeek-V3",
                                "Snowflake/snowflake-arctic-embed-m")


def counts(summary: Phrase) -> list[tuple[int, str, str]]:
    """(count, kind key, rope key) of each group of a summary line."""
    return [(group.args["count"], group.args["kind"].key.split(".")[1], group.args["rope"].key.split(".")[1])
            for group in summary.args["groups"]]


def test_choose_puts_a_paste_first_drops_none_and_repeats_and_keeps_three():
    pasted = json.dumps({"model_type": "qwen3", "hidden_size": 256, "num_attention_heads": 2, "num_hidden_layers": 3})
    chosen = view.choose((SCOUT, view.NONE, SCOUT, GEMMA, DEEPSEEK), pasted)
    assert [model.name for model, _ in chosen.models] == ["qwen3", SCOUT, GEMMA]
    assert [flag for _, flag in chosen.models] == [True, False, False] and chosen.refused is None
    refused = view.choose((GEMMA,), '{"model_type": "llama", "num_attention_heads": 3}')
    assert [model.name for model, _ in refused.models] == [GEMMA] and "hidden_size" in refused.refused


def test_summaries_count_the_layers_of_the_published_configs():
    data = view.anatomy((SCOUT, GEMMA, DEEPSEEK), "", 131072)
    scout, gemma, deepseek = (model.summary for model in data.models)
    # Llama 4 Scout: no_rope_layers [] means every 4th of 48 layers has no RoPE and attends fully
    assert counts(scout) == [(36, "kind_chunked_attention_window", "rope_group"),
                             (12, "kind_full_attention", "nope_group")]
    assert [group.key for group in scout.args["groups"]] == ["model_anatomy.group", "model_anatomy.group_temperature"]
    # Gemma 3 1B: 26 layers, every 6th global at base 1e6, the others sliding (512) at base 1e4
    assert counts(gemma) == [(22, "kind_sliding_attention_window", "rope_group"),
                             (4, "kind_full_attention", "rope_group")]
    assert [group.args["rope"].args["base"] for group in gemma.args["groups"]] == ["10,000", "1,000,000"]
    assert counts(deepseek) == [(61, "kind_full_attention", "rope_group")]
    assert deepseek.args["groups"][0].args["rope"].args["rotary_dim"] == 64


def test_strip_kinds_bases_and_dims():
    strip = view.anatomy((GEMMA, BERT), "", 4096).strip
    pattern = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(26)]
    assert strip.kinds[0].tolist() == pattern
    assert strip.bases[0].tolist() == [1e4 if kind == "sliding_attention" else 1e6 for kind in pattern]
    assert strip.kinds.shape == (2, 26)  # padded to the longest model (Gemma 3 1B: 26 layers)
    assert strip.kinds[1].tolist() == ["full_attention"] * 12 + [""] * 14  # BERT: 12 layers
    assert (strip.bases[1, :12] == 0).all() and np.isnan(strip.bases[1, 12:]).all()  # 0: no RoPE
    assert (strip.dims[0] == 256).all() and (strip.dims[1, :12] == 0).all()
    assert strip.base_values == [1e4, 1e6] and strip.dim_values == [256]
    assert strip.kind_order[:2] == ("full_attention", "sliding_attention")  # rope_viz's order: fixed colours


def test_wavelengths_by_hand_and_the_proportional_gaps():
    gemma4 = json.dumps({"model_type": "gemma4_text", "hidden_size": 256, "num_attention_heads": 4, "head_dim": 64,
                         "global_head_dim": 128, "num_hidden_layers": 6})
    data = view.anatomy((GEMMA,), gemma4, 131072)
    series = {(item.args["model"].args["number"], item.args["kind"].key, item.args["base"]): values
              for item, values in data.wavelengths.series}  # the pasted config is model 1
    sliding = series[(2, "model_anatomy.kind_sliding_attention", "10,000")]
    np.testing.assert_allclose(sliding, [2 * math.pi * 1e4 ** (2 * j / 256) for j in range(128)], rtol=1e-6)
    proportional = series[(1, "model_anatomy.kind_full_attention", "1,000,000")]
    turning = 16  # a quarter of the 64 pairs of the 128-wide global head, exponents over the whole head
    np.testing.assert_allclose(proportional[:turning], [2 * math.pi * 1e6 ** (2 * j / 128) for j in range(turning)],
                               rtol=1e-6)
    assert np.isnan(proportional[turning:]).all()
    assert (data.wavelengths.context == 131072).all() and len(data.wavelengths.pairs) == 128


def test_llama4_temperature_by_hand():
    data = view.anatomy((SCOUT, GEMMA), "", 65536)
    curve = data.temperature
    assert len(curve.series) == 1  # Gemma 3 has none
    positions = curve.positions.astype(np.float64)
    expected = 1 + 0.1 * np.log(1 + np.floor((positions + 1) / 8192))
    np.testing.assert_allclose(curve.series[0].values, expected, rtol=1e-6)
    assert positions[0] == 0 and positions[-1] == 65536
    assert view.anatomy((GEMMA,), "", 65536).temperature is None


def test_latent_attention_numbers():
    metrics = view.anatomy((DEEPSEEK,), "", 4096).models[0].latent
    values = {item.label.key.split(".")[1]: item.value for item in metrics}
    assert values["mla_rotated"] == "64 / 192"
    assert values["mla_cached"] == f"{512 + 64:,}"
    assert values["mla_full"] == f"{128 * (128 + 64 + 128):,}"
    assert values["mla_saving"] == f"{128 * 320 / 576:.1f}x"
    mscale = 0.1 * math.log(40) + 1
    assert float(values["mla_scale"]) == pytest.approx(192 ** -0.5 * mscale ** 2, abs=1e-5)
    assert view.anatomy((GEMMA,), "", 4096).models[0].latent is None


def test_layout_trap_against_a_pair_loop():
    model = view.choose((SCOUT,), "").models[0].model
    trap = view.layout_trap(model)
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(view.LAYOUT_SAMPLES, 1, 128, generator=gen, dtype=torch.float64)
    k = torch.randn(view.LAYOUT_SAMPLES, 1, 128, generator=gen, dtype=torch.float64)

    def scores(layout, offset):
        return (pair_rope(q, [offset], 5e5, layout) * pair_rope(k, [0], 5e5, layout)).sum(-1)

    right, wrong = scores("interleaved", view.LAYOUT_OFFSET), scores("half", view.LAYOUT_OFFSET)
    expected = float((right - wrong).abs().mean() / right.abs().mean())
    assert trap.at_offset == pytest.approx(expected, rel=1e-9) and trap.at_offset > 0.5
    assert trap.at_zero == 0.0 and (trap.layout, trap.other) == ("interleaved", "half")


def test_traps_name_the_model_without_rope_and_the_linear_layers():
    bert = view.anatomy((BERT,), "", 4096).models[0]
    assert [trap.key for trap in bert.traps] == ["model_anatomy.trap_no_rope"]
    assert bert.kinds == []
    next_like = json.dumps({"model_type": "qwen3_next", "hidden_size": 256, "num_attention_heads": 2,
                            "head_dim": 128, "num_hidden_layers": 8})
    model = view.anatomy((), next_like, 4096).models[0]
    keys = {trap.key: trap.args for trap in model.traps}
    assert keys["model_anatomy.trap_linear"] == {"linear": 6, "total": 8}
    assert keys["model_anatomy.trap_partial"] == {"rotary_dim": 32, "head_dim": 128}
    assert model.label == Phrase("model_anatomy.pasted_label", {"model_type": "qwen3_next"})


def test_deepseek_v4_groups_its_compressed_layers_and_an_unknown_type_is_flagged():
    pasted = json.dumps({"model_type": "made_up_2027", "hidden_size": 64, "num_attention_heads": 2,
                         "num_hidden_layers": 2})
    data = view.anatomy(("nvidia/DeepSeek-V4-Flash-NVFP4",), pasted, 4096)
    unknown, v4 = data.models
    assert unknown.unchecked and not v4.unchecked
    assert counts(v4.summary) == [(2, "kind_sliding_attention_window", "rope_group"),
                                     (21, "kind_compressed_sparse_attention_window", "rope_group"),
                                     (20, "kind_heavily_compressed_attention_window", "rope_group")]
    assert data.strip.kinds[1, :4].tolist() == ["sliding_attention", "sliding_attention",
                                                      "compressed_sparse_attention", "heavily_compressed_attention"]


@pytest.mark.parametrize("model_type, parts", [
    ("mistral_large4_text", ["frequency_scale", "query_scale"]),  # LeRoPE's alpha, the log-position query scale
    ("dory", ["query_scale"]), ("zaya", ["key_scale"]), ("inkling2_text", ["relative_position_bias"]),
    ("llama", None)])
def test_the_summary_names_the_parts_a_checkpoint_learns(model_type, parts):
    pasted = json.dumps({"model_type": model_type, "num_hidden_layers": 4, "hidden_size": 256,
                         "num_attention_heads": 2})
    model = view.anatomy((), pasted, 4096).models[0]
    said = model.learned
    if model_type == "inkling2_text":  # no RoPE: its traps say where its positions come from instead
        assert [trap.key for trap in model.traps] == ["model_anatomy.trap_no_rope_bias"]
    if parts is None:
        assert said is None
    else:
        assert said.key == "model_anatomy.learned"
        assert [part.key for part in said.args["parts"]] == [f"model_anatomy.learned_{part}" for part in parts]


@pytest.mark.parametrize("pasted", [
    {"model_type": "nemotron_h", "num_hidden_layers": 4, "hybrid_override_pattern": "M*M-"},
    {"model_type": "kimi_linear", "num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 2}])
def test_a_model_without_rope_that_reads_in_order_is_not_said_to_add_positions(pasted):
    """Nemotron-H and Kimi Linear run no RoPE and add no position embedding: their Mamba or linear-attention
    layers carry word order, and the trap says that instead of BERT's absolute embeddings."""
    model = view.anatomy((), json.dumps(pasted), 4096).models[0]
    assert [trap.key for trap in model.traps] == ["model_anatomy.trap_no_rope_recurrent"]
