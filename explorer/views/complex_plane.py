"""The complex-numbers page's view: z = a + bi turned by i, multiplied by w, turned by a rotor and back,
and the same turn by the 2x2 matrix. Points are (x, y) tuples of Python floats (float64, as printed);
angle arcs are float32 arrays ready to draw."""

from __future__ import annotations

import math

import numpy as np
import torch

from rope_viz import to_numpy
from rope_viz._checks import check_int
from rope_viz.complex2d import (
    IMAGINARY_UNIT,
    complex_multiply,
    conjugate,
    distance,
    from_polar,
    multiply_in_polar,
    rotate_by_matrix,
    rotation_2x2,
    rotor,
    to_polar,
)


def arc(radius: float, start: float, stop: float, samples: int = 48) -> torch.Tensor:
    """Points on the circle of `radius` from angle `start` to `stop` (radians): (samples, 2) float64."""
    samples = check_int(samples, "samples", minimum=2)
    sweep = torch.linspace(start, stop, samples, dtype=torch.float64)
    return rotation_2x2(sweep) @ torch.tensor([radius, 0.0], dtype=torch.float64)


def arc_points(radius: float, start: float, stop: float) -> tuple[np.ndarray, np.ndarray]:
    """The xs and ys (float32) of a dotted angle arc from `start` to `stop` (radians)."""
    points = to_numpy(arc(radius, start, stop))
    return points[:, 0], points[:, 1]


def polar(z) -> dict:
    """A point by its coordinates and by length and angle (degrees), as in the product table."""
    modulus, angle = to_polar(z)
    return {"re": z[0], "im": z[1], "modulus": modulus, "angle_deg": math.degrees(angle)}


def quarter_turn(a: float, b: float) -> dict:
    """z = a + bi and i·z: their lengths, the angle turned from z to i·z (degrees; 90 at the origin, where
    it is undefined) and the +90° arc (None at the origin). Also z's own length and angle (radians)."""
    z = (a, b)
    iz = complex_multiply(IMAGINARY_UNIT, z)
    modulus, angle = to_polar(z)
    turn = to_polar(complex_multiply(iz, conjugate(z)))[1]  # the angle from z to i·z
    return {"z": z, "iz": iz, "modulus": modulus, "angle": angle, "angle_deg": math.degrees(angle),
            "iz_modulus": to_polar(iz)[0], "turn_deg": math.degrees(turn) if modulus else 90.0,
            "arc": arc_points(0.4 * modulus, angle, angle + math.pi / 2) if modulus else None}


def product(a: float, b: float, w_modulus: float, w_deg: float) -> dict:
    """z·w for w = |w| e^{i w_deg}: both factors and the product (see `polar`), the product the polar way
    (|z||w|, arg z + arg w in degrees, unwrapped), and the arcs of arg z, arg w and their sum, at fixed
    shares of the largest arrow."""
    z = (a, b)
    w = from_polar(w_modulus, math.radians(w_deg))
    zw = complex_multiply(z, w)
    (z_modulus, z_angle), (w_len, w_angle) = to_polar(z), to_polar(w)
    polar_modulus, angle_sum = multiply_in_polar(z, w)
    scale = max(1.0, z_modulus, w_len, to_polar(zw)[0])
    return {"z": z, "w": w, "zw": zw, "rows": [polar(z), polar(w), polar(zw)],
            "polar_modulus": polar_modulus, "polar_angle_deg": math.degrees(angle_sum),
            "arcs": [arc_points(0.2 * scale, 0.0, z_angle), arc_points(0.3 * scale, 0.0, w_angle),
                     arc_points(0.4 * scale, 0.0, angle_sum)]}


def rotor_turn(a: float, b: float, theta_deg: float) -> dict:
    """z turned by the rotor e^{iθ} and back by its conjugate, and the same turn by the 2x2 matrix: the
    points, the lengths, how far the way back lands from z, the gap between the two ways, the θ arc."""
    z = (a, b)
    theta = math.radians(theta_deg)
    turned = complex_multiply(z, rotor(theta))
    back = complex_multiply(turned, conjugate(rotor(theta)))
    by_matrix = rotate_by_matrix(z, theta)
    modulus, angle = to_polar(z)
    return {"z": z, "rotor": rotor(theta), "turned": turned, "back": back, "by_matrix": by_matrix,
            "rotor_modulus": to_polar(rotor(theta))[0], "modulus": modulus, "turned_modulus": to_polar(turned)[0],
            "back_error": distance(back, z), "gap": distance(turned, by_matrix),
            "difference": (turned[0] - by_matrix[0], turned[1] - by_matrix[1]),
            "arc": arc_points(0.5 * modulus, angle, angle + theta) if modulus else None}
