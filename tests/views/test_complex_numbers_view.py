"""The complex-numbers page's view against math.cos/sin and Python's complex type."""

import cmath
import math

import numpy as np
import pytest
import torch

from explorer.pure.views import complex_numbers as view
from explorer.pure.views.complex_numbers import arc, product, quarter_turn, rotor_turn
from explorer.pure.views.phrases import phrase


def test_arc_runs_on_the_circle_from_start_to_stop():
    points = arc(1.5, 0.25, 2.0, samples=30)
    assert points.shape == (30, 2)
    assert torch.hypot(points[:, 0], points[:, 1]).tolist() == pytest.approx([1.5] * 30, abs=1e-14)
    assert points[0].tolist() == pytest.approx([1.5 * math.cos(0.25), 1.5 * math.sin(0.25)], abs=1e-15)
    assert points[-1].tolist() == pytest.approx([1.5 * math.cos(2.0), 1.5 * math.sin(2.0)], abs=1e-15)


def test_arc_needs_two_samples():
    with pytest.raises(ValueError, match="samples"):
        arc(1.0, 0.0, 1.0, samples=1)


def hand_arc_ends(radius, start, stop):
    return [(radius * math.cos(a), radius * math.sin(a)) for a in (start, stop)]


def test_quarter_turn_swaps_and_negates():
    out = quarter_turn(2.0, 1.0)
    assert out.z == (2.0, 1.0)
    assert out.iz == pytest.approx((-1.0, 2.0), abs=1e-15)  # 1j * (2 + 1j) = -1 + 2j
    assert out.modulus == pytest.approx(math.sqrt(5)) and out.iz_modulus == pytest.approx(math.sqrt(5))
    assert out.angle == pytest.approx(math.atan2(1, 2)) and out.angle_deg == pytest.approx(
        math.degrees(math.atan2(1, 2)))
    assert out.turn_deg == pytest.approx(90.0)
    xs, ys = out.arc
    assert xs.dtype == ys.dtype == np.float32
    first, last = hand_arc_ends(0.4 * math.sqrt(5), math.atan2(1, 2), math.atan2(1, 2) + math.pi / 2)
    assert (xs[0], ys[0]) == pytest.approx(first, abs=1e-6) and (xs[-1], ys[-1]) == pytest.approx(last, abs=1e-6)


def test_quarter_turn_of_the_origin_has_no_arc_and_reports_ninety_degrees():
    out = quarter_turn(0.0, 0.0)
    assert out.modulus == 0.0 and out.arc is None and out.turn_deg == 90.0


@pytest.mark.parametrize("a, b, w_modulus, w_deg", [(2.0, 1.0, 1.5, 60), (-1.5, 0.25, 0.5, -120),
                                                    (-2.0, 1.0, 3.0, 150), (0.0, 0.0, 0.0, 0)])
def test_product_against_python_complex(a, b, w_modulus, w_deg):
    z, w = complex(a, b), cmath.rect(w_modulus, math.radians(w_deg))
    out = product(a, b, w_modulus, w_deg)
    assert out.w == pytest.approx((w.real, w.imag), abs=1e-15)
    assert out.zw == pytest.approx(((z * w).real, (z * w).imag), abs=1e-14)
    for row, number in zip(out.rows, (z, w, z * w)):
        assert row.re == pytest.approx(number.real, abs=1e-14) and row.im == pytest.approx(number.imag, abs=1e-14)
        assert row.modulus == pytest.approx(abs(number), abs=1e-14)
        assert row.angle_deg == pytest.approx(math.degrees(math.atan2(number.imag, number.real)), abs=1e-12)
    assert out.polar_modulus == pytest.approx(abs(z) * abs(w), abs=1e-14)
    # the polar angle is the unwrapped sum; it equals arg zw up to whole turns
    angle_sum = math.degrees(math.atan2(b, a) + math.atan2(w.imag, w.real))
    assert out.polar_angle_deg == pytest.approx(angle_sum, abs=1e-12)
    scale = max(1.0, abs(z), abs(w), abs(z * w))
    for (xs, ys), share, stop in zip(out.arcs, (0.2, 0.3, 0.4),
                                     (math.atan2(b, a), math.atan2(w.imag, w.real), math.radians(angle_sum))):
        assert (xs[-1], ys[-1]) == pytest.approx(hand_arc_ends(share * scale, 0.0, stop)[1], abs=1e-6)


def test_product_angle_is_not_wrapped():
    out = product(-2.0, 1.0, 1.0, 150)  # arg z ≈ 153.4°, arg w = 150°: the sum passes 180°
    assert out.polar_angle_deg == pytest.approx(math.degrees(math.atan2(1, -2)) + 150, abs=1e-12)
    assert out.polar_angle_deg > 180 and out.rows[2].angle_deg < 0


@pytest.mark.parametrize("a, b, theta_deg", [(2.0, 1.0, 50), (-1.5, 0.25, 90), (3.0, -3.0, -180), (0.0, 0.0, 30)])
def test_rotor_turn_against_python_complex_and_the_matrix_by_hand(a, b, theta_deg):
    z, theta = complex(a, b), math.radians(theta_deg)
    out = rotor_turn(a, b, theta_deg)
    turned = z * cmath.exp(1j * theta)
    assert out.rotor == pytest.approx((math.cos(theta), math.sin(theta)), abs=1e-15)
    assert out.turned == pytest.approx((turned.real, turned.imag), abs=1e-14)
    assert out.back == pytest.approx((a, b), abs=1e-14)
    by_hand = (a * math.cos(theta) - b * math.sin(theta), a * math.sin(theta) + b * math.cos(theta))
    assert out.by_matrix == pytest.approx(by_hand, abs=1e-14)
    assert out.difference == pytest.approx((out.turned[0] - out.by_matrix[0],
                                           out.turned[1] - out.by_matrix[1]), abs=0)
    assert out.gap == pytest.approx(math.hypot(*out.difference), abs=0) and out.gap < 1e-14
    assert out.rotor_modulus == pytest.approx(1.0, abs=1e-15)
    assert out.modulus == pytest.approx(abs(z)) and out.turned_modulus == pytest.approx(abs(z), abs=1e-14)
    assert out.back_error == pytest.approx(0.0, abs=1e-14)
    if a == b == 0:
        assert out.arc is None
    else:
        xs, ys = out.arc
        start = math.atan2(b, a)
        first, last = hand_arc_ends(0.5 * abs(z), start, start + theta)
        assert (xs[0], ys[0]) == pytest.approx(first, abs=1e-6) and (xs[-1], ys[-1]) == pytest.approx(last, abs=1e-6)


def test_what_the_page_draws_and_writes():
    quarter = quarter_turn(3.0, 4.0)
    drawn = view.quarter_diagram(quarter)
    assert [(name.key, x, y, concept) for name, x, y, concept in drawn.points] == [
        ("complex_numbers.z_name", 3.0, 4.0, "query"), ("complex_numbers.iz_name", -4.0, 3.0, "query")]
    # the turned copy dashed, the turn (the arc) in RoPE's colour
    assert drawn.dashes == [(phrase("complex_numbers.iz_name"), "dash")]
    assert len(drawn.arcs) == 1 and drawn.arcs[0][-1] == "rope"
    notes = view.quarter_notes(quarter, 3.0, 4.0)
    assert notes.metric.value == phrase("complex_numbers.iz_value", x=-4.0, y=3.0)
    assert notes.polar.key == "complex_numbers.z_polar" and notes.polar.args["modulus"] == 5.0
    origin = quarter_turn(0.0, 0.0)
    assert view.quarter_diagram(origin).arcs == [] and view.quarter_notes(origin, 0.0, 0.0).polar == phrase(
        "complex_numbers.z_origin")
    prod = product(1.0, 1.0, 2.0, 90.0)  # (1 + i) * 2i = -2 + 2i
    rows = view.product_table(prod)
    assert rows["complex_numbers.col_re"] == ["1.0000", "0.0000", "-2.0000"]
    assert rows["complex_numbers.col_modulus"][2] == f"{2 * math.sqrt(2):.4f}"
    assert rows["complex_numbers.col_angle"] == ["45.00", "90.00", "135.00"]
    assert view.product_check(prod).args["angle"] == pytest.approx(135.0)
    drawn = view.product_diagram(prod)
    assert [(name.key, concept) for name, *_, concept in drawn.arcs] == [
        ("complex_numbers.arc_z", "query"), ("complex_numbers.arc_w", "rope"), ("complex_numbers.arc_sum", "query")]
    assert [concept for *_, concept in drawn.points] == ["query", "rope", "query"]
    turn = rotor_turn(1.0, 0.0, 90.0)
    rotor = view.rotor_diagram(turn)
    assert rotor.dashes == [(phrase("complex_numbers.turned_name"), "dash"),
                            (phrase("complex_numbers.back_name"), "dot")]
    assert len(rotor.points) == 4
    assert rotor.points[2][1:3] == pytest.approx((0.0, 1.0), abs=1e-15)
    assert [m.value for m in view.rotor_metrics(turn)][1] == "1.000000 → 1.000000"
    assert view.rotor_diagram(rotor_turn(0.0, 0.0, 90.0)).arcs == []
    digits = view.digits_table(turn)
    assert digits["complex_numbers.first"][0] == f"{turn.turned[0]:.17g}"
    assert [w.key for w in digits["complex_numbers.way"]] == [
        "complex_numbers.way_complex", "complex_numbers.way_matrix", "complex_numbers.way_difference"]


def test_drag_plane_bounds_each_point_by_its_knobs():
    args = view.drag_plane(-1.5, 0.25, 0.5, -120)
    assert args["kind"] == "plane"
    assert args["knobs"] == ["a", "b", "w_mod", "w_angle"]
    z, w = args["points"]
    assert (z["form"], z["knobs"], z["values"], z["lo"], z["hi"], z["digits"]) == (
        "xy", ["a", "b"], [-1.5, 0.25], [-3.0, -3.0], [3.0, 3.0], [2, 2])
    assert (w["form"], w["knobs"], w["values"], w["lo"], w["hi"], w["digits"]) == (
        "polar", ["w_mod", "w_angle"], [0.5, -120], [0.0, -180], [3.0, 180], [2, 0])
    assert args["product"]["of"] == ["z", "w"]
    # the product diagram's concepts: z and z·w the query's, w RoPE's turn
    assert [z["color"], w["color"], args["product"]["color"]] == ["query", "rope", "query"]
    assert set(args["aria"]) == {"z", "w"}
    assert args["labels"]["x_axis"] == phrase("complex_numbers.re_axis")
