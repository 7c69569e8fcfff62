"""rope_viz.conformance against implementations written here: a NumPy rotation with frequencies by hand
(default, proportional) or from transformers' ROPE_INIT_FUNCTIONS (scaled), with each known bug planted by
hand; the reference passes for every preset, each planted bug is named as itself on a preset where it can
occur, and only the planted kind of layer fails."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from transformers import AutoConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

import rope_viz
from rope_viz import conformance, preset_info

GEMMA4 = {"model_type": "gemma4_text", "num_hidden_layers": 6, "head_dim": 64, "global_head_dim": 128,
          "hidden_size": 256, "num_attention_heads": 4, "sliding_window": 512, "max_position_embeddings": 131072,
          "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
          "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                              "full_attention": {"rope_type": "proportional", "rope_theta": 1e6,
                                                 "partial_rotary_factor": 0.25}}}
QWEN3_VL = {"model_type": "qwen3_vl", "text_config": {
    "model_type": "qwen3_vl_text", "num_hidden_layers": 4, "head_dim": 128, "hidden_size": 512,
    "num_attention_heads": 4, "max_position_embeddings": 262144, "rope_theta": 5e6,
    "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True}}}


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The probe's tensors are small: one torch thread is several times faster on a shared machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def hf_frequencies(name: str, **scaling) -> tuple[np.ndarray, float]:
    """(inv_freq, attention factor) of a preset's scaled rotary layers, from transformers (with `scaling`
    changed in its rope_scaling)."""
    config = preset_info(name)["config"]
    kwargs = {key: value for key, value in config.items() if key != "model_type"}
    if scaling:
        kwargs["rope_scaling"] = {**kwargs["rope_scaling"], **scaling}
    hf = AutoConfig.for_model(config["model_type"], **json.loads(json.dumps(kwargs))).get_text_config()
    inv_freq, factor = ROPE_INIT_FUNCTIONS[hf.rope_parameters["rope_type"]](hf, "cpu")
    return inv_freq.double().numpy(), float(factor)


def bf16(values: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 (nearest, ties to even), by their bits."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


class NumpyRoPE:
    """fn(x, positions, layer, role) for `config`, in NumPy, with `bug` (one bug tuple, or a list of them)
    planted into the layers of kind `kind` (in both roles, or only in `only`)."""

    def __init__(self, config, bug=None, *, kind: int = 0, only: str | None = None,
                 dtype=np.float32, scaled=None):
        self.model = conformance.load_model(config)
        self.scaled = scaled  # (inv_freq, factor) of the scaled layers, from transformers
        self.bugs = [] if bug is None else [bug] if isinstance(bug, tuple) else list(bug)
        self.only, self.dtype = only, dtype
        self.target = set(conformance.kinds(self.model)[kind].layers) if bug else set()

    def frequencies(self, layer, bugs):
        r, base = layer.rotary_dim, layer.base
        r = next((b[1] for b in bugs if b[0] == "rotary"), r)
        base = next((b[1] for b in bugs if b[0] == "base"), base)
        if layer.rope_type == "proportional" and ("proportional",) not in bugs:
            omega = np.zeros(layer.head_dim // 2)
            omega[:r // 2] = base ** (-np.arange(0, r, 2) / layer.head_dim)
            return omega, 1.0
        if layer.rope_type in ("default", "proportional") or ("scaling",) in bugs or r != layer.rotary_dim:
            return base ** (-np.arange(0, r, 2) / r), 1.0
        if ("reversed ramp",) in bugs:  # litgpt 0.5.13's build_rope_cache: the ramp weighs the extrapolated side
            params = layer.rope_scaling
            factor, original = params["factor"], params["original_max_position_embeddings"]
            low, high = (r * math.log(original / (beta * 2 * math.pi)) / (2 * math.log(base)) for beta in (32, 1))
            low, high = max(math.floor(low), 0), min(math.ceil(high), r // 2 - 1)
            ramp = np.clip((np.arange(r // 2) - low) / (high - low), 0.0, 1.0)
            extrapolated = base ** (-np.arange(0, r, 2) / r)
            return extrapolated / factor * (1 - ramp) + extrapolated * ramp, 1.0  # and no attention factor
        omega, factor = self.scaled
        if ("factor", "missing") in bugs:
            factor = 1.0
        if ("factor", "twice") in bugs:
            factor = factor * factor
        return omega, factor

    def __call__(self, x, positions, layer, role):
        x = np.asarray(x, dtype=np.float64)
        ids = np.asarray(positions).astype(np.float64)
        spec = self.model.layers[layer]
        bugs = self.bugs if layer in self.target and self.only in (None, role) else []
        if not spec.rotary:
            if ("nope",) not in bugs:
                return x.astype(self.dtype)
            spec = next(other for other in self.model.layers if other.rotary)
        elif ("nope",) in bugs:
            return x.astype(self.dtype)
        omega, factor = self.frequencies(spec, bugs)
        width = len(omega) * 2
        start = spec.rotated_from
        if ("rotated_dims",) in bugs:
            start = spec.head_dim - width if start == 0 else 0
        layout = spec.layout
        if ("layout",) in bugs:
            layout = "interleaved" if layout == "half" else "half"
        if ("offset",) in bugs:
            ids = ids + 1
        if ("cache",) in bugs:
            ids = np.minimum(ids, spec.max_position_embeddings - 1)
        if ("bf16 positions",) in bugs or ("bf16 all",) in bugs:
            ids = bf16(ids)
        if ("bf16 all",) in bugs:
            omega = bf16(omega)
        if ids.ndim == 2:
            pair = np.arange(len(omega))
            sections = spec.mrope_section
            interleaved = spec.mrope_interleaved != (("mrope",) in bugs)
            if interleaved:
                axis = np.where((pair % 3 == 1) & (pair < 3 * sections[1]), 1,
                                np.where((pair % 3 == 2) & (pair < 3 * sections[2]), 2, 0))
            else:
                axis = np.repeat([0, 1, 2], sections)
            theta = ids[axis].T * omega
        else:
            theta = ids[:, None] * omega
        if ("fp16 angles",) in bugs:  # past 65,504 the angle is infinite and the answer NaN, as on a device
            with np.errstate(over="ignore"):
                theta = theta.astype(np.float32).astype(np.float16).astype(np.float64)
        a = np.arange(width // 2) if layout == "half" else np.arange(0, width, 2)
        b = a + width // 2 if layout == "half" else a + 1
        seg = x[:, start:start + width]
        out = x.copy()
        with np.errstate(invalid="ignore"):
            cos, sin = np.cos(theta), np.sin(theta)
        if ("bf16 all",) in bugs:  # positions, frequencies, their products and cos/sin all in bfloat16
            theta = bf16(theta)
            cos, sin = bf16(np.cos(theta)), bf16(np.sin(theta))
        out[:, start + a] = factor * (seg[:, a] * cos - seg[:, b] * sin)
        out[:, start + b] = factor * (seg[:, a] * sin + seg[:, b] * cos)
        return out.astype(self.dtype)


def test_reference_passes_for_every_preset():
    for name, model in rope_viz.model_presets().items():
        report = conformance.verify(name, lambda x, positions, layer, m=model: m.layers[layer].rotate(x, positions))
        assert report.ok, (name, report.table())
        assert sorted(i for v in report.verdicts for i in v.layers) == list(range(len(model.layers)))


@pytest.mark.parametrize("config,scaled", [
    ("Llama-2-7b-hf", False), ("Llama-3.1-8B", True), ("google/gemma-3-1b-it", False), ("DeepSeek-V3", True),
    ("Qwen2.5-7B-Instruct + YaRN", True), ("gpt-neox-20b", False), ("gpt-j-6b", False),
    ("meta-llama/Llama-4-Scout-17B-16E", True), ("Qwen/Qwen2.5-VL-7B-Instruct", False),
    ("Snowflake/snowflake-arctic-embed-m", False), (GEMMA4, False), (QWEN3_VL, False)],
    ids=lambda v: v if isinstance(v, str) else None)
def test_a_numpy_implementation_passes(config, scaled):
    fn = NumpyRoPE(config, scaled=hf_frequencies(config) if scaled else None)
    report = conformance.verify(config, fn)
    assert report.ok, report.table()


# (config, planted bug, kind it goes into, only in, answers dtype, expected class, expected detail)
PLANTED = [
    ("Llama-3.1-8B", ("layout",), 0, None, np.float32, "layout", "interleaved"),
    ("Llama-3.1-8B", ("scaling",), 0, None, np.float64, "scaling", "scaling none"),
    ("Mistral-7B-v0.3", ("base", 10000.0), 0, None, np.float32, "base", "base 10,000"),
    ("Llama-3.1-8B", ("offset",), 0, None, np.float32, "position_offset", "+1"),
    ("Llama-3.1-8B", ("bf16 positions",), 0, None, np.float32, "low_precision", "positions in bfloat16"),
    ("Llama-3.1-8B", ("bf16 all",), 0, None, np.float32, "low_precision",
     "positions, frequencies and angles in bfloat16"),
    ("Llama-3.1-8B", ("cache",), 0, None, np.float64, "cache_length", "clamped at 131,072"),
    ("Llama-3.1-8B", ("nope",), 0, "key", np.float32, "nope", "not rotated"),
    ("google/gemma-3-1b-it", ("base", 1e6), 0, None, np.float32, "base", "base 1,000,000"),
    ("google/gemma-3-1b-it", ("fp16 angles",), 1, None, np.float64, "low_precision", "angles in float16"),
    ("Qwen2.5-7B-Instruct + YaRN", ("factor", "missing"), 0, None, np.float32, "attention_factor", "missing"),
    ("Qwen2.5-7B-Instruct + YaRN", ("factor", "twice"), 0, None, np.float64, "attention_factor", "applied twice"),
    ("Qwen2.5-7B-Instruct + YaRN", ("factor", "missing"), 0, "key", np.float32, "attention_factor", "missing"),
    ("DeepSeek-V3", ("rotated_dims",), 0, None, np.float32, "rotated_dims", "from the start"),
    ("DeepSeek-V3", ("layout",), 0, None, np.float64, "layout", "half"),
    ("gpt-neox-20b", ("rotated_dims",), 0, None, np.float32, "rotated_dims", "from the end"),
    ("gpt-neox-20b", ("rotary", 96), 0, None, np.float32, "rotated_dims", "whole head"),
    ("gpt-j-6b", ("rotary", 128), 0, None, np.float32, "rotated_dims", "128 dims rotated"),  # x-transformers' default
    ("meta-llama/Llama-4-Scout-17B-16E", ("nope",), 1, None, np.float32, "nope", "rotated like layer 0"),
    ("Qwen/Qwen2.5-VL-7B-Instruct", ("mrope",), 0, None, np.float32, "mrope_sections", "interleaved"),
    (QWEN3_VL, ("mrope",), 0, None, np.float64, "mrope_sections", "blocked"),
    (GEMMA4, ("proportional",), 1, None, np.float32, "proportional", "read as partial"),
]


@pytest.mark.parametrize("config,bug,kind,only,dtype,expected,detail", PLANTED,
                         ids=[f"{c if isinstance(c, str) else c['model_type']}-{b[0]}-{o or 'both'}-{np.dtype(d).name}"
                              for c, b, _, o, d, *_ in PLANTED])
def test_a_planted_bug_is_named_as_itself_in_its_kind_only(config, bug, kind, only, dtype, expected, detail):
    scaled = hf_frequencies(config) if isinstance(config, str) and conformance.load_model(config).rope_type not in (
        "default",) else None
    report = conformance.verify(config, NumpyRoPE(config, bug, kind=kind, only=only, dtype=dtype, scaled=scaled))
    failed = [v for v in report.verdicts if not v.ok]
    assert [v.kind for v in failed] == [kind], report.table()
    verdict = failed[0]
    assert (verdict.bug, verdict.detail) == (expected, detail), report.table()
    assert verdict.roles == ((only,) if only else ("query", "key"))
    assert verdict.bug_profile is not None and verdict.residual <= 0.1
    profile = verdict.profile
    assert verdict.first_position is not None and max(profile.by_pair.max(), profile.rest) == pytest.approx(
        verdict.max_error)


def test_an_unknown_error_is_explained_by_none_and_keeps_its_profile():
    model = conformance.load_model("Llama-2-7b-hf")

    def noisy(x, positions, layer):  # pair 5 turned 0.01 rad too far from position 100 on
        out = model.layers[layer].rotate(x, positions).clone()
        late = positions >= 100
        out[late, 5] += 0.01 * x[late, 69]
        return out
    verdict = conformance.verify("Llama-2-7b-hf", noisy).verdicts[0]
    assert (verdict.ok, verdict.bug, verdict.first_pair, verdict.first_position) == (False, None, 5, 100)
    assert int(np.argmax(verdict.profile.by_pair)) == 5


def test_every_bug_class_is_planted_and_diagnosed_somewhere():
    assert set(conformance.BUG_CLASSES) >= {"layout", "rotated_dims", "base", "scaling", "attention_factor", "nope",
                                            "position_offset", "low_precision", "cache_length", "mrope_sections",
                                            "proportional"}
    assert {case[5] for case in PLANTED} | {bug for case in TWO_BUGS for bug in case[2][::2]} == set(
        conformance.BUG_CLASSES)


def test_the_demo_plants_each_applicable_bug_that_verify_then_names():
    """...and leaves every other kind exactly as the reference: the same largest error as with no bug."""
    plain = conformance.verify("google/gemma-3-1b-it", conformance.reference("google/gemma-3-1b-it"))
    for bug, kinds in conformance.applicable("google/gemma-3-1b-it").items():
        report = conformance.verify("google/gemma-3-1b-it", conformance.planted("google/gemma-3-1b-it", bug))
        assert [(v.kind, v.bug) for v in report.verdicts if not v.ok] == [(kinds[0], bug)]
        assert [(v.kind, v.max_error) for v in report.verdicts if v.kind != kinds[0]] == [
            (v.kind, v.max_error) for v in plain.verdicts if v.kind != kinds[0]]


# (config, planted bugs, (bug, detail, second bug, its detail)) for implementations no single bug explains
TWO_BUGS = [
    ("Llama-3.1-8B", [("layout",), ("scaling",)], ("scaling", "scaling none", "layout", "interleaved")),  # torchtune's
    ("Qwen2.5-7B-Instruct + YaRN", [("reversed ramp",)], ("yarn_ramp", "reversed", "attention_factor", "missing")),
]


@pytest.mark.parametrize("config,bugs,expected", TWO_BUGS, ids=["unpermuted-plain-rope", "reversed-yarn-ramp"])
def test_two_bugs_at_once_are_both_named(config, bugs, expected):
    report = conformance.verify(config, NumpyRoPE(config, bugs, scaled=hf_frequencies(config)))
    verdict = report.verdicts[0]
    assert (verdict.bug, verdict.detail, *verdict.second) == expected, report.table()
    assert ("layout" in expected) == any("layout=" in note for note in report.notes())


def test_assert_conforms_raises_the_verdict_table():
    fn = NumpyRoPE("Llama-3.1-8B", ("layout",), scaled=hf_frequencies("Llama-3.1-8B"))
    with pytest.raises(AssertionError) as caught:
        conformance.assert_conforms("Llama-3.1-8B", fn)
    message = str(caught.value)
    for part in ("FAIL", "layout (interleaved; query+key)", "pair 0, position 1",
                 "https://github.com/ikawrakow/ik_llama.cpp/issues/2290", 'layout="interleaved"'):
        assert part in message, message
    # the loader permutes q/k rows: declared, the same engine conforms
    assert conformance.assert_conforms("Llama-3.1-8B", fn, layout="interleaved").ok
    with pytest.raises(ValueError, match="layout must be one of"):
        conformance.verify("Llama-3.1-8B", fn, layout="pairs")


@pytest.mark.parametrize("stop", ["IndexError", "ValueError", "nan"])
def test_answers_that_stop_at_a_short_cache_are_reported_where_they_stop(stop):
    length = 8192  # a cos/sin cache of Llama 3's original context, serving Llama 3.1
    numpy_rope = NumpyRoPE("Llama-3.1-8B", scaled=hf_frequencies("Llama-3.1-8B"))

    def cached(x, positions, layer, role):
        out = numpy_rope(x, positions, layer, role)
        if stop == "IndexError":
            np.arange(length)[np.asarray(positions)]  # a cache lookup: IndexError past its end
        if stop == "ValueError" and int(positions.max()) >= length:
            raise ValueError(f"position {int(positions.max())} is past the cache")
        out[np.asarray(positions) >= length] = np.nan
        return out
    report = conformance.verify("Llama-3.1-8B", cached)
    probed = conformance.make_probe("Llama-3.1-8B").sets[0].row_positions
    verdict = report.verdicts[0]
    first_missing = int(probed[probed >= length].min())
    assert (verdict.ok, verdict.bug, verdict.stops_at) == (False, None, first_missing), report.table()
    assert f"answers stop at position {first_missing:,}" in report.table()
    assert (verdict.stopped_by or "nan").startswith(stop)
    assert conformance.verify("Llama-3.1-8B", cached, max_position=length).ok


@pytest.mark.parametrize("length", [131072, 65536, 262144])
def test_yarn_tables_built_for_the_cache_length_are_named(length):
    """Factor 4 over 32,768: a cache of 131,072; an engine may also size it to the positions it serves (the
    probe reaches 100,003: 65,536 is one power of two short of it) or to a longer max_model_len."""
    name = "Qwen2.5-7B-Instruct + YaRN"
    fn = NumpyRoPE(name, scaled=hf_frequencies(name, original_max_position_embeddings=length))
    verdict = conformance.verify(name, fn).verdicts[0]
    assert (verdict.bug, verdict.detail) == ("cache_length", f"YaRN built for {length:,}")


def test_a_bfloat16_engine_is_judged_at_its_own_dtype():
    """transformers' own rotary run in bfloat16 passes at bfloat16; everything in bfloat16 does not."""
    name = "Llama-3.1-8B"
    config = {k: v for k, v in preset_info(name)["config"].items() if k != "model_type"}
    rotary = LlamaRotaryEmbedding(AutoConfig.for_model("llama", **config))

    def hf(x, positions, layer):
        q = x[None, None]
        cos, sin = rotary(q, positions[None])
        return apply_rotary_pos_emb(q, q, cos, sin)[0][0, 0]
    report = conformance.verify(name, hf, dtype=torch.bfloat16)
    assert report.ok and report.verdicts[0].excess <= 1, report.table()
    assert not conformance.verify(name, lambda x, positions, layer: hf(x.bfloat16(), positions, layer).float()).ok
    all_bf16 = NumpyRoPE(name, ("bf16 all",), scaled=hf_frequencies(name))
    report = conformance.verify(name, lambda x, positions, layer: torch.from_numpy(
        all_bf16(x.float().numpy(), positions, layer, "query")).bfloat16(), dtype=torch.bfloat16)
    verdict = report.verdicts[0]
    assert (verdict.bug, verdict.detail) == ("low_precision", "positions, frequencies and angles in bfloat16")
    assert verdict.excess > 10 and f"{verdict.excess:,.3g}x the bfloat16 room" in report.table()
