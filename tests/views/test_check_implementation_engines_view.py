"""The check page's "Engines today" view: a card written by the core with a planted wrong engine (it pairs
neighbours where Llama pairs halves) reads as a row per preset, a verdict per engine, and one failure whose
observed curve lies on the layout bug's; the recorded card gives one chart per failing kind."""

from __future__ import annotations

import json

import numpy as np

import rope_viz
from explorer.pure.views import check_implementation, engines_today
from explorer.pure.views.phrases import phrase
from rope_viz import conformance
from rope_viz.conformance import card
from rope_viz.conformance.engines import ENGINES


def test_a_planted_engine_failure_is_drawn_beside_the_bug_that_explains_it(tmp_path, monkeypatch):
    model = rope_viz.model_presets()["Llama-2-7b-hf"]

    def interleaved(name):
        return lambda x, positions, layer: conformance.declare_layout(model, "interleaved").layers[layer].rotate(
            x, positions)
    monkeypatch.setattr(card, "ENGINES", {**ENGINES, "wrong": ENGINES["vLLM"]})
    monkeypatch.setattr(card, "ADAPTERS", {"transformers": conformance.adapters.transformers_rotary,
                                           "wrong": interleaved})
    path = tmp_path / "engines.json"
    path.write_text(json.dumps(card.engine_card(["Llama-2-7b-hf"], ["transformers", "wrong"])), encoding="utf-8")
    today = engines_today.engines_today(path)
    assert today.engines[0].startswith("transformers ") and today.engines[1] == "wrong"  # no version found
    assert today.rows == (("Llama-2-7b-hf", (
        phrase("check_implementation.pass"),
        phrase("check_implementation.gguf_parts", parts=(phrase(
            "check_implementation.engine_kind_fail", kind=0, bug=phrase("check_implementation.bug_layout")),)))),)
    (failure,) = today.failures
    assert (failure.preset, failure.engine, failure.kind, failure.bug) == ("Llama-2-7b-hf", "wrong", 0, "layout")
    curves = failure.curves
    assert curves.bug_by_position is not None and len(curves.positions) == len(curves.observed_by_position) > 10
    assert np.all(curves.positions > 0)  # a log axis
    # the planted engine is the layout bug itself: its curve lies on the bug's (4 significant digits kept)
    np.testing.assert_allclose(curves.observed_by_position, curves.bug_by_position, rtol=2e-3)
    assert curves.observed_by_position.max() > 0.1


def test_the_recorded_card_gives_a_chart_per_failing_kind():
    recorded = json.loads(engines_today.CARD.read_text(encoding="utf-8"))
    failing = [(row["preset"], engine) for row in recorded["presets"] for engine, cell in row["engines"].items()
               for kind in cell["kinds"] if kind["status"] == "fail"]
    today = engines_today.engines_today()
    assert [(f.preset, f.engine) for f in today.failures] == failing and len(failing) >= 10
    assert check_implementation.CHARTS == ("position_0", "pair_0") + tuple(f"engine_{i}" for i in range(len(failing)))
    assert len(today.rows) == len(rope_viz.model_presets()) and len(today.engines) == len(ENGINES)
    kimi = next(f for f in today.failures if f.preset == "moonshotai/Kimi-K2-Instruct")
    assert kimi.bug is None and kimi.curves.bug_by_position is None  # no bug class explains it: drawn alone
