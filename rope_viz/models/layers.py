"""One decoder layer's rotary step (LayerRoPE), multi-head latent attention (LatentAttention) and a
whole model's layers (ModelRoPE): the values rope_viz.models reads from a config.json."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import torch

from .._checks import check_budget, check_integer_positions
from ..axial import rotate_pairs
from ..mrope import mrope_axes
from ..rotary import apply_rope
from ..scaling import MAX_CONTEXT, rope_type_of, scaled_inv_freq


@dataclass(frozen=True)
class LayerRoPE:
    """What one decoder layer does with positions.

    attention: transformers' own name of the layer type ("full_attention", "sliding_attention",
    "chunked_attention", "linear_attention", "indexed_attention", DeepSeek-V4's
    "compressed_sparse_attention" and "heavily_compressed_attention", Zaya's and Inkling's "hybrid" and
    "hybrid_sliding", LFM3's "conv" blocks, MiniMax-M3's "minimax_m3_sparse", ...); window: the sliding window
    or attention chunk in tokens (None for full; DeepSeek-V4: the window of its local keys);
    rotary: False for NoPE and linear-attention layers; rope_type/base: None where not rotary;
    head_dim: the query/key head size (MLA: qk_nope_head_dim + qk_rope_head_dim); rotary_dim: how
    many of its dims turn (0 where not rotary); layout: "half" (i, i + r/2) or "interleaved" (2i, 2i+1);
    rotated_from: the first rotated dim (MLA and DeepSeek-V4: the rotated dims sit last);
    mrope_section / mrope_interleaved: the multimodal sections (None for 1-D RoPE);
    temperature: (kind, strength, length) of the query scale, or None; compress: tokens pooled into
    each compressed key (DeepSeek-V4: 4 and 128), None where keys are not compressed;
    output_rotation: the attention output's rotated dims are turned back (see rotate_output);
    learned: the parts of this step a checkpoint learns and the config cannot give ("frequency_scale":
    Mistral Large 4's per-frequency factor exp(alpha); "query_scale": its per-head query factor
    scale * ln(m + 1) + bias), read here at their initial values (1); "query_scale" is also Dory's
    per-channel query scale; "key_scale": Zaya's per-KV-head key factor, zero at initialisation;
    "relative_position_bias": Inkling's learned bias per backward distance, its only position signal.

    Two fields describe interventions rather than any published model (both off by default): stopped_pairs,
    pair indices whose angle is held at 0 (they stop turning; the model then reads them as unrotated), and
    recipe, a rope_viz.precision recipe ("bf16-positions", "fp16-positions", ...) whose applied angles replace
    the exact float64 ones, as an engine computing its angles in that precision would turn (plain RoPE only).
    """

    index: int
    attention: str
    window: int | None
    rotary: bool
    rope_type: str | None
    base: float | None
    head_dim: int
    rotary_dim: int
    layout: str
    rope_scaling: Mapping | None = None
    max_position_embeddings: int | None = None
    rotated_from: int = 0
    mrope_section: tuple | None = None
    mrope_interleaved: bool = False
    temperature: tuple | None = None
    compress: int | None = None
    output_rotation: bool = False
    learned: tuple = ()
    stopped_pairs: tuple = ()
    recipe: str | None = None

    @property
    def span(self) -> int:
        """Dims the rotation runs over: rotary_dim, or the whole head for "proportional" (whose
        unrotated pairs have frequency 0)."""
        return self.head_dim if self.rope_type == "proportional" else self.rotary_dim

    def inv_freq(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """(inv_freq float64, attention_factor) as transformers' rotary embedding of this layer computes
        them: rotary_dim // 2 entries (head_dim // 2 for "proportional", zeros for its unrotated pairs);
        an empty tensor and 1.0 where the layer is not rotary. seq_len: dynamic NTK and LongRoPE depend
        on it (None: the value at load time)."""
        if not self.rotary:
            return torch.zeros(0, dtype=torch.float64), 1.0
        assert self.base is not None  # a rotary layer always has its base
        return scaled_inv_freq(self.span, self.base, _plain(self.rope_scaling),
                               max_position_embeddings=self.max_position_embeddings, seq_len=seq_len)

    def _positions(self, positions, seq: int) -> torch.Tensor:
        """(3, seq) M-RoPE ids or (seq,) ids as float64, whole numbers in [0, MAX_CONTEXT]."""
        if self.mrope_section is not None:
            ids = torch.as_tensor(positions) if not isinstance(positions, torch.Tensor) else positions
            if ids.dim() == 2:
                if ids.shape != (3, seq):
                    raise ValueError(f"positions must have shape ({seq},) or (3, {seq}) (time, height, width), "
                                     f"got {tuple(ids.shape)}")
                return torch.stack([check_integer_positions(row, maximum=MAX_CONTEXT) for row in ids])
        pos = check_integer_positions(positions, maximum=MAX_CONTEXT)
        if pos.shape != (seq,):
            raise ValueError(f"positions must hold one id per sequence position ({seq}), got {pos.numel()}")
        return pos

    def rotate(self, x: torch.Tensor, positions) -> torch.Tensor:
        """x (..., seq, head_dim) float32/float64 rotated exactly as the model rotates its queries and keys
        in this layer, the attention factor included; x itself where the layer is not rotary.
        positions: (seq,) whole-number ids, or (3, seq) time/height/width ids for M-RoPE layers (which
        also take 1-D text ids). Angles are float64; a float32 x gets float32 cos and sin."""
        return self._turn(x, positions, 1.0)

    def rotate_output(self, x: torch.Tensor, positions) -> torch.Tensor:
        """The attention output x (..., seq, head_dim) as the model hands it on: x itself, except in layers
        with output_rotation (DeepSeek-V4, whose values carry the keys' rotation), where the rotated dims
        turn by minus the query position's angle, the attention factor included as its code multiplies
        both cos and sin by it. positions: the query positions, as for rotate."""
        if not self.output_rotation:
            self._turn(x, positions, 0.0)  # checks x and positions
            return x
        return self._turn(x, positions, -1.0)

    def compressed_positions(self, query_position: int) -> torch.Tensor:
        """DeepSeek-V4: the positions (int64) of the compressed keys a query at query_position sees, one per
        block of `compress` tokens complete at the query (w < (query_position + 1) // compress), each the
        block's first position w * compress, where the model rotates that key."""
        if self.compress is None:
            raise ValueError(f"layer {self.index} ({self.attention}) does not compress its keys; "
                             "compressed_positions needs a layer with compress set")
        if isinstance(query_position, bool) or not isinstance(query_position, int) or \
                not 0 <= query_position <= MAX_CONTEXT:
            raise ValueError(f"query_position must be a whole number in [0, {MAX_CONTEXT}], got {query_position!r}")
        return torch.arange((query_position + 1) // self.compress, dtype=torch.int64) * self.compress

    def shared_output(self, q: torch.Tensor, kv: torch.Tensor, query_position: int, key_positions, *,
                      derotate: bool = True) -> torch.Tensor:
        """One query's attention output where keys and values are one tensor (DeepSeek-V4): q (head_dim,)
        rotated at query_position, kv (n, head_dim) rotated at key_positions and used as keys and values,
        softmax(q . k / sqrt(head_dim)) times the rotated rows, then rotate_output at query_position
        (derotate=False: the sum as it is, each value still turned by its key's absolute angle)."""
        if not isinstance(q, torch.Tensor) or q.dim() != 1:
            raise ValueError(f"q must be a 1-D tensor of head_dim={self.head_dim} entries, "
                             f"got {type(q).__name__}{tuple(getattr(q, 'shape', ()))}")
        query = self.rotate(q[None], [query_position])
        keys = self.rotate(kv, key_positions)
        weights = torch.softmax(keys @ query[0] / self.head_dim ** 0.5, dim=0)
        out = (weights @ keys)[None]
        return (self.rotate_output(out, [query_position]) if derotate else out)[0]

    def _turn(self, x: torch.Tensor, positions, sign: float) -> torch.Tensor:
        if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64) or x.dim() < 2:
            raise ValueError(f"x must be a float32 or float64 tensor of shape (..., seq, head_dim={self.head_dim}), "
                             f"got {type(x).__name__}{tuple(getattr(x, 'shape', ()))}")
        if x.shape[-1] != self.head_dim:
            raise ValueError(f"x.shape[-1] must be head_dim={self.head_dim} in layer {self.index}, got {x.shape[-1]}")
        pos = self._positions(positions, x.shape[-2])
        if not self.rotary or not sign:
            return x
        seq_len = int(pos.max().item()) + 1 if pos.numel() else None
        inv_freq, attention_factor = self.inv_freq(seq_len=seq_len)
        check_budget(pos.shape[-1] * inv_freq.numel(), "rotate")
        if pos.dim() == 2 or self.mrope_section is not None:
            ids = pos if pos.dim() == 2 else pos.expand(3, -1)
            axes = mrope_axes(self.mrope_section, inv_freq.numel(), interleaved=self.mrope_interleaved)
            table = ids[axes].T * inv_freq
        else:
            table = pos[:, None] * inv_freq
        if self.recipe is not None:
            table = self._recipe_angles(pos, inv_freq)
        if self.stopped_pairs:
            table = table.clone()
            table[..., list(self.stopped_pairs)] = 0.0
        start, stop = self.rotated_from, self.rotated_from + self.span
        turned = rotate_pairs(x[..., start:stop], sign * table, layout=self.layout) * attention_factor
        return torch.cat((x[..., :start], turned, x[..., stop:]), dim=-1)

    def _recipe_angles(self, pos: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
        """The angles rope_viz.precision's recipe applies at these positions (plain RoPE only)."""
        from ..precision import RECIPES, applied_rotation
        if self.recipe not in RECIPES:
            raise ValueError(f"recipe must be one of {RECIPES}, got {self.recipe!r}")
        if self.rope_type not in (None, "default") or pos.dim() != 1 or self.span != 2 * inv_freq.numel():
            raise ValueError(f"recipe applies to plain 1-D RoPE only; layer {self.index} has rope_type "
                             f"{self.rope_type!r}")
        assert self.base is not None  # only rotary layers turn
        return applied_rotation(pos.to(torch.int64), self.span, self.base, recipe=self.recipe)["angle"]

    def query_scale(self, positions) -> torch.Tensor:
        """The factor (float64, one per position) the model multiplies this layer's queries by:
        Llama 4's temperature on its NoPE layers, 1 + attn_scale * ln(1 + floor((m + 1) / floor_scale))
        with m the cache position; Ministral 3's llama_4_scaling_beta, 1 + beta * ln(1 + floor(m / L))
        with L the original context; Inkling's 1 + alpha * ln(max((m + 1) / N, 1)) on its full-attention
        layers, N = log_scaling_n_floor (Inkling 1 counts m from the cache position, Inkling 2 from
        position_ids); Dory's learned per-channel (sqk * sqk_scale)^2 after the rotation, at
        its initial value head_dim on every channel (see learned); ones where the model has none (MLA's
        mscale enters the softmax scale instead: ModelRoPE.latent)."""
        pos = check_integer_positions(positions, maximum=MAX_CONTEXT)
        if self.temperature is None:
            return torch.ones_like(pos)
        kind, strength, length = self.temperature
        if kind == "ngpt":
            return torch.full_like(pos, strength)
        if kind == "log":
            return 1.0 + strength * torch.log(torch.clamp((pos + 1.0) / length, min=1.0))
        offset = 1.0 if kind == "llama4" else 0.0
        return 1.0 + strength * torch.log1p(torch.floor((pos + offset) / length))


@dataclass(frozen=True)
class LatentAttention:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): every head's query and key are
    qk_nope_head_dim unrotated dims followed by qk_rope_head_dim rotated ones; the rotated key part is
    one vector shared by all heads, cached beside the kv_lora_rank-wide latent.

    softmax_scale: (qk_nope_head_dim + qk_rope_head_dim)^-0.5 times mscale^2, mscale =
    0.1 * mscale_all_dim * ln(factor) + 1 when the config scales with YaRN and names mscale_all_dim."""

    num_heads: int
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    softmax_scale: float

    @property
    def cached_per_token(self) -> int:
        """Numbers cached per token and layer: the latent plus the shared rotated key."""
        return self.kv_lora_rank + self.qk_rope_head_dim

    @property
    def uncompressed_per_token(self) -> int:
        """What full multi-head keys and values would cache per token and layer."""
        return self.num_heads * (self.qk_nope_head_dim + self.qk_rope_head_dim + self.v_head_dim)


# ----------------------------------------------------------------------------- the model

@dataclass(frozen=True)
class ModelRoPE:
    """The rotary embedding of one model, layer by layer.

    layers: one LayerRoPE per decoder layer. name, model_type (the text model's), latent (MLA, else
    None); family: the model_type whose own transformers code the reading follows (a key of
    rope_viz.models.FAMILIES), None when the model_type is not one this project has checked (its layers
    are then transformers' generic reading). head_dim, rotary_dim, base, rope_scaling (read-only, None
    for plain RoPE), layout and max_position_embeddings describe the first rotary layer of full
    attention (when none attends fully: the first rotary layer the config scales, as DeepSeek-V4's
    compressed layers, else the first rotary layer); a model with no rotary layer has rotary_dim 0 and
    base None.
    """

    name: str
    head_dim: int
    rotary_dim: int
    base: float | None
    rope_scaling: Mapping | None
    max_position_embeddings: int | None
    layout: str
    layers: tuple = ()
    model_type: str | None = None
    latent: LatentAttention | None = field(default=None)
    family: str | None = None

    @property
    def rope_type(self) -> str:
        return rope_type_of(self.rope_scaling)

    @property
    def has_rope(self) -> bool:
        return any(layer.rotary for layer in self.layers)

    @property
    def reference_layer(self) -> LayerRoPE:
        """The layer m.inv_freq / m.head_dim / ... describe."""
        rotary = [layer for layer in self.layers if layer.rotary]
        if not rotary:
            raise ValueError(f"{self.name} has no rotary layer (its positions are not encoded by RoPE)")
        return next((layer for layer in rotary if layer.attention == "full_attention"),
                    next((layer for layer in rotary if layer.rope_scaling is not None), rotary[0]))

    def inv_freq(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """(inv_freq float64, attention_factor) of the reference layer (see LayerRoPE.inv_freq)."""
        return self.reference_layer.inv_freq(seq_len)

    def apply(self, x: torch.Tensor, positions=None, *, method: str = "fast") -> torch.Tensor:
        """The reference layer's rotary step on x (..., seq, head_dim). Plain layers go through
        `rope_viz.rotary.apply_rope` (any of its methods); MLA, proportional and M-RoPE layers through
        LayerRoPE.rotate."""
        layer = self.reference_layer
        if isinstance(x, torch.Tensor) and x.dim() >= 1 and x.shape[-1] != self.head_dim:
            raise ValueError(f"x.shape[-1] must be head_dim={self.head_dim} for {self.name}, got {x.shape[-1]}")
        if layer.rotated_from or layer.rope_type == "proportional" or layer.mrope_section is not None:
            if positions is None and isinstance(x, torch.Tensor) and x.dim() >= 2:
                positions = torch.arange(x.shape[-2])
            return layer.rotate(x, positions)
        assert self.base is not None  # the reference layer is rotary
        return apply_rope(x, positions, base=self.base, layout=self.layout, method=method,
                          rotary_dim=self.rotary_dim, rope_scaling=_plain(self.rope_scaling),
                          max_position_embeddings=self.max_position_embeddings)


def _plain(scaling):
    """A frozen rope_scaling back to a plain dict (lists for the factor tuples)."""
    if scaling is None:
        return None
    return {key: list(value) if isinstance(value, tuple) else value for key, value in scaling.items()}


def _frozen(scaling: dict | None):
    if scaling is None:
        return None
    return MappingProxyType({key: tuple(value) if isinstance(value, list) else value
                             for key, value in scaling.items()})

