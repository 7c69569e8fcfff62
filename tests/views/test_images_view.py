"""explorer.views.images: the M-RoPE split, row-break numbers, the shift test and both resume rules."""

import numpy as np
import pytest

from explorer.views import images as view


@pytest.mark.parametrize("dim,section", [(128, (16, 24, 24)), (64, (8, 12, 12)), (8, (1, 2, 1))])
def test_mrope_section_scales_qwen2_vl_split(dim, section):
    assert view.mrope_section(dim) == section
    assert sum(view.mrope_section(dim)) == dim // 2


def test_maps_peak_at_the_query_with_the_squared_norm():
    maps = view.patch_scores(6, 9, 2, 7, 32, 100.0, "alternating", 3)
    for name in ("axial", "raster", "mrope"):
        assert maps[name].shape == (6, 9) and maps[name].dtype == np.float32
        assert maps[name][2, 7] == pytest.approx(maps["norm"], rel=1e-6)
        assert maps[name].max() == pytest.approx(maps["norm"], rel=1e-6)


def test_one_row_has_no_row_break_numbers():
    assert "below_axial" not in view.patch_scores(1, 5, 0, 2, 16, 1e4, "shared", 0)


def test_shift_leaves_2d_scores_unchanged():
    out = view.shift_test(5, 7, 1, 2, 16, 1e4, "shared", 4, 300, 11)
    assert (out["key_row"], out["key_col"]) == (3, 4)
    assert out["pair_change"] < 1e-9 * out["largest_score"]
    assert out["largest_change"] < 1e-9 * out["largest_score"]


def test_resume_rules_part_only_when_frames_exceed_the_grid():
    long_video = view.multimodal(2, 2, 3, 5, "spatial_extent", 16, 1e4, 0)
    assert (long_video["video_first"], long_video["video_last"]) == (7, 11)
    assert (long_video["resume_spatial"], long_video["resume_largest"]) == (10, 12)
    assert long_video["overlap"] == 2 * 6 and long_video["overlap_frames"] == 2
    short_video = view.multimodal(2, 2, 3, 3, "largest_id", 16, 1e4, 0)
    assert short_video["resume_spatial"] == short_video["resume_largest"] and short_video["overlap"] == 0
    assert "resume_spatial" not in view.multimodal(2, 2, 3, 0, "largest_id", 16, 1e4, 0)


def test_long_sequences_are_thinned_for_drawing():
    seq = view.multimodal(32, 8, 8, 8, "largest_id", 16, 1e4, 0)
    assert seq["tokens"] == 4 * 32 + 64 + 512 - 32
    assert max(seq["scores"].shape) <= view.SCORE_SIDE and seq["ids"].shape == (3, seq["tokens"])
