"""The llama.cpp adapter. llama-cpp-python is a source build that CI does not make: CI checks the GGUF files the
adapter writes (against transformers and the published configs), the recorded llama.cpp column of the report
card (results/conformance/engines.json) and, where llama-cpp-python is importable, one live preset against its
recorded cell; where it is not, that the adapter says how to install it."""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import torch
from transformers import PretrainedConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from rope_viz import conformance, model_presets
from rope_viz.conformance import card, read_header
from rope_viz.conformance.adapters import _config_dict
from rope_viz.conformance.engines import ENGINES, AdapterLimit, EngineMissing, NotSupported
from rope_viz.conformance.gguf_file import llama_cpp_layers
from rope_viz.conformance.llama_cpp_engine import llamacpp_rotary, write_gguf

ROOT = Path(__file__).resolve().parents[2]
RECORDED = json.loads((ROOT / "results/conformance/engines.json").read_text(encoding="utf-8"))
CELLS = {row["preset"]: row["engines"]["llama.cpp"] for row in RECORDED["presets"]}


def test_llama31_is_written_with_the_rope_freqs_transformers_divides_by(tmp_path):
    """llama3's frequency factors in the file's rope_freqs tensor: the ratio of transformers' plain to its
    llama3 inverse frequencies, computed here from transformers."""
    import gguf

    path = write_gguf("Llama-3.1-8B", tmp_path / "llama31.gguf")
    (tensor,) = [t for t in gguf.GGUFReader(str(path)).tensors if t.name == "rope_freqs.weight"]
    values = _config_dict("Llama-3.1-8B")
    config = PretrainedConfig(hidden_size=values["hidden_size"], num_attention_heads=values["num_attention_heads"],
                              max_position_embeddings=values["max_position_embeddings"],
                              rope_parameters={**values["rope_scaling"], "rope_type": "llama3",
                                               "rope_theta": values["rope_theta"]})
    scaled, _ = ROPE_INIT_FUNCTIONS["llama3"](config, "cpu")
    plain = 1.0 / values["rope_theta"] ** (torch.arange(0, 128, 2, dtype=torch.float64) / 128)
    torch.testing.assert_close(torch.tensor(tensor.data, dtype=torch.float64), plain / scaled.double(),
                               rtol=1e-5, atol=0)


@pytest.mark.parametrize("name, mode, rotary_dim, head_dim", [
    ("Qwen2.5-7B-Instruct + YaRN", "NEOX", 128, 128), ("DeepSeek-V3", "NORM", 64, 576),
    ("microsoft/Phi-4-mini-instruct", "NEOX", 96, 128), ("gpt-neox-20b", "NEOX", 24, 96),
    ("Qwen/Qwen2.5-VL-7B-Instruct", "MROPE", 128, 128), ("Qwen/Qwen3-0.6B", "NEOX", 128, 128),
    ("MiniMaxAI/MiniMax-M2.5", "NEOX", 64, 128), ("Qwen/Qwen3-Next-80B-A3B-Thinking", "NEOX", 64, 256)])
def test_written_files_read_as_the_published_configs_say(tmp_path, name, mode, rotary_dim, head_dim):
    """The converter's keys for each family: mode, rotated dims and head (DeepSeek's key length is the latent
    rank plus the rope part, 512 + 64), read back with the kit's reading of llama.cpp's loader."""
    layer = llama_cpp_layers(read_header(write_gguf(name, tmp_path / "model.gguf")))[0]
    assert (layer.mode, layer.rotary_dim, layer.head_dim) == (mode, rotary_dim, head_dim)
    assert layer.base == next(each for each in model_presets()[name].layers if each.rotary).base


def test_what_the_writer_cannot_express_is_said():
    with pytest.raises(NotSupported, match="GPTJForCausalLM"):
        write_gguf("gpt-j-6b", "unused.gguf")
    with pytest.raises(AdapterLimit, match="'laguna'"):
        write_gguf("poolside/Laguna-XS.2-FP8", "unused.gguf")


def test_the_recorded_llama_cpp_column():
    """Every preset has a llama.cpp cell of a known status, run by llama-cpp-python 0.3.36; the cells whose
    outcome was worked out by hand (findings/) are as recorded."""
    assert RECORDED["engines"]["llama.cpp"] == {"version": "0.3.36", "install": ENGINES["llama.cpp"].install}
    assert set(CELLS) == set(model_presets())
    statuses = {cell["status"] for cell in CELLS.values()}
    assert statuses <= {"pass", "fail", "not supported", "adapter error"}
    for name in ("Llama-3.1-8B", "DeepSeek-V3", "google/gemma-3-1b-it", "Qwen/Qwen2.5-VL-7B-Instruct",
                 "Qwen/Qwen3-Next-80B-A3B-Thinking"):  # the last: its linear-attention layers left unturned
        assert CELLS[name]["status"] == "pass", name
    kimi = CELLS["moonshotai/Kimi-K2-Instruct"]["kinds"][0]
    assert (kimi["status"], kimi["first_pair"], kimi["first_position"]) == ("fail", 9, 1)
    oss = CELLS["openai/gpt-oss-120b"]["kinds"][0]
    assert (oss["bug"], oss["detail"]) == ("yarn_ramp", "ramp ends rounded (truncate true)")
    assert CELLS["gpt-j-6b"]["status"] == "not supported"


def test_llama_cpp_live_or_its_install_line():
    """Where llama-cpp-python is importable: Kimi-K2 run live fails where the recorded cell does (llama.cpp
    turns with YaRN's default beta_fast 32, the config says 1). Where it is not: the install line."""
    if importlib.util.find_spec("llama_cpp") is None:
        with pytest.raises(EngineMissing, match="pip install llama-cpp-python==0.3.36"):
            llamacpp_rotary("moonshotai/Kimi-K2-Instruct")
        return
    fn = llamacpp_rotary("moonshotai/Kimi-K2-Instruct")
    cell = card.run_engine("llama.cpp", "moonshotai/Kimi-K2-Instruct")
    recorded = CELLS["moonshotai/Kimi-K2-Instruct"]
    assert [(k["status"], k["first_pair"], k["first_position"]) for k in cell["kinds"]] == [
        (k["status"], k["first_pair"], k["first_position"]) for k in recorded["kinds"]]
    assert conformance.verify("DeepSeek-V3", llamacpp_rotary("DeepSeek-V3")).ok
    assert fn.layout is None


def test_the_engines_command_keeps_the_recorded_llama_cpp_cells_where_it_is_not_installed(tmp_path, monkeypatch):
    from rope_viz.conformance import __main__ as command

    path = tmp_path / "engines.json"
    path.write_text(json.dumps(RECORDED), encoding="utf-8")
    monkeypatch.setattr(command, "engine_version", lambda engine: None)

    def never(config):
        raise AssertionError("llama.cpp's adapter was run")
    monkeypatch.setitem(card.ADAPTERS, "llama.cpp", never)
    assert command.main(["engines", "--json", str(path), "--preset", "Llama-2-7b-hf", "--engine", "llama.cpp"]) == 0
    written = json.loads(path.read_text(encoding="utf-8"))
    assert (written["presets"], written["engines"]) == (RECORDED["presets"], RECORDED["engines"])


def _run_example(code: str, where: str) -> None:
    """Each test of an example block, run; llama.cpp's raises EngineMissing (its install line) where
    llama-cpp-python is absent."""
    namespace: dict = {}
    exec(compile(code, where, "exec"), namespace)
    for name in [name for name in namespace if name.startswith("test_")]:
        if "llama" in name and importlib.util.find_spec("llama_cpp") is None:
            with pytest.raises(EngineMissing, match="llama-cpp-python==0.3.36"):
                namespace[name]()
        else:
            namespace[name]()


def test_the_manual_llama_cpp_example():
    manual = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    code = re.search(r"<!-- conformance-example: llama.cpp -->\n```python\n(.*?)```", manual, re.S).group(1)
    _run_example(code, "docs/conformance.md llama.cpp example")


def test_the_readme_card_counts_and_examples():
    """README's table counts the recorded card's verdicts per engine; its four examples (one per adapter) run."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for engine, info in RECORDED["engines"].items():
        counts = Counter(row["engines"][engine]["status"] for row in RECORDED["presets"])
        cells = [str(counts.get(status, 0)) for status in ("pass", "stops", "fail", "not supported", "adapter error")]
        assert f"| {engine} {info['version']} | {' | '.join(cells)} |" in readme, engine
    code = re.search(r"<!-- readme-example: engines -->\n```python\n(.*?)```", readme, re.S).group(1)
    assert code.count("\ndef test_") == 4
    _run_example(code, "README.md engines example")


def test_qwen3_vl_needs_its_sections_and_reads_as_interleaved_m_rope(tmp_path):
    """Without mrope_section the converter writes no rope.dimension_sections, which llama.cpp's qwen3vl loader
    requires; with them the file reads as ggml's IMROPE mode, the half layout."""
    with pytest.raises(AdapterLimit, match="mrope_section"):
        write_gguf("Qwen/Qwen3-VL-8B-Instruct", tmp_path / "no-sections.gguf")
    config = _config_dict("Qwen/Qwen3-VL-8B-Instruct")
    config["text_config"]["rope_scaling"] = {"mrope_section": [24, 20, 20], "mrope_interleaved": True,
                                             "rope_type": "default"}
    header = read_header(write_gguf(config, tmp_path / "sections.gguf"))
    assert header.key("{arch}.rope.dimension_sections") == [24, 20, 20, 0]
    layer = llama_cpp_layers(header)[0]
    assert (layer.mode, layer.layout, layer.rotary_dim) == ("IMROPE", "half", 128)
