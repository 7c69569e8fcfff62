"""Multimodal RoPE (M-RoPE) as Qwen2-VL defines it (Wang et al. 2024, "Qwen2-VL").

Every token carries three position ids (time, height, width). Text tokens have all three equal,
so for text M-RoPE is plain 1-D RoPE; an image's patches share one time id and spread over a
height x width grid; a video's frames also advance along time. The dim/2 rotation pairs are
split into three consecutive sections by `mrope_section` (Qwen2-VL: [16, 24, 24] for head size
128): pair j of the first section turns by t * theta_j, of the second by h * theta_j, of the
third by w * theta_j, with the ordinary theta_j = base^(-2j/dim) of the full head size.

Qwen3-VL and Qwen3.5 interleave the three axes instead (`interleaved=True`): pair j follows height
when j % 3 == 1 and j < 3 * mrope_section[1], width when j % 3 == 2 and j < 3 * mrope_section[2], and
time otherwise, so each axis keeps fast and slow frequencies alike (transformers'
Qwen3VLTextRotaryEmbedding.recomposition_frequencies; Qwen3-VL's sections are [24, 20, 20]).
"""

from __future__ import annotations

import numbers
from typing import cast

import torch

from ._checks import check_budget, check_choice, check_int, check_positive, check_rotation
from .axial import rotate_pairs
from .frequencies import angles

MROPE_SECTION = (16, 24, 24)  # Qwen2-VL and Qwen2.5-VL, head size 128
SEGMENT_KINDS = ("text", "image", "video")
TEXT_RESUME_RULES = ("spatial_extent", "largest_id")


def _segment_grid(kind: str, size, index: int, spatial_merge_size: int) -> tuple[int, int, int]:
    where = f"segments[{index}]"
    if kind == "image" and isinstance(size, (tuple, list)) and len(size) == 2:
        size = (1, *size)
    if not isinstance(size, (tuple, list)) or len(size) != 3:
        shape = "(h, w) or (t, h, w)" if kind == "image" else "(t, h, w)"
        raise ValueError(f"{where}: a {kind} needs its grid as {shape}, got {size!r}")
    t, h, w = (check_int(v, f"{where} grid entry", minimum=1) for v in size)
    for name, value in (("h", h), ("w", w)):
        if value % spatial_merge_size:
            raise ValueError(f"{where}: grid {name}={value} must be a multiple of "
                             f"spatial_merge_size={spatial_merge_size}")
    return t, h // spatial_merge_size, w // spatial_merge_size


def mrope_position_ids(segments, *, spatial_merge_size: int = 1, text_resume: str = "spatial_extent",
                       time_interval: float = 1.0) -> torch.Tensor:
    """The (3, seq) int64 (time, height, width) position ids of a mixed sequence.

    segments: a list of (kind, size) in order, e.g.
        [("text", 5), ("image", (1, 4, 6)), ("video", (3, 4, 4)), ("text", 3)]
    - ("text", n): n tokens at s, s+1, ..., s+n-1 on all three axes, where s is the running start.
    - ("image", (t, h, w)) or ("image", (h, w)) and ("video", (t, h, w)): t*h*w tokens in raster
      order (frame, then row, then column) with ids (s + f, s + r, s + c).
    Grids count the tokens the language model sees. Qwen2-VL's vision encoder merges 2x2 patches
    into one token; pass its patch grid (the processor's image_grid_thw / video_grid_thw) together
    with spatial_merge_size=2 and h, w are divided by 2 (they must be multiples of it).
    After a vision segment the running start s moves on by
    - text_resume="spatial_extent" (default, what transformers 5.x Qwen2VLModel.get_rope_index
      does): max(h, w). A video with more frames than rows and columns then overlaps its last
      time ids with the following text.
    - text_resume="largest_id" (the Qwen2-VL paper): to the segment's largest id + 1, i.e.
      s + max(t, h, w).
    The two rules agree for images (t = 1) and for videos with t <= max(h, w).
    time_interval: Qwen2.5-VL's absolute time, tokens_per_second * second_per_grid_t (its processor's
      temporal_patch_size / fps): frame f of a video gets time id s + floor(f * time_interval) instead
      of s + f (transformers' get_vision_position_ids); images keep 1.
    Segments are laid out one by one (two vision segments in a row stay two grids; a real prompt
    separates them with vision start/end text tokens anyway).
    """
    spatial_merge_size = check_int(spatial_merge_size, "spatial_merge_size", minimum=1)
    check_choice(text_resume, "text_resume", TEXT_RESUME_RULES)
    time_interval = check_positive(time_interval, "time_interval")
    if isinstance(segments, (str, bytes)) or not hasattr(segments, "__iter__"):
        raise ValueError(f"segments must be a list of (kind, size) pairs, got {segments!r}")
    parts = []
    start = 0
    total = 0
    for index, segment in enumerate(segments):
        if not isinstance(segment, (tuple, list)) or len(segment) != 2:
            raise ValueError(f"segments[{index}] must be a (kind, size) pair, got {segment!r}")
        kind, size = segment
        check_choice(kind, f"segments[{index}] kind", SEGMENT_KINDS)
        if kind == "text":
            length = check_int(size, f"segments[{index}] text length", minimum=1)
            total += length
            check_budget(3 * total, "mrope_position_ids")
            parts.append(torch.arange(start, start + length, dtype=torch.int64).expand(3, length))
            start += length
            continue
        t, h, w = _segment_grid(kind, size, index, spatial_merge_size)
        total += t * h * w
        check_budget(3 * total, "mrope_position_ids")
        times = torch.arange(t) if kind == "image" else (torch.arange(t, dtype=torch.float64) * time_interval).long()
        frames, rows, cols = torch.meshgrid(times, torch.arange(h), torch.arange(w), indexing="ij")
        ids = torch.stack((frames, rows, cols)).reshape(3, -1) + start
        parts.append(ids)
        start = start + max(h, w) if text_resume == "spatial_extent" else int(ids.max()) + 1
    if not parts:
        raise ValueError("segments must describe at least one token, got an empty list")
    return torch.cat(parts, dim=1)


def _check_section(mrope_section, pairs: int | None) -> tuple[int, int, int]:
    if isinstance(mrope_section, (str, bytes)) or not hasattr(mrope_section, "__len__") \
            or len(mrope_section) != 3 \
            or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0  # type: ignore[operator]  # an Integral compares with int
                       for v in mrope_section):
        raise ValueError(f"mrope_section must be three non-negative integers (time, height, width pairs), "
                         f"got {mrope_section!r}")
    if pairs is not None and sum(mrope_section) != pairs:
        raise ValueError(f"mrope_section must add up to dim/2 = {pairs} pairs, got {list(mrope_section)} "
                         f"(sum {sum(mrope_section)})")
    return cast(tuple[int, int, int], tuple(int(v) for v in mrope_section))  # three entries, checked above


def _as_position_ids(position_ids, seq: int | None = None) -> torch.Tensor:
    try:
        ids = torch.as_tensor(position_ids)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"position_ids must be a (3, seq) array of numbers, got {position_ids!r}") from err
    if ids.dtype == torch.bool or ids.is_complex():
        raise ValueError(f"position_ids must hold real numbers, got dtype {ids.dtype}")
    if ids.dim() != 2 or ids.shape[0] != 3 or (seq is not None and ids.shape[1] != seq):
        wanted = "(3, seq)" if seq is None else f"(3, {seq}) (time, height, width per sequence position)"
        raise ValueError(f"position_ids must have shape {wanted}, got {tuple(ids.shape)}")
    ids = ids.to(torch.float64).cpu()
    if not bool(torch.isfinite(ids).all()):
        raise ValueError("position_ids must be finite numbers; got NaN or infinity")
    return ids


def mrope_axes(mrope_section, pairs: int, *, interleaved: bool = False) -> torch.Tensor:
    """The axis each of `pairs` rotation pairs follows, (pairs,) int64: 0 time, 1 height, 2 width.

    Blocks (interleaved=False, Qwen2-VL / Qwen2.5-VL): the first mrope_section[0] pairs time, the next
    mrope_section[1] height, the rest width; the sections must add up to `pairs`. Interleaved (Qwen3-VL,
    Qwen3.5): height where j % 3 == 1 and j < 3 * mrope_section[1], width where j % 3 == 2 and
    j < 3 * mrope_section[2], time elsewhere; any three non-negative integers are accepted, as
    transformers accepts them."""
    pairs = check_int(pairs, "pairs", minimum=1)
    if not isinstance(interleaved, bool):
        raise ValueError(f"interleaved must be True or False, got {interleaved!r}")
    if not interleaved:
        return torch.repeat_interleave(torch.arange(3), torch.tensor(_check_section(mrope_section, pairs)))
    sections = _check_section(mrope_section, None)
    axes = torch.zeros(pairs, dtype=torch.int64)
    for axis in (1, 2):
        axes[axis:min(3 * sections[axis], pairs):3] = axis
    return axes


def mrope_angles(position_ids, dim: int, base: float = 10000.0, *, mrope_section=MROPE_SECTION,
                 interleaved: bool = False) -> torch.Tensor:
    """The angle of every pair at every token, (seq, dim/2) float64:
    angle[k, j] = position_ids[a(j), k] * base^(-2j/dim), where a(j) is the axis of pair j
    (see mrope_axes: three blocks, or interleaved)."""
    ids = _as_position_ids(position_ids)
    per_axis = [angles(ids[axis], dim, base) for axis in range(3)]  # each (seq, dim/2)
    axis_of_pair = mrope_axes(mrope_section, dim // 2, interleaved=interleaved)
    return torch.stack(per_axis)[axis_of_pair, :, torch.arange(dim // 2)].T


def apply_mrope(x: torch.Tensor, position_ids, *, mrope_section=MROPE_SECTION, base: float = 10000.0,
                layout: str = "half", interleaved: bool = False) -> torch.Tensor:
    """M-RoPE of x (..., seq, dim) with (3, seq) (time, height, width) position_ids.

    Pair j turns by position_ids[a(j), k] * base^(-2j/dim) (see mrope_angles). layout="half"
    (pairs (j, j + dim/2), rotate_half) is what Qwen2-VL uses; "interleaved" pairs (2j, 2j+1).
    interleaved=True: Qwen3-VL's and Qwen3.5's interleaved sections (see mrope_axes).
    With all three ids equal this is exactly rope_viz.apply_rope at those positions.
    (Qwen2-VL's checkpoints use base = 1e6.)
    """
    dim = check_rotation(x, layout)
    check_positive(base, "base")
    mrope_axes(mrope_section, dim // 2, interleaved=interleaved)
    ids = _as_position_ids(position_ids, x.shape[-2])
    return rotate_pairs(x, mrope_angles(ids, dim, base, mrope_section=mrope_section, interleaved=interleaved),
                        layout=layout)
