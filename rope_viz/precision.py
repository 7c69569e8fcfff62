"""Where RoPE's rotations break in bfloat16, float16 and float32, measured position by position.

Pair i at position m should turn by the angle m * theta_i, theta_i = base^(-2i/dim). What a model
applies depends on the dtypes of the positions, of theta, of their product and of the cos/sin
tables. Each *recipe* below is one such choice (the registry _RECIPES, its names in RECIPES, and the
docstrings of the `_recipe_*` functions); `precision_error` measures, for every position and pair, how
far the rotation the recipe applies is from the exact one, in radians, wrapped to (-pi, pi].

The teaching numbers: bfloat16 keeps 8 significant bits, so a position cast to bfloat16 is exact
only up to 256 and between 4,096 and 8,191 the positions collapse onto steps of 32; float16 keeps
11 bits (exact to 2,048) and overflows to infinity from 65,520 on (65,504 is its largest value);
float32 keeps 24 bits, so the product m * theta_i near 1,000,000 rad is rounded to a multiple of
0.0625 (an error of up to 0.031 rad), plus m times the rounding of theta_i itself. Pair 0 has
theta_0 = 1 exactly, so under float32 its angle m stays exact for every integer m <= 2^24.

The exact reference. Positions are whole numbers in [0, 2^24] (MAX_POSITION). A float64 product
m * theta_i would be correctly rounded to half an ulp of the angle (1.9e-9 rad at 2^24 rad, 5.8e-11
at 1e6) on top of m times the float64 rounding of theta_i (|theta_i| relative error ~1e-16, so
~1e-10 rad at m = 1e6 and up to ~4e-9 at 2^24): good to about 1e-10 rad at a million but not at
2^24. So the reference is computed exactly instead, in turns (angle / 2 pi): theta_i / (2 pi) is
evaluated once per pair with Python's decimal module to 60 digits and stored as four 26-bit
fixed-point digits d_j (t_i = sum_j d_j 2^(-26 j) + O(2^-104)); each product m * d_j is an integer
below 2^51, exact in float64, and so is its fractional part. Summing the fractions gives
frac(m * t_i) to ~1e-15 turns (~1e-14 rad) for every m <= 2^24. An applied angle A (an exact
float32 or float64 value) is reduced the same way: A is split into two 26-bit halves (Veltkamp) and
multiplied by the fixed-point digits of 1 / (2 pi), so even A = 1.7e7 rad is reduced to ~1e-14
rad. The error reported is wrap(A / (2 pi) - m t_i) * 2 pi.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import torch

from ._checks import (check_budget, check_choice, check_dim, check_int, check_integer_positions, check_layout,
                      check_positive)
from .attention import random_attention_inputs, toeplitz_deviation
from .frequencies import inv_freq
from .kernels import rope_eager

MAX_POSITION = 1 << 24  # every integer up to here is exact in float32
DEFAULT_FAR_POSITIONS = (1_000, 8_000, 32_000, 128_000, 1_000_000)

_TWO_PI = 2 * math.pi
# pi to 64 significant digits (for the exact reference only; math.pi is used everywhere else)
_PI = decimal.Decimal("3.141592653589793238462643383279502884197169399375105820974944592")
_DIGIT_BITS = 26
_N_DIGITS = 4
_SPLITTER = float((1 << 27) + 1)  # Veltkamp: splits a float64 into two halves of <= 26 bits
_DTYPES = {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16,
           "float16": torch.float16}


# --------------------------------------------------------------------------- exact reduction

def _fixed_point_digits(value: decimal.Decimal) -> list[float]:
    """frac(value) as _N_DIGITS float64 terms d_j * 2^(-26 j), each d_j an integer < 2^26."""
    value -= int(value)
    terms = []
    for j in range(1, _N_DIGITS + 1):
        value *= 1 << _DIGIT_BITS
        digit = int(value)
        value -= digit
        terms.append(math.ldexp(digit, -_DIGIT_BITS * j))
    return terms


@lru_cache(maxsize=1)
def _inv_two_pi_terms() -> torch.Tensor:
    with decimal.localcontext(decimal.Context(prec=60)):
        return torch.tensor(_fixed_point_digits(1 / (2 * _PI)), dtype=torch.float64)


@lru_cache(maxsize=64)
def _turns_per_step(dim: int, base: float) -> torch.Tensor:
    """theta_i / (2 pi) for every pair, as fixed-point terms: (dim/2, _N_DIGITS) float64.

    theta_i = base^(-2i/dim) (the formula of rope_viz.frequencies.inv_freq) evaluated in decimal
    arithmetic to 60 digits instead of float64."""
    with decimal.localcontext(decimal.Context(prec=60)):
        b = decimal.Decimal(base)  # exact: base is a float
        rows = [_fixed_point_digits(b ** (decimal.Decimal(-2 * i) / dim) / (2 * _PI)) for i in range(dim // 2)]
    return torch.tensor(rows, dtype=torch.float64)


def _frac_product(x: torch.Tensor, terms: torch.Tensor) -> torch.Tensor:
    """frac(x * c) in [0, 1) for float64 x (...) and a constant c given as fixed-point terms
    (..., _N_DIGITS) broadcasting against x. Every partial product is exact (26 x 26 bits), so
    the only rounding is in summing the eight fractions (~1e-15)."""
    t = x * _SPLITTER
    hi = t - (t - x)
    lo = x - hi
    total = torch.zeros_like(x)
    for part in (lo, hi):
        prod = part.unsqueeze(-1) * terms
        total = total + (prod - prod.floor()).sum(-1)
    return total - total.floor()


def _wrap(turns: torch.Tensor) -> torch.Tensor:
    """Turns wrapped to (-1/2, 1/2]."""
    wrapped = turns - turns.round()
    return torch.where(wrapped == -0.5, 0.5, wrapped)


def _angle_turns(angle: torch.Tensor) -> torch.Tensor:
    """An exactly known angle (radians, float64 holding e.g. a float32 value) in wrapped turns;
    NaN where the angle is not finite."""
    turns = _wrap(_frac_product(angle, _inv_two_pi_terms()))
    return turns.masked_fill(~torch.isfinite(angle), math.nan)


# --------------------------------------------------------------------------- the recipes

class _Applied(NamedTuple):
    position: torch.Tensor  # (n,) the position value the recipe multiplies (float64)
    turns: torch.Tensor     # (n, pairs) the rotation applied, in turns wrapped to (-1/2, 1/2]
    cos: torch.Tensor       # (n, pairs) the cos table as stored (float64 holding its values)
    sin: torch.Tensor


def _rotation_by(position, angle) -> _Applied:
    """An exact rotation by `angle`: tables of cos/sin of the reduced angle in float64."""
    turns = _angle_turns(angle)
    radians = turns * _TWO_PI
    return _Applied(position, turns, radians.cos(), radians.sin())


def _float32_angle(pos, theta, position_dtype):
    """positions cast to `position_dtype` (via float32, exact for integers <= 2^24), theta
    rounded to float32, their product in float32 (one correctly rounded multiply)."""
    p = pos.to(torch.float32).to(position_dtype).to(torch.float32)
    angle = p.unsqueeze(-1) * theta.to(torch.float32)
    return p.double(), angle.double()


def _stored_tables(pos, theta, table_dtype) -> _Applied:
    """Angles as in "fp32"; cos and sin computed in float32 (correctly rounded: float64 of the
    exactly reduced angle, then rounded to float32) and stored in `table_dtype`. The rotation
    applied is atan2(sin, cos) of the stored pair, whose length is no longer 1."""
    position, angle = _float32_angle(pos, theta, torch.float32)
    radians = _angle_turns(angle) * _TWO_PI
    cos = radians.cos().float().to(table_dtype).double()
    sin = radians.sin().float().to(table_dtype).double()
    return _Applied(position, torch.atan2(sin, cos) / _TWO_PI, cos, sin)


def _recipe_fp64(pos, theta) -> _Applied:
    """fp64: positions, theta_i and m * theta_i all in float64, the cos/sin exact (the reference:
    within ~1e-10 rad of exact at m = 1e6, a few 1e-9 at 2^24)."""
    return _rotation_by(pos, pos.unsqueeze(-1) * theta)


def _recipe_fp32(pos, theta) -> _Applied:
    """fp32: positions and theta_i in float32, their product in float32, as Hugging Face's rotary
    embedding computes `position_ids.float() * inv_freq.float()` with autocast off; cos/sin of
    that angle exact. (Hugging Face computes inv_freq itself in float32 arithmetic; here it is
    the correctly rounded float32 value.)"""
    return _rotation_by(*_float32_angle(pos, theta, torch.float32))


def _recipe_bf16_positions(pos, theta) -> _Applied:
    """bf16-positions: the classic bug, position ids cast to bfloat16 (8 significant bits:
    exact to 256, steps of 32 at 4,096) before the float32 product with float32 theta_i."""
    return _rotation_by(*_float32_angle(pos, theta, torch.bfloat16))


def _recipe_fp16_positions(pos, theta) -> _Applied:
    """fp16-positions: position ids cast to float16 (11 significant bits: exact to 2,048; from
    65,520 on the cast gives +inf, the angle is undefined and every error is NaN), then the
    float32 product with float32 theta_i."""
    return _rotation_by(*_float32_angle(pos, theta, torch.float16))


def _recipe_bf16_tables(pos, theta) -> _Applied:
    """bf16-tables: angles as in fp32, cos and sin stored in bfloat16 (what a bfloat16 model
    gets from Hugging Face's `cos.to(x.dtype)`)."""
    return _stored_tables(pos, theta, torch.bfloat16)


def _recipe_fp16_tables(pos, theta) -> _Applied:
    """fp16-tables: angles as in fp32, cos and sin stored in float16."""
    return _stored_tables(pos, theta, torch.float16)


class _Recipe(NamedTuple):
    position_dtype: torch.dtype  # what the positions are cast to before they meet theta_i
    applied: Callable[[torch.Tensor, torch.Tensor], _Applied]  # (positions, theta) float64 -> the rotation


_RECIPES = {
    "fp64": _Recipe(torch.float64, _recipe_fp64),
    "fp32": _Recipe(torch.float32, _recipe_fp32),
    "bf16-positions": _Recipe(torch.bfloat16, _recipe_bf16_positions),
    "fp16-positions": _Recipe(torch.float16, _recipe_fp16_positions),
    "bf16-tables": _Recipe(torch.float32, _recipe_bf16_tables),
    "fp16-tables": _Recipe(torch.float32, _recipe_fp16_tables),
}
"""Registry: recipe name -> the dtype its positions take and the function giving the rotation it applies."""

RECIPES = tuple(_RECIPES)  # the recipe names: the reference, what models do, and the ways it goes wrong


def _angle_error(applied: _Applied, exact_turns: torch.Tensor) -> torch.Tensor:
    """wrap(applied angle - exact angle) in radians, in (-pi, pi] (NaN where the recipe's angle is undefined)."""
    return _wrap(applied.turns - exact_turns) * _TWO_PI


def _norm_error(applied: _Applied) -> torch.Tensor:
    """|sqrt(cos^2 + sin^2) - 1| of the stored tables: how far the applied "rotation" scales each pair."""
    return (torch.hypot(applied.cos, applied.sin) - 1).abs()


def _significand_bits(info: torch.finfo) -> int:
    """p, the significand bits of a floating dtype, hidden bit included (eps = 2^(1 - p))."""
    return 1 - round(math.log2(info.eps))


def _evaluate(positions, dim, base, recipe, pairs=None):
    """(positions, applied rotation, exact turns) for the chosen pairs (all by default)."""
    dim = check_dim(dim)
    base = check_positive(base, "base")
    check_choice(recipe, "recipe", RECIPES)
    pos = check_integer_positions(positions, maximum=MAX_POSITION)
    theta = inv_freq(dim, base, dtype=torch.float64)
    steps = _turns_per_step(dim, base)
    if pairs is not None:
        theta, steps = theta[pairs], steps[pairs]
    check_budget(pos.numel() * theta.numel() * 2 * _N_DIGITS, f"recipe {recipe!r}")
    applied = _RECIPES[recipe].applied(pos, theta)
    exact = _wrap(_frac_product(pos.unsqueeze(-1), steps))
    return pos, applied, exact


# --------------------------------------------------------------------------- public API

def exact_angles(positions, dim: int, base: float = 10000.0) -> torch.Tensor:
    """The exact rotation angle m * theta_i, theta_i = base^(-2i/dim), wrapped to (-pi, pi]:
    (len(positions), dim/2) float64, good to ~1e-14 rad for integer positions in [0, 2^24]
    (see the module docstring for how it is computed)."""
    return _evaluate(positions, dim, base, "fp64")[2] * _TWO_PI


def applied_rotation(positions, dim: int, base: float = 10000.0, *, recipe: str = "fp32"
                     ) -> dict[str, torch.Tensor]:
    """The rotation a recipe actually applies at each integer position in [0, 2^24].

    Returns float64 tensors: "position" (n,) the position value the recipe multiplies by theta_i
    (after its cast; +inf past float16's range), "angle" (n, dim/2) the applied angle wrapped to
    (-pi, pi] (atan2(sin, cos) of the stored tables for the *-tables recipes; NaN where undefined),
    "cos" and "sin" (n, dim/2) the table values the rotation uses.
    """
    _, applied, _ = _evaluate(positions, dim, base, recipe)
    return {"position": applied.position, "angle": applied.turns * _TWO_PI,
            "cos": applied.cos, "sin": applied.sin}


def precision_error(positions, dim: int, base: float = 10000.0, *, recipe: str = "fp32",
                    signed: bool = False) -> torch.Tensor:
    """|wrap(applied angle - m * theta_i)| for every position m and pair i, in radians:
    (len(positions), dim/2) float64, each entry in [0, pi] (in (-pi, pi] with signed=True).

    positions: integers in [0, 2^24]. recipe: one of RECIPES (see the module docstring). The
    exact angle m * theta_i is computed to ~1e-14 rad (module docstring). Where a recipe's angle
    is undefined (float16 positions from 65,520 on are +inf) the error is NaN; see
    `position_limits` for where that starts.
    """
    _, applied, exact = _evaluate(positions, dim, base, recipe)
    error = _angle_error(applied, exact)
    return error if signed else error.abs()


def norm_error(positions, dim: int, base: float = 10000.0, *, recipe: str = "bf16-tables") -> torch.Tensor:
    """|sqrt(cos^2 + sin^2) - 1| of the stored table pair at every position and pair:
    (len(positions), dim/2) float64. A rotation keeps lengths; tables rounded to bfloat16
    (8 bits) scale each pair by up to ~2^-8, float16 tables by ~2^-11; the angle recipes use
    exact tables (~1e-16)."""
    _, applied, _ = _evaluate(positions, dim, base, recipe)
    return _norm_error(applied)


def position_limits(recipe: str) -> dict:
    """Where the positions of a recipe stop being exact: "dtype" the dtype positions are cast to,
    "exact_up_to" the largest N with every integer 0..N exact (2^p for p significand bits:
    bfloat16 256, float16 2,048, float32 16,777,216), "overflow_from" the first integer position
    that casts to +inf (float16: 65,520, since 65,504 is the largest float16 and ties round to
    the even 65,536 = inf), or None where that is past 2^24."""
    check_choice(recipe, "recipe", RECIPES)
    dtype = _RECIPES[recipe].position_dtype
    info = torch.finfo(dtype)
    bits = _significand_bits(info)
    _, exponent = math.frexp(info.max)
    overflow = info.max + math.ldexp(1.0, exponent - bits) / 2  # halfway to the next binade
    return {
        "dtype": str(dtype).removeprefix("torch."),
        "exact_up_to": min(1 << bits, MAX_POSITION),
        "overflow_from": int(overflow) if overflow <= MAX_POSITION else None,
    }


def _check_dtype(dtype) -> torch.dtype:
    if isinstance(dtype, str) and dtype in _DTYPES:
        return _DTYPES[dtype]
    if dtype in _DTYPES.values():
        return dtype
    raise ValueError(f"dtype must be one of {', '.join(map(repr, _DTYPES))} (or the torch dtype); got {dtype!r}")


def spacing(value, dtype="float32"):
    """The gap between the representable numbers of `dtype` around |value|: 2^(e - p + 1) for
    2^e <= |value| < 2^(e+1) and p significand bits (float32 24, bfloat16 8, float16 11,
    float64 53), the subnormal spacing below the normal range, +inf past the largest finite value.

    For a representable value this is numpy.spacing: the step to the next number away from zero.
    bfloat16: 32 at 4,096, 8,192 at 1,048,576; float32: 0.0625 at 1e6; float16: 32 at 65,504.
    A Python number gives a float; a sequence or tensor gives a float64 tensor.
    """
    dt = _check_dtype(dtype)
    scalar = isinstance(value, (int, float)) and not isinstance(value, bool)
    try:
        x = torch.as_tensor(value, dtype=torch.float64).abs()
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"value must be a number or a sequence of numbers, got {value!r}") from err
    if bool(torch.isnan(x).any()):
        raise ValueError(f"value must not be NaN, got {value!r}")
    info = torch.finfo(dt)
    bits = _significand_bits(info)
    _, exponent = torch.frexp(x)
    gap = torch.ldexp(torch.ones_like(x), exponent - bits)
    gap = gap.clamp(min=info.smallest_normal * info.eps)
    gap = torch.where(x > info.max, math.inf, gap)
    return float(gap) if scalar else gap


def distinct_rotations(start: int, stop: int, dim: int, base: float = 10000.0, *,
                       recipe: str = "bf16-positions", pair: int = 0) -> dict[str, torch.Tensor]:
    """The staircase: consecutive positions start..stop-1 that a recipe gives the same rotation
    of pair `pair`, grouped into steps.

    Returns "start" (int64, first position of each step), "count" (int64, positions in it),
    "position" (float64, the position value the recipe used), "angle" (float64, the applied angle
    wrapped to (-pi, pi]). Under bf16-positions, 4,096..8,191 falls into steps 32 positions
    apart; with ties rounded to even the steps hold 31 and 33 positions alternately.
    """
    start = check_int(start, "start")
    stop = check_int(stop, "stop")
    if not start < stop <= MAX_POSITION + 1:
        raise ValueError(f"start and stop must satisfy 0 <= start < stop <= {MAX_POSITION + 1:,}; "
                         f"got start={start}, stop={stop}")
    half = check_dim(dim) // 2
    pair = check_int(pair, "pair")
    if pair >= half:
        raise ValueError(f"pair must be an integer in [0, {half - 1}] for dim={dim}, got {pair}")
    check_budget(stop - start, "distinct_rotations")
    pos = torch.arange(start, stop, dtype=torch.float64)
    _, applied, _ = _evaluate(pos, dim, base, recipe, pairs=slice(pair, pair + 1))
    turns = applied.turns[:, 0]
    same = (turns[1:] == turns[:-1]) | (turns[1:].isnan() & turns[:-1].isnan())
    firsts = torch.cat((torch.zeros(1, dtype=torch.long), torch.nonzero(~same)[:, 0] + 1))
    counts = torch.diff(firsts, append=torch.tensor([pos.numel()]))
    return {"start": firsts + start, "count": counts, "position": applied.position[firsts],
            "angle": turns[firsts] * _TWO_PI}


def worst_angle_errors(ends=(4_096, 32_768, 131_072, 1_000_000), dim: int = 128, base: float = 10000.0, *,
                       recipes=RECIPES, window: int = 1024) -> list[dict]:
    """The largest angle error over all pairs and the `window` positions ending at each end
    (end - window + 1 .. end), for every recipe: one row per (recipe, end) with "recipe", "end",
    "max_error" (rad, NaN where a position overflows), "worst_position", "worst_pair" and
    "max_norm_error"."""
    window = check_int(window, "window", minimum=1)
    rows = []
    for recipe in recipes:
        check_choice(recipe, "recipe", RECIPES)
        for end in ends:
            end = check_int(end, "end", minimum=window - 1)
            pos = torch.arange(end - window + 1, end + 1, dtype=torch.float64)
            _, applied, exact = _evaluate(pos, dim, base, recipe)
            error = _angle_error(applied, exact).abs()
            flat = int(torch.nan_to_num(error, nan=math.inf).argmax())
            row, col = divmod(flat, error.shape[1])
            norm = _norm_error(applied)
            rows.append({"recipe": recipe, "end": end, "max_error": float(error.view(-1)[flat]),
                         "worst_position": int(pos[row]), "worst_pair": col,
                         "max_norm_error": float(norm.max())})
    return rows


def _tables_of(turns: torch.Tensor):
    radians = turns * _TWO_PI
    return radians.cos(), radians.sin()


def recipe_scores(position: int, dim: int = 128, base: float = 10000.0, *, recipe: str = "fp32",
                  window: int = 64, seed: int = 0, layout: str = "interleaved", q=None, k=None) -> dict:
    """Attention scores (R_m q_m) . (R_n k_n) over the `window` positions ending at `position`,
    rotated with a recipe's applied tables, against the exact scores.

    q, k (window, dim): given, or q = x W_q and k = x W_k from random_attention_inputs(seed).
    Everything except the recipe's own rounding is float64 (q, k, the rotation, the products), so
    the differences come from the angles and tables alone. Returns "positions", "scores" and
    "exact" (window, window), "max_abs_error" max |scores - exact|, "relative_error" that over
    max |exact|, "toeplitz_deviation" of the scores of one token repeated at every position
    (q[0] and k[0] everywhere), with the recipe and exactly ("exact_toeplitz_deviation"; exact
    RoPE makes them depend on m - n alone, a Toeplitz matrix), and "shift_residual"
    max |S(0..window-1) - S(window ending at position)| of the recipe: the same tokens scored at
    the start of the sequence and far out (0 for exact RoPE), and "distinct_rotations" how many
    different rotations the recipe gives the window's positions. A recipe that collapses the whole
    window onto one rotation (bf16-positions near 1e6) scores the repeated token the same everywhere:
    a constant matrix, trivially Toeplitz, so read its toeplitz_deviation beside max_abs_error.
    """
    window = check_int(window, "window", minimum=1)
    position = check_int(position, "position", minimum=window - 1)
    dim = check_dim(dim)
    check_layout(layout)
    if q is None or k is None:
        x, w_q, w_k = random_attention_inputs(window, dim, seed=seed, dtype=torch.float64)
        q, k = x @ w_q, x @ w_k
    for t, name in ((q, "q"), (k, "k")):
        if not isinstance(t, torch.Tensor) or tuple(t.shape) != (window, dim):
            raise ValueError(f"{name} must be a torch.Tensor of shape ({window}, {dim}), "
                             f"got {getattr(t, 'shape', type(t).__name__)}")
    q, k = q.double(), k.double()
    far = torch.arange(position - window + 1, position + 1, dtype=torch.float64)
    near = torch.arange(window, dtype=torch.float64)

    def scores(cos, sin, q=q, k=k):
        return rope_eager(q, cos, sin, layout) @ rope_eager(k, cos, sin, layout).T

    _, applied, exact_turns = _evaluate(far, dim, base, recipe)
    _, applied_near, _ = _evaluate(near, dim, base, recipe)
    exact_cos, exact_sin = _tables_of(exact_turns)
    got = scores(applied.cos, applied.sin)
    exact = scores(exact_cos, exact_sin)
    error = float((got - exact).abs().max())
    one_q, one_k = q[:1].expand(window, dim), k[:1].expand(window, dim)
    return {
        "positions": far,
        "scores": got,
        "exact": exact,
        "max_abs_error": error,
        "relative_error": error / float(exact.abs().max()),
        "toeplitz_deviation": toeplitz_deviation(scores(applied.cos, applied.sin, one_q, one_k)),
        "exact_toeplitz_deviation": toeplitz_deviation(scores(exact_cos, exact_sin, one_q, one_k)),
        "shift_residual": float((scores(applied_near.cos, applied_near.sin) - got).abs().max()),
        "distinct_rotations": int(torch.unique(applied.turns, dim=0).shape[0]),
    }


def score_error(positions=DEFAULT_FAR_POSITIONS, dim: int = 128, base: float = 10000.0, *,
                recipes=RECIPES, window: int = 64, seed: int = 0, layout: str = "interleaved") -> list[dict]:
    """recipe_scores for every recipe at every far position (by default near 1k, 8k, 32k, 128k and
    1M), one row each: "recipe", "position", "max_abs_error", "relative_error",
    "toeplitz_deviation", "shift_residual" (same q and k throughout, from `seed`)."""
    keys = ("max_abs_error", "relative_error", "toeplitz_deviation", "shift_residual")
    rows = []
    for recipe in recipes:
        check_choice(recipe, "recipe", RECIPES)
        for position in positions:
            result = recipe_scores(position, dim, base, recipe=recipe, window=window, seed=seed, layout=layout)
            rows.append({"recipe": recipe, "position": int(position), **{key: result[key] for key in keys}})
    return rows
