"""The one look of every chart in the app: palette, fonts, margins, axis titles."""

from __future__ import annotations

import html
import math
import re
import unicodedata
from typing import Any

import numpy as np
import plotly.graph_objects as go

PALETTE = ("#d1495b", "#00798c", "#edae49", "#30638e", "#66a182", "#8d6a9f", "#003d5b", "#e07a5f",
           "#8c5e3c", "#5fa8d3", "#c46fb0", "#9aa33a")
# One colour per concept, the same on every page and in both languages. Within a family every member has its
# own; the position encodings and the scaling methods, which meet on the trained-models page, never share one;
# the newer schemes, which meet only the plain encodings, reuse scaling colours. The query, the key and their
# offset m − n have colours of their own, outside the palette, so no series ever takes them by its order.
_INDICES = {
    # position encodings
    "rope": 0, "sinusoidal": 1, "alibi": 2, "nope": 3, "t5": 4, "xpos": 5,
    # scaling methods for a longer context ("linear" is position interpolation, "pi"; "model": a config's own)
    "linear": 7, "pi": 7, "ntk": 6, "dynamic": 9, "yarn": 10, "llama3": 8, "longrope": 11, "model": 5,
    # the 2025-26 schemes trained here
    "nope-every-4th": 6, "nope-every-4th+temperature": 9, "local-rope+global-nope": 10, "p-rope": 11,
    "partial-rope": 8,
}
CONCEPTS = {**{name: PALETTE[index] for name, index in _INDICES.items()},
            # the vectors RoPE turns and their distance
            "query": "#f28c28", "key": "#4361ee", "offset": "#343a40"}
DIVERGING = "RdBu_r"
SEQUENTIAL = "Viridis"
# the page's own typeface (the theme's `font` in .streamlit/config.toml, the same list): Streamlit's bundled
# Source Sans for Latin, then Simplified Chinese families by their installed names (Debian's fonts-noto-cjk
# is "Noto Sans CJK SC"; without it a visitor gets Noto Sans SC, Source Han Sans SC, PingFang SC on a Mac,
# Microsoft YaHei on Windows, else the browser's sans-serif)
FONT = ("'Source Sans', 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', "
        "sans-serif")
HEIGHT = 420
GRID = "#ebebeb"
MINOR_GRID = "#f6f6f6"
AXIS_LINE = "#c8c8c8"
MARK = "#555555"  # reference lines and marks laid over the data (a trained length, a chosen cell)
LABEL_BACKDROP = "rgba(255, 255, 255, 0.8)"  # behind a mark's label inside the plot: the lines pass under it
# Every other colour the app draws, by role (tests/ui/test_colours.py keeps colour literals to this module).
PAPER = "#ffffff"  # a figure's background, the ring around a point that can be dragged
INK = "#000000"  # the text of an exported animation
TEXT = "#31333f"  # the page's own text colour (Streamlit's light theme): the drag component's text
HINT = "#6b6f7b"  # a quieter line of text under it
ZERO_LINE = "#999999"  # the axes through a plane's origin, a track's ticks
CIRCLE = "#bbbbbb"  # the unit circle a rotation keeps a point on
FACE = "#cccccc"  # a clock's face, the axes of a small plane beside a readout
FACE_AXES = "#e5e5e5"  # the axes across a clock's face
TICK_TEXT = "#888888"  # the numbers along a drawn axis
THRESHOLD = "#3a3a3a"  # a threshold's dashed line (a fraction of the first value, a limit)
REFERENCE = "#9a9a9a"  # a second reference line beside MARK's (a target length beside the trained one)
NO_VALUE = "#d4d4d4"  # the cells of a layer that has no value in a strip (no RoPE: no base, no rotated dims)
SEGMENT = "#f4f4f4"  # the band behind a segment of a sequence
SEGMENT_FOCUS = "#dcebf0"  # the band behind a highlighted segment
GIF_CIRCLE = "#c8c8c8"  # an exported animation's clock faces (a GIF has no anti-aliasing: a darker grey)
GIF_AXES = "#aaaaaa"  # an exported animation's axes
# the page stylesheet's (explorer/app/presenter.py): the shadow at an end of a wide formula that scrolls, and
# the cover that hides it at an end the formula has reached
PAGE_COLOURS = {"cover": PAPER, "clear": "rgba(255, 255, 255, 0)", "shadow": "rgba(0, 0, 0, 0.28)",
                "shadow_clear": "rgba(0, 0, 0, 0)"}
# the drag component's (explorer/app/components/drag): its grid and axes match the figures'
DRAG_COLOURS = {"text": TEXT, "hint": HINT, "grid": GRID, "zero": ZERO_LINE, "circle": CIRCLE, "face": FACE,
                "track": AXIS_LINE, "ticks": TICK_TEXT, "axis_text": MARK, "ring": PAPER, "unknown": MARK}


def literal(text: str) -> str:
    """Text from outside (a visitor's token, a name) for a Plotly label: Plotly draws a subset of HTML in titles,
    ticks, legends and hover text (`<b>`, `<a href>`, `<br>`), so its markup characters are escaped as entities,
    which Plotly shows as the characters themselves."""
    return html.escape(text, quote=False)


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def concept_color(name: str) -> str:
    """The colour of a concept of CONCEPTS (an encoding, a scaling method, a scheme, the query or the key)."""
    return CONCEPTS[name]


def rgba(hex_color: str, alpha: float) -> str:
    """A "#rrggbb" colour with opacity `alpha`, as Plotly's "rgba(r, g, b, a)"."""
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def _merged(base: dict, extra: dict) -> dict:
    """`base` updated by `extra`, nested dicts merged key by key (as plotly's update does)."""
    out = dict(base)
    for key, value in extra.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


LEGEND_ROW = 18  # pixels added to a figure's height for each legend entry past the second
PANEL_LINE = 16  # pixels more at the top for each line a wrapped panel title gains
PANEL_TITLES = 30  # pixels more at the top of a figure of panels, for the panels' own titles
PANEL_TITLE_SIZE = 16  # their font size (make_subplots' own); a phone's stylesheet draws them smaller
FIRST_LINE = 52  # pixels from the top to the foot of a title's first line: the toolbar's band stays above it
TITLE_WIDTH = 40  # a title's line, in display units (a CJK character is two): fits a phone's 390 px at 16 px


def units(text: str) -> int:
    """How wide `text` is in display units: a CJK (wide) character is two, any other one."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def top_margin(title_lines: int) -> int:
    """The pixels above a figure's plot for a title of `title_lines` lines (and the toolbar's band)."""
    return 58 + 20 * title_lines


NO_LINE_START = set("）」』】〕》〉，。、；：！？")  # CJK punctuation that closes what comes before it


def wrapped(title: str, width: int = TITLE_WIDTH) -> tuple[str, int]:
    """`title` broken into lines of at most `width` display units (Plotly never wraps a title itself): at
    spaces between words, after a dash or a slash, anywhere between CJK characters (but never before a closing
    mark such as "）" or "，"), never inside a tag; with its number of lines.
    A title with a formula ($...$) or its own line breaks is kept as it is."""
    if "$" in title or "<br" in title:
        return title, title.count("<br") + 1
    # a token: a tag, one CJK character, a word (which may end in a dash or slash, where a line may break),
    # or white space
    tokens = re.findall(r"<[^>]*>|[\u2e80-\uffef]|[^\s<\u2e80-\uffef–/]+[–/]?|[–/]|\s+", title)
    lines, line, size = [], "", 0
    for token in tokens:
        size_of = 0 if token.startswith("<") else units(token)
        if token.isspace():
            if line:
                line, size = line + " ", size + 1
            continue
        glued = re.search(r"<[^/][^>]*>$", line)  # never between an opening tag and what it holds
        if size_of and size + size_of > width and line.strip() and not glued:
            moved = ""  # a closing mark never starts a line: the characters before it go along to the next
            while (moved[:1] or token) in NO_LINE_START and len(line.strip()) > 1 and \
                    re.fullmatch(r"[\u2e80-\uffef]", line[-1]):
                line, moved = line[:-1], line[-1] + moved
            lines.append(line.rstrip())
            line, size = moved, units(moved)
        line, size = line + token, size + size_of
    lines.append(line.rstrip())
    return "<br>".join(lines), len(lines)


def _wrap_panel_titles(annotations: list[dict]) -> int:
    """Wrap the panels' titles (make_subplots' annotations: paper coordinates, no arrow, anchored at their
    foot) to their share of a line: a row of n panels gives each 1/n of a title's line, which a phone's
    share of 390 px holds at the smaller size its stylesheet draws them (below PANEL_TITLE_SIZE). Returns
    how many lines the tallest one gained."""
    rows: dict[float | None, list[dict]] = {}
    for note in annotations:
        if note.get("yref") == "paper" and note.get("showarrow") is False and note.get("yanchor") == "bottom":
            rows.setdefault(note.get("y"), []).append(note)
    gained = 0
    for row in rows.values():
        for note in row:
            note["text"], lines = wrapped(str(note.get("text", "")), max(8, TITLE_WIDTH // len(row)))
            gained = max(gained, lines - 1)
    return gained


def _outer_axes(layout: dict, axes: set[str]) -> set[str]:
    """The axes of a grid of panels that carry the shared axis titles: x axes of the lowest row, y axes of
    the leftmost column (a title between two panels would sit on the neighbour's tick labels)."""
    def start(name: str) -> float:
        return (layout.get(name, {}).get("domain") or (0, 1))[0]

    def anchored(name: str) -> str:  # "xaxis2" is anchored to "y2", which is the axis "yaxis2"
        anchor = layout.get(name, {}).get("anchor") or ("y" if name[0] == "x" else "x")
        return anchor[0] + "axis" + anchor[1:] if anchor[0] in "xy" else ""

    outer = set()
    for letter in "xy":
        own = [name for name in axes if name[0] == letter and not layout.get(name, {}).get("overlaying")]
        lowest = min((start(anchored(name)) for name in own), default=0)
        outer |= {name for name in own if start(anchored(name)) <= lowest + 1e-9}
        outer |= {name for name in axes if name[0] == letter and layout.get(name, {}).get("overlaying")}
    return outer


LABEL_GAP = 45  # the least pixels between two labels of a log axis over decades (about one per 40-60 px)
DECADE_STEPS = (1, 2, 3, 4, 5, 10, 20)  # a log axis labels every 1st, 2nd, 3rd, ... power of ten
NARROW_WIDTH = 280  # pixels across a full-width plot on a phone (390 px less the page's padding and the margins)
X_BAND = 60  # pixels under a plot for the x axis's tick labels and title


def decade_step(decades: float, length: float, gap: float = LABEL_GAP) -> int:
    """Every how many powers of ten a log axis `length` px long over `decades` decades puts a label: the
    smallest step of DECADE_STEPS that keeps the labels at least `gap` px apart (the largest when none does)."""
    per_decade = length / max(decades, 1e-9)
    return next((step for step in DECADE_STEPS if step * per_decade >= gap), DECADE_STEPS[-1])


def _axis_length(layout: dict, name: str, height: int, margin: dict, legend_rows: int) -> float:
    """The pixels an axis is long, estimated before the browser lays it out: a y axis's share of the
    figure's height less its margins, the x axis's band and the legend; an x axis's share of a phone's
    width (the narrowest a figure is drawn; wider screens only space its labels further apart)."""
    start, stop = layout.get(name, {}).get("domain") or (0, 1)
    if name[0] == "x":
        return NARROW_WIDTH * (stop - start)
    plot = height - margin["t"] - margin["b"] - X_BAND - LEGEND_ROW * legend_rows
    return max(plot, 1) * (stop - start)


def _positive(fig: go.Figure, letter: str) -> np.ndarray:
    """The positive finite values of the traces' x (letter "x") or y."""
    arrays = [np.asarray(getattr(trace, letter), dtype=np.float64).ravel() for trace in fig.data
              if getattr(trace, letter, None) is not None]
    values = np.concatenate(arrays) if arrays else np.empty(0)
    return values[np.isfinite(values) & (values > 0)]


def _decades(fig: go.Figure, letter: str) -> float:
    """How many powers of ten the positive values of the traces' x (letter "x") or y span."""
    positive = _positive(fig, letter)
    return float(np.log10(positive.max() / positive.min())) if positive.size else 0.0


SHORT_LOG_LABELS = 3  # the fewest labels a short log axis shows between its lowest and highest value


def short_log_ticks(low: float, high: float) -> list[float]:
    """Labels for a log y axis over less than two decades: 1, 2 and 5 times each power of ten from low's decade
    to high's; where fewer than SHORT_LOG_LABELS of them fall between low and high (3.2 to 7.9 holds only 5),
    every digit times the powers of ten, and where that is still too few, evenly spaced round values (the widest
    step of 1, 2 or 5 times a power of ten that leaves that many). Plotly's own labels there write every digit
    between the powers of ten in a smaller font, too small to read on a projector."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    for digits in ((1, 2, 5), range(1, 10)):
        ticks = [m * 10.0 ** k for k in range(first, last + 1) for m in digits if m * 10.0 ** k <= 10.0 ** last]
        if sum(low <= v <= high for v in ticks) >= SHORT_LOG_LABELS:
            return ticks
    most = (high - low) / SHORT_LOG_LABELS  # the widest step that still leaves that many labels
    power = 10.0 ** math.floor(math.log10(most))
    step = max(m * power for m in (1, 2, 5) if m * power <= most)
    first_step, last_step = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    return [float(f"{i * step:.12g}") for i in range(first_step, last_step + 1)]


def styled(fig: go.Figure, *, title: str, x_title: str | None = None, y_title: str | None = None,
           height: int = HEIGHT, log_x: bool = False, log_y: bool = False, equal_axes: bool = False,
           legend: bool = True) -> go.Figure:
    """Apply the house style and the (already translated) titles to `fig`, and return it.

    The whole layout is assigned at once: the figure's own settings (subplot domains, annotations, ...)
    merged with the style, which also goes to every x and y axis of its subplots. Plotly validates one
    assignment about six times faster than the same settings made by update_layout/update_xaxes calls."""
    title, title_lines = wrapped(title)
    entries = sum(1 for trace in fig.data if trace.name and trace.showlegend is not False) if legend else 0
    height += LEGEND_ROW * max(0, entries - 2)  # room for the legend at the foot: on a phone, a row per entry
    style: dict[str, Any] = {
        # Plotly anchors a title of several lines by its first line and lays the others below it: the first
        # line's foot sits FIRST_LINE px under the top (a fraction of the height, so a taller figure in the
        # presenter view keeps it), the top margin makes room for the rest
        "title": {"text": title, "x": 0.01, "xanchor": "left", "y": 1 - FIRST_LINE / height, "yanchor": "bottom",
                  "yref": "container", "font": {"size": 16}},
        "font": {"family": FONT, "size": 13},
        "template": "none",  # the look is set here: a named template costs ~50 ms per figure to validate
        "paper_bgcolor": PAPER,
        "plot_bgcolor": PAPER,
        "height": height,
        # the title's lines on top; a legend at the foot of the figure, under the x axis's title, where it
        # may take as many rows as it needs without reaching the title (Plotly widens the margin for it)
        "margin": {"l": 60, "r": 20, "t": top_margin(title_lines), "b": 50},
        "colorway": list(PALETTE),
        "showlegend": legend,
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "yref": "container", "y": 0,
                   "yanchor": "bottom"},
        "hovermode": "closest",
    }
    layout = fig.layout.to_plotly_json()
    style["margin"]["t"] += PANEL_LINE * _wrap_panel_titles(layout.get("annotations", []))
    axes = {name for name in layout if name[1:5] == "axis" and name[0] in "xy"} | {"xaxis", "yaxis"}
    outer = _outer_axes(layout, axes)
    for name in sorted(axes):
        axis: dict[str, Any]
        axis = {"gridcolor": GRID, "zerolinecolor": AXIS_LINE, "linecolor": AXIS_LINE, "automargin": True}
        axis_title, log = (x_title, log_x) if name[0] == "x" else (y_title, log_y)
        if axis_title is not None and name in outer:
            axis["title"] = {"text": axis_title}
        if log:
            axis["type"] = "log"
            decades = _decades(fig, name[0])
            if decades >= 2:  # labels on powers of ten only, as many as the axis's length holds
                length = _axis_length(layout, name, height, style["margin"], math.ceil(entries / 2))
                axis["dtick"] = decade_step(decades, length)
                if axis["dtick"] > 1:  # the decades between two labels keep a short tick and a faint line
                    axis["minor"] = {"dtick": 1, "ticks": "outside", "ticklen": 3, "tickcolor": AXIS_LINE,
                                     "showgrid": True, "gridcolor": MINOR_GRID}
            elif decades > 0 and name[0] == "y":  # 1, 2, 5 times the powers of ten, at the axis's own font size
                positive = _positive(fig, name[0])
                ticks = short_log_ticks(float(positive.min()), float(positive.max()))
                axis.update(tickmode="array", tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])
        if equal_axes and name[0] == "y":
            axis.update(scaleanchor="x", scaleratio=1)
        style[name] = axis
    fig.layout = _merged(layout, style)
    return fig
