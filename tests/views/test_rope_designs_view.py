"""explorer.pure.views.rope_designs against hand-made result tables (each sentence made to come out each way), numbers
recomputed here from the shipped grid4.json, and the shipped seed-0 models run by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from explorer.pure.views import rope_designs as view
from explorer.pure.text import STRINGS, text
from explorer.pure.views import trained_models as trained_view
from explorer.pure.views.phrases import Phrase
from rope_viz import pair_indices, toy
from rope_viz.toy import evaluations

FOLDER = str(toy.DEFAULT_DIR)


def _curve(scheme, low, mean, high, factors=(1.0, 8.0)):
    arr = lambda v: np.asarray(v, dtype=np.float32)  # noqa: E731
    return trained_view.Curve(encoding=scheme, scaling="none", seeds=(0, 1, 2), factors=arr(factors),
                              lengths=arr([32 * f for f in factors]), mean=arr(mean), std=arr([0, 0]), low=arr(low),
                              high=arr(high))


def _facts(runs):
    return view.GridFacts(runs=runs, minutes=1.0, command="c", device="cpu", dim=32, base=10000.0)


def _table(**at_8x):
    """A hand-made result table: each scheme perfect at 1x and (low, mean, high) at 8x."""
    curves = [_curve(scheme.replace("_", "-").replace("-plus-", "+"), (1, lo), (1, mean), (1, hi))
              for scheme, (lo, mean, hi) in at_8x.items()]
    return view.GridCurves(train_len=32, steps=10, curves=tuple(curves), facts=_facts(3))


@pytest.mark.parametrize("band,verdict,paper", [
    ((0.6, 0.7, 0.8), "higher", "agrees"), ((0.05, 0.1, 0.15), "lower", "contradicts"),
    ((0.25, 0.35, 0.45), "overlap", "undecided")])
def test_each_answer_comes_out_each_way(band, verdict, paper):
    data = _table(rope=(0.2, 0.3, 0.4), nope_every_4th=band)
    found = view.answers(data, 8.0, "recall")
    assert len(found) == 1  # only the question whose two schemes are both in the table
    answer = found[0]
    assert answer.question.key == "rope_designs.q_nope_layers"
    assert answer.verdict.key == f"rope_designs.verdict_{verdict}"
    assert answer.paper.key == f"rope_designs.paper_{paper}"
    assert answer.verdict.args["a"] == f"{band[1]:.0%} ({band[0]:.0%}–{band[2]:.0%})"
    assert answer.verdict.args["b"] == "30% (20%–40%)"


def test_every_question_is_asked_when_every_scheme_is_there():
    data = _table(**{s.replace("-", "_").replace("+", "-plus-"): (0.1, 0.2, 0.3) for s in toy.SCHEMES})
    assert [a.question.key for a in view.answers(data, 8.0, "passkey")] == [
        f"rope_designs.q_{q}" for q in view.QUESTIONS]
    assert view.answers(data, 4.0, "passkey") == []  # no curve has 4x


def test_the_table_gives_mean_and_band_at_1x_and_the_factor():
    data = _table(rope=(0.2, 0.3, 0.4), p_rope=(0.5, 0.6, 0.9))
    columns = view.scheme_table(data, 8.0)
    assert [p.key for p in columns["rope_designs.scheme_column"]] == [
        "rope_designs.scheme_rope",
        "rope_designs.scheme_p-rope",
    ]
    assert columns["rope_designs.at_1x"] == ["100% (100%–100%)"] * 2
    assert columns["rope_designs.at_factor"] == ["30% (20%–40%)", "60% (50%–90%)"]


def test_sources_say_what_is_missing():
    assert view.source(view.GridCurves(None, None, (), facts=None), "recall").key == "rope_designs.missing"
    assert view.source(view.GridCurves(None, None, (), facts=_facts(24)), "passkey").key == "rope_designs.no_task"


@pytest.mark.parametrize("fast,slow,key", [(0.5, 0.1, "rope_designs.norms_contradicts"),
                                           (0.1, 0.5, "rope_designs.norms_agrees")])
def test_frequency_sentences_follow_the_norms_and_the_head(fast, slow, key):
    head = view.PositionalHead(layer=1, head=0, offset=3, weight=0.9)

    def use(lean):
        model = lambda head, lean: view.PairUse(size=np.ones((1, 4)), fast=fast, slow=slow, head=head,  # noqa: E731
                                                lean=lean, speeds=np.ones(4), train_len=32)
        return view.FrequencyUse(models={"rope": model(head, lean), "p-rope": model(None, None)}, rows=["L1 H1"],
                                 pairs=np.arange(4))

    lines = view.frequency_reading(use(0.8))
    assert [line.key for line in lines] == [key, "rope_designs.head_agrees", key, "rope_designs.no_positional"]
    assert lines[1].args["layer"] == 2 and lines[1].args["share"] == "80%"
    assert view.frequency_reading(use(0.2))[1].key == "rope_designs.head_contradicts"


def test_quarter_shares_by_hand():
    norms = np.array([[4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0]])  # 8 pairs: a quarter is 2
    fast, slow = evaluations.quarter_shares(norms)
    assert fast == pytest.approx(5 / 12) and slow == pytest.approx(3 / 12)


@pytest.mark.parametrize("kept_quarter,key", [(0.5, "rope_designs.removal_helps"), (0.1, "rope_designs.removal_hurts"),
                                              (0.32, "rope_designs.removal_same")])
def test_removal_sentence_each_way(kept_quarter, key):
    found = view.Removal(factor=8.0, short={0.0: 1.0, 0.25: 1.0, 0.5: 0.95, 0.75: 0.9},
                         long={0.0: 0.3, 0.25: 0.31, 0.5: 0.2, 0.75: kept_quarter})
    data = _table(rope=(0.2, 0.3, 0.4))
    said = view.removal_reading(found, data)
    assert said.key == key and said.args["share"] == "75%" and said.args["band"] == "30% (20%–40%)"
    assert (said.args["intact"], said.args["removed"]) == ("30%", f"{kept_quarter:.0%}")
    assert (said.args["short_intact"], said.args["short_removed"]) == ("100%", "90%")
    metrics = view.removal_metrics(found)
    assert [m.value for m in metrics] == ["30%", "31%", "20%", f"{kept_quarter:.0%}"]
    assert [m.label.key for m in metrics] == ["rope_designs.intact_at"] + ["rope_designs.removed_at"] * 3
    assert [m.help.args["value"] for m in metrics] == ["100%", "100%", "95%", "90%"]


@pytest.mark.parametrize(
    "early,swapped,key",
    [
        (0.9, 0.2, "rope_designs.mixup_early"),
        (0.47, 0.05, "rope_designs.mixup_early"),
        (0.1, 0.2, "rope_designs.mixup_flat"),
        (0.25, 0.05, "rope_designs.mixup_flat"),
        (0.1, 0.9, "rope_designs.mixup_better"),
    ],
)
def test_mixup_sentence_each_way(early, swapped, key):
    by_position = np.full(64, 0.0, dtype=np.float32)
    by_position[:2] = np.nan  # nothing scored there: the first answers are those at positions 2..9
    by_position[2:10] = early
    unused = np.zeros(1, dtype=np.float32)
    found = view.LayoutMixup(own_layout="interleaved", other_layout="half", length=64, train_len=32, width=1,
                             positions=unused, own=view.Reading(by_position=unused, pooled=unused, accuracy=0.8),
                             swapped=view.Reading(by_position=by_position, pooled=unused, accuracy=swapped),
                             first_scored=2)
    said = view.mixup_reading(found)
    assert said.key == key and said.args["early"] == f"{early:.0%}" and said.args["first"] == 8


# --- the shipped grid, its evaluations and models --------------------------------------------------------------
@pytest.fixture(scope="module")
def stamp():
    found = view.grid_stamp(FOLDER)
    assert found is not None, "rope_viz/toy/shipped/grid4.json is shipped"
    return found


@pytest.fixture(scope="module")
def evaluated():
    found = view.evaluations_stamp(FOLDER)
    assert found is not None, "rope_viz/toy/shipped/grid4_evaluations.json is shipped"
    return found


def _grid_runs(name: str, task: str, encoding: str) -> list[dict]:
    doc = json.loads((toy.DEFAULT_DIR / name).read_text())
    return [r for r in doc["runs"] if r["config"]["task"] == task and r["config"]["encoding"] == encoding]


def _accuracies(name: str, task: str, encoding: str, factor: float, scaling: str = "none") -> np.ndarray:
    """Every seed's accuracy at one factor, read straight from a grid's JSON."""
    return np.array([e["accuracy"] for r in _grid_runs(name, task, encoding) for e in r["eval"]
                     if e["factor"] == factor and e["scaling"] == scaling])


def _said(value, lang: str):
    if isinstance(value, Phrase):
        return text(value.key, lang, **{k: _said(v, lang) for k, v in value.args.items()})
    if isinstance(value, tuple):
        return STRINGS[lang]["common.list_sep"].join(_said(v, lang) for v in value)
    return value


def test_shipped_curves_are_the_seed_mean_and_band_of_the_json(stamp):
    doc = json.loads(view.grid_path(FOLDER).read_text())
    data = view.grid_curves(FOLDER, stamp, "recall")
    assert [c.encoding for c in data.curves] == list(toy.SCHEMES)
    for curve in data.curves:
        acc = np.array([[e["accuracy"] for e in r["eval"]] for r in doc["runs"]
                        if r["config"]["task"] == "recall" and r["config"]["encoding"] == curve.encoding])
        assert acc.shape == (3, len(toy.GRID4_EVAL_FACTORS))
        np.testing.assert_allclose(curve.mean, acc.mean(axis=0), rtol=1e-6)
        np.testing.assert_allclose(curve.low, acc.min(axis=0), rtol=1e-6)
        np.testing.assert_allclose(curve.high, acc.max(axis=0), rtol=1e-6)
    assert data.facts.runs == len(doc["runs"])
    assert (data.facts.dim, data.facts.base) == (64 // 2, 10000.0)


def test_shipped_evaluations_belong_to_the_shipped_grid():
    """The file the page reads names the grid it evaluated and the settings it used (its numbers are checked
    against a fresh evaluation of the shipped weights in tests/core/test_toy_analysis.py)."""
    doc = evaluations.load_evaluations(view.evaluations_path(FOLDER))
    assert doc["grid"] == toy.GRID4_FILE and doc["settings"] == evaluations.SETTINGS
    assert doc["grid_created"] == json.loads(view.grid_path(FOLDER).read_text())["created"]
    assert doc["command"] == "python -m rope_viz.toy evaluate4"
    assert set(doc["tasks"]) == set(toy.TASK_NAMES)
    for found in doc["tasks"].values():
        assert sorted(found["removal"]) == sorted(repr(f) for f in toy.GRID4_EVAL_FACTORS)
        assert sorted(found["mixup"]) == sorted(repr(f) for f in toy.GRID4_EVAL_FACTORS if f > 1)


def test_missing_or_stale_evaluations_are_said(tmp_path, stamp, evaluated):
    assert view.evaluations_notice(FOLDER, stamp, evaluated) is None  # the shipped ones belong to the grid
    (tmp_path / toy.GRID4_FILE).write_text(view.grid_path(FOLDER).read_text())
    folder = str(tmp_path)
    assert view.evaluations_notice(folder, view.grid_stamp(folder), None).key == "rope_designs.no_evaluations"
    assert view.frequency_use(folder, None, "recall").models == {}
    assert view.removal(folder, None, "recall", 8.0) is None
    doc = evaluations.load_evaluations(view.evaluations_path(FOLDER))
    evaluations.save_evaluations({**doc, "grid_created": "2020-01-01T00:00:00+00:00"}, view.evaluations_path(folder))
    said = view.evaluations_notice(folder, view.grid_stamp(folder), view.evaluations_stamp(folder))
    assert said.key == "rope_designs.stale_evaluations" and said.args["grid"] == doc["grid_created"]


@pytest.mark.parametrize("task", toy.TASK_NAMES)
def test_the_intact_model_scores_what_the_grid_recorded_for_seed_0(evaluated, task):
    """The removal section's "RoPE as trained" is the grid's own seed-0 evaluation, at every factor."""
    run = _grid_runs(toy.GRID4_FILE, task, "rope")[0]
    assert run["config"]["seed"] == 0
    for factor in toy.GRID4_EVAL_FACTORS[1:]:
        found = view.removal(FOLDER, evaluated, task, factor)
        seed0 = next(e["accuracy"] for e in run["eval"] if e["factor"] == factor)
        assert found.long[0.0] == pytest.approx(seed0, abs=1e-9)


def test_shipped_norm_map_is_query_norm_times_key_norm_by_hand(evaluated):
    use = view.frequency_use(FOLDER, evaluated, "recall")
    assert set(use.models) == {"rope", "p-rope"}
    model, config = toy.load_model(toy.DEFAULT_DIR / "weights" / "grid4_recall_rope_seed0.safetensors")
    tokens = toy.make_batch("recall", evaluations.SAMPLE_SEQUENCES, config.train_len, seed=0)[0]
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
        np.testing.assert_allclose(use.models["rope"].size[2 * c.n_heads + head], (qn * kn).detach().numpy(),
                                   rtol=1e-5)
    assert use.rows[2 * c.n_heads] == "L3 H1"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_why_the_norm_maps_look_alike_from_the_numbers(evaluated, lang):
    use = view.frequency_use(FOLDER, evaluated, "recall")
    said = view.norms_alike(use)
    # p-RoPE keeps a quarter of 16 pairs; RoPE turns pair 4 at 10000^(-8/32) = 0.1 rad per position
    assert (said.args["first"], said.args["last"], said.args["n"]) == (4, 15, 32)
    assert said.args["angle"] == pytest.approx(31 * 10000 ** (-8 / 32))
    a, b = (np.asarray(use.models[s].size, dtype=np.float64) for s in ("rope", "p-rope"))
    assert said.args["diff"] == f"{100 * np.abs(a - b).mean() / ((a + b) / 2).mean():.0f}%"
    assert said.args["top"] == f"{max(a.max(), b.max()):.0f}"
    rendered = _said(said, lang)
    assert "3.10" in rendered and said.args["diff"] in rendered and said.args["top"] in rendered


def test_shipped_mixup_reads_the_same_weights_with_the_other_layout(evaluated):
    found = view.layout_mixup(FOLDER, evaluated, "offset", 2.0)
    assert found.own_layout == "interleaved" and found.other_layout == "half" and found.length == 64
    own = toy.evaluate(toy.load_model(toy.DEFAULT_DIR / "weights" / "grid4_offset_rope_seed0.safetensors")[0],
                       "offset", 64, sequences=evaluations.EVAL_SEQUENCES)
    assert found.own.accuracy == pytest.approx(own["accuracy"])
    assert found.swapped.accuracy < found.own.accuracy
    np.testing.assert_array_equal(found.positions, np.arange(3, 64, found.width))  # offset 3: answers from 3


def test_the_recall_mixup_lines_have_no_gaps_and_say_where_they_begin(evaluated):
    found = view.layout_mixup(FOLDER, evaluated, "recall", 8.0)
    assert np.isfinite(found.own.pooled).all() and np.isfinite(found.swapped.pooled).all()
    by_position = found.own.by_position
    assert found.first_scored == int(np.flatnonzero(np.isfinite(by_position))[0]) > 0
    assert found.positions[0] <= found.first_scored < found.positions[0] + found.width
    said = view.mixup_scored(found, "recall")
    assert said.args["first"] == found.first_scored and said.args["length"] == 256


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rope_at_8x_is_one_value_per_claim_and_seed_0_is_labelled(stamp, evaluated, lang):
    """The table's RoPE at 8x is the seed mean (min-max); the removal section's is seed 0's, and says so."""
    data = view.grid_curves(FOLDER, stamp, "recall")
    acc = _accuracies(toy.GRID4_FILE, "recall", "rope", 8.0)
    band = f"{acc.mean():.0%} ({acc.min():.0%}–{acc.max():.0%})"
    table = view.scheme_table(data, 8.0)
    assert table["rope_designs.at_factor"][0] == band
    found = view.removal(FOLDER, evaluated, "recall", 8.0)
    said = view.removal_reading(found, data)
    assert said.args["band"] == band and said.args["intact"] == f"{acc[0]:.0%}"
    rendered = _said(said, lang)
    assert band in rendered and ("seed-0" in rendered if lang == "en" else "种子 0" in rendered)
    intact = view.removal_metrics(found)[0]
    assert intact.value == f"{acc[0]:.0%}" and ("seed 0" if lang == "en" else "种子 0") in _said(intact.label, lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("task", "factor", "kind"), [("recall", 8.0, "opposite"), ("recall", 4.0, "opposite"),
                                                      ("offset", 8.0, "opposite"), ("recall", 2.0, "same")])
def test_alibi_against_rope_is_reconciled_across_the_two_grids(stamp, task, factor, kind, lang):
    """Both pages say ALiBi's place beside RoPE on the other page's models, from both grids' JSON."""
    four = view.grid_curves(FOLDER, stamp, task)
    two = trained_view.shipped_curves(FOLDER, trained_view.grid_stamp(FOLDER), task)
    expected = {}
    for where, name in (("here", toy.GRID4_FILE), ("there", "grid.json")):
        for f, suffix in ((factor, ""), (1.0, "_1x")):
            for encoding in ("alibi", "rope"):
                expected[f"{encoding}_{where}{suffix}"] = f"{_accuracies(name, task, encoding, f).mean():.0%}"
    said = trained_view.alibi_across(four, two, factor, "rope_designs.alibi_across")
    assert said.key == f"rope_designs.alibi_across_{kind}"
    assert {k: said.args[k] for k in expected} == expected
    mirrored = trained_view.alibi_across(two, four, factor, "trained_models.alibi_across")
    assert mirrored.key == f"trained_models.alibi_across_{kind}"
    lengths = {"en": "the same training length, 32 tokens", "zh": "训练长度相同，都是 32 个词元"}[lang]
    for page_said in (said, mirrored):
        rendered = _said(page_said, lang)
        assert all(value in rendered for value in expected.values())
        assert lengths in rendered  # both grids train at 32 tokens: no difference made of equal numbers
    assert (
        trained_view.alibi_across(four, two, 16.0, "rope_designs.alibi_across") is None
    )  # the two-layer grid stops at 8x


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_trained_page_says_how_far_pi_falls_and_draws_nothing_from_unlearned_nope(lang):
    data = trained_view.shipped_curves(FOLDER, trained_view.grid_stamp(FOLDER), "recall")
    claims = {c.key: c for c in trained_view.findings(data, 4.0).claims}
    worst = claims["trained_models.claim_worst_lower"]
    pi = {f: f"{_accuracies('grid.json', 'recall', 'rope', f, 'pi').mean():.0%}" for f in (1.5, 2.0, 4.0)}
    assert pi[2.0] == "9%" and worst.args["worst"] == pi[4.0]
    rendered = _said(worst, lang)
    assert all(value in rendered for value in pi.values())
    nope = _accuracies("grid.json", "recall", "nope", 1.0).mean()
    assert nope < trained_view.UNLEARNED
    assert "trained_models.claim_nope_higher" not in claims and "trained_models.claim_nope_lower" not in claims
    assert claims["trained_models.claim_unlearned"].args["base"] == f"{nope:.0%}"


def test_pooled_accuracy_is_right_over_scored_per_run_of_positions():
    correct = np.array([0, 1, 2, 0, 0, 3, 1])
    total = np.array([0, 2, 2, 0, 0, 4, 1])
    starts, accuracy = view.pooled(correct, total, bins=3)  # runs of 3: [0..2], [3..5], [6]
    np.testing.assert_array_equal(starts, [0, 3, 6])
    np.testing.assert_allclose(accuracy, [3 / 4, 3 / 4, 1.0])
    starts, empty = view.pooled(np.zeros(4, int), np.array([0, 0, 1, 1]), bins=2)
    np.testing.assert_array_equal(starts, [2])  # the run that scored nothing is left out: no gap in the line
    np.testing.assert_array_equal(empty, [0.0])


def test_removal_that_helps_and_costs_nothing_at_1x_speaks_of_no_cost():
    """Accuracy at 1x unchanged (100% both ways): the sentence does not speak of "a cost of 100% -> 100%"."""
    found = view.Removal(factor=8.0, short={0.0: 1.0, 0.25: 1.0, 0.5: 1.0, 0.75: 0.9996},
                         long={0.0: 0.3, 0.25: 0.31, 0.5: 0.2, 0.75: 0.5})
    said = view.removal_reading(found, trained_view.NO_CURVES)
    assert said.key == "rope_designs.removal_helps_free" and said.args["short_removed"] == said.args["short_intact"]
