"""The implementation page's view: one rotation worked by hand, the four methods
compared, the two layouts made equal, partial rotary, and why V stays unrotated.

Every function takes plain numbers or tensors and returns plain numbers or tensors, so each
claim the page makes can be checked here without a browser. The functions at the end of the file
are what the page caches: they take only the knob values (and the device, as a string) and return
numbers and float32 numpy arrays ready to draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from itertools import combinations
from typing import NamedTuple

import numpy as np
import torch

from explorer.pure.timing import REPEAT, time_call
from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from rope_viz.analysis import random_attention_inputs, random_tokens, rope_scores, softmax_attention
from rope_viz.device import to_numpy
from rope_viz import METHODS, apply_rope, layout_permutation, pair_indices, rotation_matrix
from explorer.pure.questions import Numbers, Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("worked", "costs", "pairs", "partial", "values")

# The worked example as a widely shared derivation prints it: q = [1, 2], theta = 0.5, m = 1.
NOTE_EXAMPLE = {"q": (1.0, 2.0), "theta": 0.5, "position": 1, "printed": (-0.0812, 2.2366), "digits": 4}
LAYOUTS = ("interleaved", "half")
VALUE_VARIANTS = ("plain", "rotated_values", "rotated_back")  # the keys of value_rotation_gaps


@dataclass(frozen=True)
class WorkedRotation:
    """Every intermediate value of rotating the 2-vector q by the angle position * theta (float64)."""

    q: tuple[float, float]
    angle: float
    cos: float
    sin: float
    matrix: tuple[tuple[float, float], tuple[float, float]]
    terms: tuple[tuple[float, float], tuple[float, float]]  # terms[i][j] = matrix[i][j] * q[j]
    result: tuple[float, float]  # result[i] = terms[i][0] + terms[i][1]
    norm_before: float
    norm_after: float


def _rotate_by_hand(q: tuple[float, float], cos: float, sin: float):
    """(matrix, terms, result) of [[cos, -sin], [sin, cos]] @ q, one product at a time."""
    matrix = ((cos, -sin), (sin, cos))
    terms = tuple(tuple(matrix[i][j] * q[j] for j in range(2)) for i in range(2))
    return matrix, terms, tuple(row[0] + row[1] for row in terms)


def worked_rotation(q1: float, q2: float, theta: float, position: int) -> WorkedRotation:
    """Rotate q = [q1, q2] to `position` with the frequency `theta`, keeping every step.

    The 2x2 block comes from `rotation_matrix` (d = 2 has the single frequency 1, so the
    position m * theta gives the angle m * theta); the products and sums are spelled out.
    """
    q = (float(q1), float(q2))
    angle = float(position) * float(theta)
    block = rotation_matrix(angle, 2, dtype=torch.float64)
    cos, sin = float(block[0, 0]), float(block[1, 0])
    matrix, terms, result = _rotate_by_hand(q, cos, sin)
    return WorkedRotation(q=q, angle=angle, cos=cos, sin=sin, matrix=matrix, terms=terms, result=result,
                          norm_before=math.hypot(*q), norm_after=math.hypot(*result))


@dataclass(frozen=True)
class PrintedCheck:
    """A printed rotation result held against the length a rotation must keep."""

    printed: tuple[float, float]
    printed_norm: float
    true_norm: float
    with_rounded_table: tuple[float, float]  # the same sums from cos and sin rounded to `digits`


def check_printed_result(printed=NOTE_EXAMPLE["printed"], q=NOTE_EXAMPLE["q"], theta=NOTE_EXAMPLE["theta"],
                         position=NOTE_EXAMPLE["position"], digits=NOTE_EXAMPLE["digits"]) -> PrintedCheck:
    """Compare a printed result with |q| (which any rotation keeps) and with the sums a reader gets
    from a table of cos and sin rounded to `digits` decimals."""
    exact = worked_rotation(q[0], q[1], theta, position)
    _, _, rounded = _rotate_by_hand(exact.q, round(exact.cos, digits), round(exact.sin, digits))
    return PrintedCheck(printed=tuple(printed), printed_norm=math.hypot(*printed), true_norm=exact.norm_before,
                        with_rounded_table=tuple(round(v, digits) for v in rounded))


def method_gaps(x: torch.Tensor, methods=METHODS, *, base: float = 10000.0) -> dict[tuple[str, str], float]:
    """max |apply_rope(x, method=a) - apply_rope(x, method=b)| for every pair of methods."""
    results = {m: apply_rope(x, base=base, method=m) for m in methods}
    return {(a, b): float((results[a] - results[b]).abs().max()) for a, b in combinations(methods, 2)}


def time_methods(x: torch.Tensor, methods=METHODS, *, base: float = 10000.0, repeat: int = REPEAT,
                 min_time: float = 0.01) -> dict[str, float]:
    """Median seconds of one apply_rope(x) call per method, on x's device."""
    return {m: time_call(lambda m=m: apply_rope(x, base=base, method=m), device=x.device, repeat=repeat,
                         min_time=min_time)
            for m in methods}


def coordinate_pairs(dim: int, layout: str = "interleaved") -> torch.Tensor:
    """The pair index i of every coordinate 0 .. dim-1 (which plane it turns in)."""
    first, second = pair_indices(dim, layout)
    owner = torch.empty(dim, dtype=torch.long)
    owner[first] = torch.arange(first.numel())
    owner[second] = torch.arange(second.numel())
    return owner


@dataclass(frozen=True)
class LayoutGaps:
    """How far the interleaved and half layouts are apart, three ways (max absolute differences)."""

    rotated: float  # the rotated queries themselves, interleaved vs half, same weights
    scores_same_weights: float  # the attention logits with the same W_q, W_k in both layouts
    scores_permuted_weights: float  # the half layout with W_q, W_k's columns permuted: zero up to rounding


def layout_gaps(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, *, base: float = 10000.0) -> LayoutGaps:
    """LayoutGaps of the queries x @ w_q and keys x @ w_k; the permutation is layout_permutation."""
    perm = layout_permutation(w_q.shape[-1]).to(w_q.device)
    q, k = x @ w_q, x @ w_k
    interleaved = rope_scores(q, k, base=base, layout="interleaved")
    permuted = rope_scores(x @ w_q[:, perm], x @ w_k[:, perm], base=base, layout="half")
    return LayoutGaps(
        rotated=float((apply_rope(q, base=base) - apply_rope(q, base=base, layout="half")).abs().max()),
        scores_same_weights=float((interleaved - rope_scores(q, k, base=base, layout="half")).abs().max()),
        scores_permuted_weights=float((interleaved - permuted).abs().max()),
    )


def rotation_change(x: torch.Tensor, position: int, rotary_dim: int, *, base: float = 10000.0) -> torch.Tensor:
    """|rotated - x| per coordinate for one vector x (dim,) moved to `position` with partial rotary."""
    return (apply_rope(x.unsqueeze(0), [position], base=base, rotary_dim=rotary_dim)[0] - x).abs()


def value_rotation_gaps(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, shift: int, *,
                        base: float = 10000.0) -> dict[str, torch.Tensor]:
    """How far each query's causal attention output moves when every position is shifted by `shift`.

    plain: RoPE on q and k only (the standard recipe); the output does not move.
    rotated_values: V rotated by its position too; the output now depends on where the text sits.
    rotated_back: V rotated, then the output rotated back by its query's position; relative again.
    Returns {name: (seq,) max |output(positions + shift) - output(positions)| over features}.
    """
    positions = torch.arange(q.shape[-2], dtype=torch.float64)

    def outputs(pos: torch.Tensor) -> dict[str, torch.Tensor]:
        plain = softmax_attention(q, k, v, pos, causal=True, base=base)[1]
        rotated = softmax_attention(q, k, apply_rope(v, pos, base=base), pos, causal=True, base=base)[1]
        return {"plain": plain, "rotated_values": rotated, "rotated_back": apply_rope(rotated, -pos, base=base)}

    before, after = outputs(positions), outputs(positions + float(shift))
    return {name: (after[name] - before[name]).abs().amax(dim=-1) for name in before}


# What the page shows, from its knob values: its tokens are random_tokens(seq, dim, seed=seed).


def batch_method_gaps(seq: int, dim: int, seed: int, device: str, methods: tuple = METHODS
                      ) -> dict[tuple[str, str], float]:
    """method_gaps on the page's float32 tokens (seq, dim) on `device`; ValueError when a method
    (the matrix one first) would go over the allocation budget."""
    return method_gaps(random_tokens(seq, dim, seed=seed, device=device), methods)


def batch_method_microseconds(seq: int, dim: int, device: str, methods: tuple = METHODS) -> np.ndarray:
    """Median microseconds of one call per method (in the order of `methods`), float32 tokens of seed 0."""
    seconds = time_methods(random_tokens(seq, dim, device=device), methods)
    return np.array([seconds[method] * 1e6 for method in methods], dtype=np.float32)


def batch_layout_gaps(seq: int, dim: int, seed: int, device: str) -> LayoutGaps:
    """layout_gaps on the page's tokens with square projections of the same seed (random_attention_inputs)."""
    return layout_gaps(*random_attention_inputs(seq, dim, seed=seed, device=device))


def pair_owners(dim: int) -> np.ndarray:
    """(len(LAYOUTS), dim) float32: row l gives the pair index of every coordinate in layout LAYOUTS[l]."""
    return np.stack([to_numpy(coordinate_pairs(dim, layout)) for layout in LAYOUTS])


def partial_change(dim: int, seed: int, position: int, rotary_dim: int) -> np.ndarray:
    """(dim,) float32: rotation_change of the page's first token (seed `seed`) moved to `position`."""
    return to_numpy(rotation_change(random_tokens(1, dim, seed=seed)[0], position, rotary_dim))


def value_shift_gaps(seq: int, dim: int, seed: int, shift: int, device: str) -> dict[str, np.ndarray]:
    """value_rotation_gaps for q, k, v drawn with seeds seed, seed + 1, seed + 2: {variant: (seq,) float32}."""
    q, k, v = (random_tokens(seq, dim, seed=seed + i, device=device) for i in range(3))
    return {name: to_numpy(gap) for name, gap in value_rotation_gaps(q, k, v, shift).items()}


# What the page writes, from the values above.
def _number(value: float, spec: str = ".5f") -> str:
    """A value for the hand calculation (five decimals by default), in brackets when negative."""
    return f"({value:{spec}})" if value < 0 else f"{value:{spec}}"


def worked_latex(r: WorkedRotation, theta: float, m: int, rad: str) -> str:
    """The hand calculation of worked_rotation(q1, q2, theta, m) as aligned LaTeX lines, product by product;
    `rad`: the LaTeX of the word for radians."""
    (a, b), (c, d) = r.matrix
    rows = [rf"m\theta &= {m} \times {theta:g} = {r.angle:.5f}\ " + rad,
            rf"\cos m\theta &= {r.cos:.5f},\qquad \sin m\theta = {r.sin:.5f}",
            rf"R_m &= \begin{{pmatrix}} {a:.5f} & {b:.5f} \\ {c:.5f} & {d:.5f} \end{{pmatrix}}"]
    for i, (row, terms) in enumerate(zip(r.matrix, r.terms), start=1):
        products = " + ".join(rf"{_number(entry)} \times {_number(q, 'g')}" for entry, q in zip(row, r.q))
        sums = " + ".join(_number(term) for term in terms)
        rows.append(rf"q'_{i} &= R_{{{i}1}} q_1 + R_{{{i}2}} q_2 = {products}")
        rows.append(rf"&= {sums} = {r.result[i - 1]:.5f}")
    rows.append(rf"|q| &= {r.norm_before:.5f} \ \longrightarrow\ |q'| = {r.norm_after:.5f}")
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def printed_note() -> Phrase:
    """The note on the widely printed result of NOTE_EXAMPLE (check_printed_result): its norm against |q|."""
    note = check_printed_result()
    return phrase("implementation_forms.note_typo", x=note.printed[0], y=note.printed[1], norm=note.true_norm,
                  printed_norm=note.printed_norm, rounded=note.with_rounded_table[1])


def gap_sentence(gap: float) -> Phrase:
    """What the largest difference between the methods means: none at all, or float32 rounding."""
    if gap == 0.0:
        return phrase("implementation_forms.gap_none")
    return phrase("implementation_forms.gap_rounding", gap=gap)


def worked_metrics(r: WorkedRotation) -> list[Metric]:
    return [metric(f"implementation_forms.{key}", f"{value:.5f}")
            for key, value in zip(("result_first", "result_second", "norm_before", "norm_after"),
                                  (*r.result, r.norm_before, r.norm_after))]


@dataclass(frozen=True)
class MethodGaps:
    """The methods compared, the largest difference between every two of them, and whether the dense matrix
    method was left out (it would have gone over the allocation budget)."""

    methods: tuple[str, ...]
    gaps: dict[tuple[str, str], float]
    dropped: bool


def affordable_method_gaps(seq: int, dim: int, seed: int, device: str) -> MethodGaps:
    """batch_method_gaps of every method, or of all but the dense matrix one when it would go over the
    allocation budget."""
    try:
        return MethodGaps(methods=METHODS, gaps=batch_method_gaps(seq, dim, seed, device, METHODS), dropped=False)
    except ValueError:
        methods = tuple(method for method in METHODS if method != "matrix")
        return MethodGaps(methods=methods, gaps=batch_method_gaps(seq, dim, seed, device, methods), dropped=True)


def cost_table(methods: tuple, micro: np.ndarray) -> dict:
    """Microseconds per call of each method and its time over the fastest's."""
    fastest = float(micro.min())
    return {"implementation_forms.col_method": [phrase(f"implementation_forms.method_{m}") for m in methods],
            "implementation_forms.col_time": [f"{v:,.1f}" for v in micro],
            "implementation_forms.col_relative": [f"{v / fastest:,.1f}×" for v in micro]}


def gap_table(gaps: dict[tuple[str, str], float]) -> dict:
    """The largest difference between every two methods."""
    return {
        "implementation_forms.col_pair": [
            phrase(
                "implementation_forms.method_pair",
                a=phrase(f"implementation_forms.method_{a}"),
                b=phrase(f"implementation_forms.method_{b}"),
            )
            for a, b in gaps
        ],
        "implementation_forms.col_gap": [f"{g:.1e}" for g in gaps.values()],
    }


def layout_metrics(gaps: LayoutGaps) -> list[Metric]:
    return [
        metric(
            f"implementation_forms.gap_{name}",
            f"{getattr(gaps, name):.2e}",
            help=phrase(f"implementation_forms.gap_{name}_help"),
        )
        for name in (field.name for field in fields(LayoutGaps))
    ]


def rotary_dim_range(dim: int) -> dict[str, int]:
    """The rotary-dimension knob under a head of `dim`: up to all of it, a quarter by default (at least 2)."""
    return {"hi": dim, "default": max(2, dim // 4 * 2)}


class Bars(NamedTuple):
    """One bar series: the coordinates and how far each one moved."""

    coordinates: np.ndarray
    change: np.ndarray


@dataclass(frozen=True)
class PartialSplit:
    """partial_change as two bar series: the first rotary_dim coordinates, and the rest (unchanged)."""

    rotated: Bars
    passed: Bars


def partial_split(dim: int, seed: int, position: int, rotary_dim: int) -> PartialSplit:
    """partial_change split at rotary_dim."""
    change, coords = partial_change(dim, seed, position, rotary_dim), np.arange(dim)
    return PartialSplit(rotated=Bars(coords[:rotary_dim], change[:rotary_dim]),
                        passed=Bars(coords[rotary_dim:], change[rotary_dim:]))


@dataclass(frozen=True)
class ValueLines:
    """value_shift_gaps against the query positions, and each variant's largest gap."""

    queries: np.ndarray
    gaps: dict[str, np.ndarray]  # variant (VALUE_VARIANTS) -> (seq,) float32
    metrics: list[Metric]


def value_lines(seq: int, dim: int, seed: int, shift: int, device: str) -> ValueLines:
    gaps = value_shift_gaps(seq, dim, seed, shift, device)
    return ValueLines(queries=np.arange(seq), gaps=gaps,
                      metrics=[metric(f"implementation_forms.value_{name}", f"{float(gaps[name].max()):.2e}")
                               for name in VALUE_VARIANTS])


@dataclass(frozen=True)
class PairMap:
    """pair_owners with the coordinates it is drawn against."""

    owners: np.ndarray
    coordinates: np.ndarray


def pair_map(dim: int) -> PairMap:
    return PairMap(owners=pair_owners(dim), coordinates=np.arange(dim))


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def first_coordinate(q1: float, q2: float, theta: float, m: int, **_) -> Numbers:
    """The first entry of q = [q1, q2] turned by m·θ (the worked example): q1 cos mθ − q2 sin mθ."""
    from explorer.pure.views.implementation_forms import worked_rotation

    turned = worked_rotation(q1, q2, theta, m)
    once = worked_rotation(q1, q2, theta, 1)  # the position forgotten
    cos, sin = turned.cos, turned.sin
    return Numbers({"q1": q1, "q2": q2, "theta": theta, "m": m}, turned.result[0],
                   (q1 * cos + q2 * sin, turned.result[1], once.result[0], -turned.result[0],
                    turned.result[0] + 1.0), "{:.4f}")


QUIZ = (Question("first_coordinate", first_coordinate), Question("values"), Question("layouts"))
