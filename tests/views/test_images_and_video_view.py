"""explorer.pure.views.images_and_video: the M-RoPE split, row-break numbers, the shift test and both resume rules."""

import dataclasses

import numpy as np
import pytest

from explorer.pure.views import images_and_video as view
from explorer.pure.views.phrases import phrase


@pytest.mark.parametrize("dim,section", [(128, (16, 24, 24)), (64, (8, 12, 12)), (8, (1, 2, 1))])
def test_mrope_section_scales_qwen2_vl_split(dim, section):
    assert view.mrope_section(dim) == section
    assert sum(view.mrope_section(dim)) == dim // 2


def test_maps_peak_at_the_query_with_the_squared_norm():
    maps = view.patch_scores(6, 9, 2, 7, 32, 100.0, "alternating", 3)
    for drawn in (maps.axial, maps.raster, maps.mrope):
        assert drawn.shape == (6, 9) and drawn.dtype == np.float32
        assert drawn[2, 7] == pytest.approx(maps.norm, rel=1e-6)
        assert drawn.max() == pytest.approx(maps.norm, rel=1e-6)


def test_one_row_has_no_row_break_numbers():
    assert view.patch_scores(1, 5, 0, 2, 16, 1e4, "shared", 0).row_break is None


def test_shift_leaves_2d_scores_unchanged():
    out = view.shift_test(5, 7, 1, 2, 16, 1e4, "shared", 4, 300, 11)
    assert (out.key_row, out.key_col) == (3, 4)
    assert out.pair_change < 1e-9 * out.largest_score
    assert out.largest_change < 1e-9 * out.largest_score


def test_resume_rules_part_only_when_frames_exceed_the_grid():
    long_video = view.multimodal(2, 2, 3, 5, "spatial_extent", 16, 1e4, 0).video
    assert (long_video.video_first, long_video.video_last) == (7, 11)
    assert (long_video.resume_spatial, long_video.resume_largest) == (10, 12)
    assert long_video.overlap == 2 * 6 and long_video.overlap_frames == 2
    short_video = view.multimodal(2, 2, 3, 3, "largest_id", 16, 1e4, 0).video
    assert short_video.resume_spatial == short_video.resume_largest and short_video.overlap == 0
    assert view.multimodal(2, 2, 3, 0, "largest_id", 16, 1e4, 0).video is None


def test_long_sequences_are_thinned_for_drawing():
    seq = view.multimodal(32, 8, 8, 8, "largest_id", 16, 1e4, 0)
    assert seq.tokens == 4 * 32 + 64 + 512 - 32
    assert max(seq.scores.shape) <= view.SCORE_SIDE and seq.ids.shape == (3, seq.tokens)
    assert view.thinned_scores(seq) == phrase(
        "images_and_video.scores_thinned", step=int(seq.kept[1]), tokens=seq.tokens
    )
    short = view.multimodal(2, 2, 3, 0, "largest_id", 16, 1e4, 0)
    assert view.thinned_scores(short) is None and short.positions.tolist() == list(range(short.tokens))


def test_what_the_page_writes_follows_the_numbers():
    one = np.zeros((1, 6), dtype=np.float32)
    maps = view.PatchScores(axial=one, raster=one, mrope=one, section=(1, 1, 1), norm=1.0,
                            row_break=view.RowBreak(below_axial=1.0, below_raster=0.5, wrap_axial=0.25,
                                                    wrap_raster=0.125))
    # one row: no row break and no vertical neighbour
    assert view.raster_neighbours(dataclasses.replace(maps, row_break=None), 6) == []
    below, wrap = view.raster_neighbours(maps, 6)
    assert below[0] == phrase("images_and_video.below_header", width=6) and [m.value for m in below[1]] == [
        "1.000",
        "0.500",
    ]
    assert wrap[0].args == {"last": 5, "width": 6} and [m.value for m in wrap[1]] == ["0.250", "0.125"]
    shifted = view.ShiftTest(key_row=0, key_col=0, before=0.5, after=0.5000001, pair_change=1e-7,
                             largest_change=3e-7, largest_score=9.0)
    metrics = view.shift_metrics(shifted, 2, 3, 12)
    assert [m.value for m in metrics] == ["0.500000", "0.500000", "1.0e-07", "3.0e-07"]
    assert metrics[1].label.args == {"a": 2, "b": 3} and metrics[3].help.args == {"n": 12, "largest": 9.0}
    long_video = view.multimodal(2, 2, 3, 5, "spatial_extent", 16, 1e4, 0)
    numbers, overlap, followed = view.resume_reading(long_video, "spatial_extent")
    assert numbers.args["spatial"] == 10 and overlap.key == "images_and_video.resume_overlap"
    assert followed.args["rule"] == phrase("images_and_video.resume_spatial_extent")
    short_video = view.multimodal(2, 2, 3, 3, "largest_id", 16, 1e4, 0)
    assert view.resume_reading(short_video, "largest_id")[1] == phrase("images_and_video.resume_agree")
    no_video = view.multimodal(2, 2, 3, 0, "largest_id", 16, 1e4, 0)
    assert [p.key for p in view.resume_reading(no_video, "largest_id")] == ["images_and_video.resume_no_video",
                                                                          "images_and_video.resume_followed"]
    bands = view.section_bands((2, 3, 3), 16)
    assert [band for _, band in bands] == [(0, 2), (2, 5), (5, 8)] and bands[1][0].args == {"n": 3}


def hand_mrope_map(height, width, row, col, dim, base, seed):
    """Scores of patch (row, col) with every patch under M-RoPE, by hand in float64: one content vector x,
    pair j weighing x_2j² + x_2j+1², pairs 0..t-1 turning with the time id (the same everywhere), the next h
    with the row and the rest with the column, at the ordinary speed base^(-2j/d)."""
    import torch
    from rope_viz.analysis import random_tokens
    x = random_tokens(1, dim, same=True, seed=seed, dtype=torch.float64)[0].numpy()
    weights = x[0::2] ** 2 + x[1::2] ** 2
    speeds = base ** (-2.0 * np.arange(dim // 2) / dim)
    t, h, _ = {64: (8, 12, 12), 32: (4, 6, 6)}[dim]  # Qwen2-VL's 16 : 24 : 24 split of 64 pairs, scaled
    out = np.zeros((height, width))
    for r in range(height):
        for c in range(width):
            delta = np.array([0] * t + [r - row] * h + [c - col] * (dim // 2 - t - h))
            out[r, c] = (weights * np.cos(delta * speeds)).sum()
    return out


# (height, width, row, col, dim, base): the default image, whose rows carry the change; a strip two rows high,
# where the columns do; a tall square one; and a small base, where both change fast
@pytest.mark.parametrize("case,axis", [((8, 12, 3, 5, 64, 1e4), "rows"), ((2, 32, 0, 0, 64, 1e4), "columns"),
                                       ((32, 32, 16, 16, 64, 1e4), "rows"), ((8, 12, 3, 5, 32, 100.0), "rows")])
def test_the_mrope_close_up_shows_the_pattern_its_text_describes(case, axis):
    height, width, row, col, dim, base = case
    close = view.mrope_close_up(height, width, row, col, dim, base, "shared", 0)
    exact = hand_mrope_map(height, width, row, col, dim, base, 0)
    assert close.offset == pytest.approx(exact - exact.mean(), abs=1e-6)
    # drawn from -limit to +limit: the map's values fill at least half of that range (they filled ~1/255 of
    # the shared scale of the default image)
    drawn = close.offset
    assert (drawn.max() - drawn.min()) / (2 * close.limit) >= 0.5
    assert close.limit == pytest.approx(np.abs(exact - exact.mean()).max(), rel=1e-9)
    # the text's claim: the axis whose means lie further apart, with both spreads as the hand map gives them
    rows, columns = np.ptp(exact.mean(axis=1)), np.ptp(exact.mean(axis=0))
    assert ("rows" if rows > columns else "columns") == axis
    claim = close.reading.args["claim"]
    assert claim.key == f"images_and_video.mrope_{axis}"
    assert claim.args["rows"] == f"{rows:.3g}" and claim.args["columns"] == f"{columns:.3g}"
    assert close.reading.args["spread"] == f"{np.ptp(exact):.3g}"
    # the fastest height pair turns by base^(-2t/d) per row, the fastest width pair by base^(-2(t+h)/d)
    t, h, _ = view.mrope_section(dim)
    assert close.row_speed == pytest.approx(base ** (-2 * t / dim), rel=1e-6)
    assert close.column_speed == pytest.approx(base ** (-2 * (t + h) / dim), rel=1e-6)


def test_on_the_shared_scale_the_default_mrope_map_takes_about_one_colour_step():
    """Why the close-up exists: the three maps' shared scale runs from the 1-D map's lowest score to |x|²."""
    maps = view.patch_scores(8, 12, 3, 5, 64, 1e4, "shared", 0)
    exact = hand_mrope_map(8, 12, 3, 5, 64, 1e4, 0)
    low = min(drawn.min() for drawn in (maps.axial, maps.raster, maps.mrope))
    steps = np.ptp(exact) / (maps.norm - low) * 255
    close = view.mrope_close_up(8, 12, 3, 5, 64, 1e4, "shared", 0)
    assert steps < 2 and close.levels == pytest.approx(steps, rel=1e-3)
    assert close.reading.args["levels"] == f"{steps:.1f}"
