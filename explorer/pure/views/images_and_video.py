"""The images-and-video page's view: one query patch scored against every patch of an image under 2-D
(axial) RoPE, 1-D RoPE over the raster order and M-RoPE, the 2-D shift test, and a short multimodal
sequence (text, image, text, video, text) with its three position-id rows, its pair sections and scores.

Every patch (and every token) carries the same content vector, so the scores show position alone:
score(a, b) = x_rot(a) . x_rot(b). Everything is computed in float64 on the CPU (at most 1024 patches)
and handed out as float32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

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

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("maps_axial", "maps_raster", "maps_mrope", "mrope", "position_ids", "sections", "scores")

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


@dataclass(frozen=True)
class RowBreak:
    """Scores of two vertical neighbours ((0, 0), (1, 0): 1-D distance = width) and of the two patches on
    either side of the first row break ((0, width-1), (1, 0): 1-D distance 1), under 2-D and 1-D RoPE."""

    below_axial: float
    below_raster: float
    wrap_axial: float
    wrap_raster: float


@dataclass(frozen=True)
class PatchScores:
    """The query patch scored against every patch, each map shaped (height, width), float32."""

    axial: np.ndarray  # 2-D RoPE
    raster: np.ndarray  # 1-D RoPE at position row * width + col
    mrope: np.ndarray  # M-RoPE, ids (0, row, col)
    section: tuple[int, int, int]  # the pair split used by M-RoPE
    norm: float  # |x|², the score of a patch with itself
    row_break: RowBreak | None  # None in an image of one row

    @property
    def shared_scale(self) -> tuple[float, float]:
        """The colour scale the three maps share: from their smallest score to their largest."""
        shared = (self.axial, self.raster, self.mrope)
        return min(float(m.min()) for m in shared), max(float(m.max()) for m in shared)


def patch_scores(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str,
                 seed: int) -> PatchScores:
    """The PatchScores of the query patch (row, col)."""
    n = height * width
    x = _same_content(n, dim, seed)
    rows, cols = patch_grid(height, width)
    encoded = {
        "axial": apply_axial_rope(x, rows, cols, base=base, layout=LAYOUT, frequencies=frequencies),
        "raster": apply_rope(x, range(n), base=base, layout=LAYOUT),
        "mrope": _mrope(x, height, width, dim, base),
    }
    query = row * width + col
    maps = {name: to_numpy((rotated @ rotated[query]).reshape(height, width)) for name, rotated in encoded.items()}

    def score(name: str, a: int, b: int) -> float:  # of the patches at raster indices a and b
        return float(encoded[name][a] @ encoded[name][b])

    row_break = None if height <= 1 else RowBreak(
        below_axial=score("axial", 0, width), below_raster=score("raster", 0, width),
        wrap_axial=score("axial", width - 1, width), wrap_raster=score("raster", width - 1, width))
    return PatchScores(axial=maps["axial"], raster=maps["raster"], mrope=maps["mrope"], section=mrope_section(dim),
                       norm=float(x[0] @ x[0]), row_break=row_break)


@dataclass(frozen=True)
class ShiftTest:
    """2-D RoPE scores before and after moving every patch: the query patch with the patch in the opposite
    corner (key_row, key_col), before and after, their difference (`pair_change`) and the largest difference
    over every pair of patches (`largest_change`), beside the largest |score|."""

    key_row: int
    key_col: int
    before: float
    after: float
    pair_change: float
    largest_change: float
    largest_score: float


def shift_test(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str, seed: int,
               shift_rows: int, shift_cols: int) -> ShiftTest:
    """The ShiftTest of the query patch (row, col) and a move by (shift_rows, shift_cols). Random content per
    patch here (not one repeated vector), so that the equality is not a consequence of identical tokens."""
    n = height * width
    x = random_tokens(n, dim, seed=seed, dtype=torch.float64)
    rows, cols = patch_grid(height, width)

    def rotated(rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        return apply_axial_rope(x, rows, cols, base=base, layout=LAYOUT, frequencies=frequencies)

    before = rotated(rows, cols)
    after = rotated(rows + shift_rows, cols + shift_cols)
    scores_before, scores_after = before @ before.T, after @ after.T
    query, key = row * width + col, (height - 1 - row) * width + (width - 1 - col)
    return ShiftTest(key_row=height - 1 - row, key_col=width - 1 - col,
                     before=float(scores_before[query, key]), after=float(scores_after[query, key]),
                     pair_change=float((scores_before[query, key] - scores_after[query, key]).abs()),
                     largest_change=float((scores_before - scores_after).abs().max()),
                     largest_score=float(scores_before.abs().max()))


def sequence_segments(text: int, img_h: int, img_w: int, frames: int) -> list[tuple[str, int | tuple[int, int, int]]]:
    """text, image, text, and when frames > 0 a video of `frames` frames on the image's grid, then text."""
    segments: list[tuple[str, int | tuple[int, int, int]]] = [("text", text), ("image", (1, img_h, img_w)),
                                                               ("text", text)]
    if frames:
        segments += [("video", (frames, img_h, img_w)), ("text", text)]
    return segments


class Span(NamedTuple):
    """The tokens start .. stop - 1 of a segment of the sequence."""

    start: int
    stop: int
    kind: str  # "text", "image" or "video"


@dataclass(frozen=True)
class VideoResume:
    """Where the text after the video starts under both resume rules: the video's first and last time ids,
    the text's first id under "spatial_extent" and under "largest_id", and the video tokens (`overlap`, in
    `overlap_frames` frames) whose time id the following text reuses under "spatial_extent"."""

    video_first: int
    video_last: int
    resume_spatial: int
    resume_largest: int
    overlap: int
    overlap_frames: int


@dataclass(frozen=True)
class Multimodal:
    """A text, image, text (, video, text) sequence under M-RoPE."""

    ids: np.ndarray  # (3, tokens) float32: the time, height and width ids
    spans: list[Span]
    section: tuple[int, int, int]  # the pair split
    speeds: np.ndarray  # each pair's speed
    scores: np.ndarray  # the score matrix of one repeated content vector, thinned for drawing
    kept: np.ndarray  # the tokens drawn in `scores`
    tokens: int
    positions: np.ndarray  # 0 .. tokens - 1 (float32)
    video: VideoResume | None  # None without a video


def multimodal(text: int, img_h: int, img_w: int, frames: int, resume: str, dim: int, base: float, seed: int
               ) -> Multimodal:
    """The sequence of sequence_segments, its ids under `resume` ("spatial_extent" or "largest_id")."""
    segments = sequence_segments(text, img_h, img_w, frames)
    ids = mrope_position_ids(segments, text_resume=resume)
    section = mrope_section(dim)
    x = _same_content(ids.shape[1], dim, seed)
    rotated = apply_mrope(x, ids, mrope_section=section, base=base, layout=LAYOUT)
    drawn, kept, _ = downsample(rotated @ rotated.T, SCORE_SIDE)
    spans, start = [], 0
    for kind, size in segments:
        length = size if isinstance(size, int) else int(np.prod(size))
        spans.append(Span(start, start + length, kind))
        start += length
    video = None
    if frames:
        video_start, video_stop, _ = spans[3]
        by_rule = {rule: mrope_position_ids(segments, text_resume=rule) for rule in ("spatial_extent", "largest_id")}
        video_time = by_rule["spatial_extent"][0, video_start:video_stop]
        resume_spatial = int(by_rule["spatial_extent"][0, video_stop])
        late = video_time >= resume_spatial  # video tokens whose time id the following text reuses
        video = VideoResume(video_first=int(video_time.min()), video_last=int(video_time.max()),
                            resume_spatial=resume_spatial, resume_largest=int(by_rule["largest_id"][0, video_stop]),
                            overlap=int(late.sum()), overlap_frames=int(torch.unique(video_time[late]).numel()))
    return Multimodal(ids=ids.numpy().astype(np.float32), spans=spans, section=section,
                      speeds=to_numpy(inv_freq(dim, base, dtype=torch.float64)), scores=drawn, kept=kept,
                      tokens=int(ids.shape[1]), positions=np.arange(ids.shape[1], dtype=np.float32), video=video)


# What the page writes, from the values above.
class Neighbours(NamedTuple):
    """A pair of patches, said, with their scores."""

    header: Phrase
    metrics: list[Metric]


def raster_neighbours(maps: PatchScores, width: int) -> list[Neighbours]:
    """Two pairs of patches (patch_scores) with their 2-D and 1-D scores: vertical neighbours, and the two
    ends of a row break (none in an image of one row)."""
    found = maps.row_break
    if found is None:
        return []
    return [Neighbours(phrase("images_and_video.below_header", width=width),
                       [metric("images_and_video.score_2d", f"{found.below_axial:.3f}"),
                        metric("images_and_video.score_1d", f"{found.below_raster:.3f}")]),
            Neighbours(phrase("images_and_video.wrap_header", last=width - 1, width=width),
                       [metric("images_and_video.score_2d_wrap", f"{found.wrap_axial:.3f}"),
                        metric("images_and_video.score_1d_wrap", f"{found.wrap_raster:.3f}")])]


COLOUR_STEPS = 255  # the steps of a colour scale between its two ends (8-bit colour)


@dataclass(frozen=True)
class CloseUp:
    """The M-RoPE map looked at closely (computed in float64: its scores differ in the fourth digit)."""

    offset: np.ndarray  # the map minus its mean (float32), drawn from -limit to +limit around 0
    limit: float  # its largest |offset|: its pattern spans at least half of the colour scale
    spread: float  # its largest minus its smallest score
    rows: float  # how far apart its row means lie
    columns: float  # how far apart its column means lie
    levels: float  # how many of the COLOUR_STEPS its spread takes on the scale the three maps share
    row_speed: float  # the fastest height pair's angle per row (rad)
    column_speed: float  # the fastest width pair's angle per column (rad)
    reading: Phrase  # the paragraph that says all this


def mrope_close_up(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str,
                   seed: int) -> CloseUp:
    """The CloseUp of the M-RoPE map of `patch_scores`."""
    maps = patch_scores(height, width, row, col, dim, base, frequencies, seed)
    rotated = _mrope(_same_content(height * width, dim, seed), height, width, dim, base)
    mrope = (rotated @ rotated[row * width + col]).reshape(height, width).numpy()
    offset = mrope - mrope.mean()
    low, high = maps.shared_scale
    shared_range = high - low
    spread = float(mrope.max() - mrope.min())
    rows, columns = float(np.ptp(mrope.mean(axis=1))), float(np.ptp(mrope.mean(axis=0)))
    time, height, _ = maps.section
    speeds = to_numpy(inv_freq(dim, base, dtype=torch.float64))
    levels = spread / shared_range * COLOUR_STEPS if shared_range else 0.0
    row_speed, column_speed = float(speeds[time]), float(speeds[time + height])
    claim = phrase(
        "images_and_video.mrope_rows" if rows >= columns else "images_and_video.mrope_columns",
        rows=f"{rows:.3g}",
        columns=f"{columns:.3g}",
    )
    reading = phrase("images_and_video.mrope_flat", spread=f"{spread:.3g}", norm=f"{maps.norm:.2f}",
                     share=f"{spread / maps.norm:.2%}", levels=f"{levels:.1f}", steps=COLOUR_STEPS,
                     row_speed=f"{row_speed:.3g}", column_speed=f"{column_speed:.3g}", claim=claim)
    return CloseUp(offset=offset.astype(np.float32), limit=float(np.abs(offset).max()), spread=spread, rows=rows,
                   columns=columns, levels=levels, row_speed=row_speed, column_speed=column_speed, reading=reading)


def mrope_metrics(close: CloseUp) -> list[Metric]:
    """The M-RoPE map's spread, and how far apart its row means and its column means lie (mrope_close_up)."""
    return [metric("images_and_video.mrope_spread", f"{close.spread:.3g}"),
            metric("images_and_video.mrope_row_spread", f"{close.rows:.3g}"),
            metric("images_and_video.mrope_column_spread", f"{close.columns:.3g}")]


def shift_metrics(shifted: ShiftTest, shift_rows: int, shift_cols: int, patches: int) -> list[Metric]:
    """The 2-D shift test (shift_test) of an image of `patches` patches: scores before and after, and changes."""
    return [metric("images_and_video.shift_before", f"{shifted.before:.6f}"),
            metric("images_and_video.shift_after", f"{shifted.after:.6f}", a=shift_rows, b=shift_cols),
            metric("images_and_video.shift_pair_change", f"{shifted.pair_change:.1e}"),
            metric("images_and_video.shift_largest_change", f"{shifted.largest_change:.1e}",
                   help=phrase("images_and_video.shift_largest_help", n=patches, largest=shifted.largest_score))]


def resume_reading(seq: Multimodal, resume: str) -> list[Phrase]:
    """Where the text after the video starts under both rules (multimodal), whether it reuses the video's
    time ids, and which rule the page follows."""
    video = seq.video
    if video is not None:
        lines = [phrase("images_and_video.resume_numbers", first=video.video_first, last=video.video_last,
                        spatial=video.resume_spatial, largest=video.resume_largest),
                 counted("images_and_video.resume_overlap", video.overlap_frames, overlap=video.overlap,
                         overlap_frames=video.overlap_frames)
                 if video.overlap else phrase("images_and_video.resume_agree")]
    else:
        lines = [phrase("images_and_video.resume_no_video")]
    return [*lines, phrase("images_and_video.resume_followed", rule=phrase(f"images_and_video.resume_{resume}"))]


class Band(NamedTuple):
    """A band of pairs, first .. stop - 1, with its name."""

    name: Phrase
    pairs: tuple[int, int]


def section_bands(section: tuple[int, int, int], dim: int) -> list[Band]:
    """M-RoPE's pair split (mrope_section) as bands: time, height, width."""
    time_pairs, height_pairs, width_pairs = section
    return [Band(phrase("images_and_video.section_time", n=time_pairs), (0, time_pairs)),
            Band(phrase("images_and_video.section_height", n=height_pairs), (time_pairs, time_pairs + height_pairs)),
            Band(phrase("images_and_video.section_width", n=width_pairs), (time_pairs + height_pairs, dim // 2))]


def thinned_scores(seq: Multimodal) -> Phrase | None:
    """The caption of a score matrix drawn thinned (None when every token is drawn)."""
    if len(seq.kept) >= seq.tokens:
        return None
    return phrase("images_and_video.scores_thinned", step=int(seq.kept[1] - seq.kept[0]), tokens=seq.tokens)


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
