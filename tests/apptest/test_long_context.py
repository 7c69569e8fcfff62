"""The long-context page through AppTest: scale factors, unseen angles and the softmax row against
formulas written here with numpy, pasted configs (opening in Chinese and
at the extremes: test_every_page)."""

import json
import math

import numpy as np
import pytest

from support.apptest import chart, chart_keys, metrics, opened, page_text, spec_array

LLAMA31_BASE, LLAMA31_DIM, LLAMA31_L = 500000.0, 128, 8192


def theta(base, dim):
    return base ** (-np.arange(0, dim, 2) / dim)


def llama3_factors(base, dim, original, s, low=1.0, high=4.0):
    """Llama 3.1's rule by wavelength, written out: theta / theta'."""
    th = theta(base, dim)
    wave = 2 * np.pi / th
    out = np.empty_like(th)
    for i, w in enumerate(wave):
        if w < original / high:
            out[i] = 1.0
        elif w > original / low:
            out[i] = s
        else:
            g = (original / w - low) / (high - low)
            out[i] = 1.0 / ((1 - g) / s + g)
    return out


def unseen(trained_theta, original, new_theta, target):
    cap = 2 * np.pi
    return int(np.sum(np.minimum(target * new_theta, cap) > np.minimum(original * trained_theta, cap) * (1 + 1e-9)))


def test_defaults_draw_every_section():
    at = opened("long_context")
    s = 131072 / LLAMA31_L
    factors = {trace["name"]: spec_array(trace["y"]) for trace in chart(at, "factors")["data"]}
    np.testing.assert_allclose(factors["PI (linear)"], np.full(64, s), rtol=1e-6)
    np.testing.assert_allclose(factors["Llama 3"], llama3_factors(LLAMA31_BASE, LLAMA31_DIM, LLAMA31_L, s), rtol=1e-5)
    ntk = factors["NTK-aware"]
    assert ntk[0] == pytest.approx(1.0) and ntk[-1] == pytest.approx(s, rel=1e-5) and np.all(np.diff(ntk) > 0)
    shown = metrics(at)
    th = theta(LLAMA31_BASE, LLAMA31_DIM)
    assert shown["Unseen angles, plain RoPE"] == f"{unseen(th, LLAMA31_L, th, 131072)} of 64 pairs"
    assert shown["Unseen angles, PI (linear)"] == "0 of 64 pairs"
    assert shown["Unseen angles, Llama 3"] == (
        f"{unseen(th, LLAMA31_L, th / llama3_factors(LLAMA31_BASE, LLAMA31_DIM, LLAMA31_L, s), 131072)} of 64 pairs")
    assert float(shown["Entropy of a flat row, ln n"]) == pytest.approx(math.log(4096), abs=1e-3)
    assert float(shown["Entropy with a"]) < float(shown["Entropy without a"]) < math.log(4096)
    text = page_text(at)
    assert f"{0.1 * math.log(s) + 1:.4f}" in text  # YaRN's attention factor in the band table
    assert float(shown["Largest score shift"]) > 0  # keys cached at 4,096 with plain RoPE, the query stretched
    # the trained range is shaded on both score charts
    scores = chart(at, "scores_free")
    assert scores["layout"]["shapes"][0]["x1"] == LLAMA31_L
    # the score charts: distances log-spaced from 0 to 131,072 on a log axis, as many as the caption says
    distances = spec_array(scores["data"][0]["x"])
    assert distances[0] == 0 and distances[-1] == 131072 and scores["layout"]["xaxis"]["type"] == "log"
    assert np.sum(distances <= 100) > np.sum(distances >= 131072 - 100)  # dense in the first decades
    assert f"{len(distances)} distances, each the mean over" in text


def test_softmax_row_is_the_share_of_the_largest_weights_with_the_entropy_shown():
    at = opened("long_context", {"target": 2048, "preset": "Qwen2.5-7B-Instruct + YaRN"})
    row = chart(at, "softmax_row")
    assert row["layout"]["xaxis"]["type"] == "log"
    shown = metrics(at)
    without, with_factor, flat = row["data"]
    ranks = spec_array(without["x"])
    assert np.array_equal(ranks, np.arange(1, 2049))
    np.testing.assert_allclose(spec_array(flat["y"]), ranks / 2048, rtol=1e-6)  # a flat row: k of n keys
    for trace, label in ((without, "Entropy without a"), (with_factor, "Entropy with a")):
        share = spec_array(trace["y"]).astype(np.float64)
        assert share[-1] == pytest.approx(1.0, rel=1e-4) and np.all(np.diff(share) >= -1e-7)
        weights = np.diff(share, prepend=0.0)  # the weights back, largest first
        assert np.all(np.diff(weights) <= 1e-6)
        # the entropy by hand from the charted weights is the one the page states
        p = weights[weights > 0]
        assert -np.sum(p * np.log(p)) == pytest.approx(float(shown[label]), abs=2e-2)
    # the factor sharpens the row: its k largest weights hold more for every k
    assert np.all(spec_array(with_factor["y"]) >= spec_array(without["y"]) - 1e-4)


def test_a_pasted_longrope_config_adds_its_factors():
    config = {"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 8192,
              "original_max_position_embeddings": 1024, "rope_theta": 10000.0,
              "rope_scaling": {"type": "longrope", "short_factor": [1.0] * 8,
                               "long_factor": [float(2 + i) for i in range(8)]}}
    at = opened("long_context", {"config": json.dumps(config), "target": 8192})
    assert not at.warning
    factors = {trace["name"]: spec_array(trace["y"]) for trace in chart(at, "factors")["data"]}
    np.testing.assert_allclose(factors["LongRoPE"], np.arange(2, 10), rtol=1e-6)
    assert "pasted config" in page_text(at)


@pytest.mark.parametrize("config", ['{"hidden_size": 64', '{"hidden_size": 64, "num_attention_heads": 3}', "[1, 2]"])
def test_a_bad_config_gives_a_notice_and_the_preset(config):
    at = opened("long_context", {"config": config})
    assert not at.exception
    assert len(at.warning) == 1 and "was not used" in at.warning[0].value
    assert "Llama-3.1-8B (preset)" in page_text(at)
    assert chart_keys(at) == ["factors", "wavelengths", "angles", "scores_free", "scores_tied", "softmax_row",
                              "dynamic_trap"]


def test_the_method_in_focus_is_drawn_strong_and_the_others_faint():
    at = opened("long_context", {"focus": "yarn"})
    factors = chart(at, "factors")["data"]
    strong = [t["name"] for t in factors if t.get("opacity", 1) == 1]
    faint = [t["name"] for t in factors if t.get("opacity", 1) < 1]
    assert strong == ["YaRN"]
    assert len(faint) == len(factors) - 1 and all(t.get("opacity") == 0.3 for t in factors if t["name"] in faint)
    assert max(t["line"]["width"] for t in factors if t["name"] in faint) < factors[[t["name"] for t in factors]
                                                                                  .index("YaRN")]["line"]["width"]
