"""The long-context view and its core helpers against hand-written formulas."""

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from explorer.pure.views import long_context as view
from rope_viz.long_context import largest_angles, pair_bands, softmax_entropy, unseen_pairs


def test_pasted_config_wins_and_bad_ones_fall_back():
    good = view.resolve_model("gemma-7b", '{"hidden_size": 256, "num_attention_heads": 4, "rope_theta": 1e6, '
                                          '"max_position_embeddings": 2048}')
    assert good.pasted and good.rotary_dim == 64 and good.base == 1e6 and good.original == 2048
    bad = view.resolve_model("gemma-7b", '{"rope_theta": -1}')
    assert not bad.pasted and bad.name == "gemma-7b" and bad.refused.reason == "invalid"
    assert "hidden_size" in bad.refused.detail


def test_yarn_bands_follow_the_beta_boundaries():
    model = view.resolve_model("Llama-2-7b-hf", "")
    curves = view.scaling_curves(model, 16384, 4096, 4.0, 32.0, 1.0, 1.0, 4.0)
    d, base, L = 128, 10000.0, 4096

    def boundary(rotations):
        return d * math.log(L / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = math.floor(boundary(32.0)), math.ceil(boundary(1.0))
    bands = curves.methods["yarn"].bands
    assert bands["kept"] == list(range(0, low + 1))
    assert bands["interpolated"] == list(range(high, 64))
    assert bands["blended"] == list(range(low + 1, high))


def test_dynamic_trap_vanishes_inside_the_trained_length():
    same = view.dynamic_trap(64, 10000.0, 4096, 4.0, 1024, 4096, 16, 0)
    assert same.same_frequencies and same.max_shift < 1e-9
    shifted = view.dynamic_trap(64, 10000.0, 4096, 4.0, 1024, 16384, 16, 0)
    assert not shifted.same_frequencies and shifted.max_shift > 1e-3


def test_core_helpers():
    th = torch.tensor([1.0, 0.01, 0.0001], dtype=torch.float64)
    np.testing.assert_allclose(largest_angles(th, 100).numpy(), [2 * math.pi, 1.0, 0.01])
    assert unseen_pairs(th, 100, th, 1000).tolist() == [False, True, True]
    assert unseen_pairs(th, 100, th / 10, 1000).tolist() == [False, False, False]
    assert pair_bands([1.0, 2.5, 4.0], 4.0) == {"kept": [0], "interpolated": [2], "blended": [1]}
    assert float(softmax_entropy(torch.zeros(8))) == pytest.approx(math.log(8))
    with pytest.raises(ValueError, match="factor"):
        pair_bands([1.0], 0.0)


def _setting(preset="Llama-2-7b-hf", config="", target=16384):
    model = view.resolve_model(preset, config)
    setting = view.Setting(model, target, model.original, target / model.original, 32.0, 1.0, 1.0, 4.0)
    return setting, view.scaling_curves(*setting)


def test_focus_keeps_a_method_the_model_runs_and_says_when_it_gives_way():
    setting, curves = _setting()
    assert view.focus_for("ntk", curves, "default") == ("ntk", None)
    # plain RoPE has no scaling of its own: "model" is its rope_type, drawn with no method in focus
    assert view.focus_for("model", curves, "default") == ("default", None)
    # LongRoPE needs the model's own factor lists: YaRN instead, and a notice naming LongRoPE
    focus, notice = view.focus_for("longrope", curves, "default")
    assert focus == "yarn" and notice.key == "long_context.focus_missing"
    assert notice.args["instead"].key == "long_context.method_yarn"
    # Gemma 4's proportional RoPE is a rope type, not a method of this page: said so, LongRoPE not blamed
    focus, notice = view.focus_for("model", curves, "proportional")
    assert focus == "yarn" and notice.key == "long_context.focus_own_type"
    assert notice.args["rope_type"] == "proportional"
    # a method that failed for this model is named as such
    focus, notice = view.focus_for("ntk", replace(curves, skipped={"ntk": "too large"},
                                                  methods={k: v for k, v in curves.methods.items() if k != "ntk"}),
                                   "default")
    assert notice.key == "long_context.focus_skipped" and notice.args["method"].key == "long_context.method_ntk"
    # the model's own scaling type when it has one (Llama 3.1's llama3)
    _, own = _setting("Llama-3.1-8B")
    assert view.focus_for("model", own, "llama3") == ("model", None)
    # with no YaRN either, the first method there is
    no_yarn = replace(curves, methods={name: curves.methods[name] for name in ("linear", "ntk")}, skipped={})
    assert view.focus_for("longrope", no_yarn, "default")[0] == "linear"


def test_band_table_counts_each_methods_pairs_once():
    _, curves = _setting()
    columns = view.band_table(curves)
    assert [p.args.get("count", 0) for p in columns["long_context.band_kept"]] == [
        len(m.bands["kept"]) for m in curves.methods.values()]
    for i, m in enumerate(curves.methods.values()):  # every pair lands in exactly one band
        counted = sum(columns[f"long_context.band_{b}"][i].args.get("count", 0)
                      for b in ("kept", "interpolated", "blended"))
        assert counted == 64
        assert columns["long_context.band_factor"][i] == f"{m.attention_factor:.4f}"
    # PI interpolates every pair: none left alone, all 64 at factor s
    linear = list(curves.methods).index("linear")
    assert columns["long_context.band_kept"][linear].key == "long_context.band_none"
    assert columns["long_context.band_interpolated"][linear].args == {"count": 64, "first": 0, "last": 63}


def test_the_trap_is_drawn_only_for_a_shorter_prompt_and_says_its_shift():
    setting, curves = _setting(target=16384)
    assert view.trap_args(setting, curves, 16384, 8, 0) is None
    assert view.trap_args(setting, curves, 20000, 8, 0) is None
    assert view.trap_args(setting, replace(curves, methods={"yarn": curves.methods["yarn"]}), 1024, 8, 0) is None
    args = view.trap_args(setting, curves, 1024, 8, 0)
    assert args == (128, 10000.0, 4096, 4.0, 1024, 16384, 8, 0)
    trap = view.dynamic_trap(*args)
    metrics, said = view.trap_reading(trap, args)
    assert said.key == "long_context.trap_result" and said.args["prompt"] == 1024
    assert metrics[0].value == f"{trap.max_shift:.3g}"


def test_refusals_name_their_reason_and_the_preset_kept():
    assert view.refusal(view.resolve_model("gemma-7b", ""), "gemma-7b") is None
    bad = view.refusal(view.resolve_model("gemma-7b", '{"rope_theta": -1}'), "gemma-7b")
    assert bad.key == "long_context.config_invalid" and bad.args["preset"] == "gemma-7b"
    wide = view.refusal(view.resolve_model("gemma-7b", '{"hidden_size": 32768, "num_attention_heads": 2}'), "gemma-7b")
    assert wide.key == "long_context.config_too_large" and wide.args["rotary_dim"] == 16384
    assert wide.args["limit"] == view.max_rotary_dim()


def test_wavelength_sentence_counts_pairs_slower_than_the_trained_length():
    _, curves = _setting()
    # pair i's wavelength 2 pi 10000^(2i/128) passes 4096 once 2i/128 > log(4096 / 2 pi) / log(10000)
    expected = sum(2 * math.pi * 10000 ** (2 * i / 128) > 4096 for i in range(64))
    said = view.wavelength_result(curves)
    assert said.args == {"longer": expected, "pairs": 64, "original": 4096}
