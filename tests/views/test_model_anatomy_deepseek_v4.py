"""DeepSeek-V4 on the model-anatomy view: the compressed keys' positions against the blocks written out
here, and the attention output turned back against a float64 loop over the rotated pairs (keys and values
one tensor, softmax, weighted sum, the sum turned back by the query's angle)."""

import math

import pytest
import torch

from explorer.pure.views import model_anatomy as view
from rope_viz import preset

V4 = "nvidia/DeepSeek-V4-Flash-NVFP4"


def turn(x: torch.Tensor, position: int, base: float, rotated_from: int) -> torch.Tensor:
    """x (head,) with neighbouring pairs (2i, 2i+1) of its last dims turned by position * base^(-2i/r)."""
    out = x.clone()
    r = x.shape[0] - rotated_from
    for i in range(r // 2):
        angle = position * base ** (-2.0 * i / r)
        a, b = x[rotated_from + 2 * i].item(), x[rotated_from + 2 * i + 1].item()
        out[rotated_from + 2 * i] = a * math.cos(angle) - b * math.sin(angle)
        out[rotated_from + 2 * i + 1] = a * math.sin(angle) + b * math.cos(angle)
    return out


def attend(q, kv, query: int, keys, base: float, rotated_from: int, derotate: bool) -> torch.Tensor:
    rq = turn(q, query, base, rotated_from)
    rk = torch.stack([turn(row, int(n), base, rotated_from) for row, n in zip(kv, keys)])
    scores = torch.tensor([float(rq @ k) / math.sqrt(q.shape[0]) for k in rk], dtype=torch.float64)
    weights = torch.exp(scores - scores.max()) / torch.exp(scores - scores.max()).sum()
    out = sum(w * k for w, k in zip(weights, rk))
    return turn(out, -query, base, rotated_from) if derotate else out


def test_compressed_keys_are_the_complete_blocks_each_rotated_at_its_first_position():
    data = view.compressed_keys(preset(V4), view.phrase("model_anatomy.model_number", number=1))
    csa, hca = data
    assert (csa.attention, csa.rate, hca.attention, hca.rate) == (
        "compressed_sparse_attention", 4, "heavily_compressed_attention", 128)
    row = csa.rows[2]  # a query at 21: blocks [0, 4) .. [16, 20) complete, 20 and 21 still open
    assert row.query == 21 and row.starts.tolist() == [0, 4, 8, 12, 16]
    assert row.stops.tolist() == [4, 8, 12, 16, 20] and row.offsets.tolist() == [21, 17, 13, 9, 5]
    for kind in data:
        c = kind.rate
        for row in kind.rows:
            q = row.query
            assert row.starts.tolist() == [w * c for w in range(q + 1) if (w + 1) * c <= q + 1]
    assert view.compressed_keys(preset("DeepSeek-V3"), view.phrase("model_anatomy.model_number", number=1)) is None


def test_the_core_output_matches_a_pair_loop_on_a_sliding_layer():
    layer = preset(V4).layers[0]  # sliding window, base 10,000, no scaling: the plain angles of the loop
    assert (layer.attention, layer.base, layer.rope_scaling) == ("sliding_attention", 1e4, None)
    gen = torch.Generator().manual_seed(3)
    q = torch.randn(512, generator=gen, dtype=torch.float64)
    kv = torch.randn(5, 512, generator=gen, dtype=torch.float64)
    keys = [30, 31, 33, 36, 40]
    for derotate in (True, False):
        core = layer.shared_output(q, kv, 40, torch.tensor(keys), derotate=derotate)
        loop = attend(q, kv, 40, keys, 1e4, 448, derotate)
        assert torch.allclose(core, loop, atol=1e-12, rtol=0)
    # shifted by 1,000: the turned-back output stays, the other moves
    shifted = [n + 1000 for n in keys]
    assert (attend(q, kv, 1040, shifted, 1e4, 448, True) - attend(q, kv, 40, keys, 1e4, 448, True)).abs().max() < 1e-11
    assert (attend(q, kv, 1040, shifted, 1e4, 448, False) - attend(q, kv, 40, keys, 1e4, 448, False)).abs().max() > 0.1


def test_derotation_rows_stay_at_rounding_only_when_turned_back():
    rows = view.derotation(preset(V4))
    assert [row.attention for row in rows] == ["sliding_attention", "compressed_sparse_attention",
                                                  "heavily_compressed_attention"]
    assert rows[2].keys.tolist() == [0, 128, 256] and rows[2].query == 386
    for row in rows:
        assert max(row.derotated) < 1e-10 and min(row.not_derotated) > 0.05
    columns = view.derotation_columns(rows)
    assert len(columns) == 3 + len(view.SHIFTS) and all(len(cells) == 6 for cells in columns.values())
    assert view.derotation(preset("DeepSeek-V3")) is None


def test_compressed_positions_and_shared_output_refuse_bad_values():
    model = preset(V4)
    with pytest.raises(ValueError, match="compress"):
        model.layers[0].compressed_positions(10)
    with pytest.raises(ValueError, match="query_position"):
        model.layers[2].compressed_positions(-1)
    with pytest.raises(ValueError, match="q must"):
        model.layers[2].shared_output(torch.zeros(2, 512, dtype=torch.float64), torch.zeros(1, 512), 0, [0])
