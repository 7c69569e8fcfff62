"""Picking a cell of a score map: the click's event as a client sends it, read defensively, and the
layer of invisible points that catches clicks, left out of the chart's CSV."""

import csv
import io
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from explorer.app.place import picked_cell
from explorer.pure.exports import figure_csv
from explorer.pure.figures import PICK_SIDE, heatmap, pick_layer
from explorer.pure.figures import style


def event(*points):
    return {"selection": {"points": list(points), "point_indices": [], "box": [], "lasso": []}}


def test_a_click_gives_the_query_row_and_the_key_column():
    assert picked_cell(event({"x": 4, "y": 11, "curve_number": 1, "point_index": 7})) == (11, 4)
    assert picked_cell(event({"x": 4.0, "y": 0.0})) == (0, 4)


@pytest.mark.parametrize("sent", [
    None, {}, [], "x", {"selection": None}, {"selection": {"points": []}}, event({"x": 1}), event({"y": 1}),
    event({"x": "a", "y": 1}), event({"x": [1], "y": 1}), event({"x": math.nan, "y": 1}),
    event({"x": math.inf, "y": 1}),
    event({"x": 1.5, "y": 2}), event("not a point"),
])
def test_anything_else_picks_nothing(sent):
    assert picked_cell(sent) is None


def test_the_pick_layer_covers_the_cells_and_stays_out_of_the_csv():
    values = np.arange(300 * 300, dtype=np.float32).reshape(300, 300)
    kept = np.arange(0, 600, 2)  # 300 positions drawn, as a thinned 600-token map would be
    fig = heatmap(values, title="t", x_title="n", y_title="m", x=kept, y=kept)
    before = figure_csv(fig)
    pick_layer(fig, kept, values, "%{customdata}")
    layer = fig.data[-1]
    step = math.ceil(300 / PICK_SIDE)
    assert len(layer.x) == len(layer.y) == len(layer.customdata) == math.ceil(300 / step) ** 2 <= PICK_SIDE ** 2
    for x, y, value in zip(layer.x[:50], layer.y[:50], layer.customdata[:50]):
        assert values[y // 2, x // 2] == value  # the point at (key x, query y) carries that cell's value
    assert set(layer.x) == set(layer.y) == set(kept[::step].tolist())
    assert figure_csv(fig) == before
    assert len(list(csv.reader(io.StringIO(before)))) == 300 * 300 + 1


def test_charts_use_the_pages_font_list():
    """The figures' font list is the theme's: chart text and page text in one typeface, Chinese included."""
    theme = tomllib.loads((Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml").read_text())["theme"]
    assert style.FONT == theme["font"] == theme["headingFont"]


def _units(line: str) -> int:
    return sum(2 if "\u2e80" <= ch <= "\uffef" else 1 for ch in line)


@pytest.mark.parametrize("title", [
    "Expected score against distance (d = 64, 64 random pairs) with a much longer title",
    "动起来的 RoPE：点击播放，看同一向量的四个维度对各以自己的速度旋转",
    "short",
    "a " + "x" * 60 + " tail",  # one word longer than a line stays whole
])
def test_titles_wrap_to_the_line_width_without_losing_text(title):
    text, lines = style.wrapped(title, width=40)
    parts = text.split("<br>")
    assert len(parts) == lines
    assert all(_units(part) <= 40 or " " not in part for part in parts)
    assert "".join(parts).replace(" ", "") == title.replace(" ", "")


@pytest.mark.parametrize("width", range(8, 44))
def test_a_closing_mark_never_starts_a_line(width):
    title = "巨大分量位于哪些维度对（第 0 对转得最快）：每层，每个头。"
    text, lines = style.wrapped(title, width=width)
    parts = text.split("<br>")
    assert not any(part[:1] in "）：，。" for part in parts), parts
    assert all(_units(part) <= width for part in parts)
    assert "".join(parts).replace(" ", "") == title.replace(" ", "")


def test_titles_keep_tags_formulas_and_their_own_breaks():
    assert style.wrapped("A <sub>sub</sub> title " * 5, width=20)[0].count("<sub>") == 5
    assert "<su" not in style.wrapped("A <sub>sub</sub> title " * 5, width=20)[0].replace("<sub>", "")
    formula = "The score $q^T R_{n-m} k$ against the offset, with a long tail of words to wrap"
    assert style.wrapped(formula) == (formula, 1)
    assert style.wrapped("one<br>two") == ("one<br>two", 2)


def test_a_legend_sits_at_the_foot_and_grows_the_figure():
    import plotly.graph_objects as go
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name=f"s{i}") for i in range(6)])
    style.styled(fig, title="t", height=400)
    assert fig.layout.legend.yref == "container" and fig.layout.legend.y == 0
    assert fig.layout.height == 400 + style.LEGEND_ROW * 4
    assert fig.layout.margin.t >= 56


@pytest.mark.parametrize(("low", "high", "decades_only"), [(1, 300, True), (1e-6, 0.02, True), (64, 1024, False)])
def test_a_log_axis_over_decades_labels_the_powers_of_ten_only(low, high, decades_only):
    """Over two decades or more a log axis labels 1, 10, 100 (Plotly's dtick 1), not every digit between them;
    over a shorter span it keeps Plotly's own ticks, so that it still has some. These spans are short enough
    for a label on every power of ten of a 420 px figure."""
    import plotly.graph_objects as go
    fig = go.Figure([go.Scatter(x=[1, 2, 3], y=[low, high, 0.0])])  # a zero never counts on a log axis
    style.styled(fig, title="t", log_y=True)
    assert fig.layout.yaxis.type == "log"
    assert (fig.layout.yaxis.dtick == 1) is decades_only
    assert fig.layout.xaxis.dtick is None


@pytest.mark.parametrize(("low", "high", "labels"), [
    (3.2, 7.9, [4, 5, 6, 7]),  # 1, 2, 5 would leave only 5: every digit
    (0.31, 7.9, [0.5, 1, 2, 5]),  # 1, 2, 5 enough
    (2.7e-7, 3.1e-7, [2.7e-7, 2.8e-7, 2.9e-7, 3.0e-7, 3.1e-7]),  # under a digit apart: steps of 1e-8
    (5.01, 5.3, [5.05, 5.1, 5.15, 5.2, 5.25, 5.3]),  # a span of 0.29: steps of 0.05 (0.1 leaves two)
])
def test_a_short_log_axis_labels_several_values_inside_its_span(low, high, labels):
    """Worked by hand: the labels that fall between the lowest and highest value, never a lone one."""
    import plotly.graph_objects as go
    fig = go.Figure([go.Scatter(x=[1, 2, 3], y=[low, (low + high) / 2, high])])
    style.styled(fig, title="t", log_y=True)
    inside = [v for v in fig.layout.yaxis.tickvals if low <= v <= high]
    assert inside == pytest.approx(labels, rel=1e-9)
    assert [text for v, text in zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext) if low <= v <= high] == [
        f"{v:g}" for v in labels]


# (decades, axis length in px, every how many decades a label): worked by hand at one label per >= 45 px
@pytest.mark.parametrize(("decades", "length", "step"), [
    (2.5, 280, 1),  # 112 px a decade
    (7, 280, 2),  # 40 px a decade: 1 and 10 would touch; 1, 100, 10k, 1M are 80 px apart
    (16, 260, 3),  # 16.25 px a decade: 48.75 px between labels
    (16, 200, 4),  # 12.5 px: every 3rd would be 37.5 px apart
    (16, 900, 1),  # the same span on a projector: 56 px a decade
    (40, 200, 10),  # 5 px a decade
    (100, 100, 20),  # 1 px a decade: the sparsest step there is
])
def test_decade_step_keeps_log_labels_about_45_px_apart(decades, length, step):
    assert style.decade_step(decades, length) == step


@pytest.mark.parametrize("decades", [2, 3.5, 7, 12, 16, 24])
@pytest.mark.parametrize("length", [120, 200, 280, 420, 900])
def test_decade_step_is_the_densest_that_fits(decades, length):
    """Labels at least 45 px apart (unless the sparsest step is reached), and no denser step would do."""
    step = style.decade_step(decades, length)
    gap = step * length / decades
    assert gap >= 45 or step == max(style.DECADE_STEPS)
    denser = [s for s in style.DECADE_STEPS if s < step]
    assert all(s * length / decades < 45 for s in denser)


def test_sixteen_decades_on_a_small_chart_label_every_few_with_minor_ticks():
    """The precision page's error chart: 10^-14 .. 10 on the y axis of a 420 px figure with six series (its
    plot is about 230 px tall on a phone) and 1 .. 10^7 on the x axis (a phone's plot: about 280 px)."""
    import plotly.graph_objects as go
    positions = np.logspace(0, 7, 50)
    fig = go.Figure([go.Scatter(x=positions, y=np.logspace(-14, 1, 50) * (i + 1), name=f"s{i}") for i in range(6)])
    style.styled(fig, title="t", log_x=True, log_y=True)
    y, x = fig.layout.yaxis, fig.layout.xaxis
    assert y.dtick in (3, 4) and y.minor.dtick == 1  # 5 or 6 labels, the decades between them ticked
    assert x.dtick == 2 and x.minor.dtick == 1
    tall = go.Figure([go.Scatter(x=positions, y=np.logspace(-14, 1, 50))])
    style.styled(tall, title="t", log_y=True, height=1400)
    assert tall.layout.yaxis.dtick == 1 and tall.layout.yaxis.minor.dtick is None


def test_titles_break_after_a_dash_but_never_inside_a_tag():
    text, lines = style.wrapped("content–content: x W x<sup>T</sup>", width=14)
    assert text.split("<br>")[0] == "content–" and lines >= 2
    assert "<sup>T</sup>" in text  # what a tag holds stays with it


def test_a_grid_of_panels_names_its_axes_once_at_the_left_and_the_foot():
    """2x2 panels: the y title on the left column's axes, the x title on the bottom row's, none between
    panels (where it would sit on the neighbour's tick labels)."""
    from explorer.pure.figures import heatmap_grid
    fig = heatmap_grid({f"p{i}": np.eye(3) for i in range(4)}, x=[0, 1, 2], y=[0, 1, 2], title="t",
                       x_title="key n", y_title="query m")
    layout = fig.layout.to_plotly_json()
    titled = {name: layout[name].get("title", {}).get("text") for name in layout if name[1:5] == "axis"}
    left = {name for name in titled if name[0] == "y" and layout[f"x{name[1:]}"]["domain"][0] == 0}
    foot = {name for name in titled if name[0] == "x" and layout[f"y{name[1:]}"]["domain"][0] == 0}
    assert len(left) == 2 and len(foot) == 2
    assert {name for name, text in titled.items() if text} == left | foot
    assert all(titled[name] == "query m" for name in left) and all(titled[name] == "key n" for name in foot)


def test_a_phone_draws_panel_titles_of_the_size_figures_give_them_smaller():
    from explorer.pure.figures import heatmap_grid
    from explorer.app.presenter import STYLE
    fig = heatmap_grid({"a": np.eye(2), "b": np.eye(2)}, x=[0, 1], y=[0, 1], title="t", x_title="x", y_title="y")
    assert {note.font.size for note in fig.layout.annotations} == {style.PANEL_TITLE_SIZE}
    assert f'.annotation-text[style*="font-size: {style.PANEL_TITLE_SIZE}px"]' in STYLE


def test_every_toolbar_message_is_one_plotly_looks_up():
    """The English toolbar texts are the keys Plotly translates by: each must be a message of the plotly.js
    that Streamlit ships (read from its bundle), else its translation would never show."""
    import streamlit

    from explorer.pure import text
    from explorer.app.place import toolbar_locale
    bundle = "".join(path.read_text(errors="ignore")
                     for path in (Path(streamlit.__file__).parent / "static").rglob("*.js"))
    messages = [value for key, value in text.STRINGS["en"].items() if key.startswith("toolbar.")]
    assert len(messages) >= 10
    assert [m for m in messages if f"`{m}`" not in bundle and f"'{m}'" not in bundle and f'"{m}"' not in bundle] == []
    assert toolbar_locale("en") == {}
    dictionary = toolbar_locale("zh")["locales"]["zh"]["dictionary"]
    assert set(dictionary) == set(messages) and dictionary["Zoom in"] == text.text("toolbar.zoom_in", "zh")


@pytest.mark.parametrize(("low", "high", "labels"), [
    (64, 1024, ["10", "20", "50", "100", "200", "500", "1000", "2000", "5000", "10000"]),
    (0.4, 9.0, ["0.1", "0.2", "0.5", "1", "2", "5", "10"]),
    (3e-7, 2e-6, ["1e-07", "2e-07", "5e-07", "1e-06", "2e-06", "5e-06", "1e-05"])])
def test_a_short_log_axis_labels_one_two_five_at_full_size(low, high, labels):
    """Under two decades Plotly would label every digit in a smaller font: the axis gets 1, 2 and 5 times the
    powers of ten around the data instead, written as numbers (worked by hand)."""
    import plotly.graph_objects as go
    fig = style.styled(go.Figure([go.Scatter(x=[1, 2], y=[low, high])]), title="t", log_y=True)
    assert list(fig.layout.yaxis.ticktext) == labels
    assert [float(text) for text in labels] == pytest.approx(list(fig.layout.yaxis.tickvals))
    assert fig.layout.xaxis.tickvals is None  # an x axis keeps Plotly's own spacing (its labels sit side by side)
