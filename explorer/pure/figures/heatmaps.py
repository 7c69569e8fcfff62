"""Matrices as heatmaps: one alone, several on one colour scale or each on its own, image-shaped maps with
a marked cell, small matrices showing their numbers, models' layers as strips keyed by their colours, and
the invisible layer and the marks that let a click choose a cell of a score map. Data in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from plotly.colors import sample_colorscale

from .style import (DIVERGING, HEIGHT, LABEL_BACKDROP, MARK, NARROW_WIDTH, NO_VALUE, PALETTE, PANEL_TITLES, PAPER,
                    SEQUENTIAL, TITLE_WIDTH, X_BAND, literal, styled, top_margin, units, wrapped)


def colorbar(title: str) -> dict:
    """A colour bar with its title along its right side: on top, a title wider than the bar reaches over the
    chart, and in the presenter view's larger text it sits on the bar's top number."""
    return {"title": {"text": title, "side": "right"}}


def heatmap(z: np.ndarray, *, title: str, x_title: str, y_title: str, x=None, y=None,
            colorscale: str = DIVERGING, zmid: float | None = 0.0, colorbar_title: str = "",
            height: int | None = None, reversed_y: bool = True) -> go.Figure:
    """A matrix as a heatmap; rows go down when reversed_y, like a printed matrix."""
    fig = go.Figure(go.Heatmap(z=z, x=x, y=y, colorscale=colorscale, zmid=zmid,
                               colorbar=colorbar(colorbar_title)))
    styled(fig, title=title, x_title=x_title, y_title=y_title, legend=False,
           height=height or HEIGHT)
    if reversed_y:
        fig.update_yaxes(autorange="reversed")
    return fig


NOTE_SIZE = 13  # a note written on a panel: the charts' body size, which a phone keeps
COLOUR_BAR = 70  # pixels a colour bar with its numbers and title takes beside the plots


def panel_note(fig: go.Figure, panel: int, note: str, narrow: float) -> None:
    """Write `note` (a few words, such as why a panel is flat) across the middle of the figure's panel-th
    panel (0: the first), on a light backdrop, in lines that fit the panel at its narrowest, `narrow` px (a
    note with line breaks of its own, <br>, keeps them: Chinese breaks between any two characters)."""
    width = max(8, int(narrow / (NOTE_SIZE / 2)))  # in display units (a CJK character is two) of NOTE_SIZE / 2 px
    axis = str(panel + 1) if panel else ""
    fig.add_annotation(text=wrapped(note, width)[0], xref=f"x{axis} domain", yref=f"y{axis} domain", x=0.5, y=0.5,
                       showarrow=False, bgcolor=LABEL_BACKDROP, font={"size": NOTE_SIZE})


def panel_notes(fig: go.Figure, titles: list[str], notes: dict[str, str] | None, narrow: float) -> None:
    """`panel_note` for each entry of `notes` ({panel title: note}), the panels in the order of `titles`."""
    for i, title in enumerate(titles):
        if notes and title in notes:
            panel_note(fig, i, notes[title], narrow)


def heatmap_grid(panels: dict[str, np.ndarray], *, x, y, title: str, x_title: str, y_title: str,
                 colorbar_title: str = "", columns: int = 2, colorscale: str = DIVERGING,
                 zmid: float | None = 0.0, zmin: float | None = None, zmax: float | None = None,
                 height: int | None = None, notes: dict[str, str] | None = None) -> go.Figure:
    """One heatmap per entry of `panels` ({panel title: matrix}), all on one colour scale, so
    that equal colours mean equal values across panels. x, y: the shared axis labels of a matrix
    (rows go down, like a printed matrix; numbered once, at the left of each row of panels); `notes`: see
    `panel_notes`."""
    rows, spacing = math.ceil(len(panels) / columns), 0.08
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=list(panels), shared_yaxes=True,
                        horizontal_spacing=spacing, vertical_spacing=0.22 if rows > 1 else 0.1)
    for i, z in enumerate(panels.values()):
        fig.add_trace(go.Heatmap(z=z, x=x, y=y, coloraxis="coloraxis"), row=i // columns + 1,
                      col=i % columns + 1)
    fig.update_layout(coloraxis={"colorscale": colorscale, "cmid": zmid, "cmin": zmin, "cmax": zmax,
                                 "colorbar": colorbar(colorbar_title)})
    styled(fig, title=title, x_title=x_title, y_title=y_title, legend=False, height=height or 340 * rows + 100)
    fig.update_layout(margin={"t": fig.layout.margin.t + PANEL_TITLES})  # the panels' titles under the title
    fig.update_yaxes(autorange="reversed")
    panel_notes(fig, list(panels), notes, (NARROW_WIDTH - COLOUR_BAR) * (1 - spacing * (columns - 1)) / columns)
    return fig


def heatmap_panels(panels: dict[str, np.ndarray], *, x, y, title: str, x_title: str, y_title: str,
                   columns: int = 3, colorscale: str = DIVERGING, height: int | None = None,
                   notes: dict[str, str] | None = None) -> go.Figure:
    """One small heatmap per entry of `panels` ({panel title: matrix}), each on its own colour scale from its
    smallest to its largest entry, with no colour bar: for comparing shapes (is every diagonal constant?), not values.
    x, y: the shared axis labels; rows go down, like a printed matrix; `notes`: see `panel_notes`."""
    rows, spacing = math.ceil(len(panels) / columns), 0.04
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=list(panels), horizontal_spacing=spacing,
                        shared_yaxes=True, vertical_spacing=0.24 if rows > 1 else 0.1)
    for i, z in enumerate(panels.values()):
        fig.add_trace(go.Heatmap(z=z, x=x, y=y, colorscale=colorscale, showscale=False),
                      row=i // columns + 1, col=i % columns + 1)
    styled(fig, title=title, x_title=x_title, y_title=y_title, legend=False, height=height or 330 * rows + 90)
    fig.update_layout(margin={"t": fig.layout.margin.t + PANEL_TITLES})
    fig.update_yaxes(autorange="reversed")
    panel_notes(fig, list(panels), notes, NARROW_WIDTH * (1 - spacing * (columns - 1)) / columns)
    return fig


MAX_TICKS = 24  # token labels along a side of a token map (every s-th past it)


def token_map(z: np.ndarray, positions: np.ndarray, tokens: list[str], *, title: str, x_title: str, y_title: str,
              colorbar_title: str, zmax: float | None = None, height: int = 560) -> go.Figure:
    """Attention weights (queries down, keys across) at token `positions`, the axes labelled by the `tokens`' texts:
    text from outside, drawn as text (`literal`), each at its own position so that repeated tokens keep their own
    rows. Hovering a cell shows both tokens and the weight; weights above `zmax` take the top colour."""
    shown = [literal(token) for token in tokens]
    step = max(1, -(-len(shown) // MAX_TICKS))
    ticks = {"tickvals": positions[::step], "ticktext": shown[::step]}
    hover = np.array([[f"{q} → {k}" for k in shown] for q in shown], dtype=object)
    fig = go.Figure(go.Heatmap(z=z, x=positions, y=positions, text=hover, colorscale=SEQUENTIAL, zmin=0, zmax=zmax,
                               hovertemplate="%{text}: %{z:.3f}<extra></extra>", colorbar=colorbar(colorbar_title)))
    styled(fig, title=title, x_title=x_title, y_title=y_title, legend=False, height=height)
    fig.update_xaxes(**ticks, tickangle=-60)
    fig.update_yaxes(**ticks, autorange="reversed")
    return fig


STRIP_ROW = 34  # pixels per model in each strip of a layer strip
KEY_SIZE = 14  # the font of a strip's title and key (a phone keeps it: its stylesheet shrinks only 16 px titles)
KEY_LINE = 21  # pixels per line of a strip's title and key
STRIP_GAP = 14  # pixels between a strip and the next strip's title


def _keyed(title: str, entries: list[tuple[str, str]]) -> tuple[str, int]:
    """A strip's title and its colour key (a coloured square and a label per (colour, label) entry), packed
    into lines of at most TITLE_WIDTH display units, an entry never split across two lines; and the number
    of lines."""
    lines, line, size = [], title, units(title)
    for colour, label in entries:
        entry, width = f'<span style="color:{colour}">■</span> {label}', 4 + units(label)
        if size + width > TITLE_WIDTH:
            lines.append(line)
            line, size = entry, width - 2
        else:
            line, size = f"{line}  {entry}", size + width
    lines.append(line)
    return "<br>".join(lines), len(lines)


def _steps(values: list[float], colours: list[str]) -> dict:
    """Heatmap colour settings that paint each of the sorted `values` in its colour: a step scale whose
    steps change halfway between neighbouring values."""
    if len(values) == 1:
        return {"colorscale": [[0, colours[0]], [1, colours[0]]], "zmin": values[0] - 1, "zmax": values[0] + 1}
    low, high = values[0], values[-1]
    cuts = [0.0, *(((a + b) / 2 - low) / (high - low) for a, b in zip(values, values[1:])), 1.0]
    scale = [[edge, colour] for colour, start, stop in zip(colours, cuts, cuts[1:]) for edge in (start, stop)]
    return {"colorscale": scale, "zmin": low, "zmax": high}


def layer_strip(kinds: np.ndarray, kind_labels: dict[str, str], scales: dict[str, tuple[np.ndarray, dict]], *,
                kind_title: str, nothing: str, x, y, title: str, x_title: str) -> go.Figure:
    """Every layer (columns at `x`) of each model (rows named `y`) as strips of cells, each strip titled with
    its colour key. The first strip colours each layer by its kind (`kinds`: kind names, "" past a model's
    last layer): one colour per entry of `kind_labels` ({kind name: label}, in a fixed order, so that a kind
    keeps its colour), a key entry per kind present; a new kind only needs its entry. Then one strip per entry
    of `scales` ({strip title: (values, {value: label})}): each distinct value its own colour along the
    sequential scale, smallest first, with its label in the key; 0 means the layer has none (grey, labelled
    `nothing`) and NaN that the model has no such layer (blank). Hovering a cell shows its label."""
    order = list(kind_labels)
    present = sorted({order.index(kind) for kind in np.unique(kinds) if kind})
    codes = np.array([[order.index(kind) if kind else np.nan for kind in row] for row in kinds], dtype=np.float32)
    palette = [PALETTE[i % len(PALETTE)] for i in present]
    strips = [(kind_title, codes, np.where(kinds == "", "", np.vectorize(kind_labels.get, otypes=[object])(kinds)),
               _steps([float(i) for i in present], palette),
               _keyed(kind_title, [(c, kind_labels[order[i]]) for c, i in zip(palette, present)]))]
    for strip_title, (values, labels) in scales.items():
        shown = sorted(value for value in labels if value > 0)
        colours = sample_colorscale(SEQUENTIAL, [i / max(len(shown) - 1, 1) for i in range(len(shown))])
        if np.any(values == 0):
            shown, colours = [0.0, *shown], [NO_VALUE, *colours]
        names = {**labels, 0.0: nothing}
        text = np.array([[names.get(float(v), "") for v in row] for row in values], dtype=object)
        strips.append((strip_title, values.astype(np.float32), text, _steps(shown, colours),
                       _keyed(strip_title, [(c, names[v]) for c, v in zip(colours, shown)])))
    fig = make_subplots(rows=len(strips), cols=1, shared_xaxes=True)
    hover = f"%{{y}} · {x_title} %{{x}}: %{{text}}<extra></extra>"
    for i, (name, z, text, colour, _) in enumerate(strips):
        fig.add_trace(go.Heatmap(z=z, x=x, y=y, text=text, hovertemplate=hover, showscale=False, name=name,
                                 xgap=1, **colour), row=i + 1, col=1)
    # heights in pixels: each strip's plot, and above it its title and key (the first one's in the top margin)
    keys = [key for *_, key in strips]
    plot = STRIP_ROW * len(y)
    top = top_margin(wrapped(title)[1]) + KEY_LINE * keys[0][1] + 6
    bottom = 50
    body = len(strips) * plot + sum(STRIP_GAP + KEY_LINE * lines for _, lines in keys[1:])
    height = top + bottom + body
    styled(fig, title=title, x_title=x_title, y_title="", legend=False, height=height)
    fig.update_layout(margin={"t": top})
    cursor, notes = 1.0, []
    for i, (key_text, lines) in enumerate(keys):
        if i:
            cursor -= (STRIP_GAP + KEY_LINE * lines) / body
        notes.append({"text": key_text, "x": 0, "xref": "paper", "xanchor": "left", "y": cursor, "yref": "paper",
                      "yanchor": "bottom", "showarrow": False, "align": "left", "font": {"size": KEY_SIZE}})
        fig.update_yaxes(domain=[max(cursor - plot / body, 0.0), cursor], row=i + 1, col=1)
        cursor -= plot / body
    fig.update_layout(annotations=notes)
    fig.update_yaxes(autorange="reversed", showgrid=False)
    fig.update_xaxes(showgrid=False)
    return fig


MAP_PLOT = 200  # pixels of height an image-shaped map may take (a phone's full width gives it about that)
BAR_BELOW = 70  # pixels under a figure's x axis for a colour bar laid across: its bar, numbers and title
THIRD_MAP = 130  # pixels wide an 8 x 12 map is in one of three columns on a 1280 px desktop page, its narrowest


def patch_map(z: np.ndarray, *, query: tuple[int, int], title: str, x_title: str, y_title: str, query_name: str,
              colorbar_title: str = "", colorscale: str = SEQUENTIAL, zmid: float | None = None,
              zrange: tuple[float, float] | None = None, bar_below: bool = False, note: str | None = None,
              narrow: float = NARROW_WIDTH) -> go.Figure:
    """An image-shaped heatmap (an (h, w) map: rows down, columns across) on a colour scale from `zrange`'s
    low to its high end (else over its values, around `zmid`), the query cell (row, col) marked (hovering
    the mark shows `query_name`). The colour bar stands beside the map, or lies under it (`bar_below`: maps
    in columns side by side keep their width for the map, and a phone, where the columns stack, the same);
    `note`, if any, is written on the map (`panel_note`, for a map `narrow` px wide at the narrowest)."""
    rows, cols = z.shape
    fig = go.Figure(go.Heatmap(z=z, x=np.arange(cols, dtype=np.int32), y=np.arange(rows, dtype=np.int32),
                               coloraxis="coloraxis"))
    fig.add_trace(go.Scatter(x=[query[1]], y=[query[0]], mode="markers", name=query_name, showlegend=False,
                             marker={"symbol": "x-thin", "size": 14, "line": {"width": 3, "color": PAPER}}))
    scale = {"cmid": zmid} if zrange is None else {"cmin": zrange[0], "cmax": zrange[1]}
    bar = ({"title": {"text": colorbar_title, "side": "bottom"}, "orientation": "h", "thickness": 10, "x": 0.5,
            "xanchor": "center", "y": 0, "yref": "container", "yanchor": "bottom"} if bar_below
           else colorbar(colorbar_title))
    fig.update_layout(coloraxis={"colorscale": colorscale, **scale, "colorbar": bar})
    below = BAR_BELOW if bar_below else 0
    height = top_margin(wrapped(title)[1]) + MAP_PLOT + 50 + X_BAND + below  # 50: styled's bottom margin
    styled(fig, title=title, x_title=x_title, y_title=y_title, height=height, legend=False)
    fig.update_layout(margin={"b": fig.layout.margin.b + below})
    # a map wider than its space keeps the top of it: it stays under its title, whatever the screen's width
    fig.update_yaxes(autorange="reversed", scaleanchor="x", scaleratio=1, constrain="domain", constraintoward="top")
    fig.update_xaxes(constrain="domain")
    if note:
        panel_note(fig, 0, note, narrow)
    return fig


MATRIX_TEXT_SIZE = 12  # the numbers in a small matrix's cells


def matrix_panels(matrices: list[np.ndarray], panel_titles: list[str], *, title: str, x_title: str,
                  y_title: str, digits: int = 4, height: int = 300) -> go.Figure:
    """Small matrices side by side as heatmaps on one colour scale (-1..1), each cell showing its number."""
    fig = make_subplots(rows=1, cols=len(matrices), subplot_titles=panel_titles, horizontal_spacing=0.08,
                        shared_yaxes=True)
    for j, mat in enumerate(matrices):
        labels = [str(i + 1) for i in range(mat.shape[0])]
        fig.add_trace(go.Heatmap(z=mat, x=labels, y=labels, zmin=-1, zmax=1, colorscale=DIVERGING,
                                 showscale=j == len(matrices) - 1, texttemplate=f"%{{z:.{digits}f}}",
                                 # a set size: Plotly's own fits the text to the cell, a few px on a phone
                                 textfont={"size": MATRIX_TEXT_SIZE},
                                 hovertemplate=f"%{{y}}, %{{x}}: %{{z:.{digits + 6}f}}<extra></extra>"),
                      row=1, col=j + 1)
    styled(fig, title=title, x_title=x_title, y_title=y_title, height=height, legend=False)
    fig.update_layout(margin={"t": fig.layout.margin.t + PANEL_TITLES})
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed", title_text=None)
    fig.update_yaxes(title_text=y_title, row=1, col=1)  # one row title, on the first panel
    return fig


PICK_LAYER = "pick layer"  # the `meta` of a trace drawn only to catch clicks (exports leave it out)


PICK_SIDE = 64  # a click picks one of at most 64 x 64 cells of a score map (about 50 kB of points)


def pick_layer(fig: go.Figure, positions, values, hover: str) -> go.Figure:
    """Lay invisible points over a query-by-key heatmap (rows and columns at `positions`, cell values
    `values`) so that a click picks a cell: plotly selects the points of scatter traces, never heatmap
    cells. Past PICK_SIDE positions every s-th one is pickable. The points also carry the hover label
    (`hover`, a plotly hovertemplate over x = n, y = m and customdata = the cell's value)."""
    positions = np.asarray(positions)
    step = max(1, math.ceil(len(positions) / PICK_SIDE))
    n, m = np.meshgrid(positions[::step].astype(np.int32), positions[::step].astype(np.int32))
    values = np.asarray(values, dtype=np.float32)[::step, ::step]
    hidden = {"marker": {"opacity": 0}}
    fig.add_trace(go.Scatter(x=n.ravel(), y=m.ravel(), customdata=values.ravel(), mode="markers", meta=PICK_LAYER,
                             marker={"size": 12, "opacity": 0}, selected=hidden, unselected=hidden,
                             hovertemplate=hover, showlegend=False))
    # the axes end at the heatmap's edges (points would widen them by a margin), rows going down
    half = (positions[1] - positions[0]) / 2 if len(positions) > 1 else 0.5
    edges = [float(positions[0] - half), float(positions[-1] + half)]
    fig.update_xaxes(range=edges, autorange=False)
    fig.update_yaxes(range=edges[::-1], autorange=False)
    return fig


def mark_cell(scores_fig: go.Figure, profile_fig: go.Figure, m: int, n: int, seq: int, score: float,
              name: str) -> None:
    """Show the chosen cell (m, n) of a seq x seq score map: ringed, with its diagonal (every cell with
    the same m - n) dotted; on the profile, the offset m - n and the cell's own score."""
    offset = m - n
    first, last = max(0, offset), min(seq - 1, seq - 1 + offset)  # the rows the diagonal crosses
    line = {"color": MARK, "width": 1.5}
    ring = {"symbol": "square-open", "line": line, "color": MARK}
    scores_fig.add_trace(go.Scatter(x=[first - offset, last - offset], y=[first, last], mode="lines",
                                    line={**line, "dash": "dot"}, hoverinfo="skip", showlegend=False))
    scores_fig.add_trace(go.Scatter(x=[n], y=[m], mode="markers", name=name, hoverinfo="skip", showlegend=False,
                                    marker={**ring, "size": 14}))
    profile_fig.add_vline(x=offset, line={**line, "dash": "dot"})
    profile_fig.add_trace(go.Scatter(x=[offset], y=[score], mode="markers", name=name, marker={**ring, "size": 12}))
