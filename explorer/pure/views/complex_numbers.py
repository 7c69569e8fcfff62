"""The complex-numbers page's view: z = a + bi turned by i, multiplied by w, turned by a rotor and back,
and the same turn by the 2x2 matrix. Points are (x, y) tuples of Python floats (float64, as printed);
angle arcs are float32 arrays ready to draw."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from rope_viz.device import to_numpy
from rope_viz._checks import check_int
from rope_viz.complex2d import (IMAGINARY_UNIT, Point, complex_multiply, conjugate, distance, from_polar,
                                multiply_in_polar, rotate_by_matrix, rotation_2x2, rotor, to_polar)

from explorer.pure.knobs import PAGE_KNOBS
from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.questions import Numbers, Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("quarter_turn", "product", "rotor")


def arc(radius: float, start: float, stop: float, samples: int = 48) -> torch.Tensor:
    """Points on the circle of `radius` from angle `start` to `stop` (radians): (samples, 2) float64."""
    samples = check_int(samples, "samples", minimum=2)
    sweep = torch.linspace(start, stop, samples, dtype=torch.float64)
    return rotation_2x2(sweep) @ torch.tensor([radius, 0.0], dtype=torch.float64)


ArcPoints = tuple[np.ndarray, np.ndarray]  # the xs and ys of an angle arc


def arc_points(radius: float, start: float, stop: float) -> ArcPoints:
    """The xs and ys (float32) of a dotted angle arc from `start` to `stop` (radians)."""
    points = to_numpy(arc(radius, start, stop))
    return points[:, 0], points[:, 1]


@dataclass(frozen=True)
class Polar:
    """A point by its coordinates and by length and angle (degrees), as in the product table."""
    re: float
    im: float
    modulus: float
    angle_deg: float


def polar(z: Point) -> Polar:
    modulus, angle = to_polar(z)
    return Polar(re=z[0], im=z[1], modulus=modulus, angle_deg=math.degrees(angle))


@dataclass(frozen=True)
class QuarterTurn:
    """z = a + bi and i·z: their lengths, the angle turned from z to i·z (degrees; 90 at the origin, where it
    is undefined) and the +90° arc (None at the origin). Also z's own angle, in radians and degrees."""
    z: Point
    iz: Point
    modulus: float
    angle: float
    angle_deg: float
    iz_modulus: float
    turn_deg: float
    arc: ArcPoints | None


def quarter_turn(a: float, b: float) -> QuarterTurn:
    z = (a, b)
    iz = complex_multiply(IMAGINARY_UNIT, z)
    modulus, angle = to_polar(z)
    turn = to_polar(complex_multiply(iz, conjugate(z)))[1]  # the angle from z to i·z
    return QuarterTurn(z=z, iz=iz, modulus=modulus, angle=angle, angle_deg=math.degrees(angle),
                       iz_modulus=to_polar(iz)[0], turn_deg=math.degrees(turn) if modulus else 90.0,
                       arc=arc_points(0.4 * modulus, angle, angle + math.pi / 2) if modulus else None)


@dataclass(frozen=True)
class Product:
    """z·w: both factors and the product (rows: z, w, z·w by `polar`), the product the polar way (|z||w|,
    arg z + arg w in degrees, unwrapped), and the arcs of arg z, arg w and their sum."""
    z: Point
    w: Point
    zw: Point
    rows: tuple[Polar, Polar, Polar]
    polar_modulus: float
    polar_angle_deg: float
    arcs: tuple[ArcPoints, ArcPoints, ArcPoints]


def product(a: float, b: float, w_modulus: float, w_deg: float) -> Product:
    """z·w for w = |w| e^{i w_deg}, the arcs at fixed shares of the largest arrow."""
    z = (a, b)
    w = from_polar(w_modulus, math.radians(w_deg))
    zw = complex_multiply(z, w)
    (z_modulus, z_angle), (w_len, w_angle) = to_polar(z), to_polar(w)
    polar_modulus, angle_sum = multiply_in_polar(z, w)
    scale = max(1.0, z_modulus, w_len, to_polar(zw)[0])
    return Product(z=z, w=w, zw=zw, rows=(polar(z), polar(w), polar(zw)), polar_modulus=polar_modulus,
                   polar_angle_deg=math.degrees(angle_sum),
                   arcs=(arc_points(0.2 * scale, 0.0, z_angle), arc_points(0.3 * scale, 0.0, w_angle),
                         arc_points(0.4 * scale, 0.0, angle_sum)))


@dataclass(frozen=True)
class RotorTurn:
    """z turned by the rotor e^{iθ} and back by its conjugate, and the same turn by the 2x2 matrix: the
    points, the lengths, how far the way back lands from z, the gap between the two ways (and its two
    coordinates), the θ arc (None at the origin)."""
    z: Point
    rotor: Point
    turned: Point
    back: Point
    by_matrix: Point
    rotor_modulus: float
    modulus: float
    turned_modulus: float
    back_error: float
    gap: float
    difference: Point
    arc: ArcPoints | None


def rotor_turn(a: float, b: float, theta_deg: float) -> RotorTurn:
    z = (a, b)
    theta = math.radians(theta_deg)
    turned = complex_multiply(z, rotor(theta))
    back = complex_multiply(turned, conjugate(rotor(theta)))
    by_matrix = rotate_by_matrix(z, theta)
    modulus, angle = to_polar(z)
    return RotorTurn(z=z, rotor=rotor(theta), turned=turned, back=back, by_matrix=by_matrix,
                     rotor_modulus=to_polar(rotor(theta))[0], modulus=modulus, turned_modulus=to_polar(turned)[0],
                     back_error=distance(back, z), gap=distance(turned, by_matrix),
                     difference=(turned[0] - by_matrix[0], turned[1] - by_matrix[1]),
                     arc=arc_points(0.5 * modulus, angle, angle + theta) if modulus else None)


# What the page draws and writes: points and arcs for plane_diagram named by Phrases, tables, metrics. z is
# drawn as the query (RoPE turns a query's pair the same way), the number it is multiplied by as RoPE's turn,
# and what the product gives as the query again, dashed (dotted when turned back).
PRODUCT_CONCEPTS = {"z": "query", "w": "rope", "zw": "query"}


def _name(which: str) -> Phrase:
    return phrase(f"complex_numbers.{which}_name")


@dataclass(frozen=True)
class Diagram:
    """What plane_diagram draws: points (name, x, y, concept), arcs (name, xs, ys, concept) and the arrows
    drawn dashed or dotted (name, dash), each named by a Phrase."""
    points: list[tuple[Phrase, float, float, str]]
    arcs: list[tuple[Phrase, np.ndarray, np.ndarray, str]]
    dashes: list[tuple[Phrase, str]]


def quarter_diagram(quarter: QuarterTurn) -> Diagram:
    """z and i·z (quarter_turn) with the +90° arc (none at the origin)."""
    arcs = [] if quarter.arc is None else [(phrase("complex_numbers.arc_90"), *quarter.arc, "rope")]
    return Diagram(points=[(_name("z"), *quarter.z, "query"), (_name("iz"), *quarter.iz, "query")], arcs=arcs,
                   dashes=[(_name("iz"), "dash")])


@dataclass(frozen=True)
class QuarterNotes:
    """i·z as a metric, its check against (−b, a), and z by length and angle (the origin has no angle)."""
    metric: Metric
    check: Phrase
    polar: Phrase


def quarter_notes(quarter: QuarterTurn, a: float, b: float) -> QuarterNotes:
    iz = quarter.iz
    polar_line = (phrase("complex_numbers.z_polar", a=a, b=b, modulus=quarter.modulus, deg=quarter.angle_deg,
                         rad=quarter.angle) if quarter.modulus else phrase("complex_numbers.z_origin"))
    return QuarterNotes(metric=Metric(_name("iz"), phrase("complex_numbers.iz_value", x=iz[0], y=iz[1])),
                        check=phrase("complex_numbers.iz_check", nb=-b, a=a, mz=quarter.modulus,
                                     miz=quarter.iz_modulus, turn=quarter.turn_deg),
                        polar=polar_line)


def product_diagram(prod: Product) -> Diagram:
    """z, w and z·w (product) with the arcs of arg z, arg w and their sum."""
    points = {"z": prod.z, "w": prod.w, "zw": prod.zw}
    return Diagram(points=[(_name(which), *points[which], concept) for which, concept in PRODUCT_CONCEPTS.items()],
                   arcs=[(phrase(f"complex_numbers.arc_{arc}"), *xy, PRODUCT_CONCEPTS[which])  # arg z·w: the sum
                         for arc, which, xy in zip(("z", "w", "sum"), ("z", "w", "zw"), prod.arcs)],
                   dashes=[(_name("zw"), "dash")])


def product_table(prod: Product) -> dict[str, list]:
    """z, w and z·w by coordinates and by length and angle (index: complex_plane.col_number)."""
    rows = prod.rows
    return {"complex_numbers.col_number": [_name(which) for which in ("z", "w", "zw")],
            "complex_numbers.col_re": [f"{row.re:.4f}" for row in rows],
            "complex_numbers.col_im": [f"{row.im:.4f}" for row in rows],
            "complex_numbers.col_modulus": [f"{row.modulus:.4f}" for row in rows],
            "complex_numbers.col_angle": [f"{row.angle_deg:.2f}" for row in rows]}


def product_check(prod: Product) -> Phrase:
    """The product the polar way against the coordinate way."""
    zw = prod.rows[2]
    return phrase("complex_numbers.product_check", modulus=prod.polar_modulus, angle=prod.polar_angle_deg,
                  zw_modulus=zw.modulus, zw_angle=zw.angle_deg)


def rotor_diagram(turn: RotorTurn) -> Diagram:
    """z, the rotor, z turned (dashed) and turned back (dotted), with the θ arc (none at the origin)."""
    arcs = [] if turn.arc is None else [(phrase("complex_numbers.arc_theta"), *turn.arc, "rope")]
    return Diagram(points=[(_name("z"), *turn.z, "query"), (_name("rotor"), *turn.rotor, "rope"),
                           (_name("turned"), *turn.turned, "query"), (_name("back"), *turn.back, "query")],
                   arcs=arcs, dashes=[(_name("turned"), "dash"), (_name("back"), "dot")])


def rotor_metrics(turn: RotorTurn) -> list[Metric]:
    return [metric("complex_numbers.rotor_modulus", f"{turn.rotor_modulus:.4g}",
                   help=phrase("complex_numbers.digits_help", value=f"{turn.rotor_modulus:.15f}")),
            metric("complex_numbers.lengths", f"{turn.modulus:.6f} → {turn.turned_modulus:.6f}"),
            metric("complex_numbers.back_error", f"{turn.back_error:.1e}")]


def digits_table(turn: RotorTurn) -> dict[str, list]:
    """The turn as a complex product and as a matrix product, every digit, and their difference
    (index: complex_plane.way)."""
    turned, by_matrix, difference = turn.turned, turn.by_matrix, turn.difference
    return {
        "complex_numbers.way": [phrase(f"complex_numbers.way_{way}") for way in ("complex", "matrix", "difference")],
        "complex_numbers.first": [f"{turned[0]:.17g}", f"{by_matrix[0]:.17g}", f"{difference[0]:.1e}"],
        "complex_numbers.second": [f"{turned[1]:.17g}", f"{by_matrix[1]:.17g}", f"{difference[1]:.1e}"],
    }


def _knob_ranges(*names: str) -> dict[str, list]:
    """The drag plane's bounds for a point's two knobs: their names, ranges and decimals, as declared."""
    specs = [PAGE_KNOBS["complex_numbers"][name] for name in names]
    return {"knobs": list(names), "lo": [spec.lo for spec in specs], "hi": [spec.hi for spec in specs],
            "digits": [getattr(spec, "digits", 0) for spec in specs]}


def drag_plane(a: float, b: float, w_modulus: float, w_deg: float) -> dict[str, object]:
    """The drag component's plane (explorer.app.components): z by its coordinates (knobs a, b) and w by its length
    and angle (knobs w_mod, w_angle), each within its knobs' declared range and decimals, and z·w drawn from
    them; colours by concept as in product_diagram. Plain JSON but for the Phrases of the labels."""
    return {"kind": "plane", "knobs": ["a", "b", "w_mod", "w_angle"], "height": 360, "side": 320, "extent": 3.5,
            "key_step": 0.1,
            "points": [{"id": "z", "name": "z", "form": "xy", "color": PRODUCT_CONCEPTS["z"], "values": [a, b],
                        **_knob_ranges("a", "b")},
                       {"id": "w", "name": "w", "form": "polar", "color": PRODUCT_CONCEPTS["w"],
                        "values": [w_modulus, w_deg], **_knob_ranges("w_mod", "w_angle")}],
            "product": {"name": "z·w", "color": PRODUCT_CONCEPTS["zw"], "of": ["z", "w"]},
            "labels": {"group": phrase("complex_numbers.drag_group"), "hint": phrase("complex_numbers.drag_hint"),
                       "x_axis": phrase("complex_numbers.re_axis"), "y_axis": phrase("complex_numbers.im_axis")},
            "aria": {"z": phrase("complex_numbers.drag_z"), "w": phrase("complex_numbers.drag_w")}}


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def product_length(a: float, b: float, w_mod: float, w_angle: int, **_) -> Numbers:
    """|z·w| for the page's z = a + bi and w = |w| e^{i angle}: the lengths multiply."""
    w = from_polar(w_mod, math.radians(w_angle))
    length = to_polar(complex_multiply((a, b), w))[0]
    z_length = to_polar((a, b))[0]
    return Numbers({"a": a, "b": b, "w_mod": w_mod, "w_angle": w_angle}, length,
                   (z_length + w_mod, z_length, abs(a * w[0] + b * w[1]), length ** 2, length + 1.0), "{:.3f}")


QUIZ = (Question("times_i"), Question("product_length", product_length), Question("conjugate"))
