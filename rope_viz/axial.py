"""RoPE on a 2-D grid of image patches: axial RoPE and its mixed-direction variant.

Axial RoPE gives half of the rotation pairs to the row and half to the column, so the score
q . k of two patches depends only on (row offset, column offset). With d = dim and P = d/4:

- pairs p = 0 .. P-1 turn with the row:        angle = row * phi_p
- pairs p = P .. 2P-1 turn with the column:    angle = col * psi_{p-P}

"Pair p" means coordinates (2p, 2p+1) in the interleaved layout and (p, p + d/2) in the half
layout (rope_viz.frequencies.pair_indices), exactly as for 1-D RoPE.

The frequencies phi, psi come in two published flavours:

- "shared" (EVA-02, Heo et al. 2024 "Rotary Position Embedding for Vision Transformer"): both
  axes use the RoPE speeds of a d/2-dimensional vector, phi_j = psi_j = base^(-4j/d). In the
  interleaved layout this is exactly 1-D RoPE of size d/2 on the first half of the coordinates
  (positions = rows) and on the second half (positions = cols).
- "alternating" (Pixtral in Hugging Face transformers): the d/2 speeds theta_i = base^(-2i/d) of
  the full vector are dealt out alternately, phi_j = theta_{2j} and psi_j = theta_{2j+1}.

RoPE-Mixed (Heo et al. 2024) lets every pair turn along its own direction in the plane:
angle_p = row * freq_row[p] + col * freq_col[p]; axial RoPE is the special case where each pair
has one of the two frequencies zero.
"""

from __future__ import annotations

import math

import torch

from . import kernels
from ._checks import (as_positions, check_budget, check_choice, check_dim, check_int, check_positive,
                      check_real, check_rotary_input, check_rotation)
from .frequencies import inv_freq

AXIAL_FREQUENCIES = ("shared", "alternating")


def patch_grid(height: int, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Row and column ids of a height x width grid of patches in raster order (row by row).

    Returns (rows, cols), each int64 of length height * width: patch k sits at
    row k // width, column k % width.
    """
    height = check_int(height, "height", minimum=1)
    width = check_int(width, "width", minimum=1)
    check_budget(height * width, "patch_grid")
    rows, cols = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    return rows.flatten(), cols.flatten()


def _check_axial_dim(dim, name: str = "dim") -> int:
    dim = check_dim(dim, name)
    if dim % 4:
        raise ValueError(f"{name} must be a positive multiple of 4 (half the pairs per axis), got {dim}")
    return dim


def axial_frequencies(dim: int, base: float = 10000.0, *, frequencies: str = "shared"
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-pair speeds (freq_row, freq_col), each (dim/2,) float64, of axial RoPE.

    Pair p < dim/4 has freq_row[p] = phi_p and freq_col[p] = 0; pair p >= dim/4 has
    freq_row[p] = 0 and freq_col[p] = psi_{p - dim/4}, where
    "shared":      phi_j = psi_j = base^(-4j/dim)           (inv_freq(dim/2, base))
    "alternating": phi_j = base^(-4j/dim), psi_j = base^(-(4j+2)/dim)   (Pixtral)
    """
    dim = _check_axial_dim(dim)
    base = check_positive(base, "base")
    check_choice(frequencies, "frequencies", AXIAL_FREQUENCIES)
    quarter = dim // 4
    if frequencies == "shared":
        row_speeds = col_speeds = inv_freq(dim // 2, base, dtype=torch.float64)
    else:
        full = inv_freq(dim, base, dtype=torch.float64)
        row_speeds, col_speeds = full[0::2], full[1::2]
    zeros = torch.zeros(quarter, dtype=torch.float64)
    return torch.cat((row_speeds, zeros)), torch.cat((zeros, col_speeds))


def mixed_frequencies(dim: int, base: float = 10.0, *, direction: float = 0.0
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """RoPE-Mixed's initial per-pair speeds (freq_row, freq_col), each (dim/2,) float64.

    As in the reference code of Heo et al. (naver-ai/rope-vit, init_random_2d_freqs), with
    magnitudes m_j = base^(-4j/dim) for j = 0 .. dim/4 - 1 and a direction angle a:
    pairs j < dim/4:  freq_col = m_j cos(a),        freq_row = m_j sin(a)
    pairs dim/4 + j:  freq_col = m_j cos(a + pi/2), freq_row = m_j sin(a + pi/2)
    (the paper draws a at random per head and then trains the speeds; base 10 is its default).
    direction=0 turns the first quarter with the column and the second with the row.
    """
    dim = _check_axial_dim(dim)
    base = check_positive(base, "base")
    direction = check_real(direction, "direction (radians)")
    magnitude = inv_freq(dim // 2, base, dtype=torch.float64)
    turns = torch.tensor([float(direction), float(direction) + math.pi / 2], dtype=torch.float64)
    freq_col = (magnitude[None, :] * torch.cos(turns)[:, None]).flatten()
    freq_row = (magnitude[None, :] * torch.sin(turns)[:, None]).flatten()
    return freq_row, freq_col


def _as_speeds(values, pairs: int, name: str) -> torch.Tensor:
    try:
        speeds = torch.as_tensor(values, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"{name} must be {pairs} numbers (one per pair), got {values!r}") from err
    if speeds.shape != (pairs,):
        raise ValueError(f"{name} must have shape ({pairs},) (one speed per pair), got {tuple(speeds.shape)}")
    if not bool(torch.isfinite(speeds).all()):
        raise ValueError(f"{name} must be finite numbers; got NaN or infinity")
    return speeds.cpu()


def mixed_angles(rows, cols, freq_row, freq_col) -> torch.Tensor:
    """angle[k, p] = rows[k] * freq_row[p] + cols[k] * freq_col[p]: (n_patches, pairs), float64."""
    row_pos = as_positions(rows, name="rows")
    col_pos = as_positions(cols, row_pos.numel(), name="cols")
    pairs = torch.as_tensor(freq_row).numel()
    freq_row = _as_speeds(freq_row, pairs, "freq_row")
    freq_col = _as_speeds(freq_col, pairs, "freq_col")
    check_budget(row_pos.numel() * pairs, "mixed_angles")
    return torch.outer(row_pos, freq_row) + torch.outer(col_pos, freq_col)


def axial_angles(rows, cols, dim: int, base: float = 10000.0, *, frequencies: str = "shared") -> torch.Tensor:
    """The angle of every pair at every patch, (n_patches, dim/2) float64:
    angle[k, p] = rows[k] * phi_p for p < dim/4, cols[k] * psi_{p - dim/4} for p >= dim/4
    (phi, psi as in axial_frequencies)."""
    freq_row, freq_col = axial_frequencies(dim, base, frequencies=frequencies)
    return mixed_angles(rows, cols, freq_row, freq_col)


def rotate_pairs(x: torch.Tensor, angles, *, layout: str = "interleaved") -> torch.Tensor:
    """Turn pair p of every row k of x (..., seq, dim) by angles[k, p] (a (seq, dim/2) table).

    (x_a, x_b) -> (x_a cos a - x_b sin a, x_a sin a + x_b cos a) for each pair (a, b) of the layout;
    the rotation itself is the fast path of rope_viz.kernels, the one 1-D RoPE uses. The table is taken in
    float64 and its cos/sin cast to float32 (float64 for float64 x).
    """
    dim = check_rotation(x, layout)
    table = torch.as_tensor(angles, dtype=torch.float64)
    if table.shape != (x.shape[-2], dim // 2):
        raise ValueError(f"angles must have shape (seq, dim/2) = ({x.shape[-2]}, {dim // 2}), "
                         f"got {tuple(table.shape)}")
    table_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos = table.cos().to(dtype=table_dtype, device=x.device)
    sin = table.sin().to(dtype=table_dtype, device=x.device)
    return kernels._rope_fast(x, cos, sin, layout)


def apply_axial_rope(x: torch.Tensor, rows, cols, *, base: float = 10000.0, layout: str = "interleaved",
                     frequencies: str = "shared") -> torch.Tensor:
    """Axial 2-D RoPE of x (..., n_patches, dim) for patches at (rows[k], cols[k]).

    Pairs 0 .. dim/4-1 turn by rows[k] * phi_p and pairs dim/4 .. dim/2-1 by cols[k] * psi_{p-dim/4}
    (see axial_frequencies), so that q_rot(r1, c1) . k_rot(r2, c2) depends only on (r2-r1, c2-c1).
    dim must be a multiple of 4; rows/cols may be fractional (e.g. interpolated grids).
    """
    dim = check_rotary_input(x)
    _check_axial_dim(dim, "x.shape[-1] (dim)")
    row_pos = as_positions(rows, x.shape[-2], name="rows")
    col_pos = as_positions(cols, x.shape[-2], name="cols")
    return rotate_pairs(x, axial_angles(row_pos, col_pos, dim, base, frequencies=frequencies), layout=layout)


def apply_mixed_rope(x: torch.Tensor, rows, cols, freq_row, freq_col, *, layout: str = "interleaved"
                     ) -> torch.Tensor:
    """RoPE-Mixed of x (..., n_patches, dim): pair p turns by rows[k]*freq_row[p] + cols[k]*freq_col[p].

    freq_row, freq_col: (dim/2,) speeds per pair (e.g. from mixed_frequencies, or learned ones).
    The score still depends only on (row offset, column offset).
    """
    dim = check_rotary_input(x)
    row_pos = as_positions(rows, x.shape[-2], name="rows")
    col_pos = as_positions(cols, x.shape[-2], name="cols")
    freq_row = _as_speeds(freq_row, dim // 2, "freq_row")
    freq_col = _as_speeds(freq_col, dim // 2, "freq_col")
    return rotate_pairs(x, mixed_angles(row_pos, col_pos, freq_row, freq_col), layout=layout)
