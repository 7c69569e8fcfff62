"""Axial and mixed 2-D RoPE against a hand-written per-pair loop, Pixtral's axial rotary
embedding in transformers, RoPE-Mixed's published initialisation, and the 2-D relative property."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rope_viz.axial import (apply_axial_rope, apply_mixed_rope, axial_angles, axial_frequencies, mixed_frequencies,
                            patch_grid)

FLOAT64_TOL = 1e-12


def loop_axial(x, rows, cols, base, layout, frequencies="shared"):
    """Pair p < d/4 turns by row * phi_p, pair p >= d/4 by col * psi_(p-d/4); written per pair."""
    out = x.detach().to(torch.float64).clone()
    d = x.shape[-1]
    quarter = d // 4
    flat_in = x.detach().to(torch.float64).reshape(-1, x.shape[-2], d)
    flat_out = out.reshape(-1, x.shape[-2], d)
    for b in range(flat_in.shape[0]):
        for k in range(x.shape[-2]):
            for p in range(d // 2):
                j = p if p < quarter else p - quarter
                if frequencies == "shared":
                    speed = float(base) ** (-4.0 * j / d)
                else:
                    speed = float(base) ** (-(4.0 * j + (0 if p < quarter else 2)) / d)
                angle = (float(rows[k]) if p < quarter else float(cols[k])) * speed
                a, c = (2 * p, 2 * p + 1) if layout == "interleaved" else (p, p + d // 2)
                xa, xc = float(flat_in[b, k, a]), float(flat_in[b, k, c])
                flat_out[b, k, a] = xa * math.cos(angle) - xc * math.sin(angle)
                flat_out[b, k, c] = xa * math.sin(angle) + xc * math.cos(angle)
    return out


def test_patch_grid_is_raster_order():
    rows, cols = patch_grid(3, 4)
    assert rows.tolist() == [k // 4 for k in range(12)]
    assert cols.tolist() == [k % 4 for k in range(12)]


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("frequencies", ["shared", "alternating"])
def test_axial_matches_per_pair_loop(layout, frequencies):
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 6, 16, generator=gen, dtype=torch.float64)
    rows, cols = patch_grid(2, 3)
    got = apply_axial_rope(x, rows, cols, base=100.0, layout=layout, frequencies=frequencies)
    expected = loop_axial(x, rows.tolist(), cols.tolist(), 100.0, layout, frequencies)
    assert (got - expected).abs().max().item() < FLOAT64_TOL


def test_axial_float32_close_to_loop():
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(12, 32, generator=gen)
    rows, cols = patch_grid(3, 4)
    got = apply_axial_rope(x, rows * 7.5, cols * 11.0)
    expected = loop_axial(x, (rows * 7.5).tolist(), (cols * 11.0).tolist(), 10000.0, "interleaved")
    assert (got.double() - expected).abs().max().item() < 2e-6


def test_axial_angles_by_hand():
    table = axial_angles([2.0], [5.0], 8, 10000.0)
    expected = [2.0 * 1.0, 2.0 * 10000.0 ** -0.5, 5.0 * 1.0, 5.0 * 10000.0 ** -0.5]
    assert table.shape == (1, 4)
    assert max(abs(a - b) for a, b in zip(table[0].tolist(), expected)) < 1e-15


def test_alternating_matches_pixtral_in_transformers():
    from transformers import PixtralVisionConfig
    from transformers.models.pixtral.modeling_pixtral import (
        PixtralVisionRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    config = PixtralVisionConfig(hidden_size=64, num_attention_heads=2, head_dim=32, rope_theta=10000.0)
    rotary = PixtralVisionRotaryEmbedding(config)
    rows, cols = patch_grid(5, 7)
    gen = torch.Generator().manual_seed(5)
    q = torch.randn(1, 2, 35, 32, generator=gen)
    cos, sin = rotary(q, torch.stack((rows, cols), dim=-1))
    q_ref, _ = apply_rotary_pos_emb(q, q, cos, sin, unsqueeze_dim=0)
    got = apply_axial_rope(q, rows, cols, base=10000.0, layout="half", frequencies="alternating")
    diff = (got - q_ref).abs().max().item()
    assert diff < 1e-5, diff


def test_mixed_frequencies_match_rope_vit_initialisation():
    # naver-ai/rope-vit init_random_2d_freqs, written out: mag = 1 / theta ** (arange(0, d, 4) / d),
    # fx = [mag cos a, mag cos(a + pi/2)], fy = [mag sin a, mag sin(a + pi/2)]; x = column, y = row.
    dim, theta, a = 16, 10.0, 0.7
    mag = [1.0 / theta ** (j / dim) for j in range(0, dim, 4)]
    fx = [m * math.cos(a) for m in mag] + [m * math.cos(math.pi / 2 + a) for m in mag]
    fy = [m * math.sin(a) for m in mag] + [m * math.sin(math.pi / 2 + a) for m in mag]
    freq_row, freq_col = mixed_frequencies(dim, theta, direction=a)
    assert max(abs(u - v) for u, v in zip(freq_col.tolist(), fx)) < 1e-15
    assert max(abs(u - v) for u, v in zip(freq_row.tolist(), fy)) < 1e-15


def test_mixed_rope_matches_loop_and_contains_axial():
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(6, 8, generator=gen, dtype=torch.float64)
    rows, cols = patch_grid(2, 3)
    freq_row = torch.rand(4, generator=gen, dtype=torch.float64)
    freq_col = torch.rand(4, generator=gen, dtype=torch.float64)
    got = apply_mixed_rope(x, rows, cols, freq_row, freq_col)
    expected = x.clone()
    for k in range(6):
        for p in range(4):
            angle = float(rows[k]) * float(freq_row[p]) + float(cols[k]) * float(freq_col[p])
            xa, xc = float(x[k, 2 * p]), float(x[k, 2 * p + 1])
            expected[k, 2 * p] = xa * math.cos(angle) - xc * math.sin(angle)
            expected[k, 2 * p + 1] = xa * math.sin(angle) + xc * math.cos(angle)
    assert (got - expected).abs().max().item() < FLOAT64_TOL
    # axial RoPE is the mixed one with one zero speed per pair
    fr, fc = axial_frequencies(8, 10000.0)
    assert (apply_mixed_rope(x, rows, cols, fr, fc) - loop_axial(x, rows.tolist(), cols.tolist(), 10000.0,
                                                                  "interleaved")).abs().max().item() < FLOAT64_TOL


coordinate = st.integers(min_value=-40, max_value=40)


@settings(max_examples=40, deadline=None)
@given(r1=coordinate, c1=coordinate, r2=coordinate, c2=coordinate, a=coordinate, b=coordinate,
       layout=st.sampled_from(["interleaved", "half"]), mixed=st.booleans(), seed=st.integers(0, 2**16))
def test_score_depends_only_on_row_and_column_offsets(r1, c1, r2, c2, a, b, layout, mixed, seed):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(1, 16, generator=gen, dtype=torch.float64)
    k = torch.randn(1, 16, generator=gen, dtype=torch.float64)
    if mixed:
        freq_row, freq_col = mixed_frequencies(16, 10.0, direction=seed / 1000.0)

        def encode(v, r, c):
            return apply_mixed_rope(v, [r], [c], freq_row, freq_col, layout=layout)
    else:
        def encode(v, r, c):
            return apply_axial_rope(v, [r], [c], base=100.0, layout=layout)
    score = float((encode(q, r1, c1) * encode(k, r2, c2)).sum())
    shifted = float((encode(q, r1 + a, c1 + b) * encode(k, r2 + a, c2 + b)).sum())
    assert abs(score - shifted) < 1e-9 * (1 + abs(score))
    # and the axial score is the loop's
    if not mixed:
        expected = float((loop_axial(q, [r1], [c1], 100.0, layout) * loop_axial(k, [r2], [c2], 100.0, layout)).sum())
        assert abs(score - expected) < 1e-9 * (1 + abs(score))


@pytest.mark.parametrize("call, message", [
    (lambda: apply_axial_rope(torch.zeros(4, 6), [0] * 4, [0] * 4), "multiple of 4"),
    (lambda: apply_axial_rope(torch.zeros(4, 8), [0] * 3, [0] * 4), "rows"),
    (lambda: apply_axial_rope(torch.zeros(4, 8), [0] * 4, [0] * 4, frequencies="odd"), "frequencies"),
    (lambda: apply_mixed_rope(torch.zeros(2, 8), [0, 1], [0, 1], [1.0] * 3, [1.0] * 4), "freq_row"),
    (lambda: patch_grid(0, 3), "height"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()
