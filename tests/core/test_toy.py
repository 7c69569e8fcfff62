"""rope_viz.toy: the tiny trained transformers, their tasks, training and shipped results."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from rope_viz import apply_rope
from rope_viz.biases import alibi_slopes
from rope_viz.toy import (DEFAULT_DIR, IGNORE, ModelConfig, ToyTransformer, TrainConfig, attention_maps, load_model,
                          load_results, make_batch, rope_frequencies, train, validate_results)
from support.recorded import answers, assert_close
from support.rope_reference import pair_rope

ENCODINGS = ("rope", "sinusoidal", "alibi", "nope")
GRID = DEFAULT_DIR / "grid.json"


def _model(encoding, *, layout="interleaved", n_heads=4, d_model=32, vocab=20, seed=0):
    torch.manual_seed(seed)
    return ToyTransformer(ModelConfig(vocab_size=vocab, encoding=encoding, n_layers=2, d_model=d_model,
                                      n_heads=n_heads, layout=layout, base=100.0)).eval()


def _hand_attention(model, tokens, pos_scale=1.0):
    """Layer-0 attention weights (heads, seq, seq) by explicit loops over heads, queries and keys;
    RoPE turns position m by the angles of position m * pos_scale."""
    c = model.config
    seq = len(tokens)
    x = model.embed.weight[torch.tensor(tokens)].double()
    if c.encoding == "sinusoidal":
        pe = torch.zeros(seq, c.d_model, dtype=torch.float64)
        for m in range(seq):
            for t in range(c.d_model // 2):
                pe[m, 2 * t] = math.sin(m / c.base ** (2 * t / c.d_model))
                pe[m, 2 * t + 1] = math.cos(m / c.base ** (2 * t / c.d_model))
        x = x + pe
    block = model.blocks[0]
    h = torch.nn.functional.layer_norm(x, (c.d_model,), block.ln1.weight.double(), block.ln1.bias.double())
    w, b = block.attn.qkv.weight.double(), block.attn.qkv.bias.double()
    qkv = h @ w.T + b
    slopes = [2 ** (-8 * (k + 1) / c.n_heads) for k in range(c.n_heads)]  # power-of-two head counts
    out = torch.zeros(c.n_heads, seq, seq, dtype=torch.float64)
    dh = c.d_head
    for head in range(c.n_heads):
        q = [qkv[m, head * dh:(head + 1) * dh].tolist() for m in range(seq)]
        k = [qkv[m, c.d_model + head * dh:c.d_model + (head + 1) * dh].tolist() for m in range(seq)]
        if c.encoding == "rope":
            q = pair_rope(np.array(q), [m * pos_scale for m in range(seq)], c.base, c.layout).tolist()
            k = pair_rope(np.array(k), [m * pos_scale for m in range(seq)], c.base, c.layout).tolist()
        for i in range(seq):
            logits = []
            for j in range(i + 1):
                s = sum(a * bb for a, bb in zip(q[i], k[j])) / math.sqrt(dh)
                if c.encoding == "alibi":
                    s += -slopes[head] * (i - j)
                logits.append(s)
            top = max(logits)
            z = sum(math.exp(v - top) for v in logits)
            for j in range(i + 1):
                out[head, i, j] = math.exp(logits[j] - top) / z
    return out


@pytest.mark.parametrize("encoding,layout", [("rope", "interleaved"), ("rope", "half"), ("sinusoidal", "interleaved"),
                                             ("alibi", "interleaved"), ("nope", "interleaved")])
def test_attention_equals_hand_loop(encoding, layout):
    model = _model(encoding, layout=layout)
    tokens = [3, 7, 1, 7, 19, 0, 4]
    maps = attention_maps(model, tokens)
    assert maps.shape == (2, 4, 7, 7) and maps.dtype == np.float32
    np.testing.assert_allclose(maps[0], _hand_attention(model, tokens).numpy(), atol=2e-6)


def test_alibi_uses_the_slopes_of_rope_viz_biases():
    # q = k = 0 leaves softmax(bias) alone: exp(-slope*(i-j)) normalised over j <= i.
    for n_heads, d_model in ((4, 32), (3, 48)):  # 3 heads: the rule for head counts not a power of two
        model = _model("alibi", n_heads=n_heads, d_model=d_model)
        with torch.no_grad():
            model.blocks[0].attn.qkv.weight[: 2 * d_model].zero_()
            model.blocks[0].attn.qkv.bias[: 2 * d_model].zero_()
        maps = attention_maps(model, [1, 2, 3, 4, 5, 6])[0]
        slopes = alibi_slopes(n_heads)
        assert torch.equal(model.alibi_slopes, slopes)
        for h in range(n_heads):
            for i in range(6):
                raw = [math.exp(-float(slopes[h]) * (i - j)) for j in range(i + 1)]
                np.testing.assert_allclose(maps[h, i, : i + 1], np.array(raw) / sum(raw), rtol=1e-5)
                assert np.all(maps[h, i, i + 1:] == 0)
    assert not torch.allclose(alibi_slopes(3)[2], torch.tensor(2 ** (-8 * 3 / 3), dtype=torch.float64))


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_in_model_equals_apply_rope(layout):
    model = _model("rope", layout=layout)
    plain = _model("nope", layout=layout)
    plain.load_state_dict(model.state_dict())
    x = torch.randn(2, 9, 32)
    q, k, v = model.blocks[1].attn.project(x)
    q0, k0, v0 = plain.blocks[1].attn.project(x)
    torch.testing.assert_close(q, apply_rope(q0, base=100.0, layout=layout, method="pairs"))
    torch.testing.assert_close(k, apply_rope(k0, base=100.0, layout=layout, method="pairs"))
    torch.testing.assert_close(v, v0)
    assert not torch.allclose(q, q0)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_causal_model_never_looks_forward(encoding):
    model = _model(encoding)
    gen = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, 20, (1, 12), generator=gen)
    with torch.no_grad():
        base = model(tokens)
        for t in (0, 5, 10):
            changed = tokens.clone()
            changed[0, t + 1:] = torch.randint(0, 20, (11 - t,), generator=gen)
            assert not torch.equal(changed, tokens)
            out = model(changed)
            torch.testing.assert_close(out[0, : t + 1], base[0, : t + 1], rtol=0, atol=1e-6)
            assert not torch.allclose(out[0, t + 1:], base[0, t + 1:])


def _recall_answer(seq, t):
    """The token after the most recent previous occurrence of seq[t], by a plain loop."""
    for j in range(t - 1, -1, -1):
        if seq[j] == seq[t]:
            return seq[j + 1]
    return None


@pytest.mark.parametrize("length", [32, 48, 100, 256])
def test_recall_targets_follow_the_definition(length):
    tokens, targets = make_batch("recall", 16, length, seed=length)
    assert tokens.shape == targets.shape == (16, length)
    for b in range(16):
        seq, tgt = tokens[b].tolist(), targets[b].tolist()
        scored = [t for t in range(length) if tgt[t] != IGNORE]
        assert len(scored) >= 3
        assert scored == list(range(scored[0], scored[-1] + 1))  # one run: the second copy
        for t in scored:
            assert tgt[t] == _recall_answer(seq, t)
        # the segment's first copy lies before the run and its distance exceeds the copy length
        first = seq.index(seq[scored[0]])
        assert first < scored[0] and scored[0] - first >= len(scored) + 1


def test_offset_targets_are_k_back():
    tokens, targets = make_batch("offset", 8, 40, seed=3)
    for b in range(8):
        for t in range(40):
            assert targets[b, t] == (IGNORE if t < 3 else tokens[b, t - 3])


def test_bad_arguments_raise_value_error_naming_them():
    with pytest.raises(ValueError, match="encoding"):
        TrainConfig(encoding="learned")
    with pytest.raises(ValueError, match="length"):
        make_batch("recall", 2, 4)
    with pytest.raises(ValueError, match="task"):
        make_batch("sorting", 2, 40)
    with pytest.raises(ValueError, match="n_heads"):
        ModelConfig(vocab_size=10, d_model=64, n_heads=5)
    with pytest.raises(ValueError, match="scalings"):
        TrainConfig(scalings=("longrope",))


def _tiny(steps, **kw):
    return TrainConfig(task="offset", encoding="rope", steps=steps, batch_size=8, train_len=16, warmup=5,
                       eval_factors=(1.0, 2.0), eval_sequences=4, scalings=("pi",), log_every=1, **kw)


def test_training_is_deterministic_and_lowers_the_loss():
    torch.set_num_threads(1)
    seen = []
    a = train(_tiny(40), progress=lambda step, steps, loss: seen.append((step, steps)))
    b = train(_tiny(40))
    assert a["runs"][0]["train_loss"] == b["runs"][0]["train_loss"]
    assert a["runs"][0]["eval"] == b["runs"][0]["eval"]
    losses = [loss for _, loss in a["runs"][0]["train_loss"]]
    assert len(losses) == 40 and seen[-1] == (40, 40)
    # below both the start and chance (uniform over 32 tokens)
    assert np.mean(losses[-5:]) < min(np.mean(losses[:5]), math.log(32)) - 0.2
    c = train(_tiny(40, seed=1))
    assert c["runs"][0]["train_loss"] != a["runs"][0]["train_loss"]
    validate_results(a)
    assert a["argv"][:5] == ["train", "--task", "offset", "--encoding", "rope"]
    assert a["command"].startswith("python -m rope_viz.toy train --task offset --encoding rope --steps 40")


def test_should_stop_ends_training_early():
    calls = []
    doc = train(_tiny(30), should_stop=lambda: len(calls) >= 5 or calls.append(1) or False)
    run = doc["runs"][0]
    assert run["stopped_at"] == 5 and len(run["train_loss"]) == 5
    assert {e["scaling"] for e in run["eval"]} == {"none", "pi"}


def test_scaled_frequencies_at_inference():
    config = ModelConfig(vocab_size=10, d_model=64, n_heads=4, base=10000.0)
    inv, factor = rope_frequencies(config, "pi", 4.0, 32)
    np.testing.assert_allclose(inv.numpy(), [10000.0 ** (-2 * i / 16) / 4.0 for i in range(8)], rtol=1e-6)
    assert factor == 1.0
    assert rope_frequencies(config, "yarn", 1.0, 32) is None and rope_frequencies(config, "none", 8.0, 32) is None
    # position interpolation by 4 inside the model = the hand loop at positions m / 4
    model = _model("rope", layout="half")
    tokens = [1, 2, 3, 4, 5, 6, 7, 8]
    scaled = attention_maps(model, tokens, rope_freqs=rope_frequencies(model.config, "pi", 4.0, 32))
    np.testing.assert_allclose(scaled[0], _hand_attention(model, tokens, pos_scale=0.25).numpy(), atol=2e-6)
    assert not np.allclose(scaled, attention_maps(model, tokens))


def test_loader_rejects_malformed_results(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="path="):
        load_results(bad)
    doc = json.loads(GRID.read_text(encoding="utf-8"))
    del doc["runs"][0]["eval"][0]["accuracy"]
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="accuracy"):
        load_results(bad)
    doc = json.loads(GRID.read_text(encoding="utf-8"))
    doc["runs"][0]["config"]["encoding"] = "learned"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="encoding"):
        load_results(bad)
    with pytest.raises(ValueError, match="path="):
        load_model(bad)


def test_shipped_grid_matches_schema_and_records_its_command():
    doc = load_results(GRID)
    assert doc["command"] == "python -m rope_viz.toy grid" and doc["argv"] == ["grid"]
    assert doc["wall_seconds"] > 0 and doc["device"]
    combos = {(r["config"]["task"], r["config"]["encoding"], r["config"]["seed"]) for r in doc["runs"]}
    assert combos == {(t, e, s) for t in ("recall", "offset") for e in ENCODINGS for s in (0, 1, 2)}
    for run in doc["runs"]:
        c = run["config"]
        assert run["command"].startswith(f"python -m rope_viz.toy train --task {c['task']} --encoding {c['encoding']}")
        scalings = {e["scaling"] for e in run["eval"]}
        assert scalings == ({"none", "pi", "ntk", "yarn"} if c["encoding"] == "rope" else {"none"})
        assert sorted({e["factor"] for e in run["eval"]}) == [1.0, 1.5, 2.0, 4.0, 8.0]
    # the summary is the mean over the seeds' own numbers
    row = next(r for r in doc["summary"] if r["encoding"] == "rope" and r["scaling"] == "none" and r["factor"] == 1.0
               and r["task"] == "offset")
    accs = [e["accuracy"] for run in doc["runs"]
            if run["config"]["encoding"] == "rope" and run["config"]["task"] == "offset"
            for e in run["eval"] if e["scaling"] == "none" and e["factor"] == 1.0]
    assert row["seeds"] == [0, 1, 2] and row["accuracy_mean"] == pytest.approx(sum(accs) / 3)


def test_shipped_weights_load_and_reproduce_their_accuracy():
    doc = load_results(GRID)
    with_weights = [r for r in doc["runs"] if r["weights"]]
    assert len(with_weights) == 8
    total = sum((GRID.parent / r["weights"]).stat().st_size for r in with_weights)
    assert total < 10 * 2**20
    run = next(r for r in with_weights if r["config"]["task"] == "offset" and r["config"]["encoding"] == "alibi")
    model, config = load_model(GRID.parent / run["weights"])
    assert config.to_dict() == run["config"]
    from rope_viz.toy import evaluate
    shipped = next(e for e in run["eval"] if e["factor"] == 1.0)
    again = evaluate(model, config.task, shipped["length"], sequences=config.eval_sequences, seed=config.seed)
    # same sequences, same weights; another CPU's float32 kernels or thread count may flip a rare tie
    assert again["scored"] == shipped["scored"]
    assert_close(again["accuracy"], shipped["accuracy"], answers(shipped["scored"]), "accuracy")


@pytest.mark.slow  # a fresh interpreter imports torch: outside the quick lane, like tests/ui/test_imports.py
def test_importing_rope_viz_leaves_the_toy_package_out():
    import subprocess
    import sys
    code = "import sys, rope_viz; print('rope_viz.toy' in sys.modules, 'safetensors' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout.split()
    assert out == ["False", "False"]


def test_command_line_device_is_checked_and_recorded(tmp_path, monkeypatch):
    from rope_viz.toy import runner
    with pytest.raises(SystemExit, match="--device 'bogus' is not usable here"):
        runner.main(["train", "--device", "bogus"])
    monkeypatch.setenv("ROPE_VIZ_DEVICE", "tpu")  # the default device comes from here: refused, not a traceback
    with pytest.raises(SystemExit, match="ROPE_VIZ_DEVICE='tpu'"):
        runner.main(["train", "--steps", "1"])
    monkeypatch.delenv("ROPE_VIZ_DEVICE")
    out = tmp_path / "run.json"
    assert runner.main(["train", "--task", "offset", "--encoding", "nope", "--steps", "2", "--eval-sequences", "2",
                        "--device", "cpu", "--out", str(out), "--no-weights"]) == 0
    doc = load_results(out)
    assert doc["device"].startswith("cpu") and "--device cpu" in doc["command"]


def test_the_cpu_is_described_with_its_thread_count_in_agreement():
    from rope_viz.toy.training import _device_name

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert _device_name(torch.device("cpu")).endswith(", 1 thread)")
        torch.set_num_threads(2)
        assert _device_name(torch.device("cpu")).endswith(", 2 threads)")
    finally:
        torch.set_num_threads(before)
