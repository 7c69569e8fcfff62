"""A small decoder-only transformer whose position scheme is a single argument.

The schemes of the two-layer grid (rope_viz/toy/shipped/grid.json), ENCODINGS:
rope        q and k of every head rotated by `rope_viz.apply_rope` (either pair layout).
sinusoidal  `rope_viz.sinusoidal.sinusoidal_encoding` added to the token embeddings.
alibi       ALiBi's linear distance bias (`rope_viz.biases.alibi_bias`, the paper's head slopes)
            added to every head's scores.
nope        no position information besides the causal mask.

The schemes of the four-layer grid (rope_viz/toy/shipped/grid4.json), SCHEMES: rope, nope and alibi as
references, and the designs of 2025-26 models, decided layer by layer (`layer_plan`):
nope-every-4th              layer 4 of every 4 has no rotation (Llama 4, SmolLM3: Hugging Face's
                            `no_rope_layers`, (layer + 1) % 4 == 0 -> NoPE), the others RoPE.
nope-every-4th+temperature  the same, and the NoPE layer multiplies its queries by Llama 4's
                            temperature 1 + beta * log(1 + floor((m + 1) / floor_scale)), beta = 0.1
                            (`query_temperature`). Llama 4 sets floor_scale = 8192, the length of
                            its RoPE chunks and of its first training context, and trains on longer
                            texts afterwards, so its model learns the growing scale. The toy trains on
                            one length only, so floor_scale = train_len // 4 (TrainConfig): training
                            sees the first four steps of the curve (up to 1 + 0.1 log 5 = 1.16) and a
                            longer evaluation continues a curve the model has learned.
local-rope+global-nope      the RoPE layers attend within a sliding window of `window` keys (the
                            query itself and the window - 1 before it), the NoPE layer attends to
                            everything (Yang et al. 2025; Llama 4's chunked RoPE layers). TrainConfig
                            sets window = train_len // 4, so the RoPE layers never meet a distance
                            they were not trained on, at any length.
p-rope                      every layer rotates only its fastest quarter of pairs, at their usual
                            speeds base^(-2i/d); the other pairs keep speed 0 (Barbero et al. 2025;
                            Gemma 4's "proportional" rope type with partial_rotary_factor 0.25,
                            from rope_viz.scaling).
partial-rope                every layer rotates the first quarter of each head's dimensions
                            (rotary_dim = d/4) over the full range of speeds base^(-2i/rotary_dim)
                            and passes the rest through (Qwen3.5, GLM: partial_rotary_factor).

Pre-norm blocks (LayerNorm, causal multi-head attention, LayerNorm, GELU MLP). Attention is
written out (scores, mask, softmax) so that the weights can be returned for plotting.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import cast

import torch
from torch import nn

from .._checks import check_choice, check_int, check_layout, check_positive
from ..biases import alibi_bias, alibi_slopes
from ..rotary import apply_rope
from ..scaling import scaled_inv_freq
from ..sinusoidal import sinusoidal_encoding

ENCODINGS = ("rope", "sinusoidal", "alibi", "nope")
SCHEMES = ("rope", "nope", "alibi", "nope-every-4th", "nope-every-4th+temperature", "local-rope+global-nope",
           "p-rope", "partial-rope")
POSITION_SCHEMES = ENCODINGS + tuple(s for s in SCHEMES if s not in ENCODINGS)  # every name a model accepts
NOPE_EVERY = 4             # layer 4 of every 4 has no rotation in the interleaved schemes
TEMPERATURE_BETA = 0.1     # Llama 4's attn_scale
ROTARY_FRACTION = 0.25     # the rotated share of pairs (p-rope) or of dimensions (partial-rope)
_INTERLEAVED = ("nope-every-4th", "nope-every-4th+temperature", "local-rope+global-nope")


@dataclass(frozen=True)
class LayerPlan:
    """What one layer does with position.

    rotation: None, "full" (every pair, base^(-2i/d)), "proportional" (the fastest quarter of the
        pairs, the others at speed 0) or "partial" (the first rotary_dim = d/4 dimensions).
    alibi: add ALiBi's bias. window: keys per query (0: all earlier keys). temperature: multiply the
        queries by query_temperature(position).
    """

    rotation: str | None
    alibi: bool = False
    window: int = 0
    temperature: bool = False


def query_temperature(positions: torch.Tensor, floor_scale: int, beta: float = TEMPERATURE_BETA) -> torch.Tensor:
    """Llama 4's query scale at 0-based positions m: 1 + beta * log(1 + floor((m + 1) / floor_scale))."""
    floor_scale = check_int(floor_scale, "floor_scale", minimum=1)
    return 1.0 + beta * torch.log1p(torch.floor((positions.to(torch.float64) + 1.0) / floor_scale))


def proportional_inv_freq(dim: int, base: float, fraction: float = ROTARY_FRACTION) -> torch.Tensor:
    """p-RoPE's speeds (float64, dim/2): the first floor(fraction * dim/2) pairs at base^(-2i/dim), the
    fastest, the rest 0: rope_viz.scaling's "proportional" rope type with partial_rotary_factor = fraction."""
    return scaled_inv_freq(dim, base, {"rope_type": "proportional", "partial_rotary_factor": fraction})[0]


def layer_plan(config: ModelConfig, layer: int) -> LayerPlan:
    """How layer `layer` (0-based) of a model with this config handles position."""
    e = config.encoding
    layer = check_int(layer, "layer")
    if not 0 <= layer < config.n_layers:
        raise ValueError(f"layer must be an integer from 0 to {config.n_layers - 1}, got {layer}")
    if e in _INTERLEAVED:
        nope_layer = (layer + 1) % NOPE_EVERY == 0
        return LayerPlan(rotation=None if nope_layer else "full",
                         window=config.window if e == "local-rope+global-nope" and not nope_layer else 0,
                         temperature=nope_layer and e == "nope-every-4th+temperature")
    rotation = {"rope": "full", "p-rope": "proportional", "partial-rope": "partial"}.get(e)
    return LayerPlan(rotation=rotation, alibi=e == "alibi")


@dataclass(frozen=True)
class ModelConfig:
    """Architecture of a ToyTransformer. 1-4 layers, 8-128 wide, heads dividing the width.

    encoding: one of POSITION_SCHEMES. window: the sliding window of local-rope+global-nope's RoPE
    layers (keys per query). floor_scale: the temperature's floor scale (nope-every-4th+temperature).
    Both are 0 for the schemes that do not use them.
    """

    vocab_size: int
    encoding: str = "rope"
    n_layers: int = 2
    d_model: int = 64
    n_heads: int = 4
    layout: str = "interleaved"
    base: float = 10000.0
    window: int = 0
    floor_scale: int = 0

    def __post_init__(self):
        check_int(self.vocab_size, "vocab_size", minimum=2)
        check_choice(self.encoding, "encoding", POSITION_SCHEMES)
        n_layers = check_int(self.n_layers, "n_layers", minimum=1)
        if n_layers > 4:
            raise ValueError(f"n_layers must be an integer from 1 to 4, got {n_layers}")
        if self.encoding in _INTERLEAVED and n_layers < NOPE_EVERY:
            raise ValueError(f"n_layers must be at least {NOPE_EVERY} for encoding={self.encoding!r} "
                             f"(its layer {NOPE_EVERY} has no RoPE), got {n_layers}")
        d_model = check_int(self.d_model, "d_model", minimum=8)
        if d_model > 128:
            raise ValueError(f"d_model must be an integer from 8 to 128, got {d_model}")
        n_heads = check_int(self.n_heads, "n_heads", minimum=1)
        if d_model % n_heads or (d_model // n_heads) % 2:
            raise ValueError(
                f"n_heads must divide d_model={d_model} into even head sizes, got n_heads={n_heads}")
        if self.encoding in ("p-rope", "partial-rope") and self.d_head % 8:
            raise ValueError(f"encoding={self.encoding!r} rotates a quarter of each head: d_model / n_heads "
                             f"must be a multiple of 8, got {self.d_head}")
        check_layout(self.layout)
        check_positive(self.base, "base")
        uses = {"window": self.encoding == "local-rope+global-nope",
                "floor_scale": self.encoding == "nope-every-4th+temperature"}
        for name, used in uses.items():
            value = check_int(getattr(self, name), name)
            if used and value < 1:
                raise ValueError(f"{name} must be a positive integer for encoding={self.encoding!r}, got {value}")
            if not used and value != 0:
                raise ValueError(f"{name} must be 0 for encoding={self.encoding!r}, got {value}")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)


class Attention(nn.Module):
    """Causal multi-head self-attention, handling position as layer_plan(config, layer) says."""

    def __init__(self, config: ModelConfig, layer: int = 0):
        super().__init__()
        self.config = config
        self.plan = layer_plan(config, layer)
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.out = nn.Linear(config.d_model, config.d_model)

    @property
    def rotary_dim(self) -> int:
        """The dimensions of each head this layer rotates (0 for none)."""
        plan, d = self.plan, self.config.d_head
        return 0 if plan.rotation is None else d // 4 if plan.rotation == "partial" else d

    def project(self, x: torch.Tensor, rope_freqs=None):
        """q, k, v (batch, heads, seq, d_head); q and k rotated when the layer rotates, q scaled by
        the temperature when the layer has one.

        rope_freqs: (inv_freq, attention_factor) replacing the layer's speeds (rotary_dim/2 of them),
        e.g. an inference-time scaling (rope_viz.toy.training.rope_frequencies); None keeps the
        trained ones."""
        c = self.config
        q, k, v = self.qkv(x).unflatten(-1, (3, c.n_heads, c.d_head)).permute(2, 0, 3, 1, 4)
        if self.plan.rotation is not None:
            q, k = self._rotate(q, rope_freqs), self._rotate(k, rope_freqs)
        if self.plan.temperature:
            positions = torch.arange(x.shape[-2], device=x.device)
            q = q * query_temperature(positions, c.floor_scale).to(q.dtype)[:, None]
        return q, k, v

    def _rotate(self, t: torch.Tensor, rope_freqs):
        c = self.config
        if rope_freqs is None and self.plan.rotation == "proportional":
            rope_freqs = (proportional_inv_freq(c.d_head, c.base), 1.0)
        if rope_freqs is None:
            return apply_rope(t, base=c.base, layout=c.layout, method="fast", rotary_dim=self.rotary_dim)
        inv_freq, attention_factor = rope_freqs
        return apply_rope(t, inv_freq=inv_freq, attention_factor=attention_factor, layout=c.layout,
                          method="fast", rotary_dim=self.rotary_dim)

    def bias(self, seq: int, device, dtype) -> torch.Tensor:
        """The additive score bias (heads, seq, seq): ALiBi's or zeros, with -inf above the diagonal
        and, in a windowed layer, -inf for keys `window` or more places back."""
        c = self.config
        if self.plan.alibi:
            b = alibi_bias(c.n_heads, seq, dtype=dtype, device=device)
        else:
            b = torch.zeros(c.n_heads, seq, seq, dtype=dtype, device=device)
        hidden = torch.ones(seq, seq, dtype=torch.bool, device=device).triu(1)
        if self.plan.window:
            hidden |= torch.ones(seq, seq, dtype=torch.bool, device=device).tril(-self.plan.window)
        return b.masked_fill(hidden, float("-inf"))

    def forward(self, x: torch.Tensor, rope_freqs=None, want_weights: bool = False):
        q, k, v = self.project(x, rope_freqs)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.config.d_head)
        weights = torch.softmax(scores + self.bias(x.shape[-2], x.device, x.dtype), dim=-1)
        y = (weights @ v).transpose(1, 2).flatten(-2)
        return self.out(y), (weights if want_weights else None)


class Block(nn.Module):
    def __init__(self, config: ModelConfig, layer: int = 0):
        super().__init__()
        self.ln1 = nn.LayerNorm(config.d_model)
        self.attn = Attention(config, layer)
        self.ln2 = nn.LayerNorm(config.d_model)
        self.mlp = nn.Sequential(nn.Linear(config.d_model, 4 * config.d_model), nn.GELU(),
                                 nn.Linear(4 * config.d_model, config.d_model))

    def forward(self, x, rope_freqs=None, want_weights=False):
        a, w = self.attn(self.ln1(x), rope_freqs, want_weights)
        x = x + a
        return x + self.mlp(self.ln2(x)), w


class ToyTransformer(nn.Module):
    """Decoder-only transformer: tokens (batch, seq) -> logits (batch, seq, vocab)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model)
        # a ModuleList (registers the blocks), typed by what it holds
        self.blocks = cast("Sequence[Block]", nn.ModuleList(Block(config, layer) for layer in range(config.n_layers)))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.unembed = nn.Linear(config.d_model, config.vocab_size)

    @property
    def alibi_slopes(self) -> torch.Tensor | None:
        """The per-head ALiBi slopes in use (from rope_viz.biases), None for other encodings."""
        if self.config.encoding != "alibi":
            return None
        return alibi_slopes(self.config.n_heads)

    @property
    def rotates(self) -> bool:
        """Whether any layer rotates q and k."""
        return any(block.attn.plan.rotation is not None for block in self.blocks)

    def embed_tokens(self, tokens: torch.Tensor) -> torch.Tensor:
        """Token embeddings plus, for the sinusoidal encoding, the position rows."""
        x = self.embed(tokens)
        if self.config.encoding == "sinusoidal":
            x = x + sinusoidal_encoding(tokens.shape[-1], self.config.d_model, self.config.base,
                                        dtype=x.dtype, device=x.device)
        return x

    def forward(self, tokens: torch.Tensor, *, rope_freqs: tuple[torch.Tensor, float] | None = None,
                return_attention: bool = False):
        """Logits (batch, seq, vocab); with return_attention also the list of attention weights,
        one (batch, heads, seq, seq) tensor per layer. rope_freqs = (inv_freq, attention_factor)
        overrides the speeds of every rotating layer (inference-time scaling, removed pairs)."""
        if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2 or tokens.is_floating_point():
            raise ValueError(f"tokens must be an integer tensor (batch, seq), got {tokens!r:.80}")
        if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= self.config.vocab_size):
            raise ValueError(f"tokens must lie in 0..{self.config.vocab_size - 1}")
        if rope_freqs is not None and not self.rotates:
            raise ValueError(f"rope_freqs applies only to a model with rotating layers, got "
                             f"encoding={self.config.encoding!r}")
        x = self.embed_tokens(tokens)
        maps = []
        for block in self.blocks:
            x, w = block(x, rope_freqs, return_attention)
            maps.append(w)
        logits = self.unembed(self.ln_f(x))
        return (logits, maps) if return_attention else logits
