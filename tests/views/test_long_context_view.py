"""The long-context view and its core helpers against hand-written formulas."""

import math

import numpy as np
import pytest
import torch

from explorer.views import long_context as view
from rope_viz.long_context import largest_angles, pair_bands, softmax_entropy, unseen_pairs


def test_pasted_config_wins_and_bad_ones_fall_back():
    good = view.resolve_model("gemma-7b", '{"hidden_size": 256, "num_attention_heads": 4, "rope_theta": 1e6, '
                                          '"max_position_embeddings": 2048}')
    assert good["pasted"] and good["rotary_dim"] == 64 and good["base"] == 1e6 and good["original"] == 2048
    bad = view.resolve_model("gemma-7b", '{"rope_theta": -1}')
    assert not bad["pasted"] and bad["name"] == "gemma-7b" and bad["refused"][0] == "invalid"
    assert "hidden_size" in bad["refused"][1]


def test_yarn_bands_follow_the_beta_boundaries():
    model = view.resolve_model("Llama-2-7b-hf", "")
    curves = view.scaling_curves(model, 16384, 4096, 4.0, 32.0, 1.0, 1.0, 4.0)
    d, base, L = 128, 10000.0, 4096

    def boundary(rotations):
        return d * math.log(L / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = math.floor(boundary(32.0)), math.ceil(boundary(1.0))
    bands = curves["methods"]["yarn"]["bands"]
    assert bands["kept"] == list(range(0, low + 1))
    assert bands["interpolated"] == list(range(high, 64))
    assert bands["blended"] == list(range(low + 1, high))


def test_dynamic_trap_vanishes_inside_the_trained_length():
    same = view.dynamic_trap(64, 10000.0, 4096, 4.0, 1024, 4096, 16, 0)
    assert same["same_frequencies"] and same["max_shift"] < 1e-9
    shifted = view.dynamic_trap(64, 10000.0, 4096, 4.0, 1024, 16384, 16, 0)
    assert not shifted["same_frequencies"] and shifted["max_shift"] > 1e-3


def test_core_helpers():
    th = torch.tensor([1.0, 0.01, 0.0001], dtype=torch.float64)
    np.testing.assert_allclose(largest_angles(th, 100).numpy(), [2 * math.pi, 1.0, 0.01])
    assert unseen_pairs(th, 100, th, 1000).tolist() == [False, True, True]
    assert unseen_pairs(th, 100, th / 10, 1000).tolist() == [False, False, False]
    assert pair_bands([1.0, 2.5, 4.0], 4.0) == {"kept": [0], "interpolated": [2], "blended": [1]}
    assert float(softmax_entropy(torch.zeros(8))) == pytest.approx(math.log(8))
    with pytest.raises(ValueError, match="factor"):
        pair_bands([1.0], 0.0)
