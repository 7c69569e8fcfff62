"""The page animations as animated GIFs, for slides and chats: the frequency clocks and the phase slide.

Why Pillow: it already comes with Streamlit (no new dependency), draws lines, dots and text on a palette
image and writes multi-frame GIFs in pure Python, with no browser. Plotly's own image export (kaleido) needs
a Chrome, which a server should not start per download; imageio would only wrap Pillow's GIF writer here.

The frames are drawn from the same cached arrays as the browser animation (explorer/pure/views/frequency_clocks.py
`clocks`, explorer/pure/views/phase_cancellation.py `slide`), with the app's palette.
Each file carries the chart's title at the top, a label in each hand's or arrow's colour saying what it is,
and the frame's position counter at the foot, in the visitor's language; Chinese text needs a Simplified
Chinese font on the server (CJK_FONTS, Debian's fonts-noto-cjk among them), and without one the file is
written in English. The page hands a `lambda` to the download button, so a GIF is drawn only when a visitor
asks for it. Size is bounded: at most MAX_FRAMES frames (taken evenly, first and last kept) and MAX_WIDTH pixels across.
"""

from __future__ import annotations

import functools
import io
import math
import re
import unicodedata
from typing import TYPE_CHECKING, cast

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from explorer.pure import text
from explorer.pure.figures import PALETTE, concept_color
from explorer.pure.figures.style import GIF_AXES, GIF_CIRCLE, INK, PAPER

if TYPE_CHECKING:  # only the types: the views load the core, which a GIF does not need
    from explorer.pure.views.frequency_clocks import Clocks
    from explorer.pure.views.phase_cancellation import Slide

MAX_FRAMES = 120
MAX_WIDTH = 640
CLOCK = 150  # pixels per clock, when the row of clocks fits in MAX_WIDTH
CLOCK_COLUMNS = 4  # as the browser's clock grid
PLANE = 360  # the phase slide's square
TEXT = 13  # font size of every text in the file, in pixels
LINE = 17  # pixels per line of text
HEADER = 2 * LINE + 8  # the title's band at the top: two lines
NAME = 2 * LINE  # under each clock: its name, two lines
LEGEND = 2 * LINE + 4  # under the phase slide: one line per arrow
LABEL = LINE + 4  # the foot: the frame's position
# Fonts with Simplified Chinese glyphs, by path (a .ttc with its face index): Debian's fonts-noto-cjk,
# WenQuanYi, Droid's fallback, macOS's PingFang, Windows' YaHei. Latin text uses Pillow's own font.
CJK_FONTS = (("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
             ("/usr/share/fonts/opentype/noto/NotoSansSC-Regular.otf", 0),
             ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),
             ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", 0),
             ("/System/Library/Fonts/PingFang.ttc", 0), ("C:/Windows/Fonts/msyh.ttc", 0))

# A fixed palette, so every pixel keeps its exact colour: 0 white, 1 black, 2 circle grey, 3 axis grey,
# then the chart palette (hand j is colour 4 + j mod len(PALETTE)), then the query's and the key's colours.
WHITE, BLACK, CIRCLE, AXIS = range(4)


def hex_rgb(value: str) -> tuple[int, int, int]:
    return cast(tuple[int, int, int], tuple(int(value[i: i + 2], 16) for i in (1, 3, 5)))


_GREYS = tuple(hex_rgb(grey) for grey in (PAPER, INK, GIF_CIRCLE, GIF_AXES))
COLOURS = tuple(hex_rgb(c) for c in PALETTE)
ARROWS = tuple(hex_rgb(concept_color(c)) for c in ("query", "key"))  # the phase slide's two arrows
_ARROW_INDICES = tuple(range(len(_GREYS) + len(COLOURS), len(_GREYS) + len(COLOURS) + len(ARROWS)))
_PALETTE_BYTES = [channel for rgb in (*_GREYS, *COLOURS, *ARROWS) for channel in rgb]


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


@functools.cache
def _cjk_font() -> ImageFont.FreeTypeFont | None:
    for path, index in CJK_FONTS:
        try:
            return ImageFont.truetype(path, TEXT, index=index)
        except OSError:
            continue
    return None


def file_lang(lang: str) -> str:
    """The language a GIF is written in: the visitor's, or English where the server has no Chinese font."""
    return lang if lang == "en" or _cjk_font() is not None else "en"


def _font(lang: str) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # file_lang is "en" where _cjk_font() is None
    return _cjk_font() if file_lang(lang) != "en" else ImageFont.load_default(TEXT)  # type: ignore[return-value]


def _lines(text: str, font, width: int) -> list[str]:
    """`text` (its own breaks kept, Plotly's <br> among them) broken into lines no wider than `width` pixels:
    between words, or anywhere in a run of CJK characters. Sub- and superscript letters (θᵢ), which the CJK
    fonts lack, are written as plain ones."""
    text = "".join(unicodedata.normalize("NFKC", ch) if unicodedata.decomposition(ch).startswith(("<sub>", "<super>"))
                   else ch for ch in text)
    out = []
    for paragraph in re.split(r"<br>|\n", text):
        line = ""
        for token in re.findall(r"[\u2e80-\uffef]|[^\s\u2e80-\uffef]+|\s+", paragraph):
            if line.strip() and font.getlength(line + token) > width:
                out.append(line.rstrip())
                line = token.lstrip()
            else:
                line += token
        out.append(line.rstrip())
    return out


def _write(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, font, width: int, *, fill: int = BLACK,
           most: int = 2) -> None:
    """`text` centred on xy[0], from xy[1] down, in at most `most` lines of `width` pixels (the last one cut
    with an ellipsis only if the text is longer still)."""
    lines = _lines(text, font, width)
    if len(lines) > most:
        lines = lines[:most]
        while lines[-1] and font.getlength(lines[-1] + "…") > width:
            lines[-1] = lines[-1][:-1]
        lines[-1] += "…"
    for k, line in enumerate(lines):
        draw.text((xy[0], xy[1] + k * LINE), line, fill=fill, anchor="ma", font=font)


def _frame_base(width: int, height: int, title: str, font) -> Image.Image:
    """A blank frame with the title in its top band."""
    image = _canvas(width, height)
    _write(ImageDraw.Draw(image), (width / 2, 4), title, font, width - 8)
    return image


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
    """(x, y, radius) in pixels of clock j's face (under the title; each clock's name under its face)."""
    columns, _, cell = clock_layout(pairs)
    row, column = divmod(j, columns)
    return column * cell + cell / 2, HEADER + row * (cell + NAME) + cell / 2, cell * 0.42


def hand_tip(j: int, pairs: int, cos: float, sin: float) -> tuple[int, int]:
    """The pixel at the tip of clock j's hand when it points at angle (cos, sin) (y grows downwards)."""
    x, y, radius = clock_centre(j, pairs)
    return round(x + radius * cos), round(y - radius * sin)


def clocks_gif(positions, cos: np.ndarray, sin: np.ndarray, *, title: str = "", names=(), counter: str = "m = {m}",
               lang: str = "en", frame_ms: int = 120) -> bytes:
    """One clock per chosen pair, the hand at angle m·θ_i, one frame per position m (cos, sin:
    (len(positions), pairs), as explorer.pure.views.frequency_clocks.clocks returns them); `title` on top, each clock's
    name (`names`, in `lang`) under it in its hand's colour, `counter` (with {m}) at the foot."""
    cos, sin = np.asarray(cos, dtype=np.float64), np.asarray(sin, dtype=np.float64)
    pairs = cos.shape[1]
    columns, rows, cell = clock_layout(pairs)
    width, height = columns * cell, HEADER + rows * (cell + NAME) + LABEL
    font = _font(lang)
    base = _frame_base(width, height, title, font)
    draw = ImageDraw.Draw(base)
    for j in range(pairs):
        x, y, radius = clock_centre(j, pairs)
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=CIRCLE, width=2)
        if j < len(names):
            _write(draw, (x, y + cell / 2), names[j], font, cell - 4, fill=colour_index(j))
    frames = []
    for f in frame_indices(len(positions)):
        image = base.copy()
        draw = ImageDraw.Draw(image)
        for j in range(pairs):
            x, y, radius = clock_centre(j, pairs)
            tip = hand_tip(j, pairs, cos[f, j], sin[f, j])
            draw.line(((round(x), round(y)), tip), fill=colour_index(j), width=4)
            draw.ellipse((tip[0] - 4, tip[1] - 4, tip[0] + 4, tip[1] + 4), fill=colour_index(j))
        _write(draw, (width / 2, height - LABEL + 2), counter.format(m=int(positions[f])), font, width - 8, most=1)
        frames.append(image)
    return _gif(frames, frame_ms)


def plane_scale(query: np.ndarray, key: np.ndarray) -> float:
    """Pixels per unit of the phase slide: both arrows fit with a margin, as in the browser's figure."""
    extent = float(max(np.abs(query).max(initial=0.0), np.abs(key).max(initial=0.0), 1e-9)) * 1.25
    return (PLANE / 2) / extent


def arrow_tip(point, scale: float) -> tuple[int, int]:
    """The pixel where an arrow from the origin to `point` ends."""
    return round(PLANE / 2 + scale * float(point[0])), round(HEADER + PLANE / 2 - scale * float(point[1]))


def phase_gif(shifts, query: np.ndarray, key: np.ndarray, *, title: str = "", names=(), counter=None,
              lang: str = "en", frame_ms: int = 150) -> bytes:
    """The query and the key of one pair (in their colours, ARROWS) turning together, one frame per shift s
    (query, key: (frames, 2), as explorer.pure.views.phase_cancellation.slide returns them); `title` on top, a legend
    line per arrow (`names`, in `lang`, in the arrow's colour) under the plane, and at the foot `counter(k)`, the
    text of frame k (default "s = <shift>")."""
    query, key = np.asarray(query, dtype=np.float64), np.asarray(key, dtype=np.float64)
    scale = plane_scale(query, key)
    centre = PLANE // 2
    height = HEADER + PLANE + LEGEND + LABEL
    font = _font(lang)
    base = _frame_base(PLANE, height, title, font)
    draw = ImageDraw.Draw(base)
    draw.line(((0, HEADER + centre), (PLANE, HEADER + centre)), fill=AXIS, width=1)
    draw.line(((centre, HEADER), (centre, HEADER + PLANE)), fill=AXIS, width=1)
    for fill, path in zip(_ARROW_INDICES, (query, key)):  # the tracks the tips run on
        for point in path:
            draw.point(arrow_tip(point, scale), fill=fill)
    for j, (fill, name) in enumerate(zip(_ARROW_INDICES, names)):
        top = HEADER + PLANE + 2 + j * LINE
        draw.rectangle((8, top + 5, 24, top + 9), fill=fill)
        draw.text((30, top), name, fill=fill, font=font)
    frames = []
    for f in frame_indices(len(shifts)):
        image = base.copy()
        draw = ImageDraw.Draw(image)
        for fill, path in zip(_ARROW_INDICES, (query, key)):
            tip = arrow_tip(path[f], scale)
            draw.line(((centre, HEADER + centre), tip), fill=fill, width=4)
            draw.ellipse((tip[0] - 5, tip[1] - 5, tip[0] + 5, tip[1] + 5), fill=fill)
        text = counter(f) if counter is not None else f"s = {int(shifts[f])}"
        _write(draw, (PLANE / 2, height - LABEL + 2), text, font, PLANE - 8, most=1)
        frames.append(image)
    return _gif(frames, frame_ms)


def clocks_file(hands: Clocks, pairs, lang: str) -> bytes:
    """The clocks page's GIF (hands: explorer.pure.views.frequency_clocks.clocks of `pairs`), its text in `lang`."""
    lang = file_lang(lang)
    names = [text.text("frequency_clocks.clock_short", lang, i=i, wave=wave) for i, wave in zip(pairs, hands.waves)]
    return clocks_gif(
        hands.positions,
        hands.cos,
        hands.sin,
        title=text.text("frequency_clocks.clocks_title", lang),
        names=names,
        lang=lang,
    )


def phase_file(path: Slide, m: int, n: int, lang: str) -> bytes:
    """The phase page's GIF (path: explorer.pure.views.phase_cancellation.slide at m, n), its text in `lang`:
    each frame's positions and dot product at the foot."""
    lang = file_lang(lang)
    shifts, dots = path.shifts, path.dots
    return phase_gif(
        shifts,
        path.query,
        path.key,
        title=text.text("phase_cancellation.step3_header", lang),
        names=(text.text("phase_cancellation.query_name", lang), text.text("phase_cancellation.key_name", lang)),
        counter=lambda f: text.text(
            "phase_cancellation.frame_title", lang, s=shifts[f], qm=m + shifts[f], kn=n + shifts[f], dot=dots[f]
        ),
        lang=lang,
    )
