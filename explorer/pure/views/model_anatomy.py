"""The model-anatomy page's view: one to three models (presets or a pasted config.json) read layer by layer
by rope_viz.models, as plain values: a strip of the layers, a one-line summary, each kind of layer's
wavelengths, the query temperature, latent attention's cache and the traps, each stated with its numbers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from rope_viz import LayerRoPE, ModelRoPE, apply_rope, model_rope, preset
from rope_viz.models import ATTENTION_KINDS

from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.questions import Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("strip", "wavelengths", "temperature")

NONE = "none"  # the empty choice of the second and third model menus
MAX_MODELS = 3
TEMPERATURE_POINTS = 256
LAYOUT_OFFSET = 1000  # the distance at which the layout trap is measured
LAYOUT_SAMPLES = 64
BLOCKS_SEEN = (2, 3, 5)  # the compressed-key chart's queries see 2, 3 and 5 complete blocks
SHIFTS = (1, 1000, 100_000)  # how far every position moves in the de-rotation check


class Pasted(NamedTuple):
    """A pasted config read: its model when it holds a valid one, else None; refused: the core's reason
    when it was refused, else None (both None when nothing is pasted)."""
    model: ModelRoPE | None
    refused: str | None


def read_config(config_text: str) -> Pasted:
    """The pasted config's model, or why it was refused."""
    if not config_text.strip():
        return Pasted(None, None)
    try:
        return Pasted(model_rope(config_text), None)
    except ValueError as err:
        return Pasted(None, str(err))
    except (ArithmeticError, RecursionError) as err:
        return Pasted(None, type(err).__name__)


def pasted_shown(config_text: str) -> bool:
    """Whether a pasted config is shown (it takes one of the MAX_MODELS places)."""
    return read_config(config_text).model is not None


def presets_shown(names: tuple[str, ...], pasted: bool) -> tuple[str, ...]:
    """The chosen presets that are shown, in menu order: "none" and repeats skipped, and no more than the
    places a shown paste leaves (MAX_MODELS in all)."""
    kept: list[str] = []
    for name in names:
        if name != NONE and name not in kept and len(kept) + pasted < MAX_MODELS:
            kept.append(name)
    return tuple(kept)


class Shown(NamedTuple):
    """A model the page shows, and whether it is the pasted config (else a preset)."""
    model: ModelRoPE
    pasted: bool


@dataclass(frozen=True)
class Chosen:
    """The models to show, in order; refused: the core's reason a paste was refused, else None; dropped: the
    chosen presets left out for want of a place, in menu order."""
    models: list[Shown]
    refused: str | None
    dropped: tuple[str, ...]


def choose(names: tuple[str, ...], config_text: str) -> Chosen:
    """The models to show: a pasted config first (when `config_text` holds one), then the presets
    `presets_shown` keeps."""
    pasted, refused = read_config(config_text)
    kept = presets_shown(names, pasted is not None)
    dropped = tuple(dict.fromkeys(name for name in names if name != NONE and name not in kept))
    models = [Shown(pasted, True)] if pasted is not None else []
    return Chosen(models + [Shown(preset(name), False) for name in kept], refused, dropped)


def _label(model: ModelRoPE, pasted: bool) -> Phrase:
    return phrase("model_anatomy.pasted_label", model_type=model.model_type or "?") if pasted else \
        phrase("model_anatomy.preset_label", name=model.name)


def summary(model: ModelRoPE) -> tuple[Phrase, ...]:
    """The layers grouped by kind (attention, RoPE or not, base, window, query temperature) in order of
    first appearance, each group a Phrase with its count."""
    groups: dict[tuple, int] = {}
    for layer in model.layers:
        key = (layer.attention, layer.rotary, layer.base, layer.window, layer.temperature is not None,
               layer.rotary_dim)
        groups[key] = groups.get(key, 0) + 1
    parts = []
    for (attention, rotary, base, window, temperature, rotary_dim), count in groups.items():
        kind = phrase(f"model_anatomy.kind_{attention}") if window is None else \
            phrase(f"model_anatomy.kind_{attention}_window", window=f"{window:,}")
        rope = phrase("model_anatomy.rope_group", base=f"{base:,.0f}", rotary_dim=rotary_dim) if rotary else \
            phrase("model_anatomy.nope_group")
        said = "model_anatomy.group_temperature" if temperature else "model_anatomy.group"
        parts.append(phrase(said, count=count, kind=kind, rope=rope))
    return tuple(parts)


def learned(model: ModelRoPE) -> Phrase | None:
    """The parts of the model's position handling a checkpoint learns (LayerRoPE.learned, in order of first
    appearance), as one sentence; None where the config gives them all."""
    parts = dict.fromkeys(part for layer in model.layers for part in layer.learned)
    if not parts:
        return None
    return phrase("model_anatomy.learned", parts=tuple(phrase(f"model_anatomy.learned_{part}") for part in parts))


@dataclass(frozen=True)
class LayerStrip:
    """Per model and layer, as (models, most layers) matrices: `kinds`, the layer's attention kind ("" past a
    model's last layer); `bases`, its RoPE base, and `dims`, its rotated dims (0 where it rotates nothing,
    NaN past the last layer; float32). `kind_order`: every kind known to rope_viz.models, then any other kind
    met, in a fixed order (a kind keeps its colour from model to model); `base_values`, `dim_values`: the
    distinct bases and rotated dims met, smallest first; `layers`: the layer indices (float32)."""
    kinds: np.ndarray
    bases: np.ndarray
    dims: np.ndarray
    kind_order: tuple[str, ...]
    base_values: list[float]
    dim_values: list[int]
    layers: np.ndarray


def strip(models: list[Shown]) -> LayerStrip:
    """The layer strip of the shown models."""
    width = max(len(model.layers) for model, _ in models)
    kinds = np.full((len(models), width), "", dtype=object)
    bases, dims = (np.full((len(models), width), np.nan, dtype=np.float32) for _ in range(2))
    for row, (model, _) in enumerate(models):
        for layer in model.layers:
            kinds[row, layer.index] = layer.attention
            bases[row, layer.index] = layer.base if layer.rotary else 0.0
            dims[row, layer.index] = layer.rotary_dim if layer.rotary else 0
    met = [kind for kind in dict.fromkeys(kinds.ravel()) if kind and kind not in ATTENTION_KINDS]
    return LayerStrip(kinds=kinds, bases=bases, dims=dims, kind_order=(*ATTENTION_KINDS, *met),
                      base_values=sorted({float(v) for v in bases.ravel() if v > 0}),
                      dim_values=sorted({int(v) for v in dims.ravel() if v > 0}),
                      layers=np.arange(width, dtype=np.float32))


@dataclass(frozen=True)
class LayerKind:
    """One kind of rotary layer: its settings (the first such layer's), `count` layers of it, and each pair's
    wavelength 2 pi / theta_j over the whole head (float32, NaN for pairs that do not turn), its longest and
    shortest."""
    attention: str
    window: int | None
    base: float | None
    head_dim: int
    rotary_dim: int
    rope_type: str | None
    layout: str
    attention_factor: float
    count: int
    wavelength: np.ndarray
    longest: float
    shortest: float


def layer_kinds(model: ModelRoPE) -> list[LayerKind]:
    """One entry per distinct rotary layer kind, in order of first appearance."""
    first: dict[tuple, LayerRoPE] = {}
    count: dict[tuple, int] = {}
    for layer in model.layers:
        if layer.rotary:
            key = (layer.attention, layer.base, layer.head_dim, layer.rotary_dim, layer.rope_type)
            first.setdefault(key, layer)
            count[key] = count.get(key, 0) + 1
    kinds = []
    for key, layer in first.items():
        inv_freq, attention_factor = layer.inv_freq()
        wavelength = np.full(layer.head_dim // 2, np.nan, dtype=np.float32)
        turning = inv_freq.numpy()
        with np.errstate(divide="ignore"):
            wavelength[:len(turning)] = np.where(turning > 0, 2 * math.pi / np.where(turning > 0, turning, 1), np.nan)
        kinds.append(LayerKind(attention=layer.attention, window=layer.window, base=layer.base,
                               head_dim=layer.head_dim, rotary_dim=layer.rotary_dim, rope_type=layer.rope_type,
                               layout=layer.layout, attention_factor=attention_factor, count=count[key],
                               wavelength=wavelength, longest=float(np.nanmax(wavelength)),
                               shortest=float(np.nanmin(wavelength))))
    return kinds


class QueryScale(NamedTuple):
    """A query temperature curve: the scale (float32) at integer positions (float32, for drawing)."""
    positions: np.ndarray
    scale: np.ndarray


def temperature(model: ModelRoPE, context: int) -> QueryScale | None:
    """The query scale at TEMPERATURE_POINTS positions from 0 to `context`, for the first layer that has
    one; None when no layer scales its queries."""
    layer = next((layer for layer in model.layers if layer.temperature is not None), None)
    if layer is None:
        return None
    positions = np.unique(np.linspace(0, context, TEMPERATURE_POINTS).astype(np.int64))
    return QueryScale(positions.astype(np.float32), layer.query_scale(positions).numpy().astype(np.float32))


def latent(model: ModelRoPE) -> list[Metric] | None:
    """Latent attention's numbers as Metrics: rotated dims, numbers cached per token and layer against full
    keys and values, and the softmax scale."""
    mla = model.latent
    if mla is None:
        return None
    saving = mla.uncompressed_per_token / mla.cached_per_token
    head = mla.qk_nope_head_dim + mla.qk_rope_head_dim
    return [metric("model_anatomy.mla_rotated", f"{mla.qk_rope_head_dim} / {head}"),
            metric("model_anatomy.mla_cached", f"{mla.cached_per_token:,}",
                   phrase("model_anatomy.mla_cached_help", rank=mla.kv_lora_rank, rope=mla.qk_rope_head_dim)),
            metric("model_anatomy.mla_full", f"{mla.uncompressed_per_token:,}"),
            metric("model_anatomy.mla_saving", f"{saving:.1f}x"),
            metric("model_anatomy.mla_scale", f"{mla.softmax_scale:.5f}",
                   phrase("model_anatomy.mla_scale_help", plain=f"{head ** -0.5:.5f}"))]


@dataclass(frozen=True)
class LayoutTrap:
    """The model's layout, the other one, and the scores' mean relative error when read in the other layout,
    at offset 0 and at LAYOUT_OFFSET."""
    layout: str
    other: str
    at_zero: float
    at_offset: float


def layout_trap(model: ModelRoPE, seed: int = 0) -> LayoutTrap:
    """How far the scores of random queries and keys move when the model's pairs are read in the other
    layout (weights converted for the wrong one): the mean |q.k - q'.k'| / mean |q.k| at offsets 0 and
    LAYOUT_OFFSET, with the reference layer's base and rotary size."""
    base = model.base
    if base is None:
        raise ValueError(f"model must have a rotary layer for the layout trap; {model.name!r} has none")
    gen = torch.Generator().manual_seed(seed)
    dim = model.rotary_dim
    q = torch.randn(LAYOUT_SAMPLES, 1, dim, generator=gen, dtype=torch.float64)
    k = torch.randn(LAYOUT_SAMPLES, 1, dim, generator=gen, dtype=torch.float64)
    other = "half" if model.layout == "interleaved" else "interleaved"
    errors = {}
    for offset in (0, LAYOUT_OFFSET):
        right = (apply_rope(q, [offset], base=base, layout=model.layout)
                 * apply_rope(k, [0], base=base, layout=model.layout)).sum(-1)
        wrong = (apply_rope(q, [offset], base=base, layout=other)
                 * apply_rope(k, [0], base=base, layout=other)).sum(-1)
        errors[offset] = float((right - wrong).abs().mean() / right.abs().mean())
    return LayoutTrap(layout=model.layout, other=other, at_zero=errors[0], at_offset=errors[LAYOUT_OFFSET])


def traps(model: ModelRoPE) -> tuple[Phrase, ...]:
    """The traps this model sets, each with its numbers."""
    if not model.has_rope:
        if any("relative_position_bias" in layer.learned for layer in model.layers):  # Inkling
            variant = "_bias"
        elif any(layer.attention == "linear_attention" for layer in model.layers):  # Nemotron-H, Kimi Linear
            variant = "_recurrent"
        else:  # BERT, GPT-2 and their kin
            variant = ""
        return (phrase(f"model_anatomy.trap_no_rope{variant}", layers=len(model.layers)),)
    out = []
    nope = sum(not layer.rotary and layer.attention != "linear_attention" for layer in model.layers)
    if nope:
        out.append(phrase("model_anatomy.trap_no_rope_layers", nope=nope, rope=len(model.layers) - nope
                          - sum(layer.attention == "linear_attention" for layer in model.layers)))
    linear = sum(layer.attention == "linear_attention" for layer in model.layers)
    if linear:
        out.append(phrase("model_anatomy.trap_linear", linear=linear, total=len(model.layers)))
    trap = layout_trap(model)
    out.append(phrase(f"model_anatomy.trap_layout_{trap.layout}", error=f"{trap.at_offset:.0%}",
                      zero=f"{trap.at_zero:.1g}", offset=f"{LAYOUT_OFFSET:,}"))
    if model.rotary_dim < model.head_dim and model.latent is None:
        ref = model.reference_layer
        key = "trap_proportional" if ref.rope_type == "proportional" else "trap_partial"
        out.append(phrase(f"model_anatomy.{key}", rotary_dim=model.rotary_dim, head_dim=model.head_dim))
    bases = sorted({layer.base for layer in model.layers if layer.rotary})
    if len(bases) > 1:
        out.append(phrase("model_anatomy.trap_bases", low=f"{bases[0]:,.0f}", high=f"{bases[-1]:,.0f}"))
    return tuple(out)


def _listed(values) -> str:
    return ", ".join(f"{int(v):,}" for v in values)


@dataclass(frozen=True)
class CompressedRow:
    """One query (its position) and the blocks of tokens pooled into the compressed keys it sees: `starts`
    (first positions, where each key is rotated), `stops` (one past the last), `offsets` (query - start, the
    offset the score sees), and a line saying so."""
    query: int
    starts: np.ndarray
    stops: np.ndarray
    offsets: np.ndarray
    line: Phrase


@dataclass(frozen=True)
class CompressedKind:
    """A rate of compression (its first layer's attention kind and base) and a few queries' rows."""
    attention: str
    rate: int
    base: float
    rows: list[CompressedRow]


def compressed_keys(model: ModelRoPE, number: Phrase) -> list[CompressedKind] | None:
    """Per rate of compression (first layer of each): a few queries, each with the blocks of tokens pooled
    into the compressed keys it sees (the model named by `number`); None where no layer compresses its keys."""
    layers = {layer.compress: layer for layer in reversed(model.layers) if layer.compress is not None}
    if not layers:
        return None
    out = []
    for rate, layer in sorted(layers.items()):
        rows = []
        for blocks in BLOCKS_SEEN:
            query = blocks * rate + 1  # in the next block, still open
            starts = layer.compressed_positions(query).numpy()
            rows.append(CompressedRow(query=query, starts=starts, stops=starts + rate, offsets=query - starts,
                                      line=phrase("model_anatomy.compressed_row", name=number,
                                                  kind=phrase(f"model_anatomy.kind_{layer.attention}"), query=query,
                                                  starts=_listed(starts), offsets=_listed(query - starts))))
        out.append(CompressedKind(attention=layer.attention, rate=rate, base=layer.base, rows=rows))
    return out


@dataclass(frozen=True)
class Derotation:
    """A kind of layer that turns its attention output back (its first layer's base), the query's position,
    the keys' positions, and how far the output moves at each of SHIFTS with rotate_output (`derotated`) and
    without it (`not_derotated`)."""
    attention: str
    base: float
    query: int
    keys: np.ndarray
    derotated: list[float]
    not_derotated: list[float]


def derotation(model: ModelRoPE, seed: int = 0) -> list[Derotation] | None:
    """Per kind of layer that turns its attention output back (first layer of each): one query's output where
    keys and values are one tensor, with and without rotate_output, and how far it moves when every position
    shifts by each of SHIFTS: max |out(m + k) - out(m)| / max |out(m)|, float64. The keys are the compressed
    ones the query sees (compressed layers) or the 8 tokens up to the query (sliding ones)."""
    layers = {layer.attention: layer for layer in reversed(model.layers) if layer.output_rotation}
    if not layers:
        return None
    gen = torch.Generator().manual_seed(seed)
    out = []
    for attention, layer in sorted(layers.items(), key=lambda item: item[1].index):
        query = 3 * (layer.compress or 4) + 2
        keys = layer.compressed_positions(query) if layer.compress else torch.arange(query - 7, query + 1)
        q = torch.randn(layer.head_dim, generator=gen, dtype=torch.float64)
        kv = torch.randn(len(keys), layer.head_dim, generator=gen, dtype=torch.float64)
        moved = {}
        for derotate in (True, False):
            at = layer.shared_output(q, kv, query, keys, derotate=derotate)
            moved[derotate] = [
                float((layer.shared_output(q, kv, query + k, keys + k, derotate=derotate) - at).abs().max()
                      / at.abs().max()) for k in SHIFTS]
        out.append(Derotation(attention=attention, base=layer.base, query=query, keys=keys.numpy(),
                              derotated=moved[True], not_derotated=moved[False]))
    return out


def derotation_columns(rows: list[Derotation]) -> dict[str, list]:
    """derotation's rows as a table: header text key -> cells, two rows (with, without) per kind of layer."""
    columns: dict[str, list] = {f"model_anatomy.{head}": []
                                for head in ("derotation_kind", "derotation_keys", "derotation_mode")}
    columns.update({f"model_anatomy.derotation_shift_{k}": [] for k in SHIFTS})
    for row in rows:
        for mode, moved in (("with", row.derotated), ("without", row.not_derotated)):
            cells = [phrase(f"model_anatomy.kind_{row.attention}"),
                     phrase("model_anatomy.derotation_positions", query=row.query, keys=_listed(row.keys)),
                     phrase(f"model_anatomy.derotation_{mode}")] + [f"{value:.1e}" for value in moved]
            for column, cell in zip(columns.values(), cells):
                column.append(cell)
    return columns


def _kind_label(number: Phrase, kind: LayerKind) -> Phrase:
    where = phrase(f"model_anatomy.kind_{kind.attention}")
    return phrase("model_anatomy.kind_series", model=number, kind=where, base=f"{kind.base:,.0f}",
                  rotary_dim=kind.rotary_dim, head_dim=kind.head_dim)


class Series(NamedTuple):
    """One line of a chart: its legend (a Phrase) and its values (float32)."""
    label: Phrase
    values: np.ndarray


@dataclass(frozen=True)
class WavelengthChart:
    """Pair index 0 .. (largest head)/2 - 1 (float32), one padded series per model and kind of rotary layer
    (NaN past the head and for pairs that do not turn), and the context as a flat line."""
    pairs: np.ndarray
    series: list[Series]
    context: np.ndarray


@dataclass(frozen=True)
class TemperatureChart:
    """The positions of the query temperature curves and one series per model that has one."""
    positions: np.ndarray
    series: list[Series]


@dataclass(frozen=True)
class ModelReading:
    """One shown model: its label and number (charts name models by number: legends stay short and in the
    visitor's language), whether it is the paste, its layer count, summary line, the parts a checkpoint
    learns, whether its model_type is one the project has not checked (read as transformers' generic code),
    its kinds of layers, latent-attention metrics, traps, max_position_embeddings, compressed keys and
    output de-rotation (None where it has none)."""
    label: Phrase
    number: Phrase
    pasted: bool
    layers: int
    summary: Phrase
    learned: Phrase | None
    unchecked: bool
    kinds: list[LayerKind]
    latent: list[Metric] | None
    traps: tuple[Phrase, ...]
    context: int | None
    compressed: list[CompressedKind] | None
    derotation: list[Derotation] | None


@dataclass(frozen=True)
class Anatomy:
    """Everything the page draws: the reason a paste was refused (None when nothing was), the presets a
    paste left out, each shown model's reading, and the layer strip (None when no model is shown),
    wavelength and temperature charts (None when no model scales its queries) of all of them."""
    refused: str | None
    dropped: tuple[str, ...]
    models: list[ModelReading]
    strip: LayerStrip | None
    wavelengths: WavelengthChart
    temperature: TemperatureChart | None


def wavelengths(models: list[ModelReading], context: int) -> WavelengthChart:
    """The wavelength chart of every model's kinds of rotary layer at `context`."""
    kinds = [(model.number, kind) for model in models for kind in model.kinds]
    half = max((kind.head_dim // 2 for _, kind in kinds), default=1)
    series = []
    for label, kind in kinds:
        padded = np.full(half, np.nan, dtype=np.float32)
        padded[:len(kind.wavelength)] = kind.wavelength
        series.append(Series(_kind_label(label, kind), padded))
    return WavelengthChart(pairs=np.arange(half, dtype=np.float32), series=series,
                           context=np.full(half, context, dtype=np.float32))


def anatomy(names: tuple[str, ...], config_text: str, context: int) -> Anatomy:
    """Everything the page draws for the chosen presets and pasted config, at `context`."""
    chosen = choose(names, config_text)
    models = chosen.models
    readings, curves = [], []
    for index, (model, pasted) in enumerate(models):
        label, number = _label(model, pasted), phrase("model_anatomy.model_number", number=index + 1)
        line = phrase("model_anatomy.summary_line", number=number, name=label, layers=len(model.layers),
                      groups=summary(model))
        readings.append(ModelReading(label=label, number=number, pasted=pasted, layers=len(model.layers),
                                     summary=line, learned=learned(model), unchecked=model.family is None,
                                     kinds=layer_kinds(model), latent=latent(model), traps=traps(model),
                                     context=model.max_position_embeddings,
                                     compressed=compressed_keys(model, number), derotation=derotation(model)))
        curve = temperature(model, context)
        if curve is not None:
            curves.append((number, curve))
    temperatures = None if not curves else TemperatureChart(
        positions=curves[0][1].positions, series=[Series(label, curve.scale) for label, curve in curves])
    return Anatomy(refused=chosen.refused, dropped=chosen.dropped, models=readings,
                   strip=strip(models) if models else None, wavelengths=wavelengths(readings, context),
                   temperature=temperatures)


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("no_rope_layers"), Question("layout"), Question("latent_key"))
