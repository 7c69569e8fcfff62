"""explorer.pure.timing: the clocks of the pages that time things live (the core holds none)."""

from __future__ import annotations

import math

import pytest
import torch

from explorer.pure.timing import time_angle_fix, time_call


def test_time_call_counts_and_returns_seconds():
    calls = []
    seconds = time_call(lambda: calls.append(1), device=torch.device("cpu"), repeat=3, warmup=2)
    assert len(calls) == 5
    assert isinstance(seconds, float) and seconds >= 0.0


def test_time_call_min_time_repeats_short_calls():
    calls = []
    seconds = time_call(lambda: calls.append(1), device=torch.device("cpu"), repeat=2, warmup=0, min_time=0.01)
    assert len(calls) > 2
    assert 0.0 < seconds < 0.01


def test_time_angle_fix_reports_positive_times():
    result = time_angle_fix(256, 16, device="cpu", repeat=1)
    for key in ("float32", "float64", "float64_reduced"):
        assert math.isfinite(result[key]) and result[key] > 0
    assert result["ratio"] == pytest.approx(result["float64"] / result["float32"])
    assert result["device"] == "cpu" and result["length"] == 256


@pytest.mark.parametrize(("kwargs", "fragment"), [
    ({"length": 0}, "length must be an integer >= 1"),
    ({"dim": 7}, "dim must be a positive even integer"),
    ({"base": -1.0}, "base must be a finite number > 0"),
    ({"repeat": 0}, "repeat must be an integer >= 1"),
])
def test_time_angle_fix_names_a_bad_argument(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(")):
        time_angle_fix(**kwargs, device="cpu")
