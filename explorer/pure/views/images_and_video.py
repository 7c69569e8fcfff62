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

from rope_viz import apply_rope, inv_freq
from rope_viz.analysis import random_tokens
from rope_viz.axial import apply_axial_rope, patch_grid
from rope_viz.device import to_numpy
from rope_viz.mrope import MROPE_SECTION, apply_mrope, mrope_position_ids

from explorer.pure.views.phrases import Metric, Phrase, counted, metric, phrase
from explorer.pure.views.sampling import downsample
from explorer.pure.questions import Numbers, Question

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


def _mrope(x: torch.Tensor, height: int, width: int, dim: int, base: float) -> torch.Tensor:
    return apply_mrope(x, _image_ids(height, width), mrope_section=mrope_section(dim), base=base, layout=LAYOUT)


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
        "mrope": _mrope(x, height, width, dim, base),
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
           "tokens": int(ids.shape[1]), "positions": np.arange(ids.shape[1], dtype=np.float32)}
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


# What the page writes, from the values above.
def raster_neighbours(maps: dict, height: int, width: int) -> list[tuple[Phrase, list[Metric]]]:
    """Two pairs of patches (patch_scores) with their 2-D and 1-D scores: vertical neighbours, and the two
    ends of a row break (none in an image of one row)."""
    if height <= 1:
        return []
    return [(phrase("images_and_video.below_header", width=width),
             [metric("images_and_video.score_2d", f"{maps['below_axial']:.3f}"),
              metric("images_and_video.score_1d", f"{maps['below_raster']:.3f}")]),
            (phrase("images_and_video.wrap_header", last=width - 1, width=width),
             [metric("images_and_video.score_2d_wrap", f"{maps['wrap_axial']:.3f}"),
              metric("images_and_video.score_1d_wrap", f"{maps['wrap_raster']:.3f}")])]


COLOUR_STEPS = 255  # the steps of a colour scale between its two ends (8-bit colour)


def mrope_close_up(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str,
                   seed: int) -> dict:
    """The M-RoPE map of `patch_scores` looked at closely, computed in float64 (its scores differ in the
    fourth digit). `offset`: the map minus its mean (float32), drawn from -`limit` to +`limit` (its largest
    |offset|) around 0, so that its pattern spans at least half of the colour scale; `spread`: its largest
    minus its smallest score; `rows`, `columns`: how far apart its row means and its column means lie;
    `levels`: how many of the COLOUR_STEPS its spread takes on the scale the three maps share (their smallest
    to their largest score); `row_speed`, `column_speed`: the fastest height and width pairs' angles per row
    and per column (rad); and `reading`, the paragraph that says all this."""
    maps = patch_scores(height, width, row, col, dim, base, frequencies, seed)
    rotated = _mrope(_same_content(height * width, dim, seed), height, width, dim, base)
    mrope = (rotated @ rotated[row * width + col]).reshape(height, width).numpy()
    offset = mrope - mrope.mean()
    shared = [maps[name] for name in ("axial", "raster", "mrope")]
    shared_range = max(float(m.max()) for m in shared) - min(float(m.min()) for m in shared)
    spread = float(mrope.max() - mrope.min())
    rows, columns = float(np.ptp(mrope.mean(axis=1))), float(np.ptp(mrope.mean(axis=0)))
    time, height, _ = maps["section"]
    speeds = to_numpy(inv_freq(dim, base, dtype=torch.float64))
    out = {"offset": offset.astype(np.float32), "limit": float(np.abs(offset).max()), "spread": spread,
           "rows": rows, "columns": columns, "levels": spread / shared_range * COLOUR_STEPS if shared_range else 0.0,
           "row_speed": float(speeds[time]), "column_speed": float(speeds[time + height])}
    claim = phrase(
        "images_and_video.mrope_rows" if rows >= columns else "images_and_video.mrope_columns",
        rows=f"{rows:.3g}",
        columns=f"{columns:.3g}",
    )
    out["reading"] = phrase("images_and_video.mrope_flat", spread=f"{spread:.3g}", norm=f"{maps['norm']:.2f}",
                            share=f"{spread / maps['norm']:.2%}", levels=f"{out['levels']:.1f}",
                            steps=COLOUR_STEPS, row_speed=f"{out['row_speed']:.3g}",
                            column_speed=f"{out['column_speed']:.3g}", claim=claim)
    return out


def mrope_metrics(close: dict) -> list[Metric]:
    """The M-RoPE map's spread, and how far apart its row means and its column means lie (mrope_close_up)."""
    return [metric("images_and_video.mrope_spread", f"{close['spread']:.3g}"),
            metric("images_and_video.mrope_row_spread", f"{close['rows']:.3g}"),
            metric("images_and_video.mrope_column_spread", f"{close['columns']:.3g}")]


def shift_metrics(shifted: dict, shift_rows: int, shift_cols: int, patches: int) -> list[Metric]:
    """The 2-D shift test (shift_test) of an image of `patches` patches: scores before and after, and changes."""
    return [metric("images_and_video.shift_before", f"{shifted['before']:.6f}"),
            metric("images_and_video.shift_after", f"{shifted['after']:.6f}", a=shift_rows, b=shift_cols),
            metric("images_and_video.shift_pair_change", f"{shifted['pair_change']:.1e}"),
            metric("images_and_video.shift_largest_change", f"{shifted['largest_change']:.1e}",
                   help=phrase("images_and_video.shift_largest_help", n=patches, largest=shifted["largest_score"]))]


def resume_reading(seq: dict, frames: int, resume: str) -> list[Phrase]:
    """Where the text after the video starts under both rules (multimodal), whether it reuses the video's
    time ids, and which rule the page follows."""
    if frames:
        lines = [phrase("images_and_video.resume_numbers", first=seq["video_first"], last=seq["video_last"],
                        spatial=seq["resume_spatial"], largest=seq["resume_largest"]),
                 counted("images_and_video.resume_overlap", seq["overlap_frames"], overlap=seq["overlap"],
                         overlap_frames=seq["overlap_frames"])
                 if seq["overlap"] else phrase("images_and_video.resume_agree")]
    else:
        lines = [phrase("images_and_video.resume_no_video")]
    return [*lines, phrase("images_and_video.resume_followed", rule=phrase(f"images_and_video.resume_{resume}"))]


def section_bands(section: tuple[int, int, int], dim: int) -> list[tuple[Phrase, tuple[int, int]]]:
    """M-RoPE's pair split (mrope_section) as (name, (first pair, stop)) bands: time, height, width."""
    time_pairs, height_pairs, width_pairs = section
    return [(phrase("images_and_video.section_time", n=time_pairs), (0, time_pairs)),
            (phrase("images_and_video.section_height", n=height_pairs), (time_pairs, time_pairs + height_pairs)),
            (phrase("images_and_video.section_width", n=width_pairs), (time_pairs + height_pairs, dim // 2))]


def thinned_scores(seq: dict) -> Phrase | None:
    """The caption of a score matrix drawn thinned (None when every token is drawn)."""
    if len(seq["kept"]) >= seq["tokens"]:
        return None
    return phrase("images_and_video.scores_thinned", step=int(seq["kept"][1] - seq["kept"][0]), tokens=seq["tokens"])


# The questions that end the page (explorer.pure.questions): right answers from the core, wrong ones
# plausible.

def raster_rows(width: int, height: int, **_) -> Numbers:
    """In raster order (row by row), the ids of two vertically adjacent patches differ by the image's width."""
    rows, cols = patch_grid(2, width)
    ids = {(int(r), int(c)): j for j, (r, c) in enumerate(zip(rows.tolist(), cols.tolist()))}
    step = ids[(1, 0)] - ids[(0, 0)]
    return Numbers({"width": width, "height": height}, step,
                   (1, height, width + 1, width - 1, width * height), "{:,.0f}")


QUIZ = (Question("raster_rows", raster_rows), Question("axial_shift"))
