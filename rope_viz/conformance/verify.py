"""Verify an implementation's answers to a probe against the reference, kind of layer by kind of layer.

The reference of each kind is LayerRoPE.rotate of its first layer in float64. An answer element passes when
it lies within
    TOL_ABS * max(|x|, 1)  +  f * |x_pair| * TOL_REL * (1 + |theta|)
of the reference (x the input row, x_pair its pair, f the attention factor, theta the pair's angle): room
for an implementation that computes angles, cos and sin in float32 (each rounding costs about 2^-24 of the
angle), some 100 times less than bfloat16 or float16 angles lose. A kind that fails is compared with every
known bug applied to the reference (bugs.candidates), per role (query, key): the candidate that comes within
the tolerance, else the one whose error is smallest and under EXPLAINED_RATIO of the reference's, names
the bug; where none does, two bugs at once are tried (bugs.pairs_of_bugs); otherwise none explains it and the
verdict keeps its error profile by pair and by position. An engine may declare its layout (its loader
permutes the q/k rows), its largest position and its dtype (bfloat16 or float16 by design: the reference is
rounded the same way and the room grows by ROUNDINGS of that dtype's unit roundoff). Positions from which an
implementation gives no answer (it raises, or answers NaN) are reported as where its answers stop: a kind whose
answers are right up to there has the status "stops", told apart from a wrong answer ("fail"), and placed inside,
at or past the model's max_position_embeddings (stopping at or past it is an engine's right: declare it with
max_position). Before the probe runs, fn is called on the small positions of each probe set: an error there, a
signature that cannot take (x, positions, layer) or an answer of another shape is raised at once as ValueError,
with the exception fn raised.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ..models import LayerRoPE
from .bugs import BUG_CLASSES, LAYOUT_HINT, VARIANTS, Candidate, candidates, pairs_of_bugs, rounded
from .probe import ROLES, Probe, make_probe, measure, pairs

TOL_REL = 2.0 ** -17
TOL_ABS = 2.0 ** -20
EXPLAINED_RATIO = 0.1
BIG = 1e6  # the error of a NaN or infinite answer element where the reference is finite
UNIT_ROUNDOFF = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11}  # half the gap between 1 and the next value
ROUNDINGS = 8  # a declared dtype's room: x and cos/sin rounded, two products, their sum, the answer, the reference
FIRST_POSITIONS = 100  # fn must answer the probe positions below this one: an error there is raised at once
STATUSES = ("pass", "stops", "fail")


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
    none does); detail: which variant; also: the second bug (class, variant, values) when two at once
    explain it, else None; roles: where it shows ("query", "key"); first_pair / first_position: where the error first
    passes the tolerance; stops_at: the first probe position from which the implementation gave no answer
    (it raised, or returned NaN or infinity) and stopped_by the error it raised, both None where it answered
    throughout; excess: the largest error over its tolerance (a pass keeps it <= 1); profile: the answer's
    error against the reference (over the positions it answered); bug_profile: the matched bug's own
    deviation from the reference; residual: the answer's distance from the matched bug over its distance
    from the reference; variant, values: the detail as a key of bugs.VARIANTS and its values."""

    kind: int
    layers: tuple
    layer: LayerRoPE
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
    also: tuple | None = None
    stops_at: int | None = None
    stopped_by: str | None = None
    excess: float = 0.0

    @property
    def status(self) -> str:
        """"pass"; "stops" where every answer given is right but answers stop at some position; else "fail"."""
        if self.ok:
            return "pass"
        return "stops" if self.stops_at is not None and self.first_position is None else "fail"

    @property
    def limit(self) -> str | None:
        """Where answers stop against the model's max_position_embeddings: "inside" (short of the model's own
        context), "at" it or "past" it (both an engine's right), "undeclared" where the model declares none;
        None where answers do not stop."""
        if self.stops_at is None:
            return None
        declared = self.layer.max_position_embeddings
        if declared is None:
            return "undeclared"
        return "inside" if self.stops_at < declared else "at" if self.stops_at == declared else "past"

    @property
    def stop_note(self) -> str:
        """What a stop means, for the table and its notes ("" where answers do not stop)."""
        declared = self.layer.max_position_embeddings
        return {None: "", "undeclared": "the model declares no max_position_embeddings",
                "inside": f"inside the model's max_position_embeddings {declared or 0:,}: answers stop short of its "
                          "own context",
                "at": f"at the model's max_position_embeddings {declared or 0:,}: the engine's right (declare it with "
                      f"max_position={declared} or --max-position {declared})",
                "past": f"past the model's max_position_embeddings {declared or 0:,}: the engine's right (declare "
                        f"it with max_position={declared} or --max-position {declared})"}[self.limit]

    @property
    def second(self) -> tuple | None:
        """The second bug as (class, detail), or None."""
        return None if self.also is None else (self.also[0], VARIANTS[self.also[1]].format(**self.also[2]))

    def to_dict(self) -> dict:
        return {"kind": self.kind, "layers": list(self.layers), "rope": rope_numbers(self.layer),
                "rope_text": describe(self.layer), "ok": self.ok, "status": self.status, "limit": self.limit,
                "max_error": self.max_error, "bug": self.bug, "detail": self.detail, "variant": self.variant,
                "values": None if self.values is None else {k: _number(v) for k, v in self.values.items()},
                "also": None if self.second is None else list(self.second),
                "roles": list(self.roles), "first_pair": self.first_pair, "first_position": self.first_position,
                "stops_at": self.stops_at, "stopped_by": self.stopped_by, "excess": self.excess,
                "profile": self.profile.to_dict(),
                "bug_profile": None if self.bug_profile is None else self.bug_profile.to_dict(),
                "residual": self.residual}

    @property
    def diagnosis(self) -> str:
        """The bug cell of the table: "" for a pass, the bug (and the second one), or "none explains it"."""
        if self.ok:
            return ""
        if self.status == "stops":
            return f"answers stop {self.stop_note}"
        if self.bug is None:
            return "none explains it"
        cell = f"{self.bug} ({self.detail}; {'+'.join(self.roles)})"
        return cell if self.second is None else f"{cell} + {self.second[0]} ({self.second[1]})"

    def where(self, dtype: str | None = None) -> str:
        """Where it first goes wrong, where its answers stop, and (for a declared dtype) how far past that
        dtype's room it goes."""
        if self.ok:
            return ""
        parts = []
        if self.first_pair is not None and self.first_position is not None:
            parts.append(f"pair {self.first_pair}, position {self.first_position:,}")
        if self.stops_at is not None:
            parts.append(f"answers stop at position {self.stops_at:,}")
        if dtype is not None and self.first_pair is not None:
            parts.append(f"{self.excess:,.3g}x the {dtype} room")
        return "; ".join(parts)

    @property
    def layout_fix(self) -> str | None:
        """The layout a loader that permutes the q/k rows makes right, where the layout is (one of) the bugs."""
        for bug, variant in ((self.bug, self.variant), self.also[:2] if self.also else (None, None)):
            if bug == "layout":
                return variant
        return None

    @property
    def report(self) -> str:
        """The first public report of the matched bug's class, or ""."""
        links = BUG_CLASSES[self.bug].links() if self.bug else ()
        return next((url or label for label, url in links), "")


@dataclass(frozen=True)
class Report:
    """The verdicts of one model, with what the engine declared: its layout (None: the model's own), its
    dtype (None: float32 or better) and its largest position (None: twice the cache a config implies)."""

    model: str
    verdicts: tuple
    layout: str | None = None
    dtype: str | None = None
    max_position: int | None = None

    @property
    def ok(self) -> bool:
        return all(verdict.ok for verdict in self.verdicts)

    @property
    def status(self) -> str:
        """"fail" where a kind answers wrong, else "stops" where a kind's answers stop, else "pass"."""
        found = {verdict.status for verdict in self.verdicts}
        return next(status for status in reversed(STATUSES) if status in found or status == "pass")

    def to_dict(self) -> dict:
        return {"model": self.model, "ok": self.ok, "status": self.status, "layout": self.layout, "dtype": self.dtype,
                "max_position": self.max_position, "verdicts": [v.to_dict() for v in self.verdicts]}

    def notes(self) -> list[str]:
        """A sentence for each finding the table cannot hold: the layout a q/k-permuting loader makes right,
        and the error that stopped an implementation's answers."""
        layouts = sorted({v.layout_fix for v in self.verdicts} - {None})
        return [LAYOUT_HINT.format(layout=layout) for layout in layouts] + [
            f"kind {v.kind}: answers stop at position {v.stops_at:,} ({v.stopped_by})"
            for v in self.verdicts if v.stopped_by]

    def table(self) -> str:
        """The verdict table (one row per kind of layer), then its notes."""
        head = ("kind", "layers", "rope", "result", "max error", "bug", "where", "report")
        rows = [head] + [(str(v.kind), layer_ranges(v.layers), describe(v.layer), v.status.upper() if v.status ==
                          "fail" else v.status,
                          f"{v.max_error:.3g}", v.diagnosis, v.where(self.dtype), v.report) for v in self.verdicts]
        widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
        return "\n".join(lines + self.notes())


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


def _number(value):
    """A variant's value as a number where it is one ("1,000,000" -> 1000000, "+1" -> 1), else as it is."""
    if not isinstance(value, str):
        return value
    try:
        number = float(value.replace(",", ""))
    except ValueError:
        return value
    return int(number) if number.is_integer() else number


def rope_numbers(layer) -> dict:
    """A layer's rotation as numbers: base, rope_type, rotary_dim, head_dim, layout, rotated_from, mrope_section
    (a list or None), max_position_embeddings; rotary False (and nothing else) for a layer that does not rotate."""
    if not layer.rotary:
        return {"rotary": False, "head_dim": layer.head_dim}
    return {"rotary": True, "base": float(layer.base), "rope_type": layer.rope_type, "rotary_dim": layer.rotary_dim,
            "head_dim": layer.head_dim, "layout": layer.layout, "rotated_from": layer.rotated_from,
            "mrope_section": None if layer.mrope_section is None else list(layer.mrope_section),
            "max_position_embeddings": layer.max_position_embeddings}


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


def tolerance(layer, tables, x: torch.Tensor, positions: torch.Tensor, dtype=None) -> torch.Tensor:
    """The allowed absolute error of each answer element (see the module docstring); a declared dtype adds
    its honest room, ROUNDINGS rounding errors of that dtype's unit roundoff on each rotated pair's norm
    (times the attention factor) and on every other element."""
    x = x.to(torch.float64)
    tol = TOL_ABS * x.abs().amax(dim=-1, keepdim=True).clamp(min=1.0).expand_as(x).clone()
    unit = UNIT_ROUNDOFF[dtype] if dtype is not None else 0.0
    if tables is None:
        return tol + (TOL_REL + ROUNDINGS * unit) * x.abs()
    a, b = pairs(layer)
    norm = tables.factor * torch.hypot(x[:, a], x[:, b])
    room = norm * (TOL_REL * (1 + tables.theta(positions).abs()) + ROUNDINGS * unit)
    tol[:, a] += room
    tol[:, b] += room
    if unit:
        rest = torch.ones(x.shape[-1], dtype=torch.bool)
        rest[a] = rest[b] = False
        tol[:, rest] += ROUNDINGS * unit * x[:, rest].abs()
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


def _stop(rows: torch.Tensor, unanswered: torch.Tensor) -> int | None:
    """The first probe position from which no row has an answer (None where the last ones have one)."""
    answered = rows[~unanswered]
    if not bool(unanswered.any()) or (len(answered) and int(answered.max()) == int(rows.max())):
        return None
    later = rows[unanswered & (rows > (int(answered.max()) if len(answered) else -1))]
    return int(later.min())


def _best(failing: tuple, by_role: dict, cands: dict, indices: list, sets: list, layer, keep, rnd) -> dict:
    """role -> (score, key, the candidate's deviation from the reference) of the candidate that explains the
    role's answers best (within tolerance, else under EXPLAINED_RATIO of the reference's error)."""
    best: dict[str, tuple] = {}
    for role in failing:
        r = by_role[role]
        scale = _rms(r["diff"])
        for key, (_, rotates) in cands.items():
            out = rnd(torch.cat([rotates[i](x, s.positions) if i in rotates else layer.rotate(x, s.positions)
                                 for i, x, s in zip(indices, r["xs"], sets)]))[keep]
            diff = _diff(r["answer"], out)
            exact = bool((diff <= r["tol"]).all())
            ratio = _rms(diff) / scale if scale > 0 else math.inf
            score = (not exact, ratio)
            if (exact or ratio <= EXPLAINED_RATIO) and (role not in best or score < best[role][0]):
                best[role] = (score, key, _diff(out, r["ref"]))
            if exact:  # candidates come most specific first: the first within tolerance names the bug
                break
    return best


def _candidates(make: Callable, probe: Probe, indices: list, sets: list) -> dict:
    """key -> (the first candidate, {probe set index: its rotation}) of every candidate `make` lists."""
    cands: dict[tuple, tuple[Candidate, dict[int, Callable]]] = {}
    for i, s in zip(indices, sets):
        for c in make(probe, s):
            cands.setdefault(c.key, (c, {}))[1][i] = c.rotate
    return cands


def _judge_kind(probe: Probe, kind, indices: list[int], answers: dict, dtype=None) -> Verdict:
    layer = kind.layer
    sets = [probe.sets[i] for i in indices]
    rows = torch.cat([s.row_positions for s in sets])
    rnd = (lambda t: rounded(t, dtype)) if dtype is not None else (lambda t: t)
    by_role: dict[str, dict[str, Any]] = {}
    for role in ROLES:
        xs = [rnd(getattr(s, role).to(torch.float64)) for s in sets]
        ref = rnd(torch.cat([layer.rotate(x, s.positions) for x, s in zip(xs, sets)]))
        tol = torch.cat([tolerance(layer, measure(layer, int(s.positions.max())), x, s.positions, dtype)
                         for x, s in zip(xs, sets)])
        by_role[role] = dict(xs=xs, ref=ref, tol=tol, answer=torch.cat([answers[i, role] for i in indices]))
    unanswered = torch.zeros(len(rows), dtype=torch.bool)
    for r in by_role.values():
        unanswered |= ~torch.isfinite(r["answer"]).all(dim=-1)
    stops_at = _stop(rows, unanswered)
    keep = rows < stops_at if stops_at else torch.ones(len(rows), dtype=torch.bool)  # at 0: nothing to judge
    rows = rows[keep]
    for r in by_role.values():
        r.update(ref=r["ref"][keep], tol=r["tol"][keep], answer=r["answer"][keep])
        r["diff"] = _diff(r["answer"], r["ref"])
        r["ok"] = bool((r["diff"] <= r["tol"]).all())
    diff_all = torch.maximum(by_role["query"]["diff"], by_role["key"]["diff"])
    exceed = torch.maximum(*(r["diff"] / r["tol"] for r in by_role.values()))
    profile = _profile(layer, diff_all, rows)
    failing = tuple(role for role in ROLES if not by_role[role]["ok"])
    stopped_by = next((answers[i, "stopped_by"] for i in indices if (i, "stopped_by") in answers), None)
    base = dict(kind=kind.index, layers=kind.layers, layer=layer, ok=not failing and stops_at is None,
                max_error=float(diff_all.max()), profile=profile, stops_at=stops_at, stopped_by=stopped_by,
                excess=float(exceed.max()))
    if not failing:
        return Verdict(bug=None, detail=None, roles=(), first_pair=None, first_position=None, **base)
    a, b = pairs(layer)
    pair_fail = torch.nonzero(torch.maximum(exceed[:, a], exceed[:, b]).amax(dim=0) > 1)
    first_pair = int(pair_fail[0]) if len(pair_fail) else None
    first_position = int(rows[(exceed > 1).any(dim=-1)].min())
    for make in (candidates, pairs_of_bugs):  # two bugs at once only where no single one explains it
        cands = _candidates(make, probe, indices, sets)
        best = _best(failing, by_role, cands, indices, sets, layer, keep, rnd)
        if all(role in best for role in failing):
            break
    found = [best[role][1] for role in failing if role in best]
    if len(found) < len(failing):
        return Verdict(bug=None, detail=None, roles=failing, first_pair=first_pair, first_position=first_position,
                       **base)
    key = found[0]
    roles = tuple(role for role in failing if best[role][1][0] == key[0])
    deviation = torch.maximum(*[best[role][2] for role in roles]) if len(roles) > 1 else best[roles[0]][2]
    matched = cands[key][0]
    return Verdict(bug=matched.bug, detail=matched.detail, variant=matched.variant, values=matched.values,
                   also=matched.also, roles=roles,
                   first_pair=first_pair, first_position=first_position,
                   bug_profile=_profile(layer, deviation, rows), residual=max(best[role][0][1] for role in roles),
                   **base)


def judge(probe: Probe, answers: dict, *, dtype=None) -> Report:
    """The report on `answers`: {(probe set index, role): (seq, head_dim) float64 tensor}, and where an
    implementation raised, {(probe set index, "stopped_by"): what it raised}; dtype: the engine's declared
    dtype (torch.bfloat16 or torch.float16; None: float32 or better)."""
    if dtype is not None and dtype not in UNIT_ROUNDOFF:
        raise ValueError(f"dtype must be None, torch.bfloat16 or torch.float16, got {dtype!r}")
    verdicts = []
    for kind in probe.kinds:
        indices = [i for i, s in enumerate(probe.sets) if s.kind == kind.index]
        verdicts.append(_judge_kind(probe, kind, indices, answers, dtype))
    return Report(probe.model.name, tuple(verdicts), probe.layout,
                  None if dtype is None else str(dtype).removeprefix("torch."), probe.max_position)


def as_answer(value, shape: tuple, what: str, dtype=None) -> torch.Tensor:
    """An answer as float64, checked: a float32 or float64 (or the declared `dtype`) tensor or array of the
    probe's shape."""
    allowed = (torch.float32, torch.float64) + ((dtype,) if dtype is not None else ())
    names = " or ".join(str(d).removeprefix("torch.") for d in allowed)
    if isinstance(value, np.ndarray):
        if value.dtype not in (np.float32, np.float64) and not (dtype == torch.float16 and value.dtype == np.float16):
            raise ValueError(f"{what} must be {names}, got {value.dtype}")
        value = torch.from_numpy(np.ascontiguousarray(value))
    if not isinstance(value, torch.Tensor):
        raise ValueError(f"{what} must be a tensor or array of shape {tuple(shape)}, got {type(value).__name__}")
    if value.dtype not in allowed:
        raise ValueError(f"{what} must be {names}, got {value.dtype}")
    if tuple(value.shape) != tuple(shape):
        raise ValueError(f"{what} must have shape {tuple(shape)}, got {tuple(value.shape)}")
    return value.detach().cpu().to(torch.float64)


def _takes_role(fn) -> bool:
    try:
        return "role" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _call(fn, role_arg: bool, x: torch.Tensor, positions: torch.Tensor, layer: int, role: str):
    return fn(x, positions, layer, role=role) if role_arg else fn(x, positions, layer)


def _answer(fn, role_arg: bool, s, role: str, x: torch.Tensor, dtype) -> tuple[torch.Tensor, str | None]:
    """fn's answer for one probe set and role, and None; where fn raises, its answers for the rows below the
    first position it fails at (found by bisection over the probe positions), NaN for the rest, and what it
    raised. An answer of the wrong shape or type is the caller's mistake: ValueError."""
    what = f"fn's answer for layer {s.layer} ({role})"
    try:
        out = _call(fn, role_arg, x.clone(), s.positions.clone(), s.layer, role)
    except Exception as err:  # the engine's own limit: an IndexError past its cache, a failed check, ...
        error = f"{type(err).__name__}: {str(err)[:120]}"
    else:
        return as_answer(out, x.shape, what, dtype), None
    points = torch.unique(s.row_positions)
    answers = torch.full(x.shape, math.nan, dtype=torch.float64)
    good, bad = 0, len(points)  # the rows below points[good] are answered, those below points[bad] are not
    while bad - good > 1:
        mid = (good + bad) // 2
        rows = s.row_positions < points[mid]
        try:
            out = _call(fn, role_arg, x[rows].clone(), s.positions[..., rows].clone(), s.layer, role)
        except Exception as err:  # the call that ends at the first failing position tells why
            bad = mid
            error = f"{type(err).__name__}: {str(err)[:120]}"
            continue
        good = mid
        answers[rows] = as_answer(out, x[rows].shape, what, dtype)
    return answers, error


def _signature_check(fn, role_arg: bool) -> None:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or extension without a signature: its first call will tell
        return
    try:
        signature.bind(None, None, 0, **({"role": "query"} if role_arg else {}))
    except TypeError as err:
        raise ValueError(f"fn must take (x, positions, layer), and may take role=\"query\" | \"key\"; "
                         f"{getattr(fn, '__name__', 'fn')}{signature} cannot ({err})") from err


def preflight(fn, probe: Probe, dtype=None) -> None:
    """Call fn on the rows of each probe set below FIRST_POSITIONS, in each role: ValueError, with the exception
    fn raised, where its signature cannot take the call, it raises, or it answers another shape or dtype."""
    role_arg = _takes_role(fn)
    _signature_check(fn, role_arg)
    for s in probe.sets:
        rows = s.row_positions < FIRST_POSITIONS
        positions = s.positions[..., rows]
        for role in ROLES:
            x = getattr(s, role)[rows]
            x = x if dtype is None else x.to(dtype)
            try:
                out = _call(fn, role_arg, x.clone(), positions.clone(), s.layer, role)
            except Exception as err:
                raise ValueError(
                    f"fn raised {type(err).__name__}: {str(err)[:300]} on layer {s.layer}'s {role} rows x of shape "
                    f"{tuple(x.shape)} {str(x.dtype).removeprefix('torch.')} at positions "
                    f"{sorted(set(s.row_positions[rows].tolist()))}, each of which an implementation must answer "
                    f"(expected: the rotated x, same shape)") from err
            as_answer(out, x.shape, f"fn's answer for layer {s.layer} ({role}) at positions below "
                      f"{FIRST_POSITIONS}", dtype)


def verify(config, fn, *, layout: str | None = None, max_position: int | None = None, dtype=None) -> Report:
    """Run fn(x, positions, layer) (plus role="query" / "key" when fn takes a `role` argument) on the probe of
    `config` (a preset name, a config dict or its JSON text) and judge its answers kind by kind.

    fn gets x float32 (seq, head_dim) in the checkpoint's dim order, positions int64 (seq,) or (3, seq) for
    M-RoPE models, and the index of the decoder layer; it returns x rotated as the implementation rotates
    that layer's queries and keys (attention factor included), float32 or float64, same shape. A fn without
    `role` is taken to treat queries and keys alike, so a bug in only one of them cannot show.

    layout: the engine's own pair layout when its loader permutes the checkpoint's q/k rows (x is then in
    the engine's dim order); max_position: its declared limit (positions from it on are not probed);
    dtype: torch.bfloat16 or torch.float16 for an engine that computes in it by design: x comes in that
    dtype and the answers are judged against the reference rounded the same way, with that dtype's room.
    Where fn raises (or answers NaN) from some position on, the verdict says where its answers stop; where it
    raises at a position below FIRST_POSITIONS, cannot take the call or answers another shape: ValueError."""
    if dtype is not None and dtype not in UNIT_ROUNDOFF:
        raise ValueError(f"dtype must be None, torch.bfloat16 or torch.float16, got {dtype!r}")
    probe = make_probe(config, layout=layout, max_position=max_position)
    preflight(fn, probe, dtype)
    role_arg = _takes_role(fn)
    answers: dict = {}
    for i, s in enumerate(probe.sets):
        for role in ROLES:
            x = getattr(s, role) if dtype is None else getattr(s, role).to(dtype)
            answers[i, role], error = _answer(fn, role_arg, s, role, x, dtype)
            if error is not None:
                answers.setdefault((i, "stopped_by"), error)
    return judge(probe, answers, dtype=dtype)


def assert_conforms(config, fn, **options) -> Report:
    """verify(config, fn, **options), for a test: raises AssertionError whose message is the verdict table
    (kind, layers, the bug, where it first shows, the public report) when a kind fails; else the report."""
    report = verify(config, fn, **options)
    if not report.ok:
        raise AssertionError(f"{report.model}: the RoPE does not conform\n{report.table()}")
    return report
