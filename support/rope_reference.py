"""Independent RoPE references for every test (core, views, pages, kernels).

Nothing here imports rope_viz: every expected value comes from these hand-written formulas (or from
math.cos / math.sin directly), never from the code under test.

- ``loop_rope``: a per-pair Python loop in float64 with math.cos / math.sin, any layout,
  partial rotary.
- ``llama_rope``: Meta's LLaMA formulation, view the interleaved pairs as complex numbers and
  multiply by torch.polar(1, outer(positions, freqs)).
- ``hf_rope``: Hugging Face's rotate_half formulation for the half layout,
  x * cos + rotate_half(x) * sin with cos = cat(freqs, freqs).
- ``loop_rotation_matrix``: the dense block-diagonal matrix written entry by entry.
- ``pair_rope``: the same per-pair rotation vectorised over positions in float64, for numpy arrays or
  tensors of any size (a pair at a time, each pair's cos and sin written out), with an optional scale
  on cos and sin.
- ``hand_pe``: the sinusoidal encoding written with math.sin / math.cos; ``hand_bf16``: float32 rounded to
  bfloat16 on the bit pattern; ``seeded_randn``: reproducible normal samples drawn in float64;
  ``hand_rotation_2x2``: the 2x2 rotation of one pair.
"""

from __future__ import annotations

import math

import numpy as np
import torch


def hand_inv_freq(dim: int, base: float) -> list[float]:
    """theta_i = base ** (-2 i / dim), i = 0 .. dim/2 - 1, as Python floats."""
    return [float(base) ** (-2.0 * i / dim) for i in range(dim // 2)]


def _positions_list(positions, seq: int) -> list[float]:
    if positions is None:
        return [float(m) for m in range(seq)]
    if isinstance(positions, torch.Tensor):
        return [float(v) for v in positions.reshape(-1).tolist()]
    return [float(v) for v in positions]


def loop_rope(x: torch.Tensor, positions=None, base: float = 10000.0, layout: str = "interleaved",
              rotary_dim: int | None = None) -> torch.Tensor:
    """Rotate x (..., seq, dim) pair by pair in float64 with a plain Python loop."""
    dim = x.shape[-1]
    seq = x.shape[-2]
    r = dim if rotary_dim is None else rotary_dim
    pos = _positions_list(positions, seq)
    assert len(pos) == seq
    theta = hand_inv_freq(r, base)
    flat = x.detach().to(torch.float64).reshape(-1, seq, dim).tolist()
    out = []
    for block in flat:
        rows = []
        for m, row in zip(pos, block):
            new = list(row)  # coordinates past r pass through unchanged
            for i, t in enumerate(theta):
                if layout == "interleaved":
                    a, b = 2 * i, 2 * i + 1
                else:
                    a, b = i, i + r // 2
                c, s = math.cos(m * t), math.sin(m * t)
                new[a] = row[a] * c - row[b] * s
                new[b] = row[a] * s + row[b] * c
            rows.append(new)
        out.append(rows)
    return torch.tensor(out, dtype=torch.float64).reshape(x.shape)


def _freqs64(dim: int, base: float) -> torch.Tensor:
    # The formula as both reference codebases write it: 1 / base^(arange(0, d, 2) / d).
    return 1.0 / (float(base) ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))


def _positions64(positions, seq: int) -> torch.Tensor:
    return torch.tensor(_positions_list(positions, seq), dtype=torch.float64)


def llama_rope(x: torch.Tensor, positions=None, base: float = 10000.0) -> torch.Tensor:
    """Meta LLaMA style: x viewed as (..., d/2) complex, times e^{i m theta}. Interleaved layout."""
    seq, dim = x.shape[-2], x.shape[-1]
    freqs = torch.outer(_positions64(positions, seq), _freqs64(dim, base))
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # (seq, d/2) complex128
    x_ = torch.view_as_complex(x.detach().to(torch.float64).reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(x_ * freqs_cis).flatten(-2)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def hf_rope(x: torch.Tensor, positions=None, base: float = 10000.0) -> torch.Tensor:
    """Hugging Face style: x * cos + rotate_half(x) * sin, cos = cat(freqs, freqs). Half layout."""
    seq, dim = x.shape[-2], x.shape[-1]
    freqs = torch.outer(_positions64(positions, seq), _freqs64(dim, base))
    emb = torch.cat((freqs, freqs), dim=-1)
    x64 = x.detach().to(torch.float64)
    return x64 * emb.cos() + _rotate_half(x64) * emb.sin()


def loop_rotation_matrix(position: float, dim: int, base: float = 10000.0,
                         layout: str = "interleaved") -> torch.Tensor:
    """The dense R_{Theta,m}, filled entry by entry in float64."""
    mat = [[0.0] * dim for _ in range(dim)]
    for i, t in enumerate(hand_inv_freq(dim, base)):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + dim // 2)
        c, s = math.cos(position * t), math.sin(position * t)
        mat[a][a], mat[a][b] = c, -s
        mat[b][a], mat[b][b] = s, c
    return torch.tensor(mat, dtype=torch.float64)


def hand_rotation_2x2(angle: float) -> np.ndarray:
    """The 2x2 matrix that turns a pair by `angle`, written with math.cos / math.sin."""
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])


def hand_layout_permutation(dim: int) -> list[int]:
    """x_half = x_interleaved[p]: the first members of the pairs, then the second members."""
    return [2 * i for i in range(dim // 2)] + [2 * i + 1 for i in range(dim // 2)]


def pair_rope(x, positions=None, base: float = 10000.0, layout: str = "interleaved", rotary_dim: int | None = None,
              scale: float = 1.0):
    """x (..., seq, dim) with pair i of row m turned by positions[m] * base^(-2i/r), in float64.

    Pairs are (2i, 2i+1) ("interleaved") or (i, i + r/2) ("half") among the first r = rotary_dim coordinates;
    the rest pass through. A numpy array comes back as a float64 numpy array, a tensor as a float64 tensor."""
    as_numpy = not isinstance(x, torch.Tensor)
    x64 = torch.as_tensor(np.asarray(x, dtype=np.float64)) if as_numpy else x.detach().to("cpu", torch.float64)
    seq, dim = x64.shape[-2], x64.shape[-1]
    r = dim if rotary_dim is None else rotary_dim
    pos = torch.tensor(_positions_list(positions, seq), dtype=torch.float64)
    assert len(pos) == seq
    out = x64.clone()
    for i in range(r // 2):
        angle = pos * float(base) ** (-2.0 * i / r)
        c, s = torch.cos(angle) * scale, torch.sin(angle) * scale
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + r // 2)
        out[..., a] = x64[..., a] * c - x64[..., b] * s
        out[..., b] = x64[..., a] * s + x64[..., b] * c
    return out.numpy() if as_numpy else out


def hand_pe(positions, dim: int, base: float = 10000.0) -> np.ndarray:
    """(len(positions), dim) float64: row m holds sin(m theta_t), cos(m theta_t) for t = 0 .. dim/2 - 1,
    theta_t = base^(-2t/dim), written with math.sin / math.cos."""
    rows = []
    for m in positions:
        row = []
        for t in range(dim // 2):
            angle = float(m) / float(base) ** (2 * t / dim)
            row += [math.sin(angle), math.cos(angle)]
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(len(rows), dim)


def hand_bf16(x) -> np.ndarray:
    """float32 -> bfloat16 (returned as float32): round to nearest, ties to even, on the bit pattern."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32)


def seeded_randn(*shape, seed: int = 0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Normal samples of `shape` from a generator seeded with `seed`, drawn in float64 and cast to dtype."""
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


def hand_mean_scores(dim: int, base: float, distances, samples: int, seed: int, *, tied: bool = False,
                     weights=None) -> np.ndarray:
    """Mean over `samples` draws of sum_i w_i(r) * (pair i of q) . (pair i of k turned by r * base^(-2i/d)),
    for each distance r, with q and k drawn as the decay pages draw them (torch.rand, float64, q then k from
    one generator; k = q when `tied`), turned with math.cos and math.sin pair by pair. `weights(i, r)` scales
    pair i at distance r (xPos's factor); none means 1."""
    gen = torch.Generator().manual_seed(seed)
    q = torch.rand(samples, dim, generator=gen, dtype=torch.float64).numpy()
    k = q if tied else torch.rand(samples, dim, generator=gen, dtype=torch.float64).numpy()
    means = []
    for r in distances:
        total = 0.0
        for i in range(dim // 2):
            a = float(r) * base ** (-2.0 * i / dim)
            c, s = math.cos(a), math.sin(a)
            k0, k1 = k[:, 2 * i], k[:, 2 * i + 1]
            pair = (q[:, 2 * i] * (k0 * c - k1 * s) + q[:, 2 * i + 1] * (k0 * s + k1 * c)).mean()
            total += pair * (1.0 if weights is None else weights(i, r))
        means.append(total)
    return np.array(means)
