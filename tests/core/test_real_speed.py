"""rope_viz.real.speed: the interventions' precision chosen from timings of the host (planted here: no wall clock),
kept once per process, set by hand with ROPE_VIZ_PRECISION; the CPU's label."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
import torch

from rope_viz.real import speed


@pytest.mark.parametrize("float32_s, bfloat16_s, capability, expected", [
    (3.7e-3, 383e-3, "AVX2", "float32"),      # the AVX2-only EPYC: bfloat16 about 100 times slower
    (2.1e-3, 0.6e-3, "AVX512", "bfloat16"),   # avx512_bf16: bfloat16 at a third of float32's time
    (2.1e-3, 0.6e-3, "AVX2", "float32"),      # a timing that says faster where torch runs AVX2 kernels: noise
    (3.0e-3, 2.0e-3, "AVX512", "bfloat16"),   # exactly two thirds
    (3.0e-3, 2.1e-3, "AVX512", "float32"),    # faster, but not clearly
    (3.0e-3, 3.0e-3, "AMX", "float32"),
])
def test_bfloat16_only_where_clearly_faster(float32_s, bfloat16_s, capability, expected):
    assert speed.choose(float32_s, bfloat16_s, capability) == expected


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_a_timing_must_be_positive(bad):
    with pytest.raises(ValueError, match="float32_s must be a positive number"):
        speed.choose(bad, 1.0, "AVX512")
    with pytest.raises(ValueError, match="bfloat16_s must be a positive number"):
        speed.choose(1.0, bad, "AVX512")


def planted_clock(durations):
    """A clock whose readings advance by the planted durations in turn (each pair of readings is one timed try;
    readings outside a try advance by nothing)."""
    now = [0.0]
    steps = itertools.cycle(durations)

    def clock():
        now[0] += next(steps)
        return now[0]
    return clock


def test_time_shapes_keeps_the_best_try_of_each_precision():
    weights = [torch.randn(8, 4), torch.randn(16, 4)]
    # readings: the budget's start, then (start, end) of float32 and of bfloat16 in each try
    durations = [0.0] + [0.0, 5.0, 0.0, 4.0] + [0.0, 2.0, 0.0, 1.0] + [0.0, 3.0, 0.0, 6.0] + [0.0] * 1000
    speed_f32, speed_bf16 = speed.time_shapes(weights, planted_clock(durations))
    assert (speed_f32, speed_bf16) == (2.0, 1.0)


def test_time_shapes_stops_once_bfloat16_is_clearly_slower():
    calls = []
    clock = planted_clock([0.0, 0.0, 1.0, 0.0, 10.0])

    def counted():
        calls.append(1)
        return clock()
    assert speed.time_shapes([torch.randn(8, 4)], counted) == (1.0, 10.0)
    assert len(calls) == 5  # the budget's start and one try: no second try


def fake_model(name):
    return SimpleNamespace(name=name, layer_weights=lambda layer, names: [torch.randn(8, 4) for _ in names])


def test_the_choice_is_made_once_per_model_and_process(monkeypatch):
    monkeypatch.setattr(speed, "_CHOSEN", {})
    monkeypatch.setattr(speed, "_TIMED", {})
    monkeypatch.delenv(speed.PRECISION_ENV, raising=False)
    timings = iter([(2.0, 0.5), (2.0, 5.0)])
    monkeypatch.setattr(speed, "time_shapes", lambda weights: next(timings))
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX512")
    first = speed.interventions_precision(fake_model("a"))
    assert first == speed.Choice("bfloat16", 2.0, 0.5)
    assert speed.interventions_precision(fake_model("a")) is first  # kept: not timed again
    assert speed.interventions_precision(fake_model("b")).precision == "float32"


def test_forced_avx2_never_takes_bfloat16(monkeypatch):
    monkeypatch.setattr(speed, "_CHOSEN", {})
    monkeypatch.setattr(speed, "_TIMED", {})
    monkeypatch.delenv(speed.PRECISION_ENV, raising=False)
    monkeypatch.setattr(speed, "time_shapes", lambda weights: (2.0, 0.5))
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    assert speed.interventions_precision(fake_model("a")).precision == "float32"


def test_the_precision_by_hand(monkeypatch):
    monkeypatch.setattr(speed, "_CHOSEN", {})
    monkeypatch.setattr(speed, "_TIMED", {})
    monkeypatch.setattr(speed, "time_shapes", lambda weights: pytest.fail("timed though set by hand"))
    monkeypatch.setenv(speed.PRECISION_ENV, "float32")
    assert speed.interventions_precision(fake_model("a")) == speed.Choice("float32", None, None)
    monkeypatch.setattr(speed, "_CHOSEN", {})
    monkeypatch.setenv(speed.PRECISION_ENV, "fp8")
    with pytest.raises(ValueError, match="ROPE_VIZ_PRECISION='fp8' must be float32 or bfloat16"):
        speed.interventions_precision(fake_model("a"))


def test_cpu_kind_reads_the_model_and_the_bfloat16_flag(tmp_path, monkeypatch):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu avx2 avx512f avx512_bf16\n\n"
                    "processor\t: 1\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu avx2 avx512f avx512_bf16\n")
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    found = speed.cpu_kind(info)
    assert found["model"] == "AMD EPYC 9B14" and found["bf16_instructions"]
    assert found["forced"] == {"ATEN_CPU_CAPABILITY": "avx2"}
    info.write_text("model name\t: AMD EPYC 7B13\nflags\t\t: fpu avx2\n")
    assert not speed.cpu_kind(info)["bf16_instructions"]


def test_a_table_names_the_cpu_and_what_forced_its_kernels():
    kind = {"model": "AMD EPYC 9B14", "torch_capability": "AVX2", "bf16_instructions": True,
            "forced": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}}
    assert speed.cpu_label(kind) == ("CPU AMD EPYC 9B14, torch capability AVX2 "
                                     "(forced: ATEN_CPU_CAPABILITY=avx2, ONEDNN_MAX_CPU_ISA=AVX2)")
    assert speed.cpu_label({**kind, "forced": {}}) == "CPU AMD EPYC 9B14, torch capability AVX2"


def test_a_forward_is_estimated_from_the_timed_shapes(monkeypatch):
    """Planted: the timed shapes (128 rows of a 6x4 and a 10x4 matrix) take 1.28 s in float32, 0.64 s in bfloat16,
    so 1e-4 s a row per weight value in float32; a layer holds 7 weights of 8x4 (224 values), the head 5x4."""
    monkeypatch.setattr(speed, "_TIMED", {"m": (1.28, 0.64)})
    shapes = {"attn_q": (6, 4), "ffn_up": (10, 4)}
    lm = SimpleNamespace(name="m", rope=SimpleNamespace(layers=[0] * 3), config={"vocab_size": 5, "hidden_size": 4},
                         layer_weights=lambda layer, names: [torch.zeros(shapes.get(n, (8, 4))) for n in names])
    per_row = 1.28 / (128 * (24 + 40))
    assert speed.forward_s(lm, 10) == pytest.approx(per_row * 10 * (3 * 224 + 20))
    assert speed.forward_s(lm, 10, layers=1, head=False) == pytest.approx(per_row * 10 * 224)
    assert speed.forward_s(lm, 10, precision="bfloat16") == pytest.approx(speed.forward_s(lm, 10) / 2)
