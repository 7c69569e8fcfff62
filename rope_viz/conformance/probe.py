"""Probe inputs: a model's layers grouped into kinds, and the vectors and positions that test each kind.

Two layers are of the same kind when every field of their LayerRoPE that the rotation reads is equal
(attention type, window and query temperature are not read by the rotation, so layers that differ only
there share a kind). Each kind gets one probe set, or two when its frequencies depend on the longest
position of the call (dynamic NTK, LongRoPE): one within the original context and one over the whole
range. A set holds a query and a key block of float32 rows (seq, head_dim): the unit vector of every
dim at two positions (1 and the largest) (where each pair lands shows the layout and the rotated dims), and three seeded
random rows at each probe position: 0, 1, small ones, around the original context, past 2^16 and around
max_position_embeddings (the cos/sin cache a config implies). M-RoPE kinds get (3, seq) position ids
whose time, height and width differ.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import torch

from .._checks import check_int, check_layout
from ..frequencies import pair_indices
from ..models import LayerRoPE, ModelRoPE, find_preset, model_presets, model_rope
from ..scaling import MAX_CONTEXT

# LayerRoPE fields the rotation does not read: layers differing only there are one kind
NOT_ROTATION_FIELDS = frozenset({"index", "attention", "window", "temperature"})
SMALL_POSITIONS = (0, 1, 2, 3, 5, 8, 13, 100, 257, 1000, 4095, 15962, 65535, 65536, 65537, 100003)
RANDOM_ROWS = 3
MROPE_OFFSETS = ((0, 0, 0), (0, 5, 11), (0, 17, 2))  # (time, height, width) - p, by row
SEED = 20260
ROLES = ("query", "key")


def config_value(config):
    """A config.json path's text (a Path, or a str ending in ".json"), else the value itself."""
    if isinstance(config, Path) or (isinstance(config, str) and config.endswith(".json")
                                    and not config.lstrip().startswith("{")):
        path = Path(config)
        if not path.is_file():
            raise ValueError(f"config {str(config)[:200]!r} names a config.json path that is not a file")
        return path.read_text(encoding="utf-8")
    return config


def load_model(config) -> ModelRoPE:
    """A ModelRoPE from a preset name (or its repository id, see find_preset), a config.json path, a config dict,
    its JSON text, or a ModelRoPE itself."""
    if isinstance(config, ModelRoPE):
        return config
    config = config_value(config)
    if isinstance(config, str) and not config.lstrip().startswith("{"):
        return model_presets()[find_preset(config)]
    return model_rope(config)


def _frozen(value):
    if isinstance(value, Mapping):
        return tuple(sorted((key, _frozen(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(item) for item in value)
    return value


def rotation_key(layer) -> tuple:
    """What the rotation of `layer` reads: every dataclass field but NOT_ROTATION_FIELDS."""
    return tuple((f.name, _frozen(getattr(layer, f.name))) for f in dataclasses.fields(layer)
                 if f.name not in NOT_ROTATION_FIELDS)


@dataclass(frozen=True)
class Kind:
    """Layers that rotate alike: `layer` is the first of them (the one probed)."""

    index: int
    layers: tuple
    layer: LayerRoPE


def kinds(model: ModelRoPE) -> tuple[Kind, ...]:
    groups: dict[tuple, list] = {}
    for layer in model.layers:
        groups.setdefault(rotation_key(layer), []).append(layer)
    return tuple(Kind(i, tuple(layer.index for layer in members), members[0])
                 for i, members in enumerate(groups.values()))


def span(layer) -> tuple[int, int]:
    """(first dim, number of dims) the rotation's pairs cover; a layer that does not rotate is paired over
    its whole head in its layout (so a rotation planted there can be located)."""
    if not layer.rotary:
        return 0, layer.head_dim
    return layer.rotated_from, layer.head_dim if layer.rope_type == "proportional" else layer.rotary_dim


def pairs(layer) -> tuple[torch.Tensor, torch.Tensor]:
    """The head dims (a_j, b_j) of each pair j of `layer` (see span)."""
    start, width = span(layer)
    a, b = pair_indices(width, layer.layout)
    return a + start, b + start


def original_context(layer) -> int | None:
    scaling = layer.rope_scaling or {}
    return scaling.get("original_max_position_embeddings") or layer.max_position_embeddings


def probe_positions(layer, max_position: int | None = None) -> list[int]:
    """The probe positions of a layer: below `max_position` where an engine declares that limit."""
    points = set(SMALL_POSITIONS)
    for edge in {original_context(layer), layer.max_position_embeddings} - {None}:
        points |= {edge - 2, edge - 1, edge, edge + 1, edge + 1000, 2 * edge}
    limit = MAX_CONTEXT - 32 if max_position is None else min(MAX_CONTEXT - 32, max_position - 1)
    return sorted(p for p in points if 0 <= p <= limit)


@dataclass(frozen=True)
class Tables:
    """The rotation of one probe set measured from the layer itself: per row the probe position, per pair
    its frequency (float64, the angle at position 1 in a call that reaches the set's largest position), the
    position axis it follows (0 for 1-D RoPE; time, height, width for M-RoPE) and the attention factor."""

    omega: torch.Tensor
    axis: torch.Tensor
    factor: float

    def theta(self, ids: torch.Tensor) -> torch.Tensor:
        """(seq, pairs) float64 unwrapped angles for (seq,) or (3, seq) ids (any float dtype)."""
        ids = ids.to(torch.float64)
        if ids.dim() == 1:
            return ids[:, None] * self.omega
        return ids[self.axis].T * self.omega


def measure(layer, largest: int) -> Tables | None:
    """Tables of a rotary layer in a call whose largest position is `largest`; None where it does not rotate."""
    if not layer.rotary:
        return None
    a, b = pairs(layer)
    mrope = layer.mrope_section is not None
    if mrope:
        ids = torch.tensor([[1, 0, 0, largest], [0, 1, 0, largest], [0, 0, 1, largest]])
    else:
        ids = torch.tensor([1, largest])
    x = torch.zeros(ids.shape[-1], layer.head_dim, dtype=torch.float64)
    x[:, a] = 1.0
    out = layer.rotate(x, ids)
    angle = torch.atan2(out[:, b], out[:, a])
    factor = float(torch.hypot(out[0, a[0]], out[0, b[0]]))
    if not mrope:
        return Tables(angle[0], torch.zeros(len(a), dtype=torch.long), factor)
    axis = angle[:3].abs().argmax(dim=0)
    return Tables(angle[axis, torch.arange(len(a))], axis, factor)


def depends_on_length(layer, short: int, longest: int) -> bool:
    """Whether a rotary layer's frequencies in a call whose largest position is `short` (a position inside the
    original context, whose call is of length short + 1) differ from those of a call reaching `longest`."""
    inside, whole = measure(layer, short), measure(layer, longest)
    assert inside is not None and whole is not None  # the layer rotates
    return not torch.equal(inside.omega, whole.omega)


@dataclass(frozen=True)
class ProbeSet:
    """One call of the implementation: kind, segment ("all" or "short"), the layer index it is run for,
    positions ((seq,) or (3, seq) int64), query and key (seq, head_dim) float32, and per row its probe
    position (the time id for M-RoPE)."""

    kind: int
    layers: tuple
    layer: int
    segment: str
    positions: torch.Tensor
    query: torch.Tensor
    key: torch.Tensor
    row_positions: torch.Tensor


@dataclass(frozen=True)
class Probe:
    """A model's kinds and probe sets; layout and max_position: what the engine declared (None: the
    model's own layout, positions up to twice the cache a config implies)."""

    model: ModelRoPE
    kinds: tuple
    sets: tuple
    layout: str | None = None
    max_position: int | None = None


def declare_layout(model: ModelRoPE, layout: str) -> ModelRoPE:
    """The model as an engine sees it after permuting the q/k rows of the checkpoint on load: every layer
    pairs its rotated dims in `layout`. The attention scores are the same (the permutation moves the pairs
    of both q and k alike), so the engine is right to rotate in that layout."""
    layers = tuple(dataclasses.replace(layer, layout=layout) for layer in model.layers)
    return dataclasses.replace(model, layout=layout, layers=layers)


def _rows(layer, points: list[int], generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """(row positions, random rows) for one role: RANDOM_ROWS per point, then every unit vector at 2 points."""
    d = layer.head_dim
    rows = torch.tensor(points).repeat_interleave(RANDOM_ROWS)
    randoms = torch.randn(len(rows), d, generator=generator, dtype=torch.float64)
    basis_points = sorted({points[min(1, len(points) - 1)], points[-1]})
    basis = torch.tensor(basis_points).repeat_interleave(d)
    units = torch.eye(d, dtype=torch.float64).repeat(len(basis_points), 1)
    return torch.cat((rows, basis)), torch.cat((randoms, units)).to(torch.float32)


def _ids(layer, rows: torch.Tensor) -> torch.Tensor:
    if layer.mrope_section is None:
        return rows.clone()
    offsets = torch.tensor(MROPE_OFFSETS).T[:, torch.arange(len(rows)) % len(MROPE_OFFSETS)]
    return rows[None, :] + offsets


def make_probe(config, *, layout: str | None = None, max_position: int | None = None) -> Probe:
    """The probe of a model (preset name, config dict or JSON text; a Probe is returned as it is): its kinds
    and probe sets. layout: the engine's own pair layout ("half" or "interleaved") when its loader permutes
    the checkpoint's q/k rows (None: the model's); max_position: the engine's declared limit (positions
    from it on are not probed; None: up to twice the cache a config implies)."""
    if layout is not None:
        layout = check_layout(layout)
    if max_position is not None:
        max_position = check_int(max_position, "max_position", minimum=2)
    if isinstance(config, Probe):
        if (layout, max_position) not in ((None, None), (config.layout, config.max_position)):
            raise ValueError(f"layout={layout!r} and max_position={max_position!r} apply to a config, not to a "
                             f"probe made with layout={config.layout!r}, max_position={config.max_position!r}")
        return config
    model = load_model(config)
    if layout is not None:
        model = declare_layout(model, layout)
    groups = kinds(model)
    sets: list[ProbeSet] = []
    for kind in groups:
        layer = kind.layer
        points = probe_positions(layer, max_position)
        segments = [("all", points)]
        short = [p for p in points if p < (original_context(layer) or 0)]
        if layer.rotary and short and depends_on_length(layer, short[-1], points[-1]):
            segments.insert(0, ("short", short))
        for segment, seg_points in segments:
            generator = torch.Generator().manual_seed(SEED + 7919 * kind.index + len(sets))
            rows, query = _rows(layer, seg_points, generator)
            _, key = _rows(layer, seg_points, generator)
            sets.append(ProbeSet(kind.index, kind.layers, layer.index, segment, _ids(layer, rows), query, key, rows))
    return Probe(model, groups, tuple(sets), layout, max_position)
