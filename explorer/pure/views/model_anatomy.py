"""The model-anatomy page's view: one to three models (presets or a pasted config.json) read layer by layer
by rope_viz.models, as plain values: a strip of the layers, a one-line summary, each kind of layer's
wavelengths, the query temperature, latent attention's cache and the traps, each stated with its numbers."""

from __future__ import annotations

import math

import numpy as np
import torch

from rope_viz import ModelRoPE, apply_rope, model_rope, preset
from rope_viz.models import ATTENTION_KINDS

from explorer.pure.views.phrases import Phrase, metric, phrase
from explorer.pure.questions import Question

NONE = "none"  # the empty choice of the second and third model menus
MAX_MODELS = 3
TEMPERATURE_POINTS = 256
LAYOUT_OFFSET = 1000  # the distance at which the layout trap is measured
LAYOUT_SAMPLES = 64
BLOCKS_SEEN = (2, 3, 5)  # the compressed-key chart's queries see 2, 3 and 5 complete blocks
SHIFTS = (1, 1000, 100_000)  # how far every position moves in the de-rotation check


def read_config(config_text: str) -> tuple[ModelRoPE | None, str | None]:
    """(the pasted config's model, None) when `config_text` holds a valid one; (None, the core's reason) when
    it was refused; (None, None) when nothing is pasted."""
    if not config_text.strip():
        return None, None
    try:
        return model_rope(config_text), None
    except ValueError as err:
        return None, str(err)
    except (ArithmeticError, RecursionError) as err:
        return None, type(err).__name__


def pasted_shown(config_text: str) -> bool:
    """Whether a pasted config is shown (it takes one of the MAX_MODELS places)."""
    return read_config(config_text)[0] is not None


def presets_shown(names: tuple[str, ...], pasted: bool) -> tuple[str, ...]:
    """The chosen presets that are shown, in menu order: "none" and repeats skipped, and no more than the
    places a shown paste leaves (MAX_MODELS in all)."""
    kept: list[str] = []
    for name in names:
        if name != NONE and name not in kept and len(kept) + pasted < MAX_MODELS:
            kept.append(name)
    return tuple(kept)


def choose(names: tuple[str, ...], config_text: str) -> dict:
    """The models to show: a pasted config first (when `config_text` holds one), then the presets
    `presets_shown` keeps. refused: the core's reason a paste was refused, else None; dropped: the chosen
    presets left out for want of a place, in menu order."""
    pasted, refused = read_config(config_text)
    kept = presets_shown(names, pasted is not None)
    dropped = tuple(dict.fromkeys(name for name in names if name != NONE and name not in kept))
    models = [(pasted, True)] * (pasted is not None) + [(preset(name), False) for name in kept]
    return {"models": models, "refused": refused, "dropped": dropped}


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
        key = "model_anatomy.group_temperature" if temperature else "model_anatomy.group"
        parts.append(phrase(key, count=count, kind=kind, rope=rope))
    return tuple(parts)


def learned(model: ModelRoPE) -> Phrase | None:
    """The parts of the model's position handling a checkpoint learns (LayerRoPE.learned, in order of first
    appearance), as one sentence; None where the config gives them all."""
    parts = dict.fromkeys(part for layer in model.layers for part in layer.learned)
    if not parts:
        return None
    return phrase("model_anatomy.learned", parts=tuple(phrase(f"model_anatomy.learned_{part}") for part in parts))


def strip(models: list[tuple[ModelRoPE, bool]]) -> dict:
    """Per model and layer, as (models, most layers) matrices: `kinds`, the layer's attention kind ("" past a
    model's last layer); `bases`, its RoPE base, and `dims`, its rotated dims (0 where it rotates nothing,
    NaN past the last layer; float32). `kind_order`: every kind known to rope_viz.models, then any other kind
    met, in a fixed order (a kind keeps its colour from model to model); `base_values`, `dim_values`: the
    distinct bases and rotated dims met, smallest first."""
    width = max(len(model.layers) for model, _ in models)
    kinds = np.full((len(models), width), "", dtype=object)
    bases, dims = (np.full((len(models), width), np.nan, dtype=np.float32) for _ in range(2))
    for row, (model, _) in enumerate(models):
        for layer in model.layers:
            kinds[row, layer.index] = layer.attention
            bases[row, layer.index] = layer.base if layer.rotary else 0.0
            dims[row, layer.index] = layer.rotary_dim if layer.rotary else 0
    met = [kind for kind in dict.fromkeys(kinds.ravel()) if kind and kind not in ATTENTION_KINDS]
    return {"kinds": kinds, "bases": bases, "dims": dims, "kind_order": (*ATTENTION_KINDS, *met),
            "base_values": sorted({float(v) for v in bases.ravel() if v > 0}),
            "dim_values": sorted({int(v) for v in dims.ravel() if v > 0}),
            "layers": np.arange(width, dtype=np.float32)}


def layer_kinds(model: ModelRoPE) -> list[dict]:
    """One entry per distinct rotary layer kind: its settings, how many layers, and each pair's wavelength
    2 pi / theta_j over the whole head (NaN for pairs that do not turn)."""
    kinds: dict[tuple, dict] = {}
    for layer in model.layers:
        if not layer.rotary:
            continue
        key = (layer.attention, layer.base, layer.head_dim, layer.rotary_dim, layer.rope_type)
        if key in kinds:
            kinds[key]["count"] += 1
            continue
        inv_freq, attention_factor = layer.inv_freq()
        wavelength = np.full(layer.head_dim // 2, np.nan, dtype=np.float32)
        turning = inv_freq.numpy()
        with np.errstate(divide="ignore"):
            wavelength[:len(turning)] = np.where(turning > 0, 2 * math.pi / np.where(turning > 0, turning, 1), np.nan)
        kinds[key] = {"attention": layer.attention, "window": layer.window, "base": layer.base,
                      "head_dim": layer.head_dim, "rotary_dim": layer.rotary_dim, "rope_type": layer.rope_type,
                      "layout": layer.layout, "attention_factor": attention_factor, "count": 1,
                      "wavelength": wavelength,
                      "longest": float(np.nanmax(wavelength)), "shortest": float(np.nanmin(wavelength))}
    return list(kinds.values())


def temperature(model: ModelRoPE, context: int) -> np.ndarray | None:
    """The query scale at TEMPERATURE_POINTS positions from 0 to `context` (float32), for the first layer
    that has one; None when no layer scales its queries."""
    layer = next((layer for layer in model.layers if layer.temperature is not None), None)
    if layer is None:
        return None
    positions = np.unique(np.linspace(0, context, TEMPERATURE_POINTS).astype(np.int64))
    return np.stack([positions, layer.query_scale(positions).numpy()]).astype(np.float32)


def latent(model: ModelRoPE) -> list | None:
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


def layout_trap(model: ModelRoPE, seed: int = 0) -> dict:
    """How far the scores of random queries and keys move when the model's pairs are read in the other
    layout (weights converted for the wrong one): the mean |q.k - q'.k'| / mean |q.k| at offsets 0 and
    LAYOUT_OFFSET, with the reference layer's base and rotary size."""
    gen = torch.Generator().manual_seed(seed)
    dim = model.rotary_dim
    q = torch.randn(LAYOUT_SAMPLES, 1, dim, generator=gen, dtype=torch.float64)
    k = torch.randn(LAYOUT_SAMPLES, 1, dim, generator=gen, dtype=torch.float64)
    other = "half" if model.layout == "interleaved" else "interleaved"
    errors = {}
    for offset in (0, LAYOUT_OFFSET):
        right = (apply_rope(q, [offset], base=model.base, layout=model.layout)
                 * apply_rope(k, [0], base=model.base, layout=model.layout)).sum(-1)
        wrong = (apply_rope(q, [offset], base=model.base, layout=other)
                 * apply_rope(k, [0], base=model.base, layout=other)).sum(-1)
        errors[offset] = float((right - wrong).abs().mean() / right.abs().mean())
    return {"layout": model.layout, "other": other, "at_zero": errors[0], "at_offset": errors[LAYOUT_OFFSET]}


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
    out.append(phrase(f"model_anatomy.trap_layout_{trap['layout']}", error=f"{trap['at_offset']:.0%}",
                      zero=f"{trap['at_zero']:.1g}", offset=f"{LAYOUT_OFFSET:,}"))
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


def compressed_keys(model: ModelRoPE, number: Phrase) -> list[dict] | None:
    """Per rate of compression (first layer of each): a few queries, each with the blocks of tokens pooled
    into the compressed keys it sees (first position, one past the last), the position each key is rotated
    at, the offset query - that position the score sees, and a line saying so (the model named by `number`);
    None where no layer compresses its keys."""
    layers = {layer.compress: layer for layer in reversed(model.layers) if layer.compress is not None}
    if not layers:
        return None
    out = []
    for rate, layer in sorted(layers.items()):
        rows = []
        for blocks in BLOCKS_SEEN:
            query = blocks * rate + 1  # in the next block, still open
            starts = layer.compressed_positions(query).numpy()
            rows.append({"query": query, "starts": starts, "stops": starts + rate, "offsets": query - starts,
                         "line": phrase("model_anatomy.compressed_row", name=number,
                                        kind=phrase(f"model_anatomy.kind_{layer.attention}"), query=query,
                                        starts=_listed(starts), offsets=_listed(query - starts))})
        out.append({"attention": layer.attention, "rate": rate, "base": layer.base, "rows": rows})
    return out


def derotation(model: ModelRoPE, seed: int = 0) -> list[dict] | None:
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
        row = {"attention": attention, "base": layer.base, "query": query, "keys": keys.numpy()}
        for derotate in (True, False):
            at = layer.shared_output(q, kv, query, keys, derotate=derotate)
            row["with" if derotate else "without"] = [
                float((layer.shared_output(q, kv, query + k, keys + k, derotate=derotate) - at).abs().max()
                      / at.abs().max()) for k in SHIFTS]
        out.append(row)
    return out


def derotation_columns(rows: list[dict]) -> dict[str, list]:
    """derotation's rows as a table: header text key -> cells, two rows (with, without) per kind of layer."""
    columns = {f"model_anatomy.{head}": [] for head in ("derotation_kind", "derotation_keys", "derotation_mode")}
    columns.update({f"model_anatomy.derotation_shift_{k}": [] for k in SHIFTS})
    for row in rows:
        for mode in ("with", "without"):
            cells = [phrase(f"model_anatomy.kind_{row['attention']}"),
                     phrase("model_anatomy.derotation_positions", query=row["query"], keys=_listed(row["keys"])),
                     phrase(f"model_anatomy.derotation_{mode}")] + [f"{value:.1e}" for value in row[mode]]
            for column, cell in zip(columns.values(), cells):
                column.append(cell)
    return columns


def _kind_label(number: Phrase, kind: dict) -> Phrase:
    where = phrase(f"model_anatomy.kind_{kind['attention']}")
    return phrase("model_anatomy.kind_series", model=number, kind=where, base=f"{kind['base']:,.0f}",
                  rotary_dim=kind["rotary_dim"], head_dim=kind["head_dim"])


def wavelengths(models: list[dict], context: int) -> dict:
    """The wavelength chart: pair index 0 .. (largest head)/2 - 1, one padded series per model and kind of
    rotary layer ({Phrase: float32 array}, NaN past the head and for pairs that do not turn), the context."""
    kinds = [(model["number"], kind) for model in models for kind in model["kinds"]]
    half = max((kind["head_dim"] // 2 for _, kind in kinds), default=1)
    series = []
    for label, kind in kinds:
        padded = np.full(half, np.nan, dtype=np.float32)
        padded[:len(kind["wavelength"])] = kind["wavelength"]
        series.append((_kind_label(label, kind), padded))
    return {"pairs": np.arange(half, dtype=np.float32), "series": series,
            "context": np.full(half, context, dtype=np.float32)}


def anatomy(names: tuple[str, ...], config_text: str, context: int) -> dict:
    """Everything the page draws, as plain values (cacheable): per model its label, its number (charts name
    models by number: legends stay short and in the visitor's language), summary, whether its model_type
    is one the project has not checked (read as transformers' generic code), kinds of layers,
    latent-attention metrics and traps; the layer strip, the wavelength and temperature charts of all of
    them; the reason a paste was refused (None when nothing was) and the presets a paste left out."""
    chosen = choose(names, config_text)
    models = chosen["models"]
    out = {"refused": chosen["refused"], "dropped": chosen["dropped"], "models": [],
           "strip": strip(models) if models else None}
    curves = []
    for index, (model, pasted) in enumerate(models):
        label, number = _label(model, pasted), phrase("model_anatomy.model_number", number=index + 1)
        line = phrase("model_anatomy.summary_line", number=number, name=label, layers=len(model.layers),
                      groups=summary(model))
        out["models"].append({"label": label, "number": number, "pasted": pasted, "layers": len(model.layers),
                              "summary": line, "learned": learned(model), "unchecked": model.family is None,
                              "kinds": layer_kinds(model), "latent": latent(model), "traps": traps(model),
                              "context": model.max_position_embeddings,
                              "compressed": compressed_keys(model, number), "derotation": derotation(model)})
        curve = temperature(model, context)
        if curve is not None:
            curves.append((number, curve))
    out["wavelengths"] = wavelengths(out["models"], context)
    out["temperature"] = None if not curves else {"positions": curves[0][1][0],
                                                  "series": [(label, curve[1]) for label, curve in curves]}
    return out


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("no_rope_layers"), Question("layout"), Question("latent_key"))
