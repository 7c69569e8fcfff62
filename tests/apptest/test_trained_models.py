"""The trained-models page through AppTest, on a stand-in grid trained for a few steps in a temporary folder
(support.toy_standin): accuracy lines and seed bands against the JSON read here, attention maps against the
model's own forward pass, a live run in the chart and a refused second run."""

import json
import re

import numpy as np
import pytest
import torch

from explorer.app import live_budget
from rope_viz import toy
from support.apptest import chart, chart_keys, metrics, open_page, opened, page_text, spec_array
from support.toy_standin import standin_folder


@pytest.fixture(autouse=True)
def standin(monkeypatch):
    folder = standin_folder()
    monkeypatch.setenv(live_budget.RESULTS_ENV, str(folder))
    assert live_budget.wait(120)
    return folder


def accuracies(folder, task, encoding, scaling):
    """(seeds, factors) accuracy table read straight from grid.json."""
    doc = json.loads((folder / "grid.json").read_text())
    return np.array([[e["accuracy"] for e in run["eval"] if e["scaling"] == scaling] for run in doc["runs"]
                     if run["config"]["task"] == task and run["config"]["encoding"] == encoding])


def test_defaults_draw_accuracy_maps_and_locked_heads(standin):
    at = opened("trained_models")
    accuracy = chart(at, "accuracy")
    lines = {t["name"]: t for t in accuracy["data"] if t.get("name")}
    assert list(lines) == ["RoPE", "RoPE + PI", "RoPE + NTK", "RoPE + YaRN", "sinusoidal", "ALiBi", "NoPE"]
    traces = accuracy["data"]
    shown = (("rope", "none", "RoPE"), ("rope", "yarn", "RoPE + YaRN"), ("alibi", "none", "ALiBi"))
    for encoding, scaling, name in shown:
        acc = accuracies(standin, "recall", encoding, scaling)
        i = next(j for j, t in enumerate(traces) if t.get("name") == name)
        np.testing.assert_allclose(spec_array(traces[i]["y"]), acc.mean(axis=0), rtol=1e-5)
        np.testing.assert_allclose(spec_array(traces[i - 1]["y"]), acc.min(axis=0), rtol=1e-5)  # band, low edge
        np.testing.assert_allclose(spec_array(traces[i - 2]["y"]), acc.max(axis=0), rtol=1e-5)  # band, high edge
        np.testing.assert_allclose(spec_array(traces[i]["x"]), [32, 48, 64, 128, 256])
    assert [s["x0"] for s in accuracy["layout"]["shapes"]] == [32]  # the training length
    rope, alibi = accuracies(standin, "recall", "rope", "none"), accuracies(standin, "recall", "alibi", "none")
    text = page_text(at)
    assert f"RoPE {100 * rope.mean(axis=0)[3]:.0f}%" in text and f"ALiBi {100 * alibi.mean(axis=0)[3]:.0f}%" in text
    assert "min–max" in text
    # the 1x attention map of layer 0 head 0 of the RoPE model, from its forward pass
    model, _ = toy.load_model(standin / "weights" / "recall_rope_seed0.safetensors")
    tokens = toy.make_batch("recall", 1, 32, seed=0)[0]
    with torch.no_grad():
        _, maps = model(tokens, return_attention=True)
    short = spec_array(chart(at, "map_short")["data"][0]["z"])
    np.testing.assert_allclose(short, maps[0][0, 0].numpy(), rtol=1e-4, atol=1e-6)
    long = spec_array(chart(at, "map_long")["data"][0]["z"])
    assert long.shape == (128, 128)
    np.testing.assert_allclose(long.sum(axis=1), 1.0, rtol=1e-4)
    top = np.arange(32) - maps[0][0, 0].numpy().argmax(axis=1)
    dominant = np.bincount(top[1:]).argmax()
    assert metrics(at)["Most common top offset (1×)"] == str(dominant)
    assert metrics(at)["Queries on it at 1×"] == f"{100 * (top[1:] == dominant).mean():.0f}%"
    assert dict(at.query_params) == {"lang": "en", "task": "recall", "factor": "4", "scalings": "1",
                                     "encoding": "rope", "layer": "0", "head": "0", "scaling": "none",
                                     "train_encoding": "rope", "train_task": "recall", "train_len": "32",
                                     "train_seed": "0"}


def test_missing_results_still_offer_training(monkeypatch, tmp_path, assert_clean):
    monkeypatch.setenv(live_budget.RESULTS_ENV, str(tmp_path))
    at = open_page("trained_models")
    assert_clean(at)
    assert "no grid.json" in at.info[0].value
    assert not chart_keys(at)
    assert at.button(key="trained_models.start_button")


def test_a_live_run_joins_the_chart_and_a_second_start_is_refused():
    config = live_budget.live_config("offset", "nope", 16, 5, steps=5, eval_sequences=4)
    started, _ = live_budget.start(config, "visitor")
    assert started and live_budget.wait(120)
    at = open_page("trained_models", {"task": "offset", "scalings": 0})
    accuracy = chart(at, "accuracy")
    names = [t.get("name") for t in accuracy["data"]]
    assert "a recent live run: NoPE, trained at 16, seed 5" in names
    assert sorted(s["x0"] for s in accuracy["layout"]["shapes"]) == [16, 32]
    assert "A recent run NoPE, offset, trained at 16, seed 5: 5 steps" in page_text(at)
    busy, _ = live_budget.start(live_budget.live_config("recall", "alibi", 16, 1, steps=100_000), "someone else")
    assert busy
    try:
        at.button(key="trained_models.start_button").click().run()
        assert not at.exception
        refusal = " ".join(w.value for w in at.warning)
        assert "already in progress" in refusal and "ALiBi, recall, trained at 16, seed 1" in refusal
        assert "Another visitor's run is training" in at.get("progress")[0].proto.text
    finally:
        live_budget.stop("someone else")
        assert live_budget.wait(120)


def test_a_press_says_the_sessions_own_run_and_its_share_of_the_hour(monkeypatch):
    """A press while this session's own run trains starts nothing and names the run, and its stop button stops it;
    once the session has started its share of the hour, a press says when its next run may start (and starts
    nothing)."""
    from collections import deque

    from explorer.app.live_run import OWNER

    monkeypatch.setattr(live_budget, "_starts", deque())
    at = open_page("trained_models", {"task": "offset", "scalings": 0})
    mine = at.session_state[OWNER]
    started, _ = live_budget.start(live_budget.live_config("recall", "alibi", 16, 1, steps=100_000), mine)
    assert started
    try:
        at.button(key="trained_models.start_button").click().run()
        assert not at.exception
        said = " ".join(w.value for w in at.warning)
        assert "Your run is already in progress (ALiBi, recall, trained at 16, seed 1" in said
        assert "does not start another" in said and len(live_budget._starts) == 1
        at.button(key="trained_models.stop_button").click().run()  # the stop button under the run's progress
        assert not at.exception
        assert live_budget.wait(120)  # of 100,000 steps: the press stopped it
        assert live_budget.finished()[0]["state"] == "stopped"
    finally:
        live_budget.stop(mine)
        assert live_budget.wait(120)
    now = live_budget._clock()
    live_budget._starts.extendleft([(now - 100, mine), (now - 3000, mine)])  # three this hour, the first 50 min ago
    at.run()  # the page that saw the run end reruns once
    at.button(key="trained_models.start_button").click().run()
    said = " ".join(w.value for w in at.warning)
    waited = re.search(r"next run may start in (\d+) min (\d+) s", said)
    assert "has started 3 runs in the last hour" in said and waited, said
    assert 590 <= int(waited[1]) * 60 + int(waited[2]) <= 600  # when the run of 50 min ago leaves the hour
    assert live_budget.current() is None and len(live_budget._starts) == 3
