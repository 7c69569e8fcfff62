"""Start a new topic page: `python -m explorer.new_topic <page_id>` writes the topic's seven files and adds its
line to the page list (explorer/pure/sitemap.py, at the end of the lesson), and nothing else.

The seven files are a small page that works and passes every test that holds every topic (tests/test_layout.py,
tests/ui/test_text.py, tests/ui/test_quiz.py, tests/apptest/test_every_page.py, and its own two tests): one
chart of where the fastest and the slowest pair of a vector land position after position, three knobs, two
questions, both languages. Make each file the topic's own from there; docs/contributing.md ("Add a topic")
says what each file holds. tests/test_new_topic.py runs this command into a copy of the tree and runs those
tests there.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from explorer.pure.sitemap import FOLDER, PAGES

ROOT = Path(__file__).resolve().parents[1]
ID = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
ICON = ":material/lightbulb:"

PAGE = '''"""TITLE: where the fastest and the slowest pair of a vector land, position after position."""

import explorer as ui
from explorer.app.panels import PAGE_ID as panel
from explorer.app.place import knob_row

PAGE = "PAGE_ID"

ui.page_header(PAGE)
positions, dim, base = knob_row(PAGE, "positions", "dim", "base")
ui.chart(panel.orbits_figure(positions, dim, base), key="orbits")
ui.questions(PAGE)
'''

VIEW = '''"""The PAGE_ID page's view: where pair i of the vector (1, 0) lands at positions m = 0, 1, ...:
(cos m theta_i, sin m theta_i), theta_i = base^(-2i/d), for the fastest pair (i = 0) and the slowest (i = d/2 - 1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rope_viz import angles
from rope_viz.device import to_numpy

from explorer.pure.knob_types import IntKnob
from explorer.pure.questions import Question
from explorer.pure.shared_knobs import BASE, declare, head_dim, own

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("orbits",)
# the page's knobs, in the order it draws them (gathered by explorer.pure.knobs)
KNOBS = declare(own("PAGE_ID", IntKnob, "positions", 16, 2, 256, 1), head_dim(), BASE)
# the questions that end the page, worded in its text files (quiz_<name>)
QUIZ = (Question("fastest"), Question("length"))


@dataclass(frozen=True)
class Orbits:
    """(x, y) of pair 0 (fast) and pair d/2 - 1 (slow) at positions 0 .. positions - 1, float32 each."""

    fast: tuple[np.ndarray, np.ndarray]
    slow: tuple[np.ndarray, np.ndarray]


def orbits(positions: int, dim: int, base: float) -> Orbits:
    turned = to_numpy(angles(range(positions), dim, base))  # (positions, dim/2), float64

    def landed(pair: int) -> tuple[np.ndarray, np.ndarray]:
        return np.cos(turned[:, pair]).astype(np.float32), np.sin(turned[:, pair]).astype(np.float32)

    return Orbits(fast=landed(0), slow=landed(dim // 2 - 1))
'''

PANEL = '''"""The PAGE_ID page's figures: its view's orbits drawn as points in the plane."""

from __future__ import annotations

from explorer.app.cache import cached
from explorer.app.session import t
from explorer.pure.figures import scatter_chart
from explorer.pure.views import PAGE_ID as view

PAGE = "PAGE_ID"
orbits = cached(view.orbits, max_entries=32)


def orbits_figure(positions: int, dim: int, base: float):
    """Where the fastest and the slowest pair land at each position, on equal axes."""
    landed = orbits(positions, dim, base)
    series = {t(f"{PAGE}.fast_series"): landed.fast, t(f"{PAGE}.slow_series", pair=dim // 2 - 1): landed.slow}
    return scatter_chart(series, title=t(f"{PAGE}.orbits_title", last=positions - 1), x_title=t(f"{PAGE}.x_axis"),
                         y_title=t(f"{PAGE}.y_axis"), equal_axes=True, joined=True)
'''

EN = '''# English text of the PAGE_ID page (explorer.pure.text says which keys a topic has)
title = "TITLE"
nav = "TITLE"
card = "where the fastest and the slowest pair of a vector land, position after position."
intro = "RoPE turns pair *i* of a vector by *m·θᵢ* at position *m*: pair 0 one radian a step, the last barely."
positions = "Positions"
positions_help = "How many positions m = 0, 1, ... to draw."
orbits_title = "The pair (1, 0) turned to positions 0 to {last}"
fast_series = "the fastest pair (0)"
slow_series = "the slowest pair ({pair})"
x_axis = "first coordinate"
y_axis = "second coordinate"

# the questions at the end of the page (explorer.pure.questions): quiz_<name> is the question, quiz_<name>_1 the
# right answer and _2, _3 wrong ones, quiz_<name>_why the explanation; each a format string ({{ }} for a brace)
quiz_fastest = "Which pair turns fastest?"
quiz_fastest_1 = "Pair 0"
quiz_fastest_2 = "The last pair"
quiz_fastest_3 = "They all turn at the same speed"
quiz_fastest_why = "$\\\\theta_i = \\\\mathrm{{base}}^{{-2i/d}}$ is largest at $i = 0$, where it is 1."
quiz_length = "Does turning change the length of a pair?"
quiz_length_1 = "No: a rotation keeps the length"
quiz_length_2 = "Yes: it grows with the position"
quiz_length_3 = "Yes: it shrinks with the position"
quiz_length_why = "Every point lies on the unit circle: $\\\\cos^2 + \\\\sin^2 = 1$."
'''

ZH = '''# PAGE_ID 页面的简体中文文本（explorer.pure.text 说明一个主题有哪些键）
title = "TITLE"
nav = "TITLE"
card = "向量中转得最快与最慢的一对维度，随位置一步步落在哪里。"
intro = "RoPE 在位置 *m* 把向量的第 *i* 对维度转过角度 *m·θᵢ*。第 0 对每一步转一弧度，最后一对几乎不动。"
positions = "位置数"
positions_help = "画出多少个位置 m = 0, 1, ...。"
orbits_title = "维度对 (1, 0) 转到位置 0 至 {last}"
fast_series = "转得最快的一对（0）"
slow_series = "转得最慢的一对（{pair}）"
x_axis = "第一个坐标"
y_axis = "第二个坐标"

# 页尾的问题（explorer.pure.questions）：quiz_<name> 为问题，quiz_<name>_1 为正确答案，_2、_3 为错误答案，
# quiz_<name>_why 为解释；均为格式字符串（字面花括号写作 {{ }}）
quiz_fastest = "哪一对维度转得最快？"
quiz_fastest_1 = "第 0 对"
quiz_fastest_2 = "最后一对"
quiz_fastest_3 = "所有维度对转得一样快"
quiz_fastest_why = "$\\\\theta_i = \\\\mathrm{{base}}^{{-2i/d}}$ 在 $i = 0$ 时最大，等于 1。"
quiz_length = "旋转会改变一对维度的长度吗？"
quiz_length_1 = "不会：旋转保持长度"
quiz_length_2 = "会：随位置变长"
quiz_length_3 = "会：随位置变短"
quiz_length_why = "每个点都在单位圆上：$\\\\cos^2 + \\\\sin^2 = 1$。"
'''

APPTEST = '''"""The PAGE_ID page through AppTest: the points drawn against the formula written here in float64
(opening in Chinese and at the extremes: tests/apptest/test_every_page.py)."""

import numpy as np

from explorer.pure.knobs import PAGE_KNOBS
from support.apptest import chart, check_clean, opened, spec_array


def test_defaults_draw_each_pair_where_the_formula_puts_it():
    at = opened("PAGE_ID")
    check_clean(at)
    knobs = {name: spec.default for name, spec in PAGE_KNOBS["PAGE_ID"].items()}
    dim, base, m = knobs["dim"], knobs["base"], np.arange(knobs["positions"], dtype=np.float64)
    fast, slow = chart(at, "orbits")["data"]
    for trace, pair in ((fast, 0), (slow, dim // 2 - 1)):
        theta = base ** (-2.0 * pair / dim)
        np.testing.assert_allclose(spec_array(trace["x"]), np.cos(m * theta), atol=1e-6)
        np.testing.assert_allclose(spec_array(trace["y"]), np.sin(m * theta), atol=1e-6)
'''

VIEW_TEST = '''"""The PAGE_ID view against the rotation written out here, one position at a time in float64."""

import math

import numpy as np
import pytest

from explorer.pure.views import PAGE_ID as view


def hand_orbit(positions, dim, base, pair):
    """(cos m theta, sin m theta) for m = 0 .. positions - 1, theta = base^(-2 pair / dim)."""
    theta = base ** (-2.0 * pair / dim)
    return np.array([(math.cos(m * theta), math.sin(m * theta)) for m in range(positions)])


@pytest.mark.parametrize("positions, dim, base", [(16, 64, 10000.0), (2, 2, 10.0), (256, 256, 1e7)])
def test_each_pair_lands_where_the_rotation_puts_it(positions, dim, base):
    landed = view.orbits(positions, dim, base)
    np.testing.assert_allclose(np.stack(landed.fast, axis=1), hand_orbit(positions, dim, base, 0), atol=1e-6)
    np.testing.assert_allclose(np.stack(landed.slow, axis=1), hand_orbit(positions, dim, base, dim // 2 - 1),
                               atol=1e-6)
'''


def files(page: str) -> dict[str, str]:
    """{path relative to the repository root: its text} of the seven files of topic `page`."""
    title = page.replace("_", " ").capitalize()
    url = page.replace("_", "-")
    texts = {f"{FOLDER}/{url}.py": PAGE, f"explorer/pure/views/{page}.py": VIEW,
             f"explorer/app/panels/{page}.py": PANEL, f"explorer/pure/text/en/{page}.toml": EN,
             f"explorer/pure/text/zh/{page}.toml": ZH, f"tests/apptest/test_{page}.py": APPTEST,
             f"tests/views/test_{page}_view.py": VIEW_TEST}
    return {path: text.replace("PAGE_ID", page).replace("TITLE", title) for path, text in texts.items()}


def add_to_sitemap(source: str, page: str, icon: str) -> str:
    """The sitemap's source with (page, url, icon) added as the last step of the lesson."""
    head, sep, tail = source.partition("\n)\nTOPICS = ")
    if not sep:
        raise ValueError("explorer/pure/sitemap.py: no PAGES tuple closed by ')' before TOPICS")
    return f'{head}\n    ("{page}", "{page.replace("_", "-")}", "{icon}"),{sep}{tail}'


def new_topic(page: str, icon: str = ICON, root: Path = ROOT) -> list[str]:
    """Write topic `page`'s seven files under `root` and add its sitemap line; the paths written."""
    if not ID.fullmatch(page):
        raise ValueError(f"page must be lower-case words joined by '_' (its address joins them by '-'), got {page!r}")
    if page in {name for name, _, _ in PAGES} | {"common", "quiz", "glossary", "toolbar", "tryit"}:
        raise ValueError(f"page {page!r} already names a page or a shared text file")
    written = files(page)
    taken = [path for path in written if (root / path).exists()]
    if taken:
        raise ValueError(f"page {page!r}: these files exist already: {', '.join(taken)}")
    sitemap = root / "explorer" / "pure" / "sitemap.py"
    sitemap.write_text(add_to_sitemap(sitemap.read_text(encoding="utf-8"), page, icon), encoding="utf-8")
    for path, text in written.items():
        (root / path).write_text(text, encoding="utf-8")
    return [*written, "explorer/pure/sitemap.py"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explorer.new_topic", description=__doc__.split("\n\n")[0])
    parser.add_argument("page", help="the page id: lower-case words joined by '_', e.g. rope_on_a_torus")
    parser.add_argument("--icon", default=ICON, help=f"a Material icon, :material/<name>: (default {ICON})")
    args = parser.parse_args(argv)
    try:
        written = new_topic(args.page, args.icon)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    print("\n".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
