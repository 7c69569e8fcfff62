"""What a first run on an inference engine met, each on a planted engine written here: a LongRoPE engine that
uses the long factors for every prompt (found in the short range and named), gpt-oss rotated with YaRN's
truncate on (named), adapter mistakes raised up front with the exception they raised, a cos/sin cache that ends
(its own status, placed against max_position_embeddings), presets found by repository id or a close name,
config.json paths in Python, the `presets` command, --max-position and --dtype, numbers in the JSON report.
Frequencies come from transformers' ROPE_INIT_FUNCTIONS, the rotation is written by hand."""

from __future__ import annotations

import json

import pytest
import torch
from transformers import AutoConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from rope_viz import conformance, preset_info
from rope_viz.conformance.__main__ import main
from rope_viz.conformance.adapters import from_qk


def hf_rope(name: str, *, seq_len: int | None = None, cache: int | None = None, **scaling):
    """fn(x, positions, layer): half-layout rotation of the first rotated dims with transformers' frequencies and
    attention factor for preset `name` (its rope scaling changed by `scaling`; LongRoPE's factors chosen for a
    call of length `seq_len`), in float32; `cache`: positions from it on raise IndexError, as a cos/sin cache."""
    config = preset_info(name)["config"]
    kwargs = {key: value for key, value in config.items() if key != "model_type"}
    key = "rope_parameters" if "rope_parameters" in kwargs else "rope_scaling"
    if scaling:
        kwargs[key] = {**kwargs[key], **scaling}
    hf = AutoConfig.for_model(config["model_type"], **json.loads(json.dumps(kwargs))).get_text_config()
    params = hf.rope_parameters
    if params["rope_type"] == "default":  # the plain formula, 1 / base^(2i/d) over the head
        dim = hf.hidden_size // hf.num_attention_heads
        inv_freq, factor = 1.0 / params["rope_theta"] ** (torch.arange(0, dim, 2).double() / dim), 1.0
    else:
        inv_freq, factor = ROPE_INIT_FUNCTIONS[params["rope_type"]](hf, "cpu", seq_len=seq_len)
    width = 2 * len(inv_freq)

    def fn(x, positions, layer):
        if cache is not None:
            torch.arange(cache)[positions]  # a cache lookup: IndexError past its end
        theta = positions.float()[:, None] * inv_freq.float()
        cos, sin = theta.cos() * factor, theta.sin() * factor
        a, b = x[:, :width // 2].float(), x[:, width // 2:width].float()
        return torch.cat((a * cos - b * sin, b * cos + a * sin, x[:, width:].float()), dim=-1)
    return fn


PHI4 = "microsoft/Phi-4-mini-instruct"


def test_longrope_short_range_is_probed_and_long_factors_inside_it_are_named():
    sets = conformance.make_probe(PHI4).sets
    assert [(s.segment, int(s.row_positions.max())) for s in sets] == [("short", 4095), ("all", 262144)]
    assert conformance.verify(PHI4, conformance.adapters.transformers_rotary(PHI4)).ok
    always_long = hf_rope(PHI4, seq_len=131072)  # vLLM's choice for a max_model_len past 4,096
    report = conformance.verify(PHI4, always_long)
    verdict = report.verdicts[0]
    assert (verdict.status, verdict.bug, verdict.detail) == (
        "fail", "scaling", "long factors inside the original context"), report.table()
    assert verdict.first_position == 1 and verdict.roles == ("query", "key")


def test_yarn_truncate_on_where_the_config_says_off_is_named():
    name = "openai/gpt-oss-120b"  # truncate: false in its config; vLLM's default when the key is missing: true
    assert conformance.verify(name, hf_rope(name)).ok
    verdict = conformance.verify(name, hf_rope(name, truncate=True)).verdicts[0]
    assert (verdict.bug, verdict.detail) == ("yarn_ramp", "ramp ends rounded (truncate true)")
    qwen = "Qwen2.5-7B-Instruct + YaRN"  # no truncate key: true
    verdict = conformance.verify(qwen, hf_rope(qwen, truncate=False)).verdicts[0]
    assert (verdict.bug, verdict.detail) == ("yarn_ramp", "ramp ends not rounded (truncate false)")


def test_an_error_at_small_positions_is_raised_with_the_exception_itself():
    good = hf_rope("DeepSeek-V3")

    def reshapes_wrong(x, positions, layer):
        return good(x, positions, layer).reshape(-1, 7, 64)
    with pytest.raises(ValueError, match=r"fn raised RuntimeError: shape .* on layer 0's query rows x of shape "
                                         r"\(\d+, 192\) float32 at positions \[0, 1, 2, 3, 5, 8, 13\]") as caught:
        conformance.verify("DeepSeek-V3", reshapes_wrong)
    assert isinstance(caught.value.__cause__, RuntimeError)


def test_an_fn_without_its_layer_parameter_is_refused_by_its_signature():
    def two(x, positions):
        return x
    with pytest.raises(ValueError, match=r"fn must take \(x, positions, layer\).*two\(x, positions\) cannot"):
        conformance.verify("Llama-2-7b-hf", two)
    conformance.verify("Llama-2-7b-hf", conformance.reference("Llama-2-7b-hf"))  # (x, positions, layer) is taken


def test_a_qk_function_answering_another_shape_is_refused_with_what_was_expected():
    rope = hf_rope("Llama-2-7b-hf")

    def torchtune_like(q, k, positions):  # (b, s, h, d) read from (b, h, s, d): the heads broadcast over seq
        turned = rope(q[0, 0], positions, 0)
        return turned[:, None, None, :].expand(-1, 1, len(positions), -1), k
    with pytest.raises(ValueError, match=r"qk must answer q and k of the shape it was given, \(1, 1, \d+, 128\) "
                                         r"\(axes 'bhsd'\); its query is \(\d+, 1, \d+, 128\)"):
        conformance.verify("Llama-2-7b-hf", from_qk(torchtune_like))


@pytest.mark.parametrize("cache,status,limit", [(131072, "stops", "at"), (8192, "stops", "inside")])
def test_a_cache_that_ends_is_a_stop_placed_against_the_models_context(cache, status, limit):
    name = "Llama-3.1-8B"
    report = conformance.verify(name, hf_rope(name, cache=cache))
    verdict = report.verdicts[0]
    assert (verdict.ok, verdict.status, verdict.limit, verdict.stops_at) == (False, status, limit, cache)
    assert report.status == "stops" and "FAIL" not in report.table()
    assert ("the engine's right" in verdict.diagnosis) == (limit == "at"), verdict.diagnosis
    assert conformance.verify(name, hf_rope(name, cache=cache), max_position=cache).ok
    wrong = conformance.verify(name, hf_rope(name, cache=cache, factor=4.0)).verdicts[0]  # wrong and stops
    assert (wrong.status, wrong.stops_at) == ("fail", cache)


def test_presets_are_found_by_repository_id_and_close_names(tmp_path):
    assert conformance.load_model("meta-llama/Llama-3.1-8B").name == "Llama-3.1-8B"
    assert conformance.load_model("llama-3.1-8b").name == "Llama-3.1-8B"
    assert conformance.load_model("Phi-4-mini-instruct").name == PHI4
    with pytest.raises(ValueError, match="did you mean 'Llama-3.1-8B'"):
        conformance.load_model("Llama-3.1-9B")
    with pytest.raises(ValueError, match="stands for several presets: 'Phi-3-mini-128k-instruct"):
        conformance.load_model("microsoft/Phi-3-mini-128k-instruct")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(preset_info("Mistral-7B-v0.3")["config"]), encoding="utf-8")
    for config in (path, str(path)):
        assert conformance.load_model(config).layers[0].base == 1_000_000.0
    with pytest.raises(ValueError, match="not a file"):
        conformance.load_model(str(tmp_path / "missing.json"))


def test_the_presets_command_lists_every_preset_with_its_repository(capsys):
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    for name in ("Llama-3.1-8B", "openai/gpt-oss-120b", "Phi-3-mini-128k-instruct (July 2024 update)"):
        assert name in out
    assert "meta-llama/Llama-3.1-8B" in out and "deepseek-ai/DeepSeek-V3" in out


def _answers(probe, fn, dtype=None):
    return {(i, role): fn(getattr(s, role) if dtype is None else getattr(s, role).to(dtype), s.positions, s.layer)
            for i, s in enumerate(probe.sets) for role in conformance.ROLES}


def test_the_command_line_takes_max_position_and_dtype_and_writes_numbers(tmp_path, capsys):
    name = "Llama-3.1-8B"
    path = tmp_path / "answers.safetensors"
    probe = conformance.make_probe(name, max_position=131072)
    path.write_bytes(conformance.answers_bytes(probe, _answers(probe, hf_rope(name))))
    assert main(["verify", name, str(path), "--max-position", "131072", "--json", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["max_position"] == 131072 and report["status"] == "pass"
    assert report["verdicts"][0]["rope"] == {
        "rotary": True, "base": 500000.0, "rope_type": "llama3", "rotary_dim": 128, "head_dim": 128,
        "layout": "half", "rotated_from": 0, "mrope_section": None, "max_position_embeddings": 131072}
    assert main(["verify", name, str(path)]) == 2  # the probe of another limit: refused
    capsys.readouterr()
    # an engine that computes in bfloat16 by design: its answers (bfloat16) pass only once declared
    rope = hf_rope(name)
    probe = conformance.make_probe(name)
    bf16 = _answers(probe, lambda x, positions, layer: rope(x, positions, layer).bfloat16(), torch.bfloat16)
    path.write_bytes(conformance.answers_bytes(probe, bf16))
    assert main(["verify", name, str(path)]) == 2  # bfloat16 answers undeclared: refused
    assert main(["verify", name, str(path), "--dtype", "bfloat16"]) == 0, capsys.readouterr().out
    stopped = {key: value.clone() for key, value in _answers(probe, rope).items()}
    for (i, _), value in stopped.items():
        value[probe.sets[i].row_positions >= 131072] = float("nan")
    path.write_bytes(conformance.answers_bytes(probe, stopped))
    assert main(["verify", name, str(path), "--json", str(tmp_path / "s.json")]) == 3
    assert "stops" in capsys.readouterr().out
    verdict = json.loads((tmp_path / "s.json").read_text())["verdicts"][0]
    assert (verdict["status"], verdict["limit"], verdict["stops_at"]) == ("stops", "at", 131072)


def test_a_planted_variant_reports_its_values_as_numbers():
    report = conformance.verify("Mistral-7B-v0.3", conformance.planted("Mistral-7B-v0.3", "base"))
    failed = next(v for v in report.to_dict()["verdicts"] if not v["ok"])
    assert failed["values"] == {"base": 10000}


@pytest.mark.parametrize("name", ["Qwen/Qwen3-Next-80B-A3B-Thinking", "nvidia/Qwen3.6-35B-A3B-NVFP4"])
def test_transformers_hybrid_models_leave_their_linear_attention_layers_unrotated(name):
    """The report card's first run had the adapter rotate Qwen3-Next's linear-attention layers (no RoPE there)."""
    report = conformance.verify(name, conformance.adapters.transformers_rotary(name))
    assert report.ok, report.table()
