"""explorer.views.trained against numbers recomputed here from the results JSON, hand-made attention
matrices, and the live-training registry (one run at a time; a short run has the shipped schema)."""

from __future__ import annotations

import json
from collections import deque

import numpy as np
import pytest
import torch

from explorer import training
from explorer.views import trained as view
from rope_viz import toy
from support.toy_standin import standin_folder


@pytest.fixture(scope="module")
def folder():
    return str(standin_folder())


def test_curves_are_mean_min_max_over_seeds(folder):
    doc = json.loads((view.grid_path(folder)).read_text())
    data = view.shipped_curves(folder, view.grid_stamp(folder), "offset")
    assert data["train_len"] == 32
    assert {(c["encoding"], c["scaling"]) for c in data["curves"]} == {
        ("rope", "none"), ("rope", "pi"), ("rope", "ntk"), ("rope", "yarn"), ("sinusoidal", "none"),
        ("alibi", "none"), ("nope", "none")}
    for curve in data["curves"]:
        acc = np.array([[e["accuracy"] for e in r["eval"] if e["scaling"] == curve["scaling"]]
                        for r in doc["runs"] if r["config"]["task"] == "offset"
                        and r["config"]["encoding"] == curve["encoding"]])
        assert acc.shape == (2, 5)
        np.testing.assert_allclose(curve["mean"], acc.mean(axis=0), rtol=1e-6)
        np.testing.assert_allclose(curve["low"], acc.min(axis=0), rtol=1e-6)
        np.testing.assert_allclose(curve["high"], acc.max(axis=0), rtol=1e-6)
        np.testing.assert_array_equal(curve["lengths"], [32, 48, 64, 128, 256])


def test_missing_or_malformed_grid(tmp_path):
    assert view.grid_stamp(str(tmp_path)) is None
    assert view.shipped(str(tmp_path), None) is None
    assert view.shipped_curves(str(tmp_path), None, "recall")["curves"] == []
    assert view.attention_view(str(tmp_path), None, "recall", "rope", 0, 0, 4.0, "none") == {"available": False}
    (tmp_path / "grid.json").write_text('{"schema": "nope"}')
    assert "lacks the keys" in view.shipped(str(tmp_path), view.grid_stamp(str(tmp_path)))["error"]


def test_compare_needs_separate_bands():
    a = {"low": 0.6, "high": 0.8}
    assert view.compare(a, {"low": 0.1, "high": 0.5}) == "higher"
    assert view.compare({"low": 0.1, "high": 0.5}, a) == "lower"
    assert view.compare(a, {"low": 0.7, "high": 0.9}) == "overlap"


def test_offset_stats_of_hand_made_heads():
    seq, trained = 40, 10
    previous = np.eye(seq, k=-1)  # every query looks exactly one back
    previous[0, 0] = 1.0
    stats = view._offset_stats(previous, trained)
    assert stats["dominant"] == 1 and stats["share"] == 1.0 and stats["share_past"] == 1.0
    assert stats["distance_past"] == pytest.approx(1.0)
    uniform = np.tril(np.ones((seq, seq)))
    uniform /= uniform.sum(axis=1, keepdims=True)
    stats = view._offset_stats(uniform, trained, dominant=1)
    q = np.arange(trained, seq)
    assert stats["distance_past"] == pytest.approx((q / 2).mean())  # mean of 0..q is q/2


def test_attention_view_maps(folder):
    out = view.attention_view(folder, view.grid_stamp(folder), "recall", "alibi", 1, 3, 8.0, "yarn")
    assert out["available"] and out["train_len"] == 32 and out["long_len"] == 256
    assert out["short"].shape == (32, 32) and out["long"].shape == (256, 256) and out["long"].dtype == np.float32
    for name in ("short", "long"):
        m = out[name]
        np.testing.assert_allclose(m.sum(axis=1), 1.0, rtol=1e-5)  # softmax rows
        assert np.all(np.triu(m, 1) == 0)  # causal
    locked = view.locked_heads(folder, view.grid_stamp(folder), "offset", 4.0, "ntk")
    assert locked["encodings"] == list(toy.ENCODINGS)
    assert np.all((locked["share_1x"] >= 0) & (locked["share_1x"] <= 1))


def test_live_training_runs_one_at_a_time_and_reports_the_shipped_schema(monkeypatch):
    # the finished runs of this test stay out of the process-wide list (pages opened later would show them)
    monkeypatch.setattr(training, "_finished", deque(maxlen=training.KEEP))
    assert training.wait(120)
    slow = training.live_config("offset", "alibi", 16, 3, steps=100_000, eval_sequences=2)
    started, first = training.start(slow, owner="first")
    assert started and first["state"] == "training"
    refused, running = training.start(training.live_config("recall", "rope", 32, 0, steps=5), owner="second")
    assert not refused and running["id"] == first["id"] and running["owner"] == "first"
    assert not training.stop("second")  # only the owner stops a run
    assert training.stop("first") and training.wait(120)
    started, snap = training.start(training.live_config("recall", "rope", 32, 0, steps=5, eval_sequences=4),
                                   owner="me")
    assert started and training.wait(120)
    done = training.finished()[0]
    assert done["id"] == snap["id"] and done["state"] == "done" and done["step"] == 5
    doc = toy.validate_results(done["doc"])
    assert doc["runs"][0]["config"]["steps"] == 5 and doc["runs"][0]["weights"] is None
    assert len(doc["runs"][0]["eval"]) == 5 * 4  # five lengths, RoPE with none/pi/ntk/yarn
    stopped = training.finished()[1]
    assert stopped["state"] == "stopped" and stopped["doc"]["runs"][0]["stopped_at"] is not None
    assert len(training.finished()) <= training.KEEP


def test_live_training_goes_to_the_fastest_device_and_falls_back_to_the_cpu(monkeypatch):
    monkeypatch.setattr(training, "_finished", deque(maxlen=training.KEEP))
    asked = []

    def broken_gpu():  # "meta" tensors have shapes but no data: training there fails, as a broken GPU would
        asked.append(True)
        return torch.device("meta")

    monkeypatch.setattr(training, "get_device", broken_gpu)
    assert training.wait(120)
    started, snap = training.start(training.live_config("offset", "nope", 16, 1, steps=3, eval_sequences=2),
                                   owner="me")
    assert started and training.wait(120)
    done = training.finished()[0]
    assert asked and done["id"] == snap["id"] and done["state"] == "done", done.get("error")
    assert done["doc"]["runs"][0]["device"].startswith("cpu")
