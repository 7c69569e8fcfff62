"""The animations as GIFs: they decode, have the expected frames and size, and frame k shows the data's
angle (the pixel at the tip of each hand or arrow has that hand's colour)."""

import io
import math

import numpy as np
import pytest
from PIL import Image

from explorer.pure import animation_export as gif
from explorer.pure.figures import concept_color
from explorer.pure.views import phase_cancellation, frequency_clocks


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "GIF"
    return image


def rgb_frame(image: Image.Image, k: int) -> Image.Image:
    image.seek(k)
    return image.convert("RGB")


def test_frame_indices_keep_everything_or_spread_evenly():
    assert gif.frame_indices(5) == [0, 1, 2, 3, 4]
    picked = gif.frame_indices(513)
    assert len(picked) == gif.MAX_FRAMES and picked[0] == 0 and picked[-1] == 512
    assert np.all(np.diff(picked) > 0)


@pytest.mark.parametrize("dim,base,max_pos,pairs", [(64, 10000.0, 64, (0, 1, 2, 8, 16, 31)),
                                                    (16, 500.0, 512, (0, 3)), (4, 10.0, 8, (1,)),
                                                    (128, 10000.0, 40, tuple(range(8)))])
def test_clock_frames_show_each_hand_at_its_angle(dim, base, max_pos, pairs):
    hands = frequency_clocks.clocks(dim, base, max_pos, pairs)
    image = decode(gif.clocks_gif(hands.positions, hands.cos, hands.sin))
    positions = hands.positions
    kept = gif.frame_indices(len(positions))
    assert image.n_frames == len(kept) == min(len(positions), gif.MAX_FRAMES)
    columns, rows, cell = gif.clock_layout(len(pairs))
    assert image.size == (columns * cell, gif.HEADER + rows * (cell + gif.NAME) + gif.LABEL)
    assert image.size[0] <= gif.MAX_WIDTH
    for k in sorted({0, 1, len(kept) // 2, len(kept) - 1}):
        frame = rgb_frame(image, k)
        m = positions[kept[k]]
        for j, i in enumerate(pairs):
            angle = m * base ** (-2 * i / dim)  # written here, not taken from the app
            tip = gif.hand_tip(j, len(pairs), math.cos(angle), math.sin(angle))
            assert frame.getpixel(tip) == gif.COLOURS[j % len(gif.COLOURS)], (k, j)
            # half way back along the hand is the hand too; the opposite side of the face is not
            x, y, radius = gif.clock_centre(j, len(pairs))
            assert frame.getpixel((round(x + radius / 2 * math.cos(angle)), round(y - radius / 2 * math.sin(angle)))) \
                == gif.COLOURS[j % len(gif.COLOURS)]
            behind = (round(x - radius * 0.8 * math.cos(angle)), round(y + radius * 0.8 * math.sin(angle)))
            assert frame.getpixel(behind) != gif.COLOURS[j % len(gif.COLOURS)]


def test_phase_frames_show_query_and_key_at_their_angles():
    m, n, dim, base, pair, seed = 2, 9, 16, 10000.0, 1, 0
    path = phase_cancellation.slide(m, n, dim, base, pair, seed)
    image = decode(gif.phase_gif(path.shifts, path.query, path.key))
    assert image.n_frames == len(path.shifts) == 61
    assert image.size == (gif.PLANE, gif.HEADER + gif.PLANE + gif.LEGEND + gif.LABEL)
    q, k = phase_cancellation.query_and_key(dim, seed)
    q, k = q[2 * pair: 2 * pair + 2].numpy(), k[2 * pair: 2 * pair + 2].numpy()
    theta = base ** (-2 * pair / dim)
    scale = gif.plane_scale(path.query, path.key)
    for f in (0, 10, 30, 60):
        frame = rgb_frame(image, f)
        s = path.shifts[f]
        # the tips by hand: each 2-vector turned to its own position plus the shared shift
        for j, (vector, position) in enumerate(((q, m + s), (k, n + s))):
            c, sn = math.cos(position * theta), math.sin(position * theta)
            turned = (vector[0] * c - vector[1] * sn, vector[0] * sn + vector[1] * c)
            tip = gif.arrow_tip(turned, scale)
            assert frame.getpixel(tip) == gif.hex_rgb(concept_color(("query", "key")[j])), (f, j)  # as the page


def test_gifs_stay_small():
    hands = frequency_clocks.clocks(256, 10.0, 512, tuple(range(0, 128, 16)))
    data = gif.clocks_gif(hands.positions, hands.cos, hands.sin)
    assert len(data) < 2_000_000
    image = decode(data)
    assert image.n_frames == gif.MAX_FRAMES and image.size[0] <= gif.MAX_WIDTH


def ink(frame: Image.Image, box: tuple[int, int, int, int], colour) -> int:
    """How many pixels of `box` (left, top, right, bottom) have `colour`."""
    pixels = np.asarray(frame.crop(box))
    return int(np.all(pixels == np.array(colour), axis=-1).sum())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_clock_file_carries_its_title_names_and_counter(lang):
    """Text in the title band, each clock's name under its face in its hand's colour, and a counter at the
    foot that changes from frame to frame; Chinese when the server has a Chinese font (this one has)."""
    pairs = (0, 4)
    hands = frequency_clocks.clocks(16, 10000.0, 24, pairs)
    image = decode(gif.clocks_file(hands, pairs, lang))
    assert gif.file_lang(lang) == lang, "install a Chinese font (fonts-noto-cjk) for the Chinese GIFs"
    first, last = rgb_frame(image, 0), rgb_frame(image, image.n_frames - 1)
    width, height = first.size
    black = (0, 0, 0)
    assert ink(first, (0, 0, width, gif.HEADER), black) > 50  # the title
    columns, _, cell = gif.clock_layout(len(pairs))
    for j in range(len(pairs)):
        x, y, _ = gif.clock_centre(j, len(pairs))
        name_band = (int(x - cell / 2), int(y + cell / 2), int(x + cell / 2), int(y + cell / 2 + gif.NAME))
        assert ink(first, name_band, gif.COLOURS[j]) > 20, j  # the name, in the hand's colour
    foot = (0, height - gif.LABEL, width, height)
    assert ink(first, foot, black) > 10
    assert np.any(np.asarray(first.crop(foot)) != np.asarray(last.crop(foot)))  # m = 0 ... m = 23


def test_the_phase_file_has_a_legend_line_per_arrow_and_the_frames_dot_product():
    path = phase_cancellation.slide(2, 9, 16, 10000.0, 1, 0)
    image = decode(gif.phase_file(path, 2, 9, "en"))
    frame = rgb_frame(image, 0)
    legend = gif.HEADER + gif.PLANE
    for j in range(2):
        assert ink(frame, (0, legend + j * gif.LINE, gif.PLANE, legend + (j + 1) * gif.LINE), gif.ARROWS[j]) > 30
    assert ink(frame, (0, 0, gif.PLANE, gif.HEADER), (0, 0, 0)) > 50


def test_without_a_chinese_font_the_file_is_written_in_english(monkeypatch):
    monkeypatch.setattr(gif, "CJK_FONTS", (("/nonexistent/font.ttc", 0),))
    gif._cjk_font.cache_clear()
    try:
        assert gif.file_lang("zh") == "en" and gif.file_lang("en") == "en"
        hands = frequency_clocks.clocks(16, 10000.0, 8, (0,))
        assert gif.clocks_file(hands, (0,), "zh") == gif.clocks_file(hands, (0,), "en")
    finally:
        gif._cjk_font.cache_clear()


def test_lines_break_words_and_cjk_runs_within_the_width():
    font = gif._font("zh")
    for text in ("The clocks: pair i turns by m·θᵢ at position m", "时钟：第 i 对在位置 m 转过 m·θᵢ，越往后越慢"):
        lines = gif._lines(text, font, 120)
        assert len(lines) > 1 and "".join(lines).replace(" ", "") == text.replace(" ", "").replace("ᵢ", "i")
        assert all(font.getlength(line) <= 120 for line in lines)
