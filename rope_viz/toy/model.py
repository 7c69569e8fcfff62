"""A small decoder-only transformer whose position scheme is a single argument.

rope        q and k of every head rotated by `rope_viz.apply_rope` (either pair layout).
sinusoidal  `rope_viz.sinusoidal_encoding` added to the token embeddings.
alibi       ALiBi's linear distance bias (`rope_viz.biases.alibi_bias`, the paper's head slopes)
            added to every head's scores.
nope        no position information besides the causal mask.

Pre-norm blocks (LayerNorm, causal multi-head attention, LayerNorm, GELU MLP). Attention is
written out (scores, mask, softmax) so that the weights can be returned for plotting.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn

from .._checks import check_choice, check_int, check_layout, check_positive
from ..biases import alibi_bias, alibi_slopes
from ..rotary import apply_rope
from ..sinusoidal import sinusoidal_encoding

ENCODINGS = ("rope", "sinusoidal", "alibi", "nope")


@dataclass(frozen=True)
class ModelConfig:
    """Architecture of a ToyTransformer. 2-4 layers, 64-128 wide, heads dividing the width."""

    vocab_size: int
    encoding: str = "rope"
    n_layers: int = 2
    d_model: int = 64
    n_heads: int = 4
    layout: str = "interleaved"
    base: float = 10000.0

    def __post_init__(self):
        check_int(self.vocab_size, "vocab_size", minimum=2)
        check_choice(self.encoding, "encoding", ENCODINGS)
        n_layers = check_int(self.n_layers, "n_layers", minimum=1)
        if n_layers > 4:
            raise ValueError(f"n_layers must be an integer from 1 to 4, got {n_layers}")
        d_model = check_int(self.d_model, "d_model", minimum=8)
        if d_model > 128:
            raise ValueError(f"d_model must be an integer from 8 to 128, got {d_model}")
        n_heads = check_int(self.n_heads, "n_heads", minimum=1)
        if d_model % n_heads or (d_model // n_heads) % 2:
            raise ValueError(
                f"n_heads must divide d_model={d_model} into even head sizes, got n_heads={n_heads}")
        check_layout(self.layout)
        check_positive(self.base, "base")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)


class Attention(nn.Module):
    """Causal multi-head self-attention with the position scheme of the model."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.out = nn.Linear(config.d_model, config.d_model)

    def project(self, x: torch.Tensor, rope_freqs: torch.Tensor | None = None):
        """q, k, v (batch, heads, seq, d_head); q and k rotated when the encoding is rope.

        rope_freqs: (inv_freq, attention_factor) of an inference-time scaling (see
        rope_viz.toy.training.rope_frequencies); None uses base^(-2i/d_head)."""
        c = self.config
        q, k, v = self.qkv(x).unflatten(-1, (3, c.n_heads, c.d_head)).permute(2, 0, 3, 1, 4)
        if c.encoding == "rope":
            q, k = self._rotate(q, rope_freqs), self._rotate(k, rope_freqs)
        return q, k, v

    def _rotate(self, t: torch.Tensor, rope_freqs):
        c = self.config
        if rope_freqs is None:
            return apply_rope(t, base=c.base, layout=c.layout, method="fast")
        inv_freq, attention_factor = rope_freqs
        return apply_rope(t, inv_freq=inv_freq, attention_factor=attention_factor, layout=c.layout,
                          method="fast")

    def bias(self, seq: int, device, dtype) -> torch.Tensor:
        """The additive score bias (heads, seq, seq): ALiBi's or zeros, with -inf above the diagonal."""
        c = self.config
        if c.encoding == "alibi":
            b = alibi_bias(c.n_heads, seq, dtype=dtype, device=device)
        else:
            b = torch.zeros(c.n_heads, seq, seq, dtype=dtype, device=device)
        future = torch.ones(seq, seq, dtype=torch.bool, device=device).triu(1)
        return b.masked_fill(future, float("-inf"))

    def forward(self, x: torch.Tensor, rope_freqs=None, want_weights: bool = False):
        q, k, v = self.project(x, rope_freqs)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.config.d_head)
        weights = torch.softmax(scores + self.bias(x.shape[-2], x.device, x.dtype), dim=-1)
        y = (weights @ v).transpose(1, 2).flatten(-2)
        return self.out(y), (weights if want_weights else None)


class Block(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.ln1 = nn.LayerNorm(config.d_model)
        self.attn = Attention(config)
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
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.unembed = nn.Linear(config.d_model, config.vocab_size)

    @property
    def alibi_slopes(self) -> torch.Tensor | None:
        """The per-head ALiBi slopes in use (from rope_viz.biases), None for other encodings."""
        if self.config.encoding != "alibi":
            return None
        return alibi_slopes(self.config.n_heads)

    def embed_tokens(self, tokens: torch.Tensor) -> torch.Tensor:
        """Token embeddings plus, for the sinusoidal encoding, the position rows."""
        x = self.embed(tokens)
        if self.config.encoding == "sinusoidal":
            x = x + sinusoidal_encoding(tokens.shape[-1], self.config.d_model, self.config.base,
                                        dtype=x.dtype, device=x.device)
        return x

    def forward(self, tokens: torch.Tensor, *, rope_freqs: torch.Tensor | None = None,
                return_attention: bool = False):
        """Logits (batch, seq, vocab); with return_attention also the list of attention weights,
        one (batch, heads, seq, seq) tensor per layer. rope_freqs = (inv_freq, attention_factor)
        overrides RoPE's speeds (inference-time scaling)."""
        if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2 or tokens.is_floating_point():
            raise ValueError(f"tokens must be an integer tensor (batch, seq), got {tokens!r:.80}")
        if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= self.config.vocab_size):
            raise ValueError(f"tokens must lie in 0..{self.config.vocab_size - 1}")
        if rope_freqs is not None and self.config.encoding != "rope":
            raise ValueError(f"rope_freqs applies only to encoding='rope', got encoding={self.config.encoding!r}")
        x = self.embed_tokens(tokens)
        maps = []
        for block in self.blocks:
            x, w = block(x, rope_freqs, return_attention)
            maps.append(w)
        logits = self.unembed(self.ln_f(x))
        return (logits, maps) if return_attention else logits
