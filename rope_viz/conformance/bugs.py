"""The bug classes inference engines have shipped in their RoPE, and each one planted into the reference.

Every candidate is the reference rotation with one known bug applied: a function (x float64 (seq, d),
positions) -> the buggy rotation. `candidates(probe, probe_set)` lists the ones that can occur in a probe
set's kind of layer; verify compares a failing answer with each and names the closest.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

from ..kernels import rope_eager
from .probe import Probe, ProbeSet, Tables, make_probe, measure, original_context, span


@dataclass(frozen=True)
class BugClass:
    """name; what goes wrong; examples: public reports (repository "owner/name", or a project's name where
    the repository is not recorded, and the issue or pull-request number) where it shipped."""

    name: str
    what: str
    examples: tuple = ()

    def links(self) -> tuple[tuple[str, str | None], ...]:
        """(label, url or None) of each public example."""
        return tuple((f"{repo.split('/')[-1]} #{number}",
                      f"https://github.com/{repo}/issues/{number}" if "/" in repo else None)
                     for repo, number in self.examples)


BUG_CLASSES = {bug.name: bug for bug in (
    BugClass("layout", "pairs (2i, 2i+1) and (i, i + r/2) mixed up",
             (("ikawrakow/ik_llama.cpp", 2290), ("NVIDIA-NeMo/Automodel", 2039), ("ml-explore/mlx-lm", 512))),
    BugClass("rotated_dims", "the rotated dims taken at the wrong end of the head, or the wrong rotary_dim "
             "(the whole head, or its frequencies and pairs spread over the head)",
             (("vllm-project/vllm", 43676), ("pie-project/pie", 603))),
    BugClass("base", "another layer kind's base (or the default 10,000) used",
             (("vllm-project/vllm", 29111),)),
    BugClass("scaling", "another layer kind's frequency scaling used, or none, or LongRoPE's long factors used "
             "inside the original context",
             (("ml-explore/mlx-lm", 1189), ("sgl-project/sglang", 34788), ("lablup/mlxcel", 1388))),
    BugClass("yarn_ramp", "YaRN's ramp reversed (the fast pairs interpolated and the slow ones kept), or its ends "
             "rounded to whole pairs where the config says not (truncate), or the reverse",
             (("pytorch/torchtitan", 3787),)),
    BugClass("attention_factor", "the attention factor (YaRN's mscale) lost or applied twice",
             (("turboderp-org/exllamav3", 259), ("xinfer", 329), ("ml-explore/mlx-lm", 1507))),
    BugClass("nope", "a NoPE layer rotated, or a RoPE layer (or only its key) left unrotated",
             (("sgl-project/sglang", 19636), ("mlx-node/mlx-node", 120))),
    BugClass("position_offset", "positions shifted by one, or every decode token at position 0",
             (("Blaizzy/mlx-vlm", 1983),)),
    BugClass("low_precision", "positions, frequencies, angles or cos/sin tables in bfloat16 or float16, or "
             "cos/sin from fast approximations", (("huggingface/candle", 3520), ("kekzl/imp", 1316))),
    BugClass("cache_length", "positions past a cos/sin cache clamped to its end or wrapped around, or YaRN's "
             "tables built for the cache length instead of the original context",
             (("pegainfer-project/pegainfer", 220), ("vllm-project/vllm", 55910), ("gty111/gLLM", 269))),
    BugClass("mrope_sections", "M-RoPE sections blocked where the model interleaves them, the reverse, "
             "or all pairs on the time axis", (("alibaba/MNN", 4133),)),
    BugClass("proportional", "proportional RoPE (Gemma 4) read as ordinary partial rotation",
             (("aws-neuron/neuronx-distributed-inference", 106),)),
)}
LAYOUT_HINT = ("An engine whose loader permutes the checkpoint's q/k rows (as torchtune, Meta's reference code and "
               "llama.cpp's Llama conversion do) is right to pair {layout}: declare it with "
               "verify(..., layout=\"{layout}\") or --layout {layout}.")
LOW_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}


# how each variant of a bug is said (the page says them in the visitor's language from its own text)
VARIANTS = {
    "rotated_like": "rotated like layer {layer}", "rotated_default": "rotated with base 10000",
    "not_rotated": "not rotated", "interleaved": "interleaved", "half": "half", "from_end": "from the end",
    "from_start": "from the start", "whole_head": "whole head", "base": "base {base}", "scaling": "scaling {scaling}",
    "missing": "missing", "twice": "applied twice", "shift": "{shift}", "positions": "positions in {dtype}",
    "frequencies": "frequencies in {dtype}", "angles": "angles in {dtype}", "tables": "cos/sin in {dtype}",
    "clamped": "clamped at {length}", "wrapped": "wrapped at {length}", "blocked": "blocked",
    "time_only": "time axis only", "partial": "read as partial", "rotary_dim": "{rotated} dims rotated",
    "all": "positions, frequencies and angles in {dtype}", "yarn_context": "YaRN built for {length}",
    "reversed": "reversed", "truncated": "ramp ends rounded (truncate true)",
    "untruncated": "ramp ends not rounded (truncate false)", "long_factors": "long factors inside the original context",
}


@dataclass(frozen=True)
class Candidate:
    """One variant of a bug: `variant` (a VARIANTS key) with its `values`, and the buggy rotation; also: a
    second bug the rotation carries as (bug, variant, values), or None."""

    bug: str
    variant: str
    values: dict
    rotate: Callable
    also: tuple | None = None

    @property
    def detail(self) -> str:
        return VARIANTS[self.variant].format(**self.values)

    @property
    def key(self) -> tuple:
        """What names it: (bug, detail), and the second bug's when it carries one."""
        if self.also is None:
            return self.bug, self.detail
        bug, variant, values = self.also
        return self.bug, self.detail, bug, VARIANTS[variant].format(**values)


def rounded(values: torch.Tensor, dtype) -> torch.Tensor:
    return values.to(torch.float32).to(dtype).to(torch.float64)


def turn(layer, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, factor: float) -> torch.Tensor:
    """x (seq, d) float64 with the layer's rotated dims turned by the given (seq, pairs) cos and sin tables."""
    start, width = span(layer)
    turned = rope_eager(x[..., start:start + width], cos, sin, layer.layout) * factor
    return torch.cat((x[..., :start], turned, x[..., start + width:]), dim=-1)


def _by_angles(layer, tables: Tables, angles: Callable) -> Callable:
    """A rotation whose angles are angles(positions) (seq, pairs)."""
    def rotate(x, positions):
        theta = angles(positions)
        return turn(layer, x, theta.cos(), theta.sin(), tables.factor)
    return rotate


def _by_positions(layer, tables: Tables, move: Callable) -> Callable:
    return _by_angles(layer, tables, lambda positions: tables.theta(move(positions)))


def _variant(layer, **changes) -> Callable | None:
    """The reference rotation of `layer` with some fields changed, or None where that layer cannot exist."""
    try:
        changed = dataclasses.replace(layer, **changes)
        changed.rotate(torch.zeros(2, layer.head_dim, dtype=torch.float64), torch.tensor([1, 2]))
    except (ValueError, TypeError, KeyError, IndexError, RuntimeError):
        return None
    return changed.rotate


def _scaled(reference: Callable, layer, factor: float) -> Callable:
    start, width = span(layer)

    def rotate(x, positions):
        out = reference(x, positions).clone()
        out[..., start:start + width] *= factor
        return out
    return rotate


def _other(layout: str) -> str:
    return "interleaved" if layout == "half" else "half"


def _rotary_dims(layer, width: int) -> list[int]:
    """Rotary dims an engine might use instead of the layer's: half the head, twice or half the layer's own
    (the whole head is its own variant)."""
    widths = {layer.head_dim // 2, 2 * width, width // 2}
    return sorted(w for w in widths if w >= 2 and w % 2 == 0 and w < layer.head_dim and w != width)


def _yarn_reversed(layer, tables: Tables) -> Callable | None:
    """YaRN with its ramp reversed: each pair i gets theta_i (1 + 1/s) - omega_i (omega the model's own
    frequency, theta the unscaled one, s the factor): the extrapolated and interpolated ends swapped."""
    if layer.rope_type != "yarn" or layer.mrope_section is not None:
        return None
    scaling = layer.rope_scaling or {}
    plain = measure(dataclasses.replace(layer, rope_scaling=None), 2)
    assert plain is not None  # the layer rotates
    factor = scaling.get("factor") or layer.max_position_embeddings / original_context(layer)
    omega = plain.omega * (1 + 1 / factor) - tables.omega
    return _by_angles(layer, tables, lambda ids: Tables(omega, tables.axis, tables.factor).theta(ids))


YARN_CACHE_LIMIT = 1 << 24  # the longest cache a YaRN table is tried for (16,777,216 positions)


def _yarn_cache_lengths(layer, tables: Tables, largest: int) -> list[tuple[int, Callable]]:
    """YaRN's tables built for a cache length instead of the original context: (length, rotation) for the lengths
    an engine's cache takes (max_position_embeddings, factor times the original, the positions it was called
    with, and every power of two up to YARN_CACHE_LIMIT), one per distinct table: the ramp's ends are whole
    pairs, so many lengths build the same table, and the first of them in that order names it."""
    original = int(original_context(layer) or layer.max_position_embeddings or 1)
    scaling = layer.rope_scaling or {}
    named = [layer.max_position_embeddings, int(scaling.get("factor", 1) * original), largest + 1]
    powers = [1 << k for k in range(original.bit_length(), YARN_CACHE_LIMIT.bit_length())]
    seen = {tables.omega.numpy().tobytes()}
    found: list[tuple[int, Callable]] = []
    for length in dict.fromkeys(n for n in (*named, *powers) if n is not None and n > original):
        built = dataclasses.replace(layer, rope_scaling={**scaling, "original_max_position_embeddings": length})
        rotate, measured = _variant(built), None
        if rotate is not None and (measured := measure(built, largest)) is not None:
            if (key := measured.omega.numpy().tobytes()) not in seen:
                seen.add(key)
                found.append((length, rotate))
    return found


def _single(layer, model_layers: list, largest: int) -> list[Candidate]:
    """Every known bug, one at a time, that can occur in a rotary `layer` called with positions up to
    `largest`."""
    out: list[Candidate] = []

    def add(bug: str, variant: str, rotate: Callable | None, **values):
        if rotate is not None:
            out.append(Candidate(bug, variant, values, rotate))

    tables = measure(layer, largest)
    assert tables is not None  # the layer rotates
    start, width = span(layer)
    add("nope", "not_rotated", lambda x, positions: x)
    if width >= 4:
        add("layout", _other(layer.layout), _variant(layer, layout=_other(layer.layout)))
    if width < layer.head_dim:
        add("rotated_dims", "from_end" if start == 0 else "from_start",
            _variant(layer, rotated_from=layer.head_dim - width if start == 0 else 0))
        if layer.rope_type != "proportional":
            add("rotated_dims", "whole_head", _variant(layer, rotary_dim=layer.head_dim, rotated_from=0))
    if layer.rope_type != "proportional":
        for rotated in _rotary_dims(layer, width):
            add("rotated_dims", "rotary_dim", _variant(layer, rotary_dim=rotated, rotated_from=0 if start == 0
                                                       else layer.head_dim - rotated), rotated=rotated)
    for base in sorted(({other.base for other in model_layers if other.rotary} | {10000.0}) - {layer.base}):
        add("base", "base", _variant(layer, base=base), base=f"{base:,.0f}")
    scalings: dict[str, Mapping | None] = {}
    for other in model_layers:
        if other.rotary and other.rope_scaling != layer.rope_scaling:
            scalings.setdefault(str(dict(other.rope_scaling or {})), other.rope_scaling)
    if layer.rope_scaling is not None and layer.rope_type != "proportional":
        scalings.setdefault("None", None)
    for scaling in scalings.values():
        name = "none" if scaling is None else scaling.get("rope_type", "?")
        add("scaling", "scaling", _variant(layer, rope_scaling=scaling), scaling=name)
    add("yarn_ramp", "reversed", _yarn_reversed(layer, tables))
    if layer.rope_type == "yarn":  # truncate (default true): the ramp's ends rounded to whole pairs, or not
        truncate = (layer.rope_scaling or {}).get("truncate", True)
        add("yarn_ramp", "untruncated" if truncate else "truncated",
            _variant(layer, rope_scaling={**(layer.rope_scaling or {}), "truncate": not truncate}))
    if layer.rope_type == "longrope" and largest < (original_context(layer) or 0):
        scaling = dict(layer.rope_scaling or {})
        add("scaling", "long_factors", _variant(layer, rope_scaling={**scaling, "short_factor": scaling.get(
            "long_factor")}))
    if abs(tables.factor - 1.0) > 1e-6:
        add("attention_factor", "missing", _scaled(layer.rotate, layer, 1.0 / tables.factor))
        add("attention_factor", "twice", _scaled(layer.rotate, layer, tables.factor))
    add("position_offset", "shift", _by_positions(layer, tables, lambda ids: ids + 1), shift="+1")
    add("position_offset", "shift", _by_positions(layer, tables, lambda ids: ids - 1), shift="-1")
    for name, dtype in LOW_DTYPES.items():
        low_omega = Tables(rounded(tables.omega, dtype), tables.axis, 1.0)
        add("low_precision", "positions", _by_positions(layer, tables, lambda ids, d=dtype: rounded(ids, d)),
            dtype=name)
        add("low_precision", "frequencies", _by_angles(layer, tables, low_omega.theta), dtype=name)
        add("low_precision", "angles", _by_angles(
            layer, tables, lambda ids, d=dtype: rounded(tables.theta(ids), d)), dtype=name)

        def tables_low(x, positions, d=dtype):
            theta = tables.theta(positions)
            return turn(layer, x, rounded(theta.cos(), d), rounded(theta.sin(), d), tables.factor)
        add("low_precision", "tables", tables_low, dtype=name)

        def all_low(x, positions, d=dtype, omega=low_omega):  # torch.arange(..., dtype=d) and its outer product
            theta = rounded(omega.theta(rounded(positions, d)), d)
            return turn(layer, x, rounded(theta.cos(), d), rounded(theta.sin(), d), tables.factor)
        add("low_precision", "all", all_low, dtype=name)
    for length in sorted({original_context(layer), layer.max_position_embeddings} - {None}):
        if length <= largest:
            add("cache_length", "clamped", _by_positions(layer, tables, lambda ids, n=length: ids.clamp(max=n - 1)),
                length=f"{length:,}")
            add("cache_length", "wrapped", _by_positions(layer, tables, lambda ids, n=length: ids % n),
                length=f"{length:,}")
    if layer.rope_type == "yarn":
        for length, rotate in _yarn_cache_lengths(layer, tables, largest):
            add("cache_length", "yarn_context", rotate, length=f"{length:,}")
    if layer.mrope_section is not None:
        add("mrope_sections", "blocked" if layer.mrope_interleaved else "interleaved",
            _variant(layer, mrope_interleaved=not layer.mrope_interleaved))
        add("mrope_sections", "time_only", _by_positions(layer, tables, lambda ids: ids[0]))
    if layer.rope_type == "proportional":
        add("proportional", "partial", _variant(layer, rope_type="default", rope_scaling=None))
    return out


def candidates(probe: Probe, probe_set: ProbeSet) -> list[Candidate]:
    """Every known bug that can occur in the kind of layer `probe_set` stands for, as a rotation."""
    layer = probe.kinds[probe_set.kind].layer
    model_layers = [kind.layer for kind in probe.kinds]
    if layer.rotary:
        return _single(layer, model_layers, int(probe_set.positions.max()))
    out: list[Candidate] = []
    for other in model_layers:
        if other.rotary and other.head_dim == layer.head_dim:
            out.append(Candidate("nope", "rotated_like", {"layer": other.index}, other.rotate))
    rotated = _variant(layer, rotary=True, rope_type="default", base=10000.0, rotary_dim=layer.head_dim,
                       rope_scaling=None)
    if rotated is not None and not any(other.rotary for other in model_layers):
        out.append(Candidate("nope", "rotated_default", {}, rotated))
    return out


def pairs_of_bugs(probe: Probe, probe_set: ProbeSet) -> list[Candidate]:
    """Two bugs at once, for a kind no single bug explains: the layout swapped together with any other bug
    (a loader that does not permute the q/k rows it should, plus one more mistake), and the attention
    factor lost together with any other."""
    layer = probe.kinds[probe_set.kind].layer
    if not layer.rotary:
        return []
    model_layers = [kind.layer for kind in probe.kinds]
    largest = int(probe_set.positions.max())
    out: list[Candidate] = []
    swapped = dataclasses.replace(layer, layout=_other(layer.layout))
    if span(layer)[1] >= 4:
        out += [dataclasses.replace(c, also=("layout", swapped.layout, {}))
                for c in _single(swapped, model_layers, largest) if c.bug not in ("layout", "nope")]
    tables = measure(layer, largest)
    assert tables is not None  # the layer rotates
    if abs(tables.factor - 1.0) > 1e-6:
        out += [dataclasses.replace(c, rotate=_scaled(c.rotate, layer, 1.0 / tables.factor),
                                    also=("attention_factor", "missing", {}))
                for c in _single(layer, model_layers, largest) if c.bug not in ("attention_factor", "nope")]
    return out


def applicable(config) -> dict[str, tuple[int, ...]]:
    """Bug class -> the kinds (indices) of `config` where it can occur."""
    probe = make_probe(config)
    found: dict[str, set] = {}
    for probe_set in probe.sets:
        for candidate in candidates(probe, probe_set):
            found.setdefault(candidate.bug, set()).add(probe_set.kind)
    return {bug: tuple(sorted(found[bug])) for bug in BUG_CLASSES if bug in found}


def reference(config) -> Callable:
    """The reference implementation fn(x, positions, layer): LayerRoPE.rotate of that layer."""
    layers = make_probe(config).model.layers

    def fn(x, positions, layer):
        return layers[layer].rotate(x, positions)
    return fn


def planted(config, bug: str, *, only: str | None = None) -> Callable:
    """A reference implementation fn(x, positions, layer, role=...) with `bug` planted into the first kind of
    layer where it can occur (its first variant), in both roles or `only` in one ("query" or "key"); every other
    layer and role rotated exactly as `reference` rotates it."""
    if bug not in BUG_CLASSES:
        raise ValueError(f"bug must be one of {', '.join(map(repr, BUG_CLASSES))}, got {bug!r}")
    probe = make_probe(config)
    found = [(probe_set, c) for probe_set in probe.sets for c in candidates(probe, probe_set) if c.bug == bug]
    if not found:
        raise ValueError(f"bug {bug!r} cannot occur in {probe.model.name} (no layer kind has what it breaks)")
    target = found[0][0].kind
    by_set = {(s.kind, s.segment): c for s, c in found if s.kind == target and c.detail == found[0][1].detail}
    layers = {layer.index: layer for layer in probe.model.layers}
    segment_of: dict[int, list[ProbeSet]] = {}
    for s in probe.sets:
        segment_of.setdefault(s.kind, []).append(s)

    def fn(x, positions, layer, role=None):
        kind = next(k.index for k in probe.kinds if layer in k.layers)
        if kind == target and only in (None, role):
            seg = next((s for s in segment_of[kind] if s.positions.shape == positions.shape
                        and torch.equal(s.positions, positions)), None)
            candidate = by_set.get((kind, seg.segment if seg else "all"))
            if candidate is not None:
                return candidate.rotate(torch.as_tensor(x).to(torch.float64), positions).to(x.dtype)
        return layers[layer].rotate(x, positions)  # the rest exactly as `reference`: the same error as no bug
    return fn
