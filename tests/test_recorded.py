"""support.recorded, the rules every comparison with a recording goes through: each admits the differences measured
between CPU kinds and precisions, and rejects a planted change of the size of a real bug, on the shipped files'
own numbers."""

import json
from pathlib import Path

import pytest
import torch

from support.recorded import (BFLOAT16_REL, FLOAT32_REL, NOISE, RETRAINED, Tolerance, answers, assert_close, flips,
                              matmuls)

ROOT = Path(__file__).resolve().parents[1]
EVALUATIONS = ROOT / "rope_viz" / "toy" / "shipped" / "grid4_evaluations.json"
EXAMPLES = ROOT / "results" / "real" / "examples.json"


def _scaled(value, factor):
    """Every float in a nested dict / list times `factor`; the rest kept."""
    if isinstance(value, dict):
        return {k: _scaled(v, factor) for k, v in value.items()}
    if isinstance(value, list):
        return [_scaled(v, factor) for v in value]
    return value * factor if isinstance(value, float) else value


def _as_bfloat16(value):
    """Every float in a nested dict / list rounded to bfloat16 (torch's cast, round to nearest even)."""
    if isinstance(value, dict):
        return {k: _as_bfloat16(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_bfloat16(v) for v in value]
    return torch.tensor(value, dtype=torch.float64).to(torch.bfloat16).item() if isinstance(value, float) else value


@pytest.fixture(scope="module")
def frequency():
    """The shipped frequency analysis of the offset task's RoPE and p-RoPE models (float32 computations)."""
    return json.loads(EVALUATIONS.read_text(encoding="utf-8"))["tasks"]["offset"]["frequency"]


@pytest.fixture(scope="module")
def interventions():
    """SmolLM2's recorded interventions on the `list` example (losses in nats, bfloat16 matmuls)."""
    doc = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    entry = next(e for e in doc["entries"] if (e["name"], e["example"]) == ("smollm2-135m", "list"))
    return entry["measured"]["interventions"]


def test_float32_admits_another_cpus_rounding(frequency):
    # 4.3e-8: the largest difference measured with the AVX2 code paths forced; 8e-7: a few ulps more
    for factor in (1 + 4.3e-8, 1 - 8e-7):
        assert_close(_scaled(frequency, factor), frequency, matmuls("float32", "float32"))


def test_float32_rejects_a_value_rounded_to_bfloat16(frequency):
    """A float32 path that rounds through bfloat16 by mistake (up to 2e-3 relative): the smallest real bug."""
    with pytest.raises(AssertionError, match=r"^/rope/size\[\d+\]\[\d+\]: .* != recorded .* within"):
        assert_close(_as_bfloat16(frequency), frequency, matmuls("float32", "float32"))
    planted = json.loads(json.dumps(frequency))
    planted["p-rope"]["slow"] *= 1 + 1e-5  # one number, ten times the rule
    with pytest.raises(AssertionError, match="/p-rope/slow"):
        assert_close(planted, frequency, matmuls("float32", "float32"))


def test_bfloat16_admits_the_measured_precision_and_kernel_differences(interventions):
    # 4.1e-3: the largest difference measured between bfloat16 and float32 matmuls (the query_ahead trap); 2.9e-3:
    # bfloat16 on the AVX2 kernels against the recording's on avx512_bf16
    for factor in (1 + 4.1e-3, 1 - 2.9e-3):
        assert_close(_scaled(interventions, factor), interventions, matmuls(None, "float32", 6))


def test_bfloat16_rejects_one_layers_rope_removed(interventions):
    """RoPE removed from one layer moves the loss by 2% (3.073 to 3.135 nats), the smallest trap the page shows:
    a bug that did it to every pass (a layer index off by one) must not pass as rounding."""
    traps = dict(interventions["traps"])
    assert abs(traps["no_rope_layer"] / traps["none"] - 1) > 0.02
    planted = json.loads(json.dumps(interventions))
    planted["stopped"]["loss"] = traps["no_rope_layer"]
    with pytest.raises(AssertionError, match="/stopped/loss"):
        assert_close(planted, interventions, matmuls(None, "bfloat16", 6))


def test_the_precisions_name_their_rule():
    assert matmuls("float32", "float32") == Tolerance(rel=FLOAT32_REL)
    for recorded, here in (("bfloat16", "float32"), ("float32", "bfloat16"), ("bfloat16", "bfloat16"),
                           (None, "float32"), (None, "bfloat16")):
        assert matmuls(recorded, here) == Tolerance(rel=BFLOAT16_REL), (recorded, here)
    assert matmuls("float32", "float32", 6).rel == pytest.approx(FLOAT32_REL + 5e-6)
    with pytest.raises(ValueError, match="here must be one of .* got 'float16'"):
        matmuls("float32", "float16")
    with pytest.raises(ValueError, match="recorded must be one of"):
        matmuls("fp32", "float32")


def test_answers_let_one_percent_flip_and_no_more():
    assert flips(128) == Tolerance(abs=2) and flips(10) == Tolerance(abs=1) and flips(7808) == Tolerance(abs=79)
    assert_close(126, 128, flips(128))
    with pytest.raises(AssertionError):
        assert_close(125, 128, flips(128))
    assert_close(48 / 114, 49 / 114, answers(114))
    with pytest.raises(AssertionError):  # 3 of 114 answers changed: more than 1%
        assert_close(46 / 114, 49 / 114, answers(114))


def test_noise_and_retraining():
    assert_close(6.09e-5, 5.65e-5, NOISE)  # the shift residual with the AVX2 paths forced, and as recorded
    with pytest.raises(AssertionError):
        assert_close(0.1, 5.65e-5, NOISE)  # scores that depend on absolute positions
    assert_close(0.955, 0.995, RETRAINED)  # the spread of the three seeds of a scheme that reproduces
    with pytest.raises(AssertionError):
        assert_close(0.666, 0.796, RETRAINED)  # a scheme whose seeds disagree, retrained on another CPU


def test_everything_but_numbers_is_compared_exactly_and_where_is_named():
    rule = Tolerance(rel=0.5)
    assert_close({"a": [1.0, ("x", 2)], "b": None}, {"a": [1.2, ("x", 2.4)], "b": None}, rule)
    with pytest.raises(AssertionError, match=r"^/a\[1\]\[0\]: 'y' != recorded 'x'"):
        assert_close({"a": [1.0, ("y", 2)]}, {"a": [1.0, ("x", 2)]}, rule)
    with pytest.raises(AssertionError, match=r"^/a: 1 entries != recorded 2"):
        assert_close({"a": [1.0]}, {"a": [1.0, 2.0]}, rule)
    with pytest.raises(AssertionError, match="keys"):
        assert_close({"a": 1.0}, {"b": 1.0}, rule)
    with pytest.raises(AssertionError, match="True != recorded 1"):
        assert_close(True, 1, rule)
    assert_close(torch.tensor([1.0, 2.0]), (1.0, 2.0), Tolerance())
