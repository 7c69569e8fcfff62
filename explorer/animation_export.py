"""The page animations as animated GIFs, for slides and chats: the frequency clocks and the phase slide.

Why Pillow: it already comes with Streamlit (no new dependency), draws lines and dots on a palette image
and writes multi-frame GIFs in pure Python, with no browser. Plotly's own image export (kaleido) needs a
Chrome, which a server should not start per download; imageio would only wrap Pillow's GIF writer here.

The frames are drawn from the same cached arrays as the browser animation (explorer/views/rotations.py
`clocks`, explorer/views/phase.py `slide`), with the app's palette, and no text but numbers, so one file
serves every language. The page hands a `lambda` to the download button, so a GIF is drawn only when a
visitor asks for it. Size is bounded: at most MAX_FRAMES frames (taken evenly, first and last kept) and
MAX_WIDTH pixels across.
"""

from __future__ import annotations

import io
import math

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from explorer.figures import PALETTE

MAX_FRAMES = 120
MAX_WIDTH = 640
CLOCK = 150  # pixels per clock, when the row of clocks fits in MAX_WIDTH
CLOCK_COLUMNS = 4  # as the browser's clock grid
PLANE = 360  # the phase slide's square
LABEL = 18  # pixels under the drawing for the frame's position

# A fixed palette, so every pixel keeps its exact colour: 0 white, 1 black, 2 circle grey, 3 axis grey,
# then the chart palette (hand j is colour 4 + j mod 8).
_GREYS = ((255, 255, 255), (0, 0, 0), (200, 200, 200), (170, 170, 170))
WHITE, BLACK, CIRCLE, AXIS = range(4)


def hex_rgb(value: str) -> tuple[int, int, int]:
    return tuple(int(value[i: i + 2], 16) for i in (1, 3, 5))


COLOURS = tuple(hex_rgb(c) for c in PALETTE)
_PALETTE_BYTES = [channel for rgb in (*_GREYS, *COLOURS) for channel in rgb]


def colour_index(j: int) -> int:
    """The palette index of hand (or arrow) j: the app's colour j."""
    return len(_GREYS) + j % len(COLOURS)


def frame_indices(count: int, most: int = MAX_FRAMES) -> list[int]:
    """Which of `count` frames go into the file: all of them, or `most` spread evenly (first and last kept)."""
    if count <= most:
        return list(range(count))
    return sorted({round(k * (count - 1) / (most - 1)) for k in range(most)})


def _canvas(width: int, height: int) -> Image.Image:
    image = Image.new("P", (width, height), WHITE)
    image.putpalette(_PALETTE_BYTES)
    return image


def _label(draw: ImageDraw.ImageDraw, width: int, height: int, text: str) -> None:
    draw.text((width // 2, height - LABEL // 2), text, fill=BLACK, anchor="mm", font=ImageFont.load_default())


def _gif(frames: list[Image.Image], frame_ms: int) -> bytes:
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=frame_ms, loop=0,
                   optimize=False, disposal=1)
    return out.getvalue()


def clock_layout(pairs: int) -> tuple[int, int, int]:
    """(columns, rows, pixels per clock) of the clock grid for `pairs` clocks."""
    columns = min(pairs, CLOCK_COLUMNS)
    return columns, math.ceil(pairs / columns), min(CLOCK, MAX_WIDTH // columns)


def clock_centre(j: int, pairs: int) -> tuple[float, float, float]:
    """(x, y, radius) in pixels of clock j's face."""
    columns, _, cell = clock_layout(pairs)
    row, column = divmod(j, columns)
    return column * cell + cell / 2, row * cell + cell / 2, cell * 0.42


def hand_tip(j: int, pairs: int, cos: float, sin: float) -> tuple[int, int]:
    """The pixel at the tip of clock j's hand when it points at angle (cos, sin) (y grows downwards)."""
    x, y, radius = clock_centre(j, pairs)
    return round(x + radius * cos), round(y - radius * sin)


def clocks_gif(positions, cos: np.ndarray, sin: np.ndarray, *, frame_ms: int = 120) -> bytes:
    """One clock per chosen pair, the hand at angle m·θ_i, one frame per position m (cos, sin:
    (len(positions), pairs), as explorer.views.rotations.clocks returns them)."""
    cos, sin = np.asarray(cos, dtype=np.float64), np.asarray(sin, dtype=np.float64)
    pairs = cos.shape[1]
    columns, rows, cell = clock_layout(pairs)
    width, height = columns * cell, rows * cell + LABEL
    frames = []
    for f in frame_indices(len(positions)):
        image = _canvas(width, height)
        draw = ImageDraw.Draw(image)
        for j in range(pairs):
            x, y, radius = clock_centre(j, pairs)
            draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=CIRCLE, width=2)
            tip = hand_tip(j, pairs, cos[f, j], sin[f, j])
            draw.line(((round(x), round(y)), tip), fill=colour_index(j), width=4)
            draw.ellipse((tip[0] - 4, tip[1] - 4, tip[0] + 4, tip[1] + 4), fill=colour_index(j))
        _label(draw, width, height, f"m = {int(positions[f])}")
        frames.append(image)
    return _gif(frames, frame_ms)


def plane_scale(query: np.ndarray, key: np.ndarray) -> float:
    """Pixels per unit of the phase slide: both arrows fit with a margin, as in the browser's figure."""
    extent = float(max(np.abs(query).max(initial=0.0), np.abs(key).max(initial=0.0), 1e-9)) * 1.25
    return (PLANE / 2) / extent


def arrow_tip(point, scale: float) -> tuple[int, int]:
    """The pixel where an arrow from the origin to `point` ends."""
    return round(PLANE / 2 + scale * float(point[0])), round(PLANE / 2 - scale * float(point[1]))


def phase_gif(shifts, query: np.ndarray, key: np.ndarray, *, frame_ms: int = 150) -> bytes:
    """The query (colour 0) and the key (colour 1) of one pair turning together, one frame per shift s
    (query, key: (frames, 2), as explorer.views.phase.slide returns them)."""
    query, key = np.asarray(query, dtype=np.float64), np.asarray(key, dtype=np.float64)
    scale = plane_scale(query, key)
    centre = PLANE // 2
    frames = []
    for f in frame_indices(len(shifts)):
        image = _canvas(PLANE, PLANE + LABEL)
        draw = ImageDraw.Draw(image)
        draw.line(((0, centre), (PLANE, centre)), fill=AXIS, width=1)
        draw.line(((centre, 0), (centre, PLANE)), fill=AXIS, width=1)
        for j, path in enumerate((query, key)):  # the tracks the tips run on
            for point in path:
                x, y = arrow_tip(point, scale)
                draw.point((x, y), fill=colour_index(j))
        for j, path in enumerate((query, key)):
            tip = arrow_tip(path[f], scale)
            draw.line(((centre, centre), tip), fill=colour_index(j), width=4)
            draw.ellipse((tip[0] - 5, tip[1] - 5, tip[0] + 5, tip[1] + 5), fill=colour_index(j))
        _label(draw, PLANE, PLANE + LABEL, f"s = {int(shifts[f])}")
        frames.append(image)
    return _gif(frames, frame_ms)
