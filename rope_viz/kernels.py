"""The "fast" RoPE path: one pass over memory where the device allows it."""

from __future__ import annotations

import torch


def _half(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def _interleaved(x, cos, sin):
    pairs = x.unflatten(-1, (-1, 2))
    x1, x2 = pairs[..., 0], pairs[..., 1]
    return torch.stack((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).flatten(-2)


def rope_fast(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """Rotate x (..., seq, r) with tables cos, sin (seq, r/2) in float32 (float64 for float64 x);
    the result has x's dtype."""
    work = x if x.dtype == cos.dtype else x.to(cos.dtype)
    fn = _interleaved if layout == "interleaved" else _half
    return fn(work, cos, sin).to(x.dtype)
