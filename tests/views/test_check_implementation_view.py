"""The check-an-implementation view without Streamlit: a refused paste falls back to the preset, the probe's
file name is made safe, a pasted M-RoPE config gets its demo bug found, and a hostile upload is refused."""

import json

from explorer.pure.views import check_implementation as view
from rope_viz import conformance

QWEN3_VL = {"model_type": "qwen3_vl_text", "num_hidden_layers": 2, "head_dim": 128, "hidden_size": 512,
            "num_attention_heads": 4, "max_position_embeddings": 8192, "rope_theta": 5e6,
            "_name_or_path": "../../etc/passwd <b>x</b>",
            "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True}}


def test_a_refused_paste_falls_back_to_the_preset():
    chosen = view.choose("Llama-2-7b-hf", '{"model_type": "llama", "num_attention_heads": 3}')
    assert chosen.config == "Llama-2-7b-hf" and "hidden_size" in chosen.refused
    assert view.choose("Llama-2-7b-hf", "[1, 2").refused.startswith("config is not valid JSON")


def test_a_pasted_m_rope_config_with_its_demo_bug_and_a_safe_file_name():
    text = json.dumps(QWEN3_VL)
    data, name = view.probe_file("Llama-2-7b-hf", text)
    assert name == "probe-etc-passwd-b-x-b.safetensors" and data[:8] != b"\x80\x04"
    checked = view.check("Llama-2-7b-hf", text, "mrope_sections", None)
    assert checked.refused is None and not checked.ok
    failure = checked.failures[0]
    assert failure.bug == "mrope_sections" and failure.links[0][0] == "MNN #4133"
    assert failure.curves.positions.dtype == failure.curves.bug_by_pair.dtype == "float32"
    assert (failure.curves.positions > 0).all()  # drawn on a log axis


def test_a_hostile_upload_is_refused_and_the_demo_stays():
    checked = view.check("Llama-2-7b-hf", "", "layout", b"\x80\x04\x95" + b"\x00" * 40)
    assert "looks like a pickle" in checked.upload_refused and checked.source == "demo"
    assert checked.failures[0].bug == "layout"
    probe = conformance.make_probe("Llama-2-7b-hf")
    good = conformance.answers_bytes(probe, {(i, role): probe.model.layers[0].rotate(getattr(s, role), s.positions)
                                             for i, s in enumerate(probe.sets) for role in conformance.ROLES})
    checked = view.check("Llama-2-7b-hf", "", "layout", good)
    assert checked.source == "upload" and checked.ok and checked.upload_refused is None


def test_the_answers_to_the_default_and_the_largest_probe_fit_the_servers_upload_limit():
    """Answers have the probe's shape: the default model's and DeepSeek-V4-Flash's (the largest preset probe)
    must pass Streamlit's maxUploadSize, which refuses a larger file before the page can say why."""
    import tomllib
    from pathlib import Path
    limit = tomllib.loads(Path(".streamlit/config.toml").read_text())["server"]["maxUploadSize"] << 20
    for name in ("google/gemma-3-1b-it", "nvidia/DeepSeek-V4-Flash-NVFP4"):
        assert len(conformance.probe_bytes(name)) <= min(limit, conformance.MAX_FILE_BYTES), name


def test_a_declared_layout_and_answers_that_stop():
    """An engine that permutes q/k rows on load (interleaved pairs for Llama 2) fails as the model is read, with
    the sentence that says how to declare it, and passes once declared; answers that turn NaN past position
    4,095 are said to stop there."""
    probe = conformance.make_probe("Llama-2-7b-hf")
    permuted = conformance.declare_layout(probe.model, "interleaved")
    answers = {(i, role): permuted.layers[0].rotate(getattr(s, role).double(), s.positions)
               for i, s in enumerate(probe.sets) for role in conformance.ROLES}
    upload = conformance.answers_bytes(probe, answers)
    failure = view.check("Llama-2-7b-hf", "", "none", upload).failures[0]
    assert failure.bug == "layout"
    assert failure.notes == (view.phrase("check_implementation.layout_hint", layout="interleaved"),)
    assert view.check("Llama-2-7b-hf", "", "none", upload, "interleaved").ok
    rows = probe.sets[0].row_positions
    for role in conformance.ROLES:
        answers[0, role][rows > 4095] = float("nan")
    checked = view.check("Llama-2-7b-hf", "", "none", conformance.answers_bytes(probe, answers), "interleaved")
    first = int(rows[rows > 4095].min())
    assert checked.rows[0].bug == view.phrase("check_implementation.stops_cell", position=f"{first:,}")
    assert checked.failures[0].notes == (view.phrase("check_implementation.stops_note", position=f"{first:,}"),)
