"""explorer.pure.views.trained_models against numbers recomputed here from the results JSON, hand-made attention
matrices, and the live-training registry (one run at a time; a short run has the shipped schema)."""

from __future__ import annotations

import json
from collections import deque

import numpy as np
import pytest
import torch

from explorer.app import live_budget
from explorer.pure.views import trained_models as view
from explorer.pure.views.phrases import phrase
from rope_viz import toy
from support.toy_standin import standin_folder


@pytest.fixture(scope="module")
def folder():
    return str(standin_folder())


def test_curves_are_mean_min_max_over_seeds(folder):
    doc = json.loads((view.grid_path(folder)).read_text())
    data = view.shipped_curves(folder, view.grid_stamp(folder), "offset")
    assert data.train_len == 32
    assert {(c.encoding, c.scaling) for c in data.curves} == {
        ("rope", "none"), ("rope", "pi"), ("rope", "ntk"), ("rope", "yarn"), ("sinusoidal", "none"),
        ("alibi", "none"), ("nope", "none")}
    for curve in data.curves:
        acc = np.array([[e["accuracy"] for e in r["eval"] if e["scaling"] == curve.scaling]
                        for r in doc["runs"] if r["config"]["task"] == "offset"
                        and r["config"]["encoding"] == curve.encoding])
        assert acc.shape == (2, 5)
        np.testing.assert_allclose(curve.mean, acc.mean(axis=0), rtol=1e-6)
        np.testing.assert_allclose(curve.low, acc.min(axis=0), rtol=1e-6)
        np.testing.assert_allclose(curve.high, acc.max(axis=0), rtol=1e-6)
        np.testing.assert_array_equal(curve.lengths, [32, 48, 64, 128, 256])


def test_missing_or_malformed_grid(tmp_path):
    assert view.grid_stamp(str(tmp_path)) is None
    assert view.shipped(str(tmp_path), None) is None
    assert view.shipped_curves(str(tmp_path), None, "recall").curves == ()
    assert view.attention_view(str(tmp_path), None, "recall", "rope", 0, 0, 4.0, "none") is None
    (tmp_path / "grid.json").write_text('{"schema": "nope"}')
    assert "lacks the keys" in view.shipped(str(tmp_path), view.grid_stamp(str(tmp_path))).error


def _band(low, high):
    return view.Band(mean=(low + high) / 2, low=low, high=high, std=0.0)


def test_compare_needs_separate_bands():
    a = _band(0.6, 0.8)
    assert view.compare(a, _band(0.1, 0.5)) == "higher"
    assert view.compare(_band(0.1, 0.5), a) == "lower"
    assert view.compare(a, _band(0.7, 0.9)) == "overlap"


def test_offset_stats_of_hand_made_heads():
    seq, trained = 40, 10
    previous = np.eye(seq, k=-1)  # every query looks exactly one back
    previous[0, 0] = 1.0
    stats = view._offset_stats(previous, trained)
    assert stats.dominant == 1 and stats.share == 1.0 and stats.share_past == 1.0
    assert stats.distance_past == pytest.approx(1.0)
    uniform = np.tril(np.ones((seq, seq)))
    uniform /= uniform.sum(axis=1, keepdims=True)
    stats = view._offset_stats(uniform, trained, dominant=1)
    q = np.arange(trained, seq)
    assert stats.distance_past == pytest.approx((q / 2).mean())  # mean of 0..q is q/2


def test_attention_view_maps(folder):
    out = view.attention_view(folder, view.grid_stamp(folder), "recall", "alibi", 1, 3, 8.0, "yarn")
    assert out is not None and out.train_len == 32 and out.long_len == 256
    assert out.short.shape == (32, 32) and out.long.shape == (256, 256) and out.long.dtype == np.float32
    for m in (out.short, out.long):
        np.testing.assert_allclose(m.sum(axis=1), 1.0, rtol=1e-5)  # softmax rows
        assert np.all(np.triu(m, 1) == 0)  # causal
    locked = view.locked_heads(folder, view.grid_stamp(folder), "offset", 4.0, "ntk")
    assert list(locked.encodings) == list(toy.ENCODINGS)
    assert np.all((locked.share_1x >= 0) & (locked.share_1x <= 1))


def test_live_training_runs_one_at_a_time_and_reports_the_shipped_schema(monkeypatch):
    # the finished runs of this test stay out of the process-wide list (pages opened later would show them)
    monkeypatch.setattr(live_budget, "_finished", deque(maxlen=live_budget.KEEP))
    assert live_budget.wait(120)
    slow = live_budget.live_config("offset", "alibi", 16, 3, steps=100_000, eval_sequences=2)
    started, first = live_budget.start(slow, owner="first")
    assert started and first["state"] == "training"
    refused, running = live_budget.start(live_budget.live_config("recall", "rope", 32, 0, steps=5), owner="second")
    assert not refused and running["id"] == first["id"] and running["owner"] == "first"
    assert not live_budget.stop("second")  # only the owner stops a run
    assert live_budget.stop("first") and live_budget.wait(120)
    started, snap = live_budget.start(live_budget.live_config("recall", "rope", 32, 0, steps=5, eval_sequences=4),
                                   owner="me")
    assert started and live_budget.wait(120)
    done = live_budget.finished()[0]
    assert done["id"] == snap["id"] and done["state"] == "done" and done["step"] == 5
    doc = toy.validate_results(done["doc"])
    assert doc["runs"][0]["config"]["steps"] == 5 and doc["runs"][0]["weights"] is None
    assert len(doc["runs"][0]["eval"]) == 5 * 4  # five lengths, RoPE with none/pi/ntk/yarn
    stopped = live_budget.finished()[1]
    assert stopped["state"] == "stopped" and stopped["doc"]["runs"][0]["stopped_at"] is not None
    assert len(live_budget.finished()) <= live_budget.KEEP


def test_live_training_goes_to_the_fastest_device_and_falls_back_to_the_cpu(monkeypatch):
    monkeypatch.setattr(live_budget, "_finished", deque(maxlen=live_budget.KEEP))
    asked = []

    def broken_gpu():  # "meta" tensors have shapes but no data: training there fails, as a broken GPU would
        asked.append(True)
        return torch.device("meta")

    monkeypatch.setattr(live_budget, "get_device", broken_gpu)
    assert live_budget.wait(120)
    started, snap = live_budget.start(live_budget.live_config("offset", "nope", 16, 1, steps=3, eval_sequences=2),
                                   owner="me")
    assert started and live_budget.wait(120)
    done = live_budget.finished()[0]
    assert asked and done["id"] == snap["id"] and done["state"] == "done", done.get("error")
    assert done["doc"]["runs"][0]["device"].startswith("cpu")


# --- what the page says: hand-made curves and runs, each branch both ways ------------------------------------
def _curve(encoding, scaling, means, low=None, high=None, factors=(1.0, 4.0)):
    arr = lambda v: np.array(v, dtype=np.float32)  # noqa: E731
    return view.Curve(encoding=encoding, scaling=scaling, seeds=(0, 1), factors=arr(factors),
                      lengths=arr([16 * f for f in factors]), mean=arr(means), std=arr([0.0] * len(means)),
                      low=arr(low if low is not None else means), high=arr(high if high is not None else means))


def _curves(curves, train_len=16, steps=7):
    return view.Curves(train_len=train_len, steps=steps, curves=tuple(curves))


def _run_doc(encoding="rope", task="offset", train_len=16, accuracy=(0.9, 0.3), stopped_at=None):
    evals = [{"scaling": "none", "factor": f, "length": int(f * train_len), "accuracy": a, "loss": 1.0}
             for f, a in zip((1.0, 4.0), accuracy)]
    return {"runs": [{"config": {"task": task, "train_len": train_len, "steps": 7, "encoding": encoding, "seed": 3},
                      "eval": evals, "wall_seconds": 12.0, "stopped_at": stopped_at}]}


def _run(owner, *, doc=True, task="offset", train_len=16, run_id=1, error=""):
    return {"id": run_id, "owner": owner, "task": task, "encoding": "rope", "train_len": train_len, "seed": 3,
            "step": 7, "steps": 7, "error": error, "doc": _run_doc(task=task, train_len=train_len) if doc else None}


def test_accuracy_chart_series_marks_and_ticks():
    data = _curves([_curve("rope", "none", [0.9, 0.2]), _curve("rope", "pi", [0.9, 0.5]),
                    _curve("alibi", "none", [0.8, 0.7])])
    plain = view.accuracy_chart(data, [], "offset", "me", show_scalings=False)
    assert [s["name"] for s in plain.series] == [
        phrase("trained_models.enc_rope"),
        phrase("trained_models.enc_alibi"),
    ]
    assert [s["concept"] for s in plain.series] == ["rope", "alibi"]
    assert plain.marks == [(phrase("trained_models.train_len_mark", n=16), 16)]
    assert plain.x_ticks == [16.0, 64.0]
    runs = [_run("me", train_len=8, run_id=1), _run("you", train_len=8, run_id=2), _run("me", doc=False, run_id=3),
            _run("me", task="recall", run_id=4)]
    full = view.accuracy_chart(data, runs, "offset", "me", show_scalings=True)
    scaled = full.series[1]
    assert scaled["dash"] == "dash" and scaled["concept"] == "pi"
    assert scaled["name"].args["scaling"] == phrase("trained_models.scaling_pi")
    live = full.series[3:]
    assert [(s["name"].key, s["concept"], s["width"], s["group"]) for s in live] == [
        ("trained_models.your_run", "rope", view.YOUR_WIDTH, "live1"),
        ("trained_models.other_run", "rope", view.OTHER_WIDTH, "live2")]
    assert full.marks == [(phrase("trained_models.train_len_mark", n=16), 16),
                             (phrase("trained_models.live_len_mark", n=8), 8)]  # two runs at 8: one mark
    assert full.x_ticks == [8.0, 16.0, 32.0, 64.0]
    assert view.accuracy_chart(view.NO_CURVES, [], "offset", "me", True) == view.AccuracyChart(
        series=[], marks=[], x_ticks=[])


def test_findings_judge_each_claim_by_the_seed_bands():
    assert view.findings(view.NO_CURVES, 4.0) is None
    curves = [_curve("rope", "none", [0.9, 0.3], low=[0.85, 0.25], high=[0.95, 0.35]),
              _curve("rope", "ntk", [0.9, 0.6], low=[0.85, 0.5], high=[0.95, 0.7]),
              _curve("rope", "pi", [0.9, 0.4], low=[0.85, 0.3], high=[0.95, 0.5]),
              _curve("alibi", "none", [0.9, 0.1], low=[0.85, 0.05], high=[0.95, 0.2]),
              _curve("nope", "none", [0.4, 0.32], low=[0.3, 0.3], high=[0.5, 0.4])]
    found = view.findings(_curves(curves), 4.0)
    assert found.caption.args == {"count": 2, "seeds": "0, 1", "steps": 7}
    summary, unlearned = found.paragraphs
    assert summary.args["length"] == 64
    assert [v.args["value"] for v in summary.args["values"]] == ["30%", "10%", "32%"]  # rope, alibi, nope
    assert [v.args["value"] for v in summary.args["base_values"]] == ["90%", "90%", "40%"]
    assert unlearned == phrase(
        "trained_models.unlearned_one", encodings=(phrase("trained_models.enc_nope"),)
    )  # "its", not "their"
    alibi, scaling, worst, nope = found.claims
    assert alibi.key == "trained_models.claim_alibi_lower" and (alibi.args["alibi"], alibi.args["rope"]) == (
        "10%",
        "30%",
    )
    assert scaling.key == "trained_models.claim_scaling_higher" and scaling.args["scaling"] == phrase(
        "trained_models.scaling_ntk"
    )
    assert worst.key == "trained_models.claim_worst_overlap" and worst.args["scaling"] == phrase(
        "trained_models.scaling_pi"
    )
    assert (
        worst.args["why"] == phrase("trained_models.pi_why") and worst.args["early"] == ""
    )  # no length between 1x and 4x
    # NoPE below 50% at 1x: its numbers, and no verdict drawn from them
    assert nope == phrase(
        "trained_models.claim_unlearned",
        factor=4.0,
        encoding=phrase("trained_models.enc_nope"),
        value="32%",
        rope="30%",
        base="40%",
    )
    learned = [c if c.encoding != "nope" else _curve("nope", "none", [0.6, 0.5]) for c in curves[:1] + curves[4:]]
    found = view.findings(_curves(learned), 4.0)
    assert len(found.paragraphs) == 1 and [c.key for c in found.claims] == ["trained_models.claim_nope_higher"]
    alone = view.findings(_curves([_curve("alibi", "none", [0.9, 0.8])]), 4.0)
    assert alone.claims == []  # no RoPE to compare with


def _stats(dominant=0, share=0.0, share_past=0.0, distance_within=0.0, distance_past=0.0):
    return view.OffsetStats(dominant=dominant, share=share, share_within=0.0, share_past=share_past,
                            distance_within=distance_within, distance_past=distance_past)


def _maps(share, share_past, long_len=64, step=1):
    kept = np.arange(0, long_len, step)
    return view.AttentionMaps(train_len=16, long_len=long_len, layer=0, head=0,
                              short_stats=_stats(dominant=2, share=share),
                              long_stats=_stats(share_past=share_past, distance_within=2.0, distance_past=7.25),
                              short=np.eye(16), short_kept=np.arange(16), long=np.eye(len(kept)), long_kept=kept)


@pytest.mark.parametrize(("share", "past", "verdict"), [
    (0.5, 0.4, "kept"), (0.5, 0.39, "weakened"), (0.5, 0.2, "weakened"), (0.5, 0.19, "lost"), (0.0, 0.3, "lost")])
def test_map_reading_verdict_thresholds(share, past, verdict):
    reading = view.map_reading(_maps(share, past), "alibi", 1, 2, 4.0, "yarn")
    assert reading.verdict.key == f"trained_models.map_{verdict}"
    assert reading.titles[0].args["scaling"] == phrase("trained_models.scaling_none")  # ALiBi is not stretched
    assert reading.thinned is None
    assert [m.value for m in reading.metrics] == ["2", f"{100 * share:.0f}%", f"{100 * past:.0f}%", "7.2"]


def test_map_reading_of_rope_names_its_stretch_and_a_thinned_map():
    reading = view.map_reading(_maps(0.5, 0.5, long_len=600, step=3), "rope", 0, 0, 8.0, "yarn")
    assert reading.titles[1].args["scaling"] == phrase("trained_models.scaling_yarn")
    assert reading.titles[1].args["n"] == 600
    assert reading.thinned == phrase("trained_models.map_thinned", step=3, n=600)


def test_grid_lines_and_the_live_runs_texts():
    assert view.grid_lines(None, "/r").notice == phrase("trained_models.missing", folder="/r")
    assert view.grid_lines(view.Unreadable("bad"), "/r") == view.GridLines(
        notice=phrase("trained_models.malformed", error="bad"), source=None)
    ok = view.grid_lines(view.ShippedGrid(command="c", created="x", device="cpu", torch="2", wall_seconds=120.0,
                                          runs=3, tasks=("recall",), train_seconds=100.0), "/r")
    assert ok.notice is None and ok.source.args["minutes"] == 2.0
    assert view.seconds_left(None, 100.0) == 0 and view.seconds_left(90.0, 100.0) == 0
    assert view.seconds_left(112.6, 100.0) == 13
    snap = {**_run("me"), "state": "training", "expected_end": 110.0, "loss": 0.5, "progress": 0.5}
    assert view.refusal(snap, 100.0).args["seconds"] == 10
    mine = view.progress(snap, "me", 100.0)
    assert mine.text.key == "trained_models.progress_mine" and mine.note.key == "trained_models.expected_end"
    assert view.progress({**snap, "state": "evaluating"}, "you", 100.0).text.key == "trained_models.progress_other"
    assert view.progress({**snap, "state": "evaluating"}, "me", 100.0).note == phrase("trained_models.evaluating")
    assert view.progress({**snap, "expected_end": None}, "me", 100.0).note is None
    line = view.run_line(_run("me"), "me", 4.0)
    assert line.key == "trained_models.run_line_mine" and (line.args["first"], line.args["there"]) == ("90%", "30%")
    assert line.args["done"] == 7
    assert view.run_line(_run("me"), "you", 8.0).args["there"] == "–"  # no evaluation at 8x
    assert view.run_line(_run("me", doc=False, error="boom"), "me", 4.0).key == "trained_models.failed"


def test_a_live_run_of_a_newer_scheme_trains_four_layers_and_joins_the_chart():
    config = live_budget.live_config("offset", "p-rope", 16, 0, steps=3, eval_sequences=2)
    assert (config.n_layers, config.d_model, config.n_heads) == (4, 64, 2)  # the four-layer grid's model
    assert config.model_config().encoding == "p-rope"
    assert live_budget.live_config("offset", "alibi", 16, 0).n_layers == 2  # the two-layer grid's encodings
    doc = toy.train(config)
    run = {**_run("me"), "encoding": "p-rope", "doc": doc}
    drawn = view.accuracy_chart(_curves([]), [run], "offset", "me", show_scalings=True)
    assert [s["name"].key for s in drawn.series] == ["trained_models.your_run"]
    assert drawn.series[0]["name"].args["encoding"] == phrase("trained_models.enc_p-rope")
    evals = [e["accuracy"] for e in doc["runs"][0]["eval"] if e["scaling"] == "none"]
    np.testing.assert_allclose(drawn.series[0]["y"], evals, rtol=1e-6)
    line = view.run_line(run, "me", 4.0)
    assert line.key == "trained_models.run_line_mine" and line.args["there"] == f"{100 * evals[3]:.0f}%"


def test_the_live_intro_says_how_many_more_steps_the_shipped_models_had():
    said = view.live_intro(_curves([], steps=1500), 300, 3)
    assert said.key == "trained_models.live_text" and (said.args["grid_steps"], said.args["times"]) == (1500, 5.0)
    assert view.live_intro(view.NO_CURVES, 300, 3).args["grid_steps"] == toy.GRID_STEPS
