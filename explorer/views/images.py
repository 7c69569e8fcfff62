"""The images-and-video page's view: one query patch scored against every patch of an image under 2-D
(axial) RoPE, 1-D RoPE over the raster order and M-RoPE, the 2-D shift test, and a short multimodal
sequence (text, image, text, video, text) with its three position-id rows, its pair sections and scores.

Every patch (and every token) carries the same content vector, so the scores show position alone:
score(a, b) = x_rot(a) . x_rot(b). Everything is computed in float64 on the CPU (at most 1024 patches)
and handed out as float32.
"""

from __future__ import annotations

import numpy as np
import torch

from rope_viz import (MROPE_SECTION, apply_axial_rope, apply_mrope, apply_rope, inv_freq, mrope_position_ids,
                      patch_grid, random_tokens, to_numpy)

from .sampling import downsample

SCORE_SIDE = 256  # the multimodal score matrix is drawn at most this many tokens per side
LAYOUT = "interleaved"  # one pair layout for every encoding, so that each pair weighs the same in all three


def mrope_section(dim: int) -> tuple[int, int, int]:
    """Qwen2-VL's split of the pairs (16, 24, 24 of 64 pairs at head size 128) scaled to dim/2 pairs."""
    pairs = dim // 2
    total = sum(MROPE_SECTION)
    time = round(pairs * MROPE_SECTION[0] / total)
    height = round(pairs * MROPE_SECTION[1] / total)
    return time, height, pairs - time - height


def _same_content(n: int, dim: int, seed: int) -> torch.Tensor:
    return random_tokens(n, dim, same=True, seed=seed, dtype=torch.float64)


def _image_ids(height: int, width: int) -> torch.Tensor:
    return mrope_position_ids([("image", (1, height, width))])


def patch_scores(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str,
                 seed: int) -> dict:
    """The query patch (row, col) scored against every patch, each map shaped (height, width), float32:
    `axial` (2-D RoPE), `raster` (1-D RoPE at position row * width + col) and `mrope` (ids (0, row, col)).

    Also the row-break numbers: scores of two vertical neighbours ((0, 0), (1, 0): 1-D distance = width)
    and of the two patches on either side of the first row break ((0, width-1), (1, 0): 1-D distance 1),
    under 1-D and 2-D RoPE, and the section split used by M-RoPE."""
    n = height * width
    x = _same_content(n, dim, seed)
    rows, cols = patch_grid(height, width)
    encoded = {
        "axial": apply_axial_rope(x, rows, cols, base=base, layout=LAYOUT, frequencies=frequencies),
        "raster": apply_rope(x, range(n), base=base, layout=LAYOUT),
        "mrope": apply_mrope(x, _image_ids(height, width), mrope_section=mrope_section(dim), base=base,
                             layout=LAYOUT),
    }
    query = row * width + col
    out = {"section": mrope_section(dim), "norm": float(x[0] @ x[0])}
    for name, rotated in encoded.items():
        out[name] = to_numpy((rotated @ rotated[query]).reshape(height, width))
    if height > 1:
        pairs = {"below": (0, width), "wrap": (width - 1, width)}  # raster indices of the two pairs
        for name in ("axial", "raster"):
            rotated = encoded[name]
            for pair, (a, b) in pairs.items():
                out[f"{pair}_{name}"] = float(rotated[a] @ rotated[b])
    return out


def shift_test(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str, seed: int,
               shift_rows: int, shift_cols: int) -> dict:
    """2-D RoPE scores before and after moving every patch by (shift_rows, shift_cols).

    `before`, `after`: the score of the query patch (row, col) with the patch in the opposite corner
    (height-1-row, width-1-col); `pair_change`: their difference; `largest_change`: the largest
    difference over every pair of patches. Random content per patch here (not one repeated vector), so
    that the equality is not a consequence of identical tokens."""
    n = height * width
    x = random_tokens(n, dim, seed=seed, dtype=torch.float64)
    rows, cols = patch_grid(height, width)
    kwargs = dict(base=base, layout=LAYOUT, frequencies=frequencies)
    before = apply_axial_rope(x, rows, cols, **kwargs)
    after = apply_axial_rope(x, rows + shift_rows, cols + shift_cols, **kwargs)
    scores_before, scores_after = before @ before.T, after @ after.T
    query, key = row * width + col, (height - 1 - row) * width + (width - 1 - col)
    return {"key_row": height - 1 - row, "key_col": width - 1 - col,
            "before": float(scores_before[query, key]), "after": float(scores_after[query, key]),
            "pair_change": float((scores_before[query, key] - scores_after[query, key]).abs()),
            "largest_change": float((scores_before - scores_after).abs().max()),
            "largest_score": float(scores_before.abs().max())}


def sequence_segments(text: int, img_h: int, img_w: int, frames: int) -> list:
    """text, image, text, and when frames > 0 a video of `frames` frames on the image's grid, then text."""
    segments = [("text", text), ("image", (1, img_h, img_w)), ("text", text)]
    if frames:
        segments += [("video", (frames, img_h, img_w)), ("text", text)]
    return segments


def multimodal(text: int, img_h: int, img_w: int, frames: int, resume: str, dim: int, base: float, seed: int
               ) -> dict:
    """The sequence's (time, height, width) ids under `resume` ("spatial_extent" or "largest_id"), the
    segments as (start, stop, kind) token spans, the pair split and each pair's speed, the M-RoPE score
    matrix of one repeated content vector (thinned for drawing), and where the text after the video starts
    under both resume rules (`overlap`: video tokens, in `overlap_frames` frames, whose time id the
    following text reuses under "spatial_extent")."""
    segments = sequence_segments(text, img_h, img_w, frames)
    ids = mrope_position_ids(segments, text_resume=resume)
    section = mrope_section(dim)
    x = _same_content(ids.shape[1], dim, seed)
    rotated = apply_mrope(x, ids, mrope_section=section, base=base, layout=LAYOUT)
    drawn, kept, _ = downsample(rotated @ rotated.T, SCORE_SIDE)
    spans, start = [], 0
    for kind, size in segments:
        length = size if kind == "text" else int(np.prod(size))
        spans.append((start, start + length, kind))
        start += length
    out = {"ids": ids.numpy().astype(np.float32), "spans": spans, "section": section,
           "speeds": to_numpy(inv_freq(dim, base, dtype=torch.float64)), "scores": drawn, "kept": kept,
           "tokens": int(ids.shape[1])}
    if frames:
        video_start, video_stop, _ = spans[3]
        by_rule = {rule: mrope_position_ids(segments, text_resume=rule) for rule in ("spatial_extent", "largest_id")}
        video_time = by_rule["spatial_extent"][0, video_start:video_stop]
        resume_spatial = int(by_rule["spatial_extent"][0, video_stop])
        late = video_time >= resume_spatial  # video tokens whose time id the following text reuses
        out.update(video_first=int(video_time.min()), video_last=int(video_time.max()),
                   resume_spatial=resume_spatial, resume_largest=int(by_rule["largest_id"][0, video_stop]),
                   overlap=int(late.sum()), overlap_frames=int(torch.unique(video_time[late]).numel()))
    return out
