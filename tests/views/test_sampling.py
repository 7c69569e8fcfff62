"""rope_viz.sampling.downsample against index arithmetic written here."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from explorer.pure.views.sampling import downsample


def offsets_matrix(n: int) -> np.ndarray:
    """A Toeplitz matrix built by a loop: entry (m, k) is m - k."""
    return np.array([[float(m - k) for k in range(n)] for m in range(n)])


@pytest.mark.parametrize("n, max_side, side", [(10, 512, 10), (512, 512, 512), (513, 512, 257),
                                               (2048, 512, 512), (2048, 256, 256), (2047, 256, 256),
                                               (5, 1, 1)])
def test_side_never_exceeds_max_side(n, max_side, side):
    values, rows, cols = downsample(np.zeros((n, n)), max_side)
    assert values.shape == (side, side) == (len(rows), len(cols))
    assert values.dtype == np.float32 and values.flags["C_CONTIGUOUS"]


def test_entries_are_picked_not_averaged_and_indices_are_the_original_ones():
    n = 1000
    matrix = np.arange(n * n, dtype=np.float64).reshape(n, n)
    values, rows, cols = downsample(matrix, 300)
    stride = 4  # ceil(1000 / 300)
    assert list(rows) == list(range(0, n, stride)) == list(cols)
    for i, j in [(0, 0), (1, 2), (249, 249), (17, 200)]:
        assert values[i, j] == matrix[stride * i, stride * j]


def test_diagonals_stay_exact():
    values, rows, cols = downsample(offsets_matrix(700), 128)
    # every kept entry is the offset of its original row and column...
    for i in range(0, len(rows), 13):
        for j in range(0, len(cols), 11):
            assert values[i, j] == rows[i] - cols[j]
    # ...so each diagonal of the thinned matrix is still constant
    for r in range(-(len(rows) - 1), len(rows)):
        diag = np.diagonal(values, offset=r)
        assert np.all(diag == diag[0])


def test_separate_strides_for_a_tall_table():
    table = np.arange(2048 * 64, dtype=np.float32).reshape(2048, 64)
    values, rows, cols = downsample(table, 256, same_stride=False)
    assert values.shape == (256, 64)
    assert list(cols) == list(range(64))
    assert values[10, 5] == table[80, 5]
    same, _, _ = downsample(table, 256)
    assert same.shape == (256, 8)


def test_torch_input_is_copied_to_numpy():
    t = torch.arange(36, dtype=torch.float64).reshape(6, 6)
    values, _, _ = downsample(t, 3)
    assert isinstance(values, np.ndarray) and values.tolist() == [[0, 2, 4], [12, 14, 16], [24, 26, 28]]
    values[0, 0] = 99
    assert t[0, 0] == 0


@pytest.mark.parametrize("bad, kwargs, word", [
    (np.zeros(5), {}, "matrix"),
    (np.zeros((0, 3)), {}, "matrix"),
    ([[1.0, 2.0]], {}, "matrix"),
    (torch.zeros(2, 2, dtype=torch.complex64), {}, "matrix"),
    (np.zeros((4, 4)), {"max_side": 0}, "max_side"),
    (np.zeros((4, 4)), {"max_side": 2.5}, "max_side"),
])
def test_bad_input_names_the_argument(bad, kwargs, word):
    with pytest.raises(ValueError, match=word):
        downsample(bad, **kwargs)
