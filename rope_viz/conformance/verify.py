"""Verify an implementation's answers to a probe against the reference, kind of layer by kind of layer.

The reference of each kind is LayerRoPE.rotate of its first layer in float64. An answer element passes when
it lies within
    TOL_ABS * max(|x|, 1)  +  f * |x_pair| * TOL_REL * (1 + |theta|)
of the reference (x the input row, x_pair its pair, f the attention factor, theta the pair's angle): room
for an implementation that computes angles, cos and sin in float32 (each rounding costs about 2^-24 of the
angle), some 100 times less than bfloat16 or float16 angles lose. A kind that fails is compared with every
known bug applied to the reference (bugs.candidates), per role (query, key): the candidate that comes within
the tolerance, else the one whose error is smallest and under EXPLAINED_RATIO of the reference's, names
the bug; otherwise none explains it and the verdict keeps its error profile by pair and by position.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .bugs import Candidate, candidates
from .probe import ROLES, Probe, make_probe, measure, pairs

TOL_REL = 2.0 ** -17
TOL_ABS = 2.0 ** -20
EXPLAINED_RATIO = 0.1
BIG = 1e6  # the error of a NaN or infinite answer element where the reference is finite


@dataclass(frozen=True)
class Profile:
    """Largest absolute error by pair (pairs of the layer's layout over its rotated dims), by probe position,
    and over the dims outside every pair (rest)."""

    by_pair: np.ndarray
    positions: np.ndarray
    by_position: np.ndarray
    rest: float

    def to_dict(self) -> dict:
        return {"by_pair": self.by_pair.tolist(), "positions": self.positions.tolist(),
                "by_position": self.by_position.tolist(), "rest": self.rest}


@dataclass(frozen=True)
class Verdict:
    """The verdict on one kind of layer. bug: the bug class that explains a failure (None when it passes or
    none does); detail: which variant; roles: where it shows ("query", "key"); first_pair / first_position:
    where the error first passes the tolerance; profile: the answer's error against the reference;
    bug_profile: the matched bug's own deviation from the reference; residual: the answer's distance from
    the matched bug over its distance from the reference; variant, values: the detail as a key of
    bugs.VARIANTS and its values."""

    kind: int
    layers: tuple
    layer: object
    ok: bool
    max_error: float
    bug: str | None
    detail: str | None
    roles: tuple
    first_pair: int | None
    first_position: int | None
    profile: Profile
    bug_profile: Profile | None = None
    residual: float | None = None
    variant: str | None = None
    values: dict | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "layers": list(self.layers), "rope": describe(self.layer), "ok": self.ok,
                "max_error": self.max_error, "bug": self.bug, "detail": self.detail, "variant": self.variant,
                "values": self.values, "roles": list(self.roles),
                "first_pair": self.first_pair, "first_position": self.first_position,
                "profile": self.profile.to_dict(),
                "bug_profile": None if self.bug_profile is None else self.bug_profile.to_dict(),
                "residual": self.residual}


@dataclass(frozen=True)
class Report:
    model: str
    verdicts: tuple

    @property
    def ok(self) -> bool:
        return all(verdict.ok for verdict in self.verdicts)

    def to_dict(self) -> dict:
        return {"model": self.model, "ok": self.ok, "verdicts": [v.to_dict() for v in self.verdicts]}

    def table(self) -> str:
        head = ("kind", "layers", "rope", "result", "max error", "bug", "where")
        rows = [head]
        for v in self.verdicts:
            where = "" if v.ok else f"pair {v.first_pair}, position {v.first_position:,}" \
                if v.first_pair is not None and v.first_position is not None else ""
            bug = "" if v.ok else (f"{v.bug} ({v.detail}; {'+'.join(v.roles)})" if v.bug else "none explains it")
            rows.append((str(v.kind), layer_ranges(v.layers), describe(v.layer), "pass" if v.ok else "FAIL",
                         f"{v.max_error:.3g}", bug, where))
        widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
        return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def layer_ranges(layers) -> str:
    """(0, 1, 2, 5) -> "0-2, 5"."""
    parts, start, prev = [], None, None
    for index in list(layers) + [None]:
        if start is not None and (index is None or index != prev + 1):  # type: ignore[operator]  # prev set with start
            parts.append(str(start) if start == prev else f"{start}-{prev}")
            start = None
        if start is None and index is not None:
            start = index
        prev = index
    return ", ".join(parts)


def describe(layer) -> str:
    if not layer.rotary:
        return f"no RoPE, head {layer.head_dim}"
    parts = [f"base {layer.base:,.0f}", layer.rope_type, f"{layer.rotary_dim}/{layer.head_dim} dims", layer.layout]
    if layer.rotated_from:
        parts.append(f"from dim {layer.rotated_from}")
    if layer.mrope_section is not None:
        parts.append(f"M-RoPE {list(layer.mrope_section)}{' interleaved' if layer.mrope_interleaved else ''}")
    return ", ".join(parts)


def _diff(answer: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    diff = (answer - expected).abs()
    both = torch.isnan(answer) & torch.isnan(expected)
    return torch.where(both, 0.0, torch.nan_to_num(diff, nan=BIG, posinf=BIG))


def tolerance(layer, tables, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """The allowed absolute error of each answer element (see the module docstring)."""
    x = x.to(torch.float64)
    tol = TOL_ABS * x.abs().amax(dim=-1, keepdim=True).clamp(min=1.0).expand_as(x).clone()
    if tables is None:
        return tol + TOL_REL * x.abs()
    a, b = pairs(layer)
    room = tables.factor * torch.hypot(x[:, a], x[:, b]) * TOL_REL * (1 + tables.theta(positions).abs())
    tol[:, a] += room
    tol[:, b] += room
    return tol


def _profile(layer, diff: torch.Tensor, rows: torch.Tensor) -> Profile:
    a, b = pairs(layer)
    by_pair = torch.maximum(diff[:, a], diff[:, b]).amax(dim=0)
    rest = torch.ones(diff.shape[-1], dtype=torch.bool)
    rest[a] = rest[b] = False
    positions = torch.unique(rows)
    by_position = torch.stack([diff[rows == p].amax() for p in positions])
    return Profile(by_pair.numpy(), positions.numpy(), by_position.numpy(),
                   float(diff[:, rest].amax()) if rest.any() else 0.0)


def _rms(diff: torch.Tensor) -> float:
    return float(diff.square().mean().sqrt())


def _judge_kind(probe: Probe, kind, indices: list[int], answers: dict) -> Verdict:
    layer = kind.layer
    sets = [probe.sets[i] for i in indices]
    rows = torch.cat([s.row_positions for s in sets])
    by_role: dict[str, dict[str, Any]]
    cands: dict[tuple[str, str], tuple[Candidate, dict[int, Callable]]]
    by_role, cands = {}, {}
    for role in ROLES:
        xs = [getattr(s, role).to(torch.float64) for s in sets]
        ref = torch.cat([layer.rotate(x, s.positions) for x, s in zip(xs, sets)])
        tol = torch.cat([tolerance(layer, measure(layer, int(s.positions.max())), x, s.positions)
                         for x, s in zip(xs, sets)])
        answer = torch.cat([answers[i, role] for i in indices])
        diff = _diff(answer, ref)
        by_role[role] = dict(xs=xs, ref=ref, tol=tol, answer=answer, diff=diff, ok=bool((diff <= tol).all()))
    diff_all = torch.maximum(by_role["query"]["diff"], by_role["key"]["diff"])
    exceed = torch.maximum(*(r["diff"] / r["tol"] for r in by_role.values()))
    profile = _profile(layer, diff_all, rows)
    failing = tuple(role for role in ROLES if not by_role[role]["ok"])
    base = dict(kind=kind.index, layers=kind.layers, layer=layer, ok=not failing, max_error=float(diff_all.max()),
                profile=profile)
    if not failing:
        return Verdict(bug=None, detail=None, roles=(), first_pair=None, first_position=None, **base)
    a, b = pairs(layer)
    pair_fail = torch.nonzero(torch.maximum(exceed[:, a], exceed[:, b]).amax(dim=0) > 1)
    first_pair = int(pair_fail[0]) if len(pair_fail) else None
    first_position = int(rows[(exceed > 1).any(dim=-1)].min())
    for i, s in zip(indices, sets):
        for c in candidates(probe, s):
            cands.setdefault((c.bug, c.detail), (c, {}))[1][i] = c.rotate
    best: dict[str, tuple] = {}
    for role in failing:
        r = by_role[role]
        scale = _rms(r["diff"])
        for key, (_, rotates) in cands.items():
            out = torch.cat([rotates[i](x, s.positions) if i in rotates else layer.rotate(x, s.positions)
                             for i, x, s in zip(indices, r["xs"], sets)])
            diff = _diff(r["answer"], out)
            exact = bool((diff <= r["tol"]).all())
            ratio = _rms(diff) / scale if scale > 0 else math.inf
            score = (not exact, ratio)
            if (exact or ratio <= EXPLAINED_RATIO) and (role not in best or score < best[role][0]):
                best[role] = (score, key, _diff(out, r["ref"]))
            if exact:  # candidates come most specific first: the first within tolerance names the bug
                break
    found = [best[role][1] for role in failing if role in best]
    if len(found) < len(failing):
        return Verdict(bug=None, detail=None, roles=failing, first_pair=first_pair, first_position=first_position,
                       **base)
    key = found[0]
    roles = tuple(role for role in failing if best[role][1][0] == key[0])
    deviation = torch.maximum(*[best[role][2] for role in roles]) if len(roles) > 1 else best[roles[0]][2]
    matched = cands[key][0]
    return Verdict(bug=key[0], detail=key[1], variant=matched.variant, values=matched.values, roles=roles,
                   first_pair=first_pair, first_position=first_position,
                   bug_profile=_profile(layer, deviation, rows), residual=max(best[role][0][1] for role in roles),
                   **base)


def judge(probe: Probe, answers: dict) -> Report:
    """The report on `answers`: {(probe set index, role): (seq, head_dim) float64 tensor}."""
    verdicts = []
    for kind in probe.kinds:
        indices = [i for i, s in enumerate(probe.sets) if s.kind == kind.index]
        verdicts.append(_judge_kind(probe, kind, indices, answers))
    return Report(probe.model.name, tuple(verdicts))


def as_answer(value, shape: tuple, what: str) -> torch.Tensor:
    """An answer as float64, checked: a float32 or float64 tensor or array of the probe's shape."""
    if isinstance(value, np.ndarray):
        if value.dtype not in (np.float32, np.float64):
            raise ValueError(f"{what} must be float32 or float64, got {value.dtype}")
        value = torch.from_numpy(np.ascontiguousarray(value))
    if not isinstance(value, torch.Tensor):
        raise ValueError(f"{what} must be a tensor or array of shape {tuple(shape)}, got {type(value).__name__}")
    if value.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"{what} must be float32 or float64, got {value.dtype}")
    if tuple(value.shape) != tuple(shape):
        raise ValueError(f"{what} must have shape {tuple(shape)}, got {tuple(value.shape)}")
    return value.detach().cpu().to(torch.float64)


def _takes_role(fn) -> bool:
    try:
        return "role" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def verify(config, fn) -> Report:
    """Run fn(x, positions, layer) (plus role="query" / "key" when fn takes a `role` argument) on the probe of
    `config` (a preset name, a config dict or its JSON text) and judge its answers kind by kind.

    fn gets x float32 (seq, head_dim), positions int64 (seq,) or (3, seq) for M-RoPE models, and the index of
    the decoder layer; it returns x rotated as the implementation rotates that layer's queries and keys
    (attention factor included), float32 or float64, same shape. A fn without `role` is taken to treat
    queries and keys alike, so a bug in only one of them cannot show."""
    probe = make_probe(config)
    role_arg = _takes_role(fn)
    answers = {}
    for i, s in enumerate(probe.sets):
        for role in ROLES:
            x = getattr(s, role).clone()
            out = fn(x, s.positions.clone(), s.layer, role=role) if role_arg else fn(x, s.positions.clone(), s.layer)
            answers[i, role] = as_answer(out, x.shape, f"fn's answer for layer {s.layer} ({role})")
    return judge(probe, answers)
