"""The real-models view against references that do not use it: the recorded examples against a fresh
measurement, the attention map's rows and the head roles against the attention weights read by hand, the text
cap, the pair shares' quarters and the direction words."""

import dataclasses

import json

import numpy as np
import pytest
import torch

from explorer.pure.views import real_models as view
from rope_viz import real_model
from rope_viz.real import measure
from support.recorded import NOISE, answers, assert_close, matmuls

SHORT = "The cat sat on the mat. The dog sat on the rug."


@pytest.fixture(scope="module")
def short():
    return view.compute("smollm2-135m", SHORT)


@pytest.mark.slow  # loads SmolLM2 and runs it: outside the quick lane
def test_the_attention_map_is_causal_and_each_row_sums_to_one(short):
    found = view.attention_map("smollm2-135m", short.reading.ids, 2)
    weights = found.weights.astype(np.float64)
    assert np.allclose(weights.sum(-1), 1, atol=1e-5)
    assert np.all(np.triu(weights, k=1) == 0)
    np.testing.assert_array_equal(found.kept, np.arange(len(short.reading.ids)))


@pytest.mark.slow  # loads SmolLM2 and runs it: outside the quick lane
def test_head_roles_and_losses_match_a_hand_reading(short):
    ids = torch.tensor(short.reading.ids)
    lm = real_model("smollm2-135m")
    run = lm.forward(ids, capture=[5])
    weights = run.attention[5].double().numpy()
    seq = len(ids)
    previous = [np.mean([weights[h, i, i - 1] for i in range(1, seq)]) for h in range(weights.shape[0])]
    first = [np.mean([weights[h, i, 0] for i in range(1, seq)]) for h in range(weights.shape[0])]
    np.testing.assert_allclose(short.looks.previous[5], previous, atol=1e-6)
    np.testing.assert_allclose(short.looks.first[5], first, atol=1e-6)
    log_probs = torch.log_softmax(run.logits.double(), -1).numpy()
    losses = [-log_probs[i, int(ids[i + 1])] for i in range(seq - 1)]
    np.testing.assert_allclose(short.said.losses, losses, atol=1e-4)  # fused vs blockwise attention: float32 rounding
    assert short.said.top1 == pytest.approx(np.mean([log_probs[i].argmax() == int(ids[i + 1]) for i in range(seq - 1)]))
    assert short.relativity.residual_shift < 1e-3 < 0.1 < short.relativity.residual_doubled


def test_a_long_text_is_cut_to_the_character_and_token_caps():
    found = view.read("smollm2-135m", "word " * 1000)
    assert (found.chars, found.kept_chars, len(found.ids)) == (5000, view.MAX_CHARS, view.MAX_TOKENS)
    assert found.tokens > view.MAX_TOKENS and found.cut
    assert not view.read("smollm2-135m", SHORT).cut


def test_quarters_labels_and_directions():
    shares = np.full((3, 32), 1 / 32)
    shares[:, 0] += 0.1
    fast, slow = view.quarter_shares(shares)
    assert fast == pytest.approx(8 / 32 + 0.1) and slow == pytest.approx(8 / 32)
    assert view.token_label(" a\nb\tc") == "\u2423a\u21b5b\u21e5c"
    assert view.token_label("x" * 20, 6) == "xxxxx\u2026"
    assert [view.loss_words(1.0, v) for v in (1.2, 0.8, 1.001)] == ["up", "down", "same"]


@pytest.mark.slow  # loads SmolLM2 and runs it: outside the quick lane
def test_the_profile_scales_each_head_and_the_bound_to_one(short):
    found = view.profile(short.looks, short.layers, 3)
    assert found.reach == len(short.reading.ids) - 1
    np.testing.assert_allclose(np.nanmax(found.heads, -1), 1, rtol=1e-6)
    assert found.bound[0] == pytest.approx(1.0)


DIGITS = 6  # results/real/examples.json keeps 6 significant digits (view._rounded)


@pytest.mark.slow
def test_a_recorded_example_matches_a_fresh_measurement():
    """The file was written on another machine, maybe another CPU kind: support.recorded's rules say how far each
    number may move, and why."""
    entry = next(e for e in json.loads(view.SHIPPED.read_text(encoding="utf-8"))["entries"]
                 if (e["name"], e["example"]) == ("smollm2-135m", "list"))
    recorded = view.shipped()[("smollm2-135m", "list")]
    fresh = view.compute("smollm2-135m", view.EXAMPLES["list"])
    assert recorded.reading == fresh.reading and recorded.said.tokens == fresh.said.tokens
    float32 = matmuls("float32", "float32", DIGITS)  # every section but the interventions runs in float32
    top1 = answers(len(fresh.reading.ids) - 1)  # an argmax per next token
    assert_close(fresh.said.loss, recorded.said.loss, float32, "said/loss")
    assert_close(fresh.said.top1, recorded.said.top1, top1, "said/top1")
    for name, value in dataclasses.asdict(recorded.relativity).items():
        rule = NOISE if name == "residual_shift" else top1 if name.startswith("top1") else float32
        assert_close(getattr(fresh.relativity, name), value, rule, f"relativity/{name}")
    assert_close(fresh.looks.shares, recorded.looks.shares, float32, "looks/shares")
    # The interventions' matmuls: this host's precision (chosen by timing it) and the recording's as the file says
    # it (a file written before it could say is taken as either: the bfloat16 rule). The precisions' names
    # themselves may differ between hosts; the numbers are compared under the rule they call for.
    assert fresh.interventions.precision == measure.interventions_precision(real_model("smollm2-135m"))
    precision = matmuls(entry["measured"]["interventions"].get("precision"), fresh.interventions.precision, DIGITS)
    numbers = {k: v for k, v in dataclasses.asdict(fresh.interventions).items() if k != "precision"}
    assert_close(numbers, {k: v for k, v in dataclasses.asdict(recorded.interventions).items() if k != "precision"},
                 precision, "interventions")


@pytest.mark.slow  # loads SmolLM2 and runs it: outside the quick lane
def test_spread_positions_read_by_pi_at_the_same_factor_give_the_plain_loss(short):
    spaced = dict(view.spaced_losses("smollm2-135m", short.reading.ids, 32))
    plain = short.interventions.stopped.loss  # the same precision as the spread reading
    assert spaced["linear"] == pytest.approx(plain, abs=1e-5)  # positions 32 i / 32 = i: the same angles
    assert spaced["none"] > plain + 0.1  # every offset 32 times too large
    grid = view.long_context()
    assert grid.context == 8192 and grid.starts[-1] >= grid.context and set(grid.losses) >= {"none", "linear", "yarn"}


def test_passkey_lines_say_what_the_shipped_grid_holds():
    doc = json.loads(view.LONG_CONTEXT.read_text(encoding="utf-8"))
    lines = view.passkey_lines(view.long_context())
    assert len(lines) == len(doc["grid"]["lengths"])
    for length, line in zip(doc["grid"]["lengths"], lines):
        cells = {m: [doc["passkey"][m][str(length)][str(float(d))]["correct"]
                     for d in doc["grid"]["depths_by_length"][str(length)]] for m in doc["methods"]}
        lost = [m for m, found in cells.items() if not all(found)]
        where = "inside" if length <= doc["model"]["context"] else "past"
        assert line.key == f"real_models.passkey_{where}" + ("" if lost else "_all")
        assert [said.key for said in line.args["missed"]] == [f"real_models.method_{m}" for m in lost]
        assert line.args["found"] == len(cells) - len(lost)


def test_the_recorded_file_reads_back_to_what_writing_it_gives():
    """examples.json keeps its format: each entry, read into Measured and written the way write_examples
    writes it, is the file's own JSON again (layers as lists, traps as pairs)."""
    doc = json.loads(view.SHIPPED.read_text(encoding="utf-8"))
    recorded = view.shipped()
    for entry in doc["entries"]:
        written = view._rounded(dataclasses.asdict(recorded[(entry["name"], entry["example"])]))
        assert json.loads(json.dumps(written, ensure_ascii=False)) == entry["measured"]


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_pair_shares_match_a_loop_over_pairs_and_causal_cells(layout):
    torch.manual_seed(0)
    heads, kv_heads, seq, dim, rotary = 4, 2, 9, 12, 8
    queries, keys = torch.randn(heads, seq, dim), torch.randn(kv_heads, seq, dim)
    found = measure.pair_shares(queries, keys, layout, rotary).numpy()
    pairs = [(i, i + rotary // 2) if layout == "half" else (2 * i, 2 * i + 1) for i in range(rotary // 2)]
    expected = np.zeros((heads, len(pairs)))
    for h in range(heads):
        k = keys[h // (heads // kv_heads)].double().numpy()
        q = queries[h].double().numpy()
        for p, (a, b) in enumerate(pairs):
            cells = [abs(q[m, a] * k[n, a] + q[m, b] * k[n, b]) for m in range(seq) for n in range(m + 1)]
            expected[h, p] = np.mean(cells)
    # each 2-term dot product in float32, the sums in float64
    np.testing.assert_allclose(found, expected / expected.sum(-1, keepdims=True), rtol=1e-6)
