"""The phase-cancellation page through AppTest: defaults, values read back from the charts against
math.cos/sin by hand (opening in Chinese and at the extremes: test_every_page)."""

import math
import re

import numpy as np
import pytest

from support.rope_reference import hand_rotation_2x2
from support.apptest import chart, chart_keys, chart_payload, metrics, opened, spec_array, url_values

KNOBS = ("m", "n", "seed", "dim", "base", "pair")


def test_defaults_show_every_step_and_the_numbers_agree():
    at = opened("phase_cancellation")
    theta = 10000 ** (-2 / 16)  # pair 1 of d = 16
    m, n = 2, 5
    # step 2: the four 2x2 panels, R_m, R_n, R_n R_m^-1, R_{n-m}
    panels = [spec_array(tr["z"]) for tr in chart(at, "matrices")["data"]]
    assert len(panels) == 4
    for panel, angle in zip(panels, (m * theta, n * theta, (n - m) * theta, (n - m) * theta)):
        np.testing.assert_allclose(panel, hand_rotation_2x2(angle), atol=1e-6)
    assert [tr["texttemplate"] for tr in chart(at, "matrices")["data"]] == ["%{z:.4f}"] * 4  # the numbers are shown
    # step 3: the animation turns both arrows; the dot product in every frame title is the same
    slide = chart(at, "slide")
    frames = slide["frames"]
    assert len(frames) == 61
    assert [b["method"] for b in slide["layout"]["updatemenus"][0]["buttons"]] == ["animate", "animate"]
    printed = [re.search(r"q·k = (\S+)", f["layout"]["title"]["text"].replace("<br>", " ")).group(1) for f in frames]
    assert len(set(printed)) == 1
    for f in (frames[0], frames[17], frames[60]):
        (qx, qy), (kx, ky) = [(tr["x"][1], tr["y"][1]) for tr in f["data"]]
        assert qx * kx + qy * ky == pytest.approx(float(printed[0]), abs=1e-5)  # the dot of the drawn arrows
    (q0x, q0y), (q1x, q1y) = [(f["data"][0]["x"][1], f["data"][0]["y"][1]) for f in (frames[0], frames[10])]
    turned = math.atan2(q1y, q1x) - math.atan2(q0y, q0x)
    assert math.remainder(turned - 10 * theta, 2 * math.pi) == pytest.approx(0.0, abs=1e-5)  # 10 steps of theta
    # d dimensions: the block-diagonal matrix, pair 1 occupies rows/columns 2 and 3
    block = spec_array(chart(at, "block")["data"][0]["z"])
    assert block.shape == (16, 16)
    np.testing.assert_allclose(block[2:4, 2:4], hand_rotation_2x2(m * theta), atol=1e-6)
    np.testing.assert_allclose(block[0:2, 2:], 0.0)
    # both sides of (R_m q)^T (R_n k) = q^T R_{n-m} k, and the shift chart
    values = metrics(at)
    lhs = float(next(v for k, v in values.items() if k.startswith("Rotate, then dot")))
    rhs = float(next(v for k, v in values.items() if k.startswith("Offset only")))
    assert lhs == pytest.approx(rhs, abs=1e-12)
    assert len(f"{lhs}") <= 7  # a readable number: every digit is in the metric's help
    lhs = float(next(m.proto.help for m in at.metric if m.label.startswith("Rotate, then dot")).split(": ")[-1])
    assert float(values["|difference|"]) < 1e-12
    both, key_only = (spec_array(tr["y"]) for tr in chart(at, "shift")["data"])
    assert both == pytest.approx(np.full(65, lhs), abs=1e-5)
    assert key_only[0] == pytest.approx(lhs, abs=1e-5) and np.ptp(key_only) > 0.1
    assert url_values(at, KNOBS) == {"m": "2", "n": "5", "seed": "0", "dim": "16", "base": "10000", "pair": "1"}
    assert chart_payload(at) < 1_000_000


def test_sliding_both_positions_keeps_the_relative_panels():
    near, far = (
        opened("phase_cancellation", {"m": 3, "n": 10}),
        opened("phase_cancellation", {"m": 100, "n": 107}),
    )
    (near_panels, far_panels) = ([spec_array(tr["z"]) for tr in chart(at, "matrices")["data"]] for at in (near, far))
    assert not np.allclose(near_panels[0], far_panels[0], atol=1e-3)   # R_m moved
    np.testing.assert_allclose(near_panels[2], far_panels[2], atol=1e-6)  # R_n R_m^-1 did not
    np.testing.assert_allclose(near_panels[3], far_panels[3], atol=1e-6)


def test_two_dimensions_without_a_pair_in_the_link(assert_clean):
    at = opened("phase_cancellation", {"dim": 2})  # the usual pair 1 does not exist: the only pair, 0, is shown
    assert_clean(at)
    assert not at.warning
    assert url_values(at, ("dim", "pair")) == {"dim": "2", "pair": "0"}
    assert chart_keys(at) == ["shift", "matrices", "slide", "block"]
