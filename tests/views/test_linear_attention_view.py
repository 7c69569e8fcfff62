"""explorer.pure.views.linear_attention: what the page writes, on hand-made outputs, and the arrays it draws."""

import dataclasses

import numpy as np
import pytest

from explorer.pure.views import linear_attention as view
from explorer.pure.views.phrases import phrase


def _out(**changes):
    unused = np.zeros(4, dtype=np.float32)
    out = view.AttentionOutputs(min_den=0.5, min_den_rot=-0.25, nonpositive=3, worst_ratio=-0.5, row_step=1,
                                zero_queries=0, correlation=0.875, shift_change=2.5e-15,
                                softmax=np.arange(12, dtype=np.float32).reshape(4, 3),
                                linear=-np.arange(12, dtype=np.float32).reshape(4, 3), den=unused, den_rot=unused,
                                soft_std=1.0, lin_std=1.0, drawn={}, rows=unused, cols=unused, positions=unused,
                                zero=unused)
    return dataclasses.replace(out, **changes)


def test_denominator_reading_says_whether_the_rotated_one_broke():
    broken = view.denominator_reading(_out(), 16)
    assert [m.value for m in broken.metrics[:2]] == ["0.5", "-0.25"]
    assert broken.metrics[2].value == phrase("linear_attention.nonpositive_value", count=3, seq=16)
    assert broken.lines == [phrase("linear_attention.denominator_result", ratio=-0.5, count=3, seq=16),
                               phrase("linear_attention.denominator_broken")]
    assert view.denominator_reading(_out(nonpositive=0), 16).lines[1] == phrase(
        "linear_attention.denominator_safe_here"
    )


def test_output_notes_only_when_thinned_or_undefined():
    assert view.output_notes(_out(), 16) == view.OutputNotes(thinned=None, zero=None)
    notes = view.output_notes(_out(row_step=4, zero_queries=2), 1024)
    assert notes.thinned == phrase("linear_attention.heatmap_thinned", step=4)
    assert notes.zero == phrase("linear_attention.zero_queries", count=2, seq=1024)


def test_channel_cost_and_times():
    picked = view.channel(_out(), 1)
    assert picked.softmax.tolist() == [1, 4, 7, 10] and picked.linear.tolist() == [-1, -4, -7, -10]
    assert picked.softmax.flags["C_CONTIGUOUS"] and picked.index == 1
    assert [m.value for m in picked.metrics] == ["0.875", "2.5e-15"]
    assert picked.metrics[1].label.args == {"shift": view.SHIFT}
    now = view.cost_now(64, 8)
    soft, lin = view.cost_at(64, 8)
    assert now.args["ratio"] == pytest.approx(soft / lin) and (now.args["soft"], now.args["lin"]) == (soft, lin)
    ms = view.timed_ms(view.Timings(lengths=np.array([256, 1024], np.float32),
                                    softmax=np.array([0.001, 0.5], dtype=np.float32),
                                    linear=np.array([0.002], np.float32), device="cpu"))
    assert ms.softmax.tolist() == pytest.approx([1.0, 500.0]) and ms.linear.tolist() == pytest.approx([2.0])


def test_attention_outputs_carry_the_axis_and_the_zero_line():
    out = view.attention_outputs(10, 4, 100.0, "elu", 0)
    assert out.positions.tolist() == list(range(10)) and out.positions.dtype == np.float32
    assert out.zero.tolist() == [0.0] * 10
