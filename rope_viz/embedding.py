"""Tables once, then apply: RoPE in the shape transformers' rotary embeddings and lucidrains'
rotary-embedding-torch give it. `rotary_tables` computes cos and sin for a set of positions (angles in float64,
then cast); `apply_rotary` turns queries or keys with them, as often as needed; `RotaryEmbedding` holds the
frequencies as an `nn.Module` buffer, so `.to(device)` moves them with the rest of a model::

    cos, sin = rope_viz.rotary_tables(torch.arange(4096), 128, base=500000.0)
    q = rope_viz.apply_rotary(q, cos, sin, layout="half")      # pairs (i, i + d/2): Hugging Face's rotate_half
    rope = rope_viz.RotaryEmbedding(128, base=500000.0, layout="half").to(device)
    q, k = rope(q, k, positions)

Their arguments are checked by the one function every rotating entry uses (rope_viz._checks.check_rotation) and
computed on the path apply_rope takes (its frequencies, its scaling, its kernel), so the three refuse what it
refuses and agree with `apply_rope(x, positions, base=..., layout=...)` to float rounding.
"""

from __future__ import annotations

import torch

from . import kernels
from ._checks import as_positions, check_dim, check_layout, check_rotation, check_rotation_qk
from .frequencies import cos_sin
from .rotary import _frequencies
from .scaling import rope_type_of, scaled_inv_freq

_GROWING = ("dynamic", "longrope")  # types whose frequencies depend on the sequence length


def rotary_tables(positions, dim: int, *, base: float = 10000.0, rope_scaling=None,
                  max_position_embeddings: int | None = None, inv_freq=None, attention_factor: float | None = None,
                  dtype: torch.dtype = torch.float32, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin), each (len(positions), dim / 2): the tables of angles m * theta_i for the rotary dimension dim,
    computed in float64 and cast to dtype on device, multiplied by the attention factor of scaled RoPE.
    rope_scaling, max_position_embeddings, inv_freq and attention_factor as apply_rope takes them."""
    dim = check_dim(dim)
    pos = as_positions(positions)
    freqs, scale = _frequencies(pos, pos.numel(), dim, base, rope_scaling, max_position_embeddings, inv_freq,
                                attention_factor)
    return cos_sin(pos, dim, base, dtype, device, inv_freq=freqs, scale=scale)


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, *, layout: str) -> torch.Tensor:
    """x (..., seq, dim) with its first 2 * cos.shape[-1] coordinates turned by the tables (seq, r / 2) of
    rotary_tables and the rest passed through. layout: "half" pairs (i, i + r/2) as Hugging Face and GPT-NeoX;
    "interleaved" pairs (2i, 2i + 1) as the RoFormer paper and Meta's LLaMA code."""
    return _turn(x, cos, sin, layout, check_rotation(x, layout, tables=(cos, sin)))


def _turn(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str, rotary_dim: int) -> torch.Tensor:
    """apply_rotary on arguments check_rotation passed: the tables in the kernel's dtype on x's device."""
    table_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = cos.to(dtype=table_dtype, device=x.device), sin.to(dtype=table_dtype, device=x.device)
    compute = x if x.dtype in (torch.float32, torch.float64) else x.float()
    return kernels.rotate_first(kernels._rope_fast, compute, cos, sin, layout, rotary_dim).to(x.dtype)


class RotaryEmbedding(torch.nn.Module):
    """RoPE as a module: the frequencies are a (non-persistent) buffer, moved by .to(device).

    dim: the rotary dimension (the head size, or less for partial rotary: later coordinates pass through);
    layout: "half" or "interleaved", named by the caller; rope_scaling / max_position_embeddings: a Hugging Face
    scaling dict (dynamic NTK and LongRoPE recompute their frequencies for each call's longest position)."""

    def __init__(self, dim: int, *, layout: str, base: float = 10000.0, rope_scaling=None,
                 max_position_embeddings: int | None = None):
        super().__init__()
        self.dim, self.layout, self.base = check_dim(dim), check_layout(layout), base
        self.rope_scaling, self.max_position_embeddings = rope_scaling, max_position_embeddings
        inv_freq, self.attention_factor = scaled_inv_freq(self.dim, base, rope_scaling,
                                                          max_position_embeddings=max_position_embeddings)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def tables(self, positions) -> tuple[torch.Tensor, torch.Tensor]:
        """(cos, sin) float32 on the module's device for these positions."""
        pos = as_positions(positions)
        if rope_type_of(self.rope_scaling) in _GROWING:
            return rotary_tables(pos, self.dim, base=self.base, rope_scaling=self.rope_scaling,
                                 max_position_embeddings=self.max_position_embeddings, device=self.inv_freq.device)
        return rotary_tables(pos, self.dim, inv_freq=self.inv_freq.cpu(), attention_factor=self.attention_factor,
                             device=self.inv_freq.device)

    def forward(self, q: torch.Tensor, k: torch.Tensor, positions=None) -> tuple[torch.Tensor, torch.Tensor]:
        """q and k (..., seq, head_dim) turned at positions (default 0 .. seq - 1)."""
        rotary_dim = check_rotation_qk(q, k, self.layout, rotary_dim=self.dim)
        seq = q.shape[-2]
        cos, sin = self.tables(torch.arange(seq) if positions is None else as_positions(positions, seq))
        return _turn(q, cos, sin, self.layout, rotary_dim), _turn(k, cos, sin, self.layout, rotary_dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, layout={self.layout!r}, base={self.base}, rope_scaling={self.rope_scaling}"
