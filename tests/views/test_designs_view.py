"""explorer.views.designs against hand-made result tables (each sentence made to come out each way), numbers
recomputed here from the shipped grid4.json, and the shipped seed-0 models run by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from explorer.views import designs as view
from rope_viz import toy
from rope_viz.frequencies import pair_indices

FOLDER = str(toy.DEFAULT_DIR)


def _curve(scheme, low, mean, high, factors=(1.0, 8.0)):
    arr = lambda v: np.asarray(v, dtype=np.float32)  # noqa: E731
    return {"encoding": scheme, "scaling": "none", "seeds": [0, 1, 2], "factors": arr(factors),
            "lengths": arr([32 * f for f in factors]), "mean": arr(mean), "std": arr([0, 0]), "low": arr(low),
            "high": arr(high)}


def _table(**at_8x):
    """A hand-made result table: each scheme perfect at 1x and (low, mean, high) at 8x."""
    curves = [_curve(scheme.replace("_", "-").replace("-plus-", "+"), (1, lo), (1, mean), (1, hi))
              for scheme, (lo, mean, hi) in at_8x.items()]
    return {"train_len": 32, "steps": 10, "curves": curves, "facts": {"runs": 3}}


@pytest.mark.parametrize("band,verdict,paper", [
    ((0.6, 0.7, 0.8), "higher", "agrees"), ((0.05, 0.1, 0.15), "lower", "contradicts"),
    ((0.25, 0.35, 0.45), "overlap", "undecided")])
def test_each_answer_comes_out_each_way(band, verdict, paper):
    data = _table(rope=(0.2, 0.3, 0.4), nope_every_4th=band)
    found = view.answers(data, 8.0, "recall")
    assert len(found) == 1  # only the question whose two schemes are both in the table
    answer = found[0]
    assert answer["question"].key == "designs.q_nope_layers"
    assert answer["verdict"].key == f"designs.verdict_{verdict}"
    assert answer["paper"].key == f"designs.paper_{paper}"
    assert answer["verdict"].args["a"] == f"{band[1]:.0%} ({band[0]:.0%}–{band[2]:.0%})"
    assert answer["verdict"].args["b"] == "30% (20%–40%)"


def test_every_question_is_asked_when_every_scheme_is_there():
    data = _table(**{s.replace("-", "_").replace("+", "-plus-"): (0.1, 0.2, 0.3) for s in toy.SCHEMES})
    assert [a["question"].key for a in view.answers(data, 8.0, "passkey")] == [
        f"designs.q_{q}" for q in view.QUESTIONS]
    assert view.answers(data, 4.0, "passkey") == []  # no curve has 4x


def test_the_table_gives_mean_and_band_at_1x_and_the_factor():
    data = _table(rope=(0.2, 0.3, 0.4), p_rope=(0.5, 0.6, 0.9))
    columns = view.scheme_table(data, 8.0)
    assert [p.key for p in columns["designs.scheme_column"]] == ["designs.scheme_rope", "designs.scheme_p-rope"]
    assert columns["designs.at_1x"] == ["100% (100%–100%)"] * 2
    assert columns["designs.at_factor"] == ["30% (20%–40%)", "60% (50%–90%)"]


def test_sources_say_what_is_missing():
    assert view.source({"facts": None, "curves": []}, "recall").key == "designs.missing"
    assert view.source({"facts": {"runs": 24}, "curves": []}, "passkey").key == "designs.no_task"


@pytest.mark.parametrize("fast,slow,key", [(0.5, 0.1, "designs.norms_contradicts"),
                                           (0.1, 0.5, "designs.norms_agrees")])
def test_frequency_sentences_follow_the_norms_and_the_head(fast, slow, key):
    head = {"layer": 1, "head": 0, "offset": 3, "weight": 0.9}
    use = {"models": {"rope": {"fast": fast, "slow": slow, "head": head, "lean": 0.8},
                      "p-rope": {"fast": fast, "slow": slow, "head": None, "lean": None}}}
    lines = view.frequency_reading(use)
    assert [line.key for line in lines] == [key, "designs.head_agrees", key, "designs.no_positional"]
    assert lines[1].args["layer"] == 2 and lines[1].args["share"] == "80%"
    use["models"]["rope"]["lean"] = 0.2
    assert view.frequency_reading(use)[1].key == "designs.head_contradicts"


def test_quarter_shares_by_hand():
    norms = np.array([[4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0]])  # 8 pairs: a quarter is 2
    fast, slow = view.quarter_shares(norms)
    assert fast == pytest.approx(5 / 12) and slow == pytest.approx(3 / 12)


@pytest.mark.parametrize("kept_quarter,key", [(0.5, "designs.removal_helps"), (0.1, "designs.removal_hurts"),
                                              (0.32, "designs.removal_same")])
def test_removal_sentence_each_way(kept_quarter, key):
    found = {"factor": 8.0, "short": {0.0: 1.0, 0.25: 1.0, 0.5: 0.95, 0.75: 0.9},
             "long": {0.0: 0.3, 0.25: 0.31, 0.5: 0.2, 0.75: kept_quarter}}
    said = view.removal_reading(found)
    assert said.key == key and said.args["share"] == "75%"
    assert (said.args["intact"], said.args["removed"]) == ("30%", f"{kept_quarter:.0%}")
    assert (said.args["short_intact"], said.args["short_removed"]) == ("100%", "90%")
    metrics = view.removal_metrics(found)
    assert [m.value for m in metrics] == ["30%", "31%", "20%", f"{kept_quarter:.0%}"]
    assert [m.label.key for m in metrics] == ["designs.intact_at"] + ["designs.removed_at"] * 3
    assert [m.help.args["value"] for m in metrics] == ["100%", "100%", "95%", "90%"]


@pytest.mark.parametrize("early,swapped,key", [(0.9, 0.2, "designs.mixup_early"), (0.47, 0.05, "designs.mixup_early"),
                                               (0.1, 0.2, "designs.mixup_flat"), (0.25, 0.05, "designs.mixup_flat"),
                                               (0.1, 0.9, "designs.mixup_better")])
def test_mixup_sentence_each_way(early, swapped, key):
    by_position = np.full(64, 0.0, dtype=np.float32)
    by_position[:2] = np.nan  # nothing scored there: the first answers are those at positions 2..9
    by_position[2:10] = early
    found = {"own": "interleaved", "other": "half", "length": 64, "train_len": 32, "own_accuracy": 0.8,
             "swapped_accuracy": swapped, "swapped_by_position": by_position}
    said = view.mixup_reading(found)
    assert said.key == key and said.args["early"] == f"{early:.0%}" and said.args["first"] == 8


# --- the shipped grid and models -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stamp():
    found = view.grid_stamp(FOLDER)
    assert found is not None, "results/toy/grid4.json is shipped"
    return found


def test_shipped_curves_are_the_seed_mean_and_band_of_the_json(stamp):
    doc = json.loads(view.grid_path(FOLDER).read_text())
    data = view.grid_curves(FOLDER, stamp, "recall")
    assert [c["encoding"] for c in data["curves"]] == list(toy.SCHEMES)
    for curve in data["curves"]:
        acc = np.array([[e["accuracy"] for e in r["eval"]] for r in doc["runs"]
                        if r["config"]["task"] == "recall" and r["config"]["encoding"] == curve["encoding"]])
        assert acc.shape == (3, len(toy.GRID4_EVAL_FACTORS))
        np.testing.assert_allclose(curve["mean"], acc.mean(axis=0), rtol=1e-6)
        np.testing.assert_allclose(curve["low"], acc.min(axis=0), rtol=1e-6)
        np.testing.assert_allclose(curve["high"], acc.max(axis=0), rtol=1e-6)
    assert data["facts"]["runs"] == len(doc["runs"])


def test_shipped_norm_map_is_query_norm_times_key_norm_by_hand(stamp):
    use = view.frequency_use(FOLDER, stamp, "recall")
    assert set(use["models"]) == {"rope", "p-rope"}
    model, config = toy.load_model(toy.DEFAULT_DIR / "weights" / "grid4_recall_rope_seed0.safetensors")
    tokens = toy.make_batch("recall", view.SAMPLE_SEQUENCES, config.train_len, seed=0)[0]
    captured = []
    hook = model.blocks[2].attn.register_forward_pre_hook(lambda _m, args: captured.append(args[0]))
    with torch.no_grad():
        model.eval()
        model(tokens)
    hook.remove()
    c = model.config
    q, k, _ = model.blocks[2].attn.qkv(captured[0]).double().unflatten(-1, (3, c.n_heads, c.d_head)).unbind(-3)
    a, b = pair_indices(c.d_head, c.layout)
    for head in range(c.n_heads):
        qn = torch.sqrt(q[..., head, a] ** 2 + q[..., head, b] ** 2).mean(dim=(0, 1))
        kn = torch.sqrt(k[..., head, a] ** 2 + k[..., head, b] ** 2).mean(dim=(0, 1))
        np.testing.assert_allclose(use["models"]["rope"]["size"][2 * c.n_heads + head], (qn * kn).detach().numpy(),
                                   rtol=1e-5)
    assert use["rows"][2 * c.n_heads] == "L3 H1"


def test_shipped_mixup_reads_the_same_weights_with_the_other_layout(stamp):
    found = view.layout_mixup(FOLDER, stamp, "offset", 2.0)
    assert found["own"] == "interleaved" and found["other"] == "half" and found["length"] == 64
    own = toy.evaluate(toy.load_model(toy.DEFAULT_DIR / "weights" / "grid4_offset_rope_seed0.safetensors")[0],
                       "offset", 64, sequences=view.EVAL_SEQUENCES)
    assert found["own_accuracy"] == pytest.approx(own["accuracy"])
    assert found["swapped_accuracy"] < found["own_accuracy"]
    np.testing.assert_array_equal(found["positions"], np.arange(0, 64, found["width"]))  # the runs the title names


def test_pooled_accuracy_is_right_over_scored_per_run_of_positions():
    correct = np.array([0, 1, 2, 0, 0, 3, 1])
    total = np.array([0, 2, 2, 0, 0, 4, 1])
    starts, accuracy = view.pooled(correct, total, bins=3)  # runs of 3: [0..2], [3..5], [6]
    np.testing.assert_array_equal(starts, [0, 3, 6])
    np.testing.assert_allclose(accuracy, [3 / 4, 3 / 4, 1.0])
    _, empty = view.pooled(np.zeros(4, int), np.array([0, 0, 1, 1]), bins=2)
    assert np.isnan(empty[0]) and empty[1] == 0.0


def test_removal_that_helps_and_costs_nothing_at_1x_speaks_of_no_cost():
    """Accuracy at 1x unchanged (100% both ways): the sentence does not speak of "a cost of 100% -> 100%"."""
    found = {"factor": 8.0, "short": {0.0: 1.0, 0.25: 1.0, 0.5: 1.0, 0.75: 0.9996},
             "long": {0.0: 0.3, 0.25: 0.31, 0.5: 0.2, 0.75: 0.5}}
    said = view.removal_reading(found)
    assert said.key == "designs.removal_helps_free" and said.args["short_removed"] == said.args["short_intact"]
