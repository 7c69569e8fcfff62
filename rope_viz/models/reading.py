"""model_rope: a config.json read layer by layer, its family's registry entry deciding what each key means."""

from __future__ import annotations

from .config import (DEFAULT_LAYERS, MAX_HEAD_DIM, MAX_LAYERS, Reader, _head_dim, _kind_head_dim, _latent,
                     _layer_types, _layout, _parse, rope_parameters, _rotary_dim, _scaling, _temperature, _text_config,
                     _uses_rope, _window)
from .families import (FAMILIES, NO_ROPE_MODEL_TYPES, TEXT_AT_TOP_LEVEL, TEXT_MODEL_TYPES, TEXT_TYPE_FORCED,
                       family_of)
from .layers import LayerRoPE, ModelRoPE, _frozen
from ..mrope import mrope_axes
from ..scaling import MAX_CONTEXT


def model_rope(config, *, name: str | None = None) -> ModelRoPE:
    """A model's RoPE, layer by layer, from its config.json (a dict, or JSON text of at most 256 KB).

    The language model's keys are read from `text_config` when the config has one. head_dim: head_dim,
    else hidden_size // num_attention_heads (GPT-J: n_embd // n_head; MLA: qk_nope_head_dim +
    qk_rope_head_dim, of which the last qk_rope_head_dim turn). Layers: num_hidden_layers (n_layer),
    their types from layer_types or the family's pattern; RoPE per layer type from rope_parameters
    (flat, or keyed by layer type), else rope_scaling + rope_theta; partial_rotary_factor only where
    the family's code reads it. Absent keys take the family's transformers defaults (FAMILIES).

    Every value is checked; a malformed config raises ValueError naming the key.
    """
    config = _parse(config)
    text, model_type, where = _text_config(config, TEXT_MODEL_TYPES, TEXT_AT_TOP_LEVEL, TEXT_TYPE_FORCED)
    family = family_of(model_type)
    r = Reader(text, family.defaults, where)
    listed = family.layer_list(r) if family.layer_list is not None else None
    layers_key = r.first("num_hidden_layers", "n_layer", "num_layers") or "num_hidden_layers"
    if listed is not None:
        count = len(listed)
    else:
        count = r.int(layers_key, maximum=MAX_LAYERS) if r.get(layers_key) is not None else DEFAULT_LAYERS
    max_key = r.first("max_position_embeddings", "n_positions") or "max_position_embeddings"
    max_position_embeddings = r.int(max_key, maximum=MAX_CONTEXT, required=False)
    no_rope = not family.rotary or model_type in NO_ROPE_MODEL_TYPES or text.get("position_embedding_type") in (
        "absolute", "relative_key", "relative_key_query")
    uses_rope = [False] * count if no_rope else _uses_rope(r, family, count)
    kinds = listed if listed is not None else _layer_types(r, family, count, uses_rope)
    if family.rope_on_sliding_only == "always" or (family.rope_on_sliding_only == "when_windowed"
                                                   and r.get("sliding_window") is not None):
        uses_rope = [rope and kind == "sliding_attention" for rope, kind in zip(uses_rope, kinds)]
    bases = [None] * len(kinds)
    if family.layer_rope is not None and not no_rope:
        rotates, bases = family.layer_rope(r, kinds)
        uses_rope = [rope and turn for rope, turn in zip(uses_rope, rotates)]
    if family.mla:
        head_dim = r.int("qk_nope_head_dim", maximum=MAX_HEAD_DIM, minimum=0) + r.int("qk_rope_head_dim",
                                                                                      maximum=MAX_HEAD_DIM)
    else:
        head_dim = _head_dim(r)
    if no_rope:
        rope_dicts, wheres = {}, {}
    elif family.rope_reader is not None:
        rope_dicts, wheres = family.rope_reader(r, kinds)
    else:
        rope_dicts, rope_where = rope_parameters(r, family, kinds)
        wheres = {kind: rope_where + (f"[{kind!r}]" if len(rope_dicts) > 1 else "") for kind in rope_dicts}
    layout = "half" if no_rope else _layout(r, family)
    by_kind: dict[str, dict | None]
    by_kind, latent = {}, None
    for kind, params in rope_dicts.items():
        where_kind = wheres[kind]
        if params is None:
            by_kind[kind] = None
            continue
        rope_type, base, scaling, fraction = _scaling(params, where_kind, r)
        if family.rope_types is not None and rope_type not in family.rope_types:
            raise ValueError(f"{where_kind}['rope_type'] is {rope_type!r}; a {model_type} config takes "
                             f"{' or '.join(map(repr, family.rope_types))}")
        kind_head = _kind_head_dim(r, family, kind, head_dim)
        rotary_dim = _rotary_dim(r, family, kind_head, rope_type, fraction, where_kind)
        section = None
        if family.mrope is not None:
            # every Family with mrope names its mrope_section
            section = tuple(params.get("mrope_section") or family.mrope_section)  # type: ignore[arg-type]
            mrope_axes(list(section), rotary_dim // 2, interleaved=family.mrope == "interleaved")
        by_kind[kind] = dict(rope_type=rope_type, base=base, head_dim=kind_head, rotary_dim=rotary_dim,
                             rope_scaling=_frozen(scaling), mrope_section=section,
                             mrope_interleaved=family.mrope == "interleaved",
                             temperature=_temperature(r, family, True, params, where_kind))
        if family.mla:
            latent = _latent(r, scaling)
    layers = []
    for index, (kind, rope) in enumerate(zip(kinds, uses_rope)):
        settings = by_kind.get(kind)
        rotary = bool(rope) and kind != "linear_attention" and settings is not None
        window = _window(r, family, kind)
        if kind in ("sliding_attention", "chunked_attention") and window is not None \
                and max_position_embeddings is not None and window >= max_position_embeddings \
                and family.rope_on_sliding_only is None:
            # transformers' sliding or chunked mask hides no key within the context (Phi-4-mini's 262,144 over
            # 131,072 positions): the layer attends fully. Where the layer type also decides whether a layer
            # rotates (EXAONE-MoE's 4,096 over its default 2,048), the layer keeps its type and window.
            kind, window = "full_attention", None
        common = dict(index=index, attention=kind, window=window, layout=layout,
                      max_position_embeddings=max_position_embeddings,
                      compress=family.compress(r, kind) if family.compress else None,
                      learned=family.learned if rotary else tuple(
                          part for part in family.learned if part != "frequency_scale"))
        if rotary:
            assert settings is not None  # rotary implies it
            rotated_from = settings["head_dim"] - settings["rotary_dim"] if family.rotates_last else 0
            if bases[index] is not None:  # a base of its own (granite_swa's layer_rope_theta)
                settings = dict(settings, base=bases[index])
            layers.append(LayerRoPE(rotary=True, rotated_from=rotated_from, output_rotation=family.output_rotation,
                                    **settings, **common))
        else:
            # Inkling's sliding layers: swa_head_dim; Kimi Linear's KDA layers: their own head size
            layer_head = settings["head_dim"] if settings else _kind_head_dim(r, family, kind, head_dim)
            # an M-RoPE model hands every layer its (3, seq) ids, those without RoPE included
            sections = {key: settings[key] for key in ("mrope_section", "mrope_interleaved")} if settings else {}
            layers.append(LayerRoPE(rotary=False, rope_type=None, base=None, head_dim=layer_head, rotary_dim=0,
                                    temperature=_temperature(r, family, False, None, where, kind), **sections,
                                    **common))
    for layer in {(layer.attention, layer.base): layer for layer in layers if layer.rotary}.values():
        layer.inv_freq()  # validates each layer type's (and base's) scaling against its rotary size and context
    checked = (family.follows or model_type) if model_type in FAMILIES else None
    if name is None:
        name = next((value for value in (config.get("_name_or_path"), config.get("model_type"))
                     if isinstance(value, str) and value), "custom model")
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {name!r}")
    model = ModelRoPE(name=name[:200], head_dim=head_dim, rotary_dim=0, base=None, rope_scaling=None,
                      max_position_embeddings=max_position_embeddings, layout=layout, layers=tuple(layers),
                      model_type=model_type, latent=latent, family=checked)
    if model.has_rope:
        ref = model.reference_layer
        model = ModelRoPE(name=model.name, head_dim=ref.head_dim, rotary_dim=ref.rotary_dim, base=ref.base,
                          rope_scaling=ref.rope_scaling, max_position_embeddings=max_position_embeddings,
                          layout=ref.layout, layers=model.layers, model_type=model_type, latent=latent,
                          family=checked)
    return model
