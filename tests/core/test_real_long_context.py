"""rope_viz.real.long_context: scaled layers, passkey prompts, and the shipped long-context results."""

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from rope_viz import model_rope
from rope_viz.real import long_context as lc
from support.recorded import assert_close, matmuls

RESULTS = Path(__file__).resolve().parents[2] / "results" / "real" / "long_context.json"
CONFIG = {"model_type": "llama", "hidden_size": 576, "num_attention_heads": 9, "num_key_value_heads": 3,
          "num_hidden_layers": 2, "rope_theta": 100000.0, "max_position_embeddings": 8192}


@pytest.fixture(scope="module")
def small():
    """A stand-in with SmolLM2's RoPE (base 100,000, head_dim 64, context 8,192) over two layers."""
    return SimpleNamespace(rope=model_rope(CONFIG), label="SmolLM2-like", context=8192)


@pytest.fixture(scope="module")
def lm():
    from rope_viz import real_model
    return real_model("smollm2-135m")


def test_none_keeps_the_models_layers(small):
    assert lc.scaled_layers(small, "none", 4.0) == small.rope.layers


def test_linear_turns_s_times_m_as_plain_rope_turns_m(small):
    s = 4.0
    plain, linear = small.rope.layers[0], lc.scaled_layers(small, "linear", s)[0]
    theta = torch.tensor([100000.0 ** (-2 * i / 64) for i in range(32)], dtype=torch.float64)  # by hand
    assert torch.allclose(linear.inv_freq()[0] * s, theta, rtol=1e-15, atol=0)
    x = torch.randn(3, 50, 64, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    m = torch.arange(0, 5000, 100)
    assert torch.allclose(linear.rotate(x, m * 4), plain.rotate(x, m), rtol=0, atol=1e-9)


def test_dynamic_equals_plain_within_the_context_only(small):
    dynamic = lc.scaled_layers(small, "dynamic", 2.0)
    assert lc.rotation_key(dynamic, 8192) == lc.rotation_key(small.rope.layers, 8192)
    assert lc.rotation_key(dynamic, 9216) != lc.rotation_key(small.rope.layers, 9216)


def test_bad_method_and_factor_are_named(small):
    with pytest.raises(ValueError, match="method"):
        lc.scaled_layers(small, "default", 2.0)
    with pytest.raises(ValueError, match="factor"):
        lc.scaled_layers(small, "yarn", 0.5)


def test_bucket_means_by_hand():
    rows = lc.bucket_means(torch.tensor([1.0, 3.0, 2.0, 4.0, 6.0]), 2)
    assert [(r["start"], r["stop"], r["mean_nats"]) for r in rows] == [(0, 2, 2.0), (2, 4, 3.0), (4, 5, 6.0)]
    assert rows[0]["perplexity"] == pytest.approx(math.exp(2.0))


@pytest.mark.slow
@pytest.mark.parametrize("depth", [0.0, 0.25, 0.75, 1.0])
def test_passkey_prompt_places_the_key_at_its_depth(lm, depth):
    ids, answer = lc.passkey_prompt(lm, 1000, depth, 73519)
    assert 900 <= ids.numel() <= 1000
    assert lm.decode(answer) == " 73519"
    text = lm.decode(ids)
    assert text.endswith("What is the pass key? The pass key is")
    assert text.count("73519") == 2
    filler = text.replace("The pass key is 73519. Remember it. 73519 is the pass key. ", "")
    before = text.index("The pass key is 73519")
    assert abs(before / len(filler) - depth) < 0.05


@pytest.mark.parametrize("path", sorted(RESULTS.parent.glob("long_context*.json")), ids=lambda path: path.name)
def test_shipped_results_are_complete(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["complete"] and doc["command"].startswith("python -m rope_viz.real long-context")
    assert doc["methods"] == list(lc.METHODS)
    grid = doc["grid"]
    assert set(doc["loss"]) == (set(doc["methods"]) if grid["loss_length"] else set())
    for method in doc["methods"]:
        if grid["loss_length"]:
            buckets = doc["loss"][method]["buckets"]
            assert buckets[0]["start"] == 0 and buckets[-1]["stop"] == grid["loss_length"] - 1
            assert len(buckets) == math.ceil((grid["loss_length"] - 1) / grid["bucket"])
        for length in grid["lengths"]:
            depths = grid["depths_by_length"][str(length)]
            assert len(depths) >= (2 if length <= doc["model"]["context"] else 1)
            for depth in depths:
                cell = doc["passkey"][method][str(length)][str(float(depth))]
                assert set(cell) >= {"correct", "mean_logprob", "greedy", "answer", "key", "tokens"}
                assert 0.9 * length <= cell["tokens"] <= length + 10  # the prompt, then the answer
    for length in grid["lengths"]:  # dynamic NTK is plain RoPE up to the trained context, and only there
        for depth in grid["depths_by_length"][str(length)]:
            reused = doc["passkey"]["dynamic"][str(length)][str(float(depth))].get("same_rotation_as")
            assert reused == ("none" if length <= doc["model"]["context"] else None)


@pytest.mark.slow
def test_first_loss_bucket_recomputed(lm):
    """Attention is causal and static scaling ignores the length, so the first bucket of the long text's losses
    comes back from its first bucket + 1 tokens alone."""
    doc = json.loads(RESULTS.read_text(encoding="utf-8"))
    text = (RESULTS.parent / "stdlib_docstrings.txt").read_text(encoding="utf-8")
    ids = lm.encode(text)[:doc["grid"]["bucket"] + 1]
    for method in ("none", "linear"):
        losses = lm.next_token_losses(ids, layers=lc.scaled_layers(lm, method, doc["factor"]))
        # recorded in float32 on the machine doc["machine"] names, recomputed in float32 here
        assert_close(float(losses.mean()), doc["loss"][method]["buckets"][0]["mean_nats"],
                     matmuls("float32", "float32"), f"{method}: first bucket's mean loss")
