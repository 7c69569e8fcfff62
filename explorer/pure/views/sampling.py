"""Thinning large matrices for drawing: statistics are computed on the full matrix, the picture
is drawn from every s-th row and column."""

from __future__ import annotations

import math

import numpy as np
import torch

from rope_viz._checks import check_int


def _stride(size: int, max_side: int) -> int:
    return max(1, math.ceil(size / max_side))


def downsample(matrix, max_side: int = 512, *, same_stride: bool = True
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every s-th row and column of a 2-D matrix, so that no side exceeds `max_side`.

    Returns (values as a float32 numpy copy, kept row indices, kept column indices as int32); the indices are
    the original ones, for labelling the axes. Entries are picked, never averaged. With
    same_stride=True both axes use one stride s, so entry (i, j) of the result is entry
    (s*i, s*j) of the input: a diagonal m - n = r of the input lands on the diagonal r / s of the
    result, and a matrix whose diagonals are constant still has constant diagonals. With
    same_stride=False each axis gets its own stride (for a positions x dimensions table).
    """
    if isinstance(matrix, torch.Tensor):
        if matrix.is_complex():
            raise ValueError("matrix must be real; pass .real, .imag or .abs() of a complex tensor")
        matrix = matrix.detach().to("cpu", torch.float32).numpy()
    elif not isinstance(matrix, np.ndarray):
        raise ValueError(f"matrix must be a numpy array or a torch.Tensor, got {type(matrix).__name__}")
    if matrix.ndim != 2 or 0 in matrix.shape:
        raise ValueError(f"matrix must be a non-empty 2-D array, got shape {matrix.shape}")
    max_side = check_int(max_side, "max_side", minimum=1)
    rows, cols = matrix.shape
    if same_stride:
        row_step = col_step = _stride(max(rows, cols), max_side)
    else:
        row_step, col_step = _stride(rows, max_side), _stride(cols, max_side)
    kept_rows = np.arange(0, rows, row_step, dtype=np.int32)
    kept_cols = np.arange(0, cols, col_step, dtype=np.int32)
    values = np.array(matrix[::row_step, ::col_step], dtype=np.float32, order="C")  # always a copy
    return values, kept_rows, kept_cols
