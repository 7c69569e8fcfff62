"""The plane as complex numbers, 2x2 rotations, and the identities that make RoPE relative.

A point (x, y) of the plane is the complex number x + iy. Multiplying two complex numbers
multiplies their lengths and adds their angles; the rotor e^{i alpha} has length 1, so it
only turns, and its conjugate e^{-i alpha} turns back. The 2x2 rotation matrix R(alpha)
does to the column (x, y) exactly what e^{i alpha} does to x + iy.

RoPE turns the query at position m by R(m theta) and the key at position n by R(n theta).
Because R_n R_m^{-1} = R_{n-m}, the score (R_m q)^T (R_n k) equals q^T R_{n-m} k: only the
distance n - m is left. The functions below compute both sides of these identities so that
they can be compared numerically.

Points are (x, y) tuples of Python floats; matrices are float64 torch tensors.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch

from ._checks import as_positions, check_dim, check_int, check_layout, check_positive, check_real
from .rotary import apply_rope, rotation_matrices, rotation_matrix

Point = tuple[float, float]
IMAGINARY_UNIT = (0.0, 1.0)  # i as a point of the plane


def _point(z, name: str) -> Point:
    try:
        x, y = z
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (x, y) of finite numbers, got {z!r}") from None
    return check_real(x, f"{name}[0]"), check_real(y, f"{name}[1]")


def _vector(v, name: str, dim: int | None = None) -> torch.Tensor:
    if not isinstance(v, torch.Tensor) or not v.is_floating_point() or v.dim() != 1:
        raise ValueError(f"{name} must be a 1-D floating-point torch.Tensor, got {v!r:.80}")
    if dim is not None and v.numel() != dim:
        raise ValueError(f"{name} must have {dim} entries to match the other vector, got {v.numel()}")
    return v.to(torch.float64)


def from_polar(modulus: float, angle: float) -> Point:
    """The point at distance `modulus` from the origin and angle `angle` (radians): r e^{i angle}."""
    modulus = check_real(modulus, "modulus")
    if modulus < 0:
        raise ValueError(f"modulus must be >= 0, got {modulus}")
    angle = check_real(angle, "angle")
    return modulus * math.cos(angle), modulus * math.sin(angle)


def to_polar(z) -> tuple[float, float]:
    """(|z|, arg z) with arg z in (-pi, pi]; the origin has angle 0 by convention."""
    x, y = _point(z, "z")
    return math.hypot(x, y), math.atan2(y, x)


def complex_multiply(z, w) -> Point:
    """(a + bi)(c + di) = (ac - bd) + (ad + bc)i."""
    a, b = _point(z, "z")
    c, d = _point(w, "w")
    return a * c - b * d, a * d + b * c


def multiply_in_polar(z, w) -> tuple[float, float]:
    """The product zw the polar way: (|z| |w|, arg z + arg w), the angle not wrapped."""
    z_modulus, z_angle = to_polar(z)
    w_modulus, w_angle = to_polar(w)
    return z_modulus * w_modulus, z_angle + w_angle


def conjugate(z) -> Point:
    """a - bi for z = a + bi: the mirror image in the real axis."""
    x, y = _point(z, "z")
    return x, -y


def rotor(angle: float) -> Point:
    """e^{i angle} = cos(angle) + i sin(angle), the unit complex number that turns by `angle`."""
    return from_polar(1.0, angle)


def rotation_2x2(angles) -> torch.Tensor:
    """R(alpha) = [[cos alpha, -sin alpha], [sin alpha, cos alpha]] for each angle: (len, 2, 2) float64.

    This is RoPE's own matrix with d = 2: its only frequency is theta_0 = base^0 = 1, so the
    matrix at "position" alpha turns by exactly alpha radians.
    """
    return rotation_matrices(as_positions(angles, name="angles"), 2, dtype=torch.float64)


def rotate_by_matrix(z, angle: float) -> Point:
    """R(angle) (x, y)^T: the matrix way to turn the point z."""
    x, y = _point(z, "z")
    turned = rotation_2x2([check_real(angle, "angle")])[0] @ torch.tensor([x, y], dtype=torch.float64)
    return float(turned[0]), float(turned[1])


def distance(z, w) -> float:
    """|z - w|, how far apart two points (or two results that should agree) are."""
    a, b = _point(z, "z")
    c, d = _point(w, "w")
    return math.hypot(a - c, b - d)


class RelativeRotation(NamedTuple):
    """The 2x2 matrices in R_n R_m^{-1} = R_{n-m} for one frequency theta (float64, 2x2 each)."""

    r_m: torch.Tensor          # R(m theta)
    r_n: torch.Tensor          # R(n theta)
    inverse_m: torch.Tensor    # R_m^{-1}, by numerical inversion
    transpose_m: torch.Tensor  # R_m^T
    negative_m: torch.Tensor   # R(-m theta)
    product: torch.Tensor      # R_n R_m^{-1}
    relative: torch.Tensor     # R((n - m) theta)

    @property
    def transpose_error(self) -> float:
        """max |R_m^T - R_m^{-1}|."""
        return float((self.transpose_m - self.inverse_m).abs().max())

    @property
    def negative_error(self) -> float:
        """max |R_m^{-1} - R(-m theta)|."""
        return float((self.inverse_m - self.negative_m).abs().max())

    @property
    def relative_error(self) -> float:
        """max |R_n R_m^{-1} - R_{n-m}|."""
        return float((self.product - self.relative).abs().max())


def relative_rotation(m: float, n: float, theta: float) -> RelativeRotation:
    """Both sides of R_n R_m^{-1} = R_{n-m} (and of R_m^T = R_m^{-1} = R(-m theta)) at frequency theta."""
    m, n, theta = check_real(m, "m"), check_real(n, "n"), check_real(theta, "theta")
    r_m, r_n, negative_m, relative = rotation_2x2([m * theta, n * theta, -m * theta, (n - m) * theta])
    inverse_m = torch.linalg.inv(r_m)
    return RelativeRotation(r_m, r_n, inverse_m, r_m.T, negative_m, r_n @ inverse_m, relative)


class SharedShift(NamedTuple):
    """A 2-D query and key turned together: q at m + s, k at n + s, for every shift s."""

    query: torch.Tensor  # (len(shifts), 2)
    key: torch.Tensor    # (len(shifts), 2)
    dots: torch.Tensor   # (len(shifts),) the dot product of the turned pair

    @property
    def dot_spread(self) -> float:
        """max - min of the dot product over all shifts (0 up to rounding)."""
        return float(self.dots.max() - self.dots.min())


def shared_shift(q, k, m: float, n: float, theta: float, shifts) -> SharedShift:
    """Turn q by (m + s) theta and k by (n + s) theta for each shift s; their dot product stays put."""
    q = torch.tensor(_point(q, "q"), dtype=torch.float64)
    k = torch.tensor(_point(k, "k"), dtype=torch.float64)
    m, n, theta = check_real(m, "m"), check_real(n, "n"), check_real(theta, "theta")
    s = as_positions(shifts, name="shifts")
    query = rotation_2x2((m + s) * theta) @ q
    key = rotation_2x2((n + s) * theta) @ k
    return SharedShift(query, key, (query * key).sum(-1))


class ScoreIdentity(NamedTuple):
    """Both sides of (R_m q)^T (R_n k) = q^T R_{n-m} k in d dimensions (float64)."""

    rotated: float        # (R_m q)^T (R_n k)
    relative: float       # q^T R_{n-m} k
    matrix_error: float   # max |R_m^T R_n - R_{n-m}| over the d x d matrices

    @property
    def difference(self) -> float:
        return abs(self.rotated - self.relative)


def score_identity(q: torch.Tensor, k: torch.Tensor, m: int, n: int, base: float = 10000.0, *,
                   layout: str = "interleaved") -> ScoreIdentity:
    """Compute the RoPE score of q at position m and k at position n both ways, with dense matrices."""
    q = _vector(q, "q")
    k = _vector(k, "k", q.numel())
    dim = check_dim(q.numel(), "q.numel() (dim)")
    m, n = check_int(m, "m"), check_int(n, "n")
    base = check_positive(base, "base")
    check_layout(layout)
    r_m, r_n = rotation_matrices([m, n], dim, base, layout=layout, dtype=torch.float64)
    r_rel = rotation_matrix(n - m, dim, base, layout=layout, dtype=torch.float64)
    rotated = float((r_m @ q) @ (r_n @ k))
    relative = float(q @ (r_rel @ k))
    return ScoreIdentity(rotated, relative, float((r_m.T @ r_n - r_rel).abs().max()))


def shifted_scores(q: torch.Tensor, k: torch.Tensor, m: int, n: int, shifts, base: float = 10000.0, *,
                   layout: str = "interleaved") -> tuple[torch.Tensor, torch.Tensor]:
    """RoPE scores as both tokens slide by s, and as only the key slides (float64, one per shift).

    both: (R_{m+s} q) . (R_{n+s} k), constant in s. key_only: (R_m q) . (R_{n+s} k), which moves.
    """
    q = _vector(q, "q")
    k = _vector(k, "k", q.numel())
    m, n = check_int(m, "m"), check_int(n, "n")
    s = as_positions(shifts, name="shifts")
    rows = s.numel()
    q_moved = apply_rope(q.expand(rows, -1), m + s, base=base, layout=layout)
    k_moved = apply_rope(k.expand(rows, -1), n + s, base=base, layout=layout)
    q_fixed = apply_rope(q.expand(1, -1), [m], base=base, layout=layout)
    return (q_moved * k_moved).sum(-1), (q_fixed * k_moved).sum(-1)
