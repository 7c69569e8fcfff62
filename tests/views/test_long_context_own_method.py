"""Long context's "the model's own" method: the config's own factor, bands, betas and attention factor,
checked against the Llama 3.1 rule and YaRN written out here, whatever the sliders say."""

import math

import numpy as np
import pytest

from explorer.pure.views import long_context as view


def test_llama31_own_method_keeps_its_factor_8_and_bands_1_and_4():
    model = view.resolve_model("Llama-3.1-8B", "")
    curves = view.scaling_curves(model, 131072, 8192, 16.0, 32.0, 1.0, 2.0, 8.0)  # sliders: s 16, bands 2 and 8
    theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    wave = 2 * np.pi / theta
    smooth = (8192 / wave - 1.0) / (4.0 - 1.0)
    own = np.where(wave < 8192 / 4.0, 1.0, np.where(wave > 8192 / 1.0, 8.0, 1 / ((1 - smooth) / 8.0 + smooth)))
    np.testing.assert_allclose(curves.methods["model"].factors, own, rtol=1e-6)
    assert curves.methods["llama3"].factors[-1] == pytest.approx(16.0)  # the slider's copy differs


def test_deepseek_own_method_is_its_yarn_at_factor_40():
    model = view.resolve_model("DeepSeek-V3", "")
    curves = view.scaling_curves(model, 163840, 4096, 32.0, 16.0, 2.0, 1.0, 4.0)
    own = curves.methods["model"]
    d, L = 64, 4096

    def boundary(rotations):
        return d * math.log(L / (rotations * 2 * math.pi)) / (2 * math.log(10000.0))

    low, high = math.floor(boundary(32)), math.ceil(boundary(1))
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    np.testing.assert_allclose(own.factors, 1 / (ramp / 40 + (1 - ramp)), rtol=1e-6)
    assert own.attention_factor == pytest.approx(1.0)  # mscale = mscale_all_dim: the correction sits in softmax


def test_a_pasted_config_with_other_bands_draws_its_own_curve():
    text = ('{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 65536,'
            ' "rope_theta": 500000.0, "rope_scaling": {"rope_type": "llama3", "factor": 4.0, "low_freq_factor": 2.0,'
            ' "high_freq_factor": 8.0, "original_max_position_embeddings": 16384}}')
    pasted = view.resolve_model("Llama-3.1-8B", text)
    assert pasted.pasted and pasted.model_type == "llama"
    own = view.scaling_curves(pasted, 65536, 16384, 4.0, 32.0, 1.0, 1.0, 4.0).methods["model"].factors
    preset = view.resolve_model("Llama-3.1-8B", "")
    other = view.scaling_curves(preset, 65536, 8192, 8.0, 32.0, 1.0, 1.0, 4.0).methods["model"].factors
    assert own[-1] == pytest.approx(4.0) and other[-1] == pytest.approx(8.0)
    assert not np.allclose(own, other)


def test_plain_rope_has_no_own_method():
    model = view.resolve_model("Llama-2-7b-hf", "")
    assert "model" not in view.scaling_curves(model, 16384, 4096, 4.0, 32.0, 1.0, 1.0, 4.0).methods
