"""The conformance files and command line: answers from transformers' own apply_rotary_pos_emb round-trip
through safetensors and pass; docs/conformance.md's PyTorch and NumPy examples, run as written, pass; malformed,
truncated, oversized, wrong-shape, wrong-dtype and non-safetensors answers are refused with a ValueError."""

from __future__ import annotations

import io
import json
import re
import struct
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers import AutoConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from rope_viz import conformance, preset_info
from rope_viz.conformance.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


def test_transformers_answers_round_trip_through_the_files(tmp_path):
    name = "Llama-3.1-8B"
    probe_path = conformance.write_probe(name, tmp_path / "probe.safetensors")
    tensors = load_file(probe_path)
    config = {k: v for k, v in preset_info(name)["config"].items() if k != "model_type"}
    rotary = LlamaRotaryEmbedding(AutoConfig.for_model("llama", **config))
    answers = {}
    for i in range(len([k for k in tensors if k.endswith(".query")])):
        q, k = tensors[f"set{i}.query"][None, None], tensors[f"set{i}.key"][None, None]
        cos, sin = rotary(q, tensors[f"set{i}.positions"][None])
        q_rot, k_rot = apply_rotary_pos_emb(q, k, cos, sin)
        answers[f"set{i}.query"], answers[f"set{i}.key"] = q_rot[0, 0].contiguous(), k_rot[0, 0].contiguous()
    save_file(answers, tmp_path / "answers.safetensors")
    report = conformance.verify_file(name, tmp_path / "answers.safetensors")
    assert report.ok, report.table()
    answers["set0.key"] = answers["set0.key"].roll(1, dims=0)  # answers for the wrong rows
    save_file(answers, tmp_path / "wrong.safetensors")
    assert not conformance.verify_file(name, tmp_path / "wrong.safetensors").ok


def _readme_example(kind: str) -> str:
    manual = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    return re.search(rf"<!-- conformance-example: {kind} -->\n```python\n(.*?)```", manual, re.S).group(1)


@pytest.mark.parametrize("kind", ["torch", "numpy"])
def test_the_readme_examples_fill_answers_that_pass(kind, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["probe", "Llama-2-7b-hf", "-o", "probe.safetensors"]) == 0
    code = _readme_example(kind)
    assert 12 <= len(code.strip().splitlines()) <= 20
    exec(compile(code, f"docs/conformance.md {kind} example", "exec"), {})
    assert main(["verify", "Llama-2-7b-hf", "answers.safetensors", "--json", "report.json"]) == 0
    assert json.loads(Path("report.json").read_text())["ok"] is True
    assert "pass" in capsys.readouterr().out


def test_the_command_line_fails_a_buggy_file_and_refuses_a_bad_one(tmp_path, capsys):
    probe = conformance.make_probe("Mistral-7B-v0.3")
    answers = {(i, role): getattr(s, role).double() for i, s in enumerate(probe.sets) for role in conformance.ROLES}
    (tmp_path / "a.safetensors").write_bytes(conformance.answers_bytes(probe, answers))  # nothing rotated
    assert main(["verify", "Mistral-7B-v0.3", str(tmp_path / "a.safetensors")]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "nope (not rotated; query+key)" in out
    rotated = {(i, role): probe.model.layers[s.layer].rotate(getattr(s, role).double(), s.positions)
               for i, s in enumerate(probe.sets) for role in conformance.ROLES}
    interleaved = conformance.declare_layout(probe.model, "interleaved")  # a loader that permutes q/k rows
    permuted = {(i, role): interleaved.layers[s.layer].rotate(getattr(s, role).double(), s.positions)
                for i, s in enumerate(probe.sets) for role in conformance.ROLES}
    (tmp_path / "c.safetensors").write_bytes(conformance.answers_bytes(probe, permuted))
    assert main(["verify", "Mistral-7B-v0.3", str(tmp_path / "c.safetensors")]) == 1
    assert "--layout interleaved" in capsys.readouterr().out
    assert main(["verify", "Mistral-7B-v0.3", str(tmp_path / "c.safetensors"), "--layout", "interleaved"]) == 0
    (tmp_path / "d.safetensors").write_bytes(conformance.answers_bytes(probe, rotated))
    assert main(["verify", "Mistral-7B-v0.3", str(tmp_path / "d.safetensors"), "--layout", "interleaved"]) == 1
    capsys.readouterr()
    (tmp_path / "b.safetensors").write_bytes(b"not a tensor file at all")
    assert main(["verify", "Mistral-7B-v0.3", str(tmp_path / "b.safetensors")]) == 2
    assert "error: " in capsys.readouterr().err


def _header_file(header: dict, payload: bytes = b"") -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + payload


@pytest.fixture(scope="module")
def probe():
    return conformance.make_probe("Llama-2-7b-hf")


@pytest.fixture(scope="module")
def good(probe):
    answers = {(i, role): probe.model.layers[s.layer].rotate(getattr(s, role), s.positions)
               for i, s in enumerate(probe.sets) for role in conformance.ROLES}
    return conformance.answers_bytes(probe, answers)


def test_good_answers_pass_as_bytes(probe, good):
    assert conformance.verify_file(probe, good).ok


def _pickled() -> bytes:
    buffer = io.BytesIO()
    torch.save({"set0.query": torch.zeros(3)}, buffer)
    return buffer.getvalue()


def _edited(good: bytes, edit) -> bytes:
    size = struct.unpack("<Q", good[:8])[0]
    header = json.loads(good[8:8 + size])
    edit(header)
    return _header_file(header, good[8 + size:])


@pytest.mark.parametrize("make,message", [
    (lambda good: b"", "too short"),
    (lambda good: good[:len(good) // 2], "is truncated"),
    (lambda good: good[:20], "is truncated"),
    (lambda good: b"\x00" * (conformance.MAX_FILE_BYTES + 1), "at most"),
    (lambda good: _pickled(), "looks like a pickle"),
    (lambda good: struct.pack("<Q", 1 << 40) + b"{}", "not a safetensors file"),
    (lambda good: _header_file([1, 2]), "not a JSON object"),
    (lambda good: struct.pack("<Q", 4) + b"\xff\xfe{}", "not JSON"),
    (lambda good: _edited(good, lambda h: h.pop("set0.key")), "'set0.key' is missing"),
    (lambda good: _edited(good, lambda h: h.__setitem__("evil", h["set0.key"])), "unknown tensor 'evil'"),
    (lambda good: _edited(good, lambda h: h["set0.query"].__setitem__("shape", [3, 128])), "must have shape"),
    (lambda good: _edited(good, lambda h: h["set0.query"].__setitem__("dtype", "F16")), "float32 or float64"),
    (lambda good: _edited(good, lambda h: h["__metadata__"].__setitem__("model", "other")), "not 'Llama-2-7b-hf'"),
    (lambda good: _edited(good, lambda h: h["__metadata__"].__setitem__("version", "9")), "version"),
    (lambda good: _edited(good, lambda h: h["set0.query"].__setitem__("data_offsets", [0, 10 ** 9])),
     "is truncated"),
    (lambda good: _edited(good, lambda h: h["set0.query"].__setitem__("data_offsets", [10, 0])),
     "not a readable safetensors"),
], ids=["empty", "truncated", "cut-header", "oversized", "pickle", "huge-header", "json-list", "not-utf8",
        "missing-key", "unknown-key", "wrong-shape", "wrong-dtype", "other-model", "other-version", "far-offsets",
        "bad-offsets"])
def test_bad_answers_are_refused_with_a_clear_error(probe, good, make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        conformance.read_answers(make(good), probe)


def test_a_truncated_file_and_a_pickle_are_named_as_such(good, tmp_path):
    with pytest.raises(ValueError, match=re.escape(f"it is {len(good) - 100:,} bytes, and its header declares "
                                                   f"{len(good):,}")):
        conformance.read_answers(good[:-100], conformance.make_probe("Llama-2-7b-hf"))
    torch.save({"set0.query": torch.zeros(3)}, tmp_path / "answers.pt")
    with pytest.raises(ValueError, match=r"looks like a pickle .* never loads: write safetensors instead, "
                                         r"safetensors\.torch\.save_file"):
        conformance.verify_file("Llama-2-7b-hf", tmp_path / "answers.pt")


def test_positions_that_differ_from_the_probe_are_refused(probe, tmp_path):
    tensors = {f"set0.{role}": getattr(probe.sets[0], role) for role in conformance.ROLES}
    tensors["set0.positions"] = probe.sets[0].positions + 1
    save_file(tensors, tmp_path / "shifted.safetensors")
    with pytest.raises(ValueError, match="positions differ"):
        conformance.verify_file(probe, tmp_path / "shifted.safetensors")


def test_fn_answers_of_the_wrong_shape_or_type_are_refused():
    with pytest.raises(ValueError, match="must have shape"):
        conformance.verify("Llama-2-7b-hf", lambda x, positions, layer: x[:, :4])
    with pytest.raises(ValueError, match="float32 or float64"):
        conformance.verify("Llama-2-7b-hf", lambda x, positions, layer: x.half())
    with pytest.raises(ValueError, match="preset name"):
        conformance.make_probe("no-such-model")


def test_the_readme_pytest_example_conforms():
    namespace: dict = {}
    exec(compile(_readme_example("pytest"), "docs/conformance.md pytest example", "exec"), namespace)
    namespace["test_rope_conforms"]()
