"""rope_viz.toy.analysis on small hand-made models and attention maps, against hand-written loops."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from rope_viz.toy import ModelConfig, ToyTransformer, attention_maps, evaluate, make_batch
from rope_viz.toy.analysis import (accuracy_by_position, offset_profile, pair_contributions, pair_norms,
                                   positional_heads, with_layout, without_low_frequencies)
from support.recorded import answers, assert_close, flips, matmuls

BASE = 100.0


def _model(encoding="rope", layout="interleaved", n_layers=1, vocab=20, seed=0):
    torch.manual_seed(seed)
    return ToyTransformer(ModelConfig(vocab_size=vocab, encoding=encoding, n_layers=n_layers, d_model=32,
                                      n_heads=2, layout=layout, base=BASE)).eval()


@torch.no_grad()
def _layer0_qk(model, tokens):
    """q and k of layer 0, (seq, d_model) each in float64, computed by hand from the embeddings."""
    block = model.blocks[0]
    x = model.embed.weight[torch.tensor(tokens)].double()
    h = torch.nn.functional.layer_norm(x, (32,), block.ln1.weight.double(), block.ln1.bias.double())
    qkv = h @ block.attn.qkv.weight.double().T + block.attn.qkv.bias.double()
    return qkv[:, :32], qkv[:, 32:64]


def _rotate(vec, m, speeds, pairs):
    out = list(vec)
    for (a, b), s in zip(pairs, speeds):
        out[a] = vec[a] * math.cos(m * s) - vec[b] * math.sin(m * s)
        out[b] = vec[a] * math.sin(m * s) + vec[b] * math.cos(m * s)
    return out


TOKENS = [3, 7, 1, 7, 19, 0, 4, 11, 2, 9]
PAIRS = [(2 * i, 2 * i + 1) for i in range(8)]  # interleaved, d_head = 16
SPEEDS = [BASE ** (-2 * i / 16) for i in range(8)]


def test_pair_norms_equal_the_hand_loop():
    model = _model()
    q, k = _layer0_qk(model, TOKENS)
    got = pair_norms(model, TOKENS)
    assert got["q"].shape == (1, 2, 8) and got["speed"].shape == (1, 8)
    for head in range(2):
        for p, (a, b) in enumerate(PAIRS):
            for name, z in (("q", q), ("k", k)):
                rows = z[:, head * 16:(head + 1) * 16]
                hand = sum(math.hypot(float(r[a]), float(r[b])) for r in rows) / len(TOKENS)
                assert got[name][0, head, p] == pytest.approx(hand, rel=1e-6)
    np.testing.assert_allclose(got["speed"][0], SPEEDS, rtol=1e-12)
    assert np.all(pair_norms(_model("nope"), TOKENS)["speed"] == 0)


def test_offset_profile_and_positional_heads_on_hand_made_maps():
    seq = 8
    maps = np.zeros((1, 3, seq, seq))
    for i in range(seq):
        maps[0, 0, i, max(i - 2, 0)] = 1.0            # head 0: always two back
        maps[0, 1, i, : i + 1] = 1.0 / (i + 1)          # head 1: uniform over the past
        maps[0, 2, i, i] = 0.4                          # head 2: 0.4 on itself, the rest one back
        maps[0, 2, i, max(i - 1, 0)] += 0.6
    profile = offset_profile(maps, 3)
    assert profile.shape == (1, 3, 4)
    np.testing.assert_allclose(profile[0, 0], [0, 0, 1, 0])
    np.testing.assert_allclose(profile[0, 1], [np.mean([1 / (i + 1) for i in range(3, seq)])] * 4)
    np.testing.assert_allclose(profile[0, 2], [0.4, 0.6, 0, 0])
    found = positional_heads(profile, threshold=0.5)
    assert [(h["layer"], h["head"], h["offset"]) for h in found] == [(0, 0, 2), (0, 2, 1)]
    assert found[0]["weight"] == pytest.approx(1.0) and found[1]["weight"] == pytest.approx(0.6)
    assert positional_heads(profile, threshold=0.7) == found[:1]
    with pytest.raises(ValueError, match="max_offset"):
        offset_profile(maps, seq)


def test_pair_contributions_equal_the_hand_loop():
    model = _model()
    q, k = _layer0_qk(model, TOKENS)
    seq, head, offset = len(TOKENS), 1, 2
    qs = [_rotate(q[m, head * 16:(head + 1) * 16].tolist(), m, SPEEDS, PAIRS) for m in range(seq)]
    ks = [_rotate(k[m, head * 16:(head + 1) * 16].tolist(), m, SPEEDS, PAIRS) for m in range(seq)]
    margins = []
    for a, b in PAIRS:
        def part(i, j, a=a, b=b):
            return qs[i][a] * ks[j][a] + qs[i][b] * ks[j][b]
        margins.append(np.mean([part(i, i - offset) - np.mean([part(i, j) for j in range(i + 1)])
                                for i in range(offset, seq)]))
    got = pair_contributions(model, TOKENS, 0, head, offset)
    np.testing.assert_allclose(got, np.array(margins) / sum(margins), rtol=1e-5, atol=1e-6)  # float32 model
    assert got.sum() == pytest.approx(1.0)


def test_a_head_built_on_the_fastest_pair_leans_on_it():
    # q and k of head 0 read one coordinate each into pair 0 only (speed 1 rad per step): the score
    # cos(offset) peaks at offset 0 and the whole margin is pair 0's
    model = _model()
    with torch.no_grad():
        w, b = model.blocks[0].attn.qkv.weight, model.blocks[0].attn.qkv.bias
        w[:64].zero_()
        b[:64].zero_()
        b[0] = 3.0          # q, pair 0, first coordinate
        b[32] = 3.0         # k, pair 0, first coordinate
    shares = pair_contributions(model, TOKENS, 0, 0, 0)
    np.testing.assert_allclose(shares, [1.0] + [0.0] * 7, atol=1e-12)
    profile = offset_profile(attention_maps(model, TOKENS), 3)
    assert profile[0, 0].argmax() == 0


def test_without_low_frequencies_stops_the_slowest_pairs():
    config = _model().config
    speeds, factor = without_low_frequencies(config, 0.5)
    np.testing.assert_allclose(speeds.numpy(), SPEEDS[:4] + [0.0] * 4, rtol=1e-12)
    assert factor == 1.0
    np.testing.assert_allclose(without_low_frequencies(config, 0.0)[0].numpy(), SPEEDS, rtol=1e-12)
    # in the model: the hand rotation with those speeds
    model = _model()
    q, k = _layer0_qk(model, TOKENS)
    maps = attention_maps(model, TOKENS, rope_freqs=without_low_frequencies(config, 0.5))
    cut = SPEEDS[:4] + [0.0] * 4
    for head in range(2):
        qs = [_rotate(q[m, head * 16:(head + 1) * 16].tolist(), m, cut, PAIRS) for m in range(len(TOKENS))]
        ks = [_rotate(k[m, head * 16:(head + 1) * 16].tolist(), m, cut, PAIRS) for m in range(len(TOKENS))]
        i = len(TOKENS) - 1
        logits = [sum(x * y for x, y in zip(qs[i], ks[j])) / 4.0 for j in range(i + 1)]
        z = sum(math.exp(v) for v in logits)
        np.testing.assert_allclose(maps[0, head, i], [math.exp(v) / z for v in logits], rtol=2e-5)
    p_rope = ModelConfig(vocab_size=20, encoding="p-rope", n_layers=1, d_model=32, n_heads=2, base=BASE)
    np.testing.assert_allclose(without_low_frequencies(p_rope, 0.5)[0].numpy(), SPEEDS[:2] + [0.0] * 6, rtol=1e-12)
    with pytest.raises(ValueError, match="partial-rope"):
        without_low_frequencies(ModelConfig(vocab_size=20, encoding="partial-rope", d_model=32, n_heads=2), 0.5)
    with pytest.raises(ValueError, match="removed"):
        without_low_frequencies(config, 1.5)


def test_with_layout_reads_the_same_weights_with_the_other_pairs():
    model = _model(n_layers=2)
    other = with_layout(model, "half")
    assert other.config.layout == "half" and model.config.layout == "interleaved"
    for name, tensor in model.state_dict().items():
        assert torch.equal(other.state_dict()[name], tensor)
    q, k = _layer0_qk(model, TOKENS)
    half_pairs = [(i, i + 8) for i in range(8)]
    maps = attention_maps(other, TOKENS)
    i = len(TOKENS) - 1
    qs = _rotate(q[i, :16].tolist(), i, SPEEDS, half_pairs)
    ks = [_rotate(k[j, :16].tolist(), j, SPEEDS, half_pairs) for j in range(i + 1)]
    logits = [sum(x * y for x, y in zip(qs, kj)) / 4.0 for kj in ks]
    z = sum(math.exp(v) for v in logits)
    np.testing.assert_allclose(maps[0, 0, i], [math.exp(v) / z for v in logits], rtol=2e-5)
    assert not np.allclose(maps, attention_maps(model, TOKENS))
    back = with_layout(other, "interleaved")
    np.testing.assert_array_equal(attention_maps(back, TOKENS), attention_maps(model, TOKENS))


@pytest.mark.parametrize("task", ["offset", "passkey", "recall"])
def test_accuracy_by_position_adds_up_to_evaluate(task):
    torch.manual_seed(0)
    model = ToyTransformer(ModelConfig(vocab_size=64 if task == "recall" else 32, encoding="rope", n_layers=1,
                                       d_model=16, n_heads=2)).eval()
    length = 24
    by_pos = accuracy_by_position(model, task, length, sequences=40, seed=3)
    overall = evaluate(model, task, length, sequences=40, seed=3)
    assert by_pos["correct"].sum() / by_pos["total"].sum() == pytest.approx(overall["accuracy"])
    assert by_pos["total"].sum() == overall["scored"]
    if task == "offset":
        assert np.all(by_pos["total"][:3] == 0) and np.all(by_pos["total"][3:] == 40)
        assert np.all(np.isnan(by_pos["accuracy"][:3]))
    if task == "passkey":  # one answer per sequence, counted at its KEY's place
        gen = torch.Generator().manual_seed(3 + 1_000_003 + length)  # evaluate's generator
        tokens, _ = make_batch("passkey", 40, length, generator=gen)
        places = np.bincount((tokens == 30).long().argmax(-1).numpy(), minlength=length)
        np.testing.assert_array_equal(by_pos["total"], places)


def test_evaluate4_writes_the_designs_evaluations_with_its_command(tmp_path):
    """`python -m rope_viz.toy evaluate4` for one task and factor: the shipped file's numbers, and its command."""
    from rope_viz.toy import DEFAULT_DIR, GRID4_FILE, evaluations, runner

    out = tmp_path / "evaluated.json"
    argv = ["evaluate4", "--tasks", "offset", "--factors", "2", "--out", str(out)]
    assert runner.main(argv) == 0
    doc = evaluations.load_evaluations(out)
    assert doc["command"] == "python -m rope_viz.toy " + " ".join(argv) and doc["grid"] == GRID4_FILE
    assert list(doc["tasks"]) == ["offset"] and sorted(doc["tasks"]["offset"]["removal"]) == ["1.0", "2.0"]
    shipped = evaluations.load_evaluations(DEFAULT_DIR / evaluations.EVALUATIONS_FILE)["tasks"]["offset"]
    fresh = doc["tasks"]["offset"]
    # the shipped file was written on another machine: float32 kernels of another CPU round differently in the last
    # digits, and a near-tie may flip an answer (support.recorded says how far each may go, and why)
    assert_close(fresh["frequency"], shipped["frequency"], matmuls("float32", "float32"), "frequency")
    kept = {part: {k: shipped[part][k] for k in fresh[part]} for part in ("removal", "mixup")}
    # each accuracy is over at least EVAL_SEQUENCES answers; each count of the mixup, over one answer per sequence
    assert_close(fresh["removal"], kept["removal"], answers(evaluations.EVAL_SEQUENCES), "removal")
    assert_close(fresh["mixup"], kept["mixup"], flips(evaluations.EVAL_SEQUENCES), "mixup")
