"""Lines over a shared x axis: plain, with labelled vertical marks (context lengths, thresholds,
distances), over a shaded stretch of x, with a shaded band per line, a mean with its spread, and step lines
over the segments of a sequence. Data in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from explorer.pure.figures.style import (HEIGHT, LABEL_BACKDROP, MARK, PALETTE, SEGMENT, SEGMENT_FOCUS, THRESHOLD,
                                         color, concept_color, rgba, styled)

BAND_FILL = rgba(PALETTE[3], 0.1)  # a shaded stretch of x
FAINT = 0.3  # the opacity of a line kept for context beside the one in focus


def line_chart(x, series: dict, *, title: str, x_title: str, y_title: str, log_x: bool = False,
               log_y: bool = False, markers: bool = False, dashed: tuple = (), faint: tuple = (),
               colors: dict | None = None, height: int | None = None) -> go.Figure:
    """One line per entry of `series` ({legend name: y values}) over the shared x values; the names in
    `dashed` drawn dashed, those in `faint` thin and pale (context beside the lines in focus). `colors`
    ({legend name: colour}) pins a series' colour (a concept's, style.concept_color), so that one thing looks
    the same in every chart; the others take the palette in order."""
    fig = go.Figure()
    for i, (name, y) in enumerate(series.items()):
        c = (colors or {}).get(name, color(i))
        fig.add_trace(go.Scatter(
            x=x, y=y, name=name, mode="lines+markers" if markers else "lines", opacity=FAINT if name in faint else 1,
            marker={"color": c}, line={"color": c, "width": 1.5 if name in faint else 2.5 if faint else 2,
                  "dash": "dash" if name in dashed else "solid"},
        ))
    return styled(fig, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y,
                  height=height or HEIGHT)


STAGGER = 20  # pixels between the two rows of labels of neighbouring vertical marks


def _staggered(marks: dict) -> list[tuple[str, float, int]]:
    """(label, x, y shift) of each mark, every second one from the left a row lower, so that the labels of
    marks close together (4k and 8k on a log axis, -128 and 128 on a long one) never print over each other."""
    ordered = sorted(marks.items(), key=lambda item: item[1])
    return [(label, at, -STAGGER * (k % 2)) for k, (label, at) in enumerate(ordered)]


def _vertical(fig: go.Figure, at: float, label: str, *, log_x: bool, top: bool, color: str, dash: str,
              yshift: int = 0) -> None:
    """A vertical line at x = `at` across the plot, labelled at its top or bottom. Shapes take data values on
    a log axis; annotations take their log10 (Plotly's convention), so the label's position is converted."""
    fig.add_shape(type="line", x0=at, x1=at, xref="x", y0=0, y1=1, yref="paper", layer="below",
                  line={"color": color, "width": 1, "dash": dash})
    fig.add_annotation(x=math.log10(at) if log_x else at, xref="x", y=1 if top else 0, yref="paper", text=label,
                       showarrow=False, xanchor="left", yanchor="top" if top else "bottom", xshift=2,
                       yshift=yshift if top else -yshift, font={"size": 11, "color": color},
                       bgcolor=LABEL_BACKDROP)


def marked_lines(x, series: dict, *, marks: dict, title: str, x_title: str, y_title: str, log_x: bool = False,
                 log_y: bool = False, markers: bool = False, dashed: tuple = (), colors: dict | None = None,
                 thresholds: dict | None = None, height: int | None = None) -> go.Figure:
    """`line_chart` of `series` ({legend name: y values}) over x, with a dotted vertical line at every entry
    of `marks` ({label: x value}, labelled at the top of the plot) and a dashed, darker one at every entry of
    `thresholds` (labelled at the bottom, clear of the marks). `colors` as in line_chart. A log y axis reads
    in powers of 10.
    """
    fig = line_chart(x, series, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y,
                     markers=markers, dashed=dashed, colors=colors, height=height)
    for label, at, shift in _staggered(marks):
        _vertical(fig, at, label, log_x=log_x, top=True, color=MARK, dash="dot", yshift=shift)
    for label, at, shift in _staggered(thresholds or {}):
        _vertical(fig, at, label, log_x=log_x, top=False, color=THRESHOLD, dash="dash", yshift=shift)
    if log_y:
        fig.update_yaxes(exponentformat="power")
    return fig


def distance_chart(x, series: dict, *, marks: dict[str, float], title: str, x_title: str, y_title: str,
                   dashed: tuple = (), colors: dict | None = None, line_shape: str = "linear",
                   height: int | None = None) -> go.Figure:
    """line_chart with a dotted vertical line at each marked x ({label: x}), labelled at the top."""
    fig = line_chart(x, series, title=title, x_title=x_title, y_title=y_title, dashed=dashed, colors=colors,
                     height=height)
    fig.update_traces(line_shape=line_shape)
    for label, where, shift in _staggered(marks):
        fig.add_vline(x=where, line_dash="dot", line_color=MARK, annotation_text=label,
                      annotation_position="top right", annotation_font_size=11, annotation_yshift=shift,
                      annotation_bgcolor=LABEL_BACKDROP)
    return fig


def shaded_lines(x, series: dict, *, band: tuple[float, float], band_name: str, title: str, x_title: str,
                 y_title: str, log_x: bool = False, log_y: bool = False, dashed: tuple = (), faint: tuple = (),
                 colors: dict | None = None, height: int | None = None) -> go.Figure:
    """`line_chart` with the x range band = (x0, x1) shaded and labelled `band_name`. On a log x axis the
    band starts at the first positive x (where a log axis starts)."""
    fig = line_chart(x, series, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y,
                     dashed=dashed, faint=faint, colors=colors, height=height)
    x0 = min(v for v in np.asarray(x, dtype=float) if v > 0) if log_x else band[0]
    x0 = max(x0, band[0])
    fig.add_vrect(x0=x0, x1=band[1], fillcolor=BAND_FILL, line_width=0, layer="below")
    fig.add_annotation(x=math.log10(x0) if log_x else x0, xref="x", y=1, yref="paper", text=band_name,
                       showarrow=False, xanchor="left", yanchor="top", xshift=2, font={"size": 11},
                       bgcolor=LABEL_BACKDROP)
    return fig


def band_lines(series: list[dict], *, marks: dict[str, float], title: str, x_title: str, y_title: str,
               log_x: bool = False, y_range: tuple | None = None, x_ticks=None, height: int | None = None
               ) -> go.Figure:
    """One line per entry of `series`, each with its own shaded band, and a dotted vertical line at every
    marked x ({label: x}). x_ticks: the x values to label (default: Plotly's choice).

    An entry: {"name", "x", "y"} and optionally "low", "high" (the band, drawn when given), "dash" (a line
    dash name, default "solid"), "markers" (bool), "concept" (a key of style.CONCEPTS: its colour; else the
    palette's colour at "color", an index, default its position), "group"
    (a legend group: entries of one group toggle together)."""
    fig = go.Figure()
    for i, s in enumerate(series):
        c = concept_color(s["concept"]) if "concept" in s else color(s.get("color", i))
        group = s.get("group", s["name"])
        if s.get("low") is not None and s.get("high") is not None:
            fig.add_trace(go.Scatter(x=s["x"], y=s["high"], mode="lines", line={"width": 0}, hoverinfo="skip",
                                     showlegend=False, legendgroup=group))
            fig.add_trace(go.Scatter(x=s["x"], y=s["low"], mode="lines", line={"width": 0}, fill="tonexty",
                                     fillcolor=rgba(c, 0.15), hoverinfo="skip", showlegend=False,
                                     legendgroup=group))
        fig.add_trace(go.Scatter(x=s["x"], y=s["y"], name=s["name"], legendgroup=group,
                                 mode="lines+markers" if s.get("markers", True) else "lines",
                                 line={"color": c, "width": s.get("width", 2), "dash": s.get("dash", "solid")},
                                 marker={"size": 6}))
    styled(fig, title=title, x_title=x_title, y_title=y_title, log_x=log_x, height=height or HEIGHT)
    for label, where, shift in _staggered(marks):
        # a shape takes data values on a log axis, an annotation takes their log10
        fig.add_vline(x=where, line_dash="dot", line_color=MARK)
        fig.add_annotation(x=math.log10(where) if log_x else where, y=1, yref="paper", text=label,
                           showarrow=False, xanchor="left", yanchor="top", font={"size": 11}, yshift=shift,
                           bgcolor=LABEL_BACKDROP)
    if y_range is not None:
        fig.update_yaxes(range=list(y_range))
    if x_ticks is not None:
        fig.update_xaxes(tickvals=[float(v) for v in x_ticks], tickformat="d")
    return fig


def profile_band(offsets: np.ndarray, mean: np.ndarray, low: np.ndarray, high: np.ndarray, *, title: str,
                 x_title: str, y_title: str, mean_name: str, band_name: str, height: int | None = None
                 ) -> go.Figure:
    """A mean curve over the offsets with the band between `low` and `high` shaded around it.

    The band collapses onto the curve where every entry at an offset is the same.
    """
    fig = go.Figure([
        go.Scatter(x=offsets, y=high, mode="lines", line={"width": 0}, hoverinfo="skip", showlegend=False,
                   legendgroup="band"),
        go.Scatter(x=offsets, y=low, mode="lines", line={"width": 0}, fill="tonexty", name=band_name,
                   fillcolor=rgba(color(1), 0.25), legendgroup="band"),
        go.Scatter(x=offsets, y=mean, mode="lines", name=mean_name, line={"color": color(0), "width": 2}),
    ])
    return styled(fig, title=title, x_title=x_title, y_title=y_title, height=height or HEIGHT)


def position_id_rows(index: np.ndarray, rows: dict[str, np.ndarray], spans: list[tuple[int, int, str, bool]], *,
                     title: str, x_title: str, y_title: str, height: int | None = None) -> go.Figure:
    """One step line per position-id row ({name: ids}) against the token index, over bands that mark the
    segments (start, stop, label, highlighted) of the sequence; highlighted bands are tinted."""
    fig = go.Figure()
    for k, (start, stop, label, highlighted) in enumerate(spans):
        # every second segment's label a row lower: a short segment's label runs into the next one's
        fig.add_vrect(x0=start - 0.5, x1=stop - 0.5, fillcolor=SEGMENT_FOCUS if highlighted else SEGMENT,
                      line_width=0, layer="below", annotation_text=label, annotation_position="top left",
                      annotation_font_size=11, annotation_yshift=-STAGGER * (k % 2))
    for i, (name, ids) in enumerate(rows.items()):
        fig.add_trace(go.Scatter(x=index, y=ids, name=name, mode="lines+markers", line_shape="hv",
                                 line={"color": color(i), "width": 2, "dash": ("solid", "dash", "dot")[i % 3]},
                                 marker={"size": 4}))
    return styled(fig, title=title, x_title=x_title, y_title=y_title, height=height or HEIGHT)


def block_rows(rows: list[dict], *, names: dict[str, str], title: str, x_title: str, y_title: str,
               height: int | None = None) -> go.Figure:
    """One row per query (y = its position): a bar over each block of tokens pooled into one key (first
    position, one past the last), a diamond where that key is rotated (the block's first position, the
    hover saying the offset), and a star at the query. names: legend text of "block", "rotated", "query",
    and the hover's name of the offset, "offset"."""
    fig = go.Figure()
    xs: tuple[list, list]
    ys: tuple[list, list]
    xs, ys, starts, offsets = ([], []), ([], []), [], []  # bars of even and odd blocks, told apart by shade
    for row in rows:
        for k, (start, stop, offset) in enumerate(zip(row["starts"], row["stops"], row["offsets"])):
            xs[k % 2].extend([start, stop - 1, None])
            ys[k % 2].extend([row["query"]] * 2 + [None])
            starts.append((start, row["query"]))
            offsets.append(int(offset))
    for k, alpha in enumerate((0.45, 0.8)):
        fig.add_trace(go.Scatter(x=xs[k], y=ys[k], name=names["block"], mode="lines", legendgroup="block",
                                 showlegend=not k, line={"color": rgba(color(0), alpha), "width": 10}))
    fig.add_trace(go.Scatter(x=[x for x, _ in starts], y=[y for _, y in starts], name=names["rotated"],
                             mode="markers", marker={"color": color(1), "symbol": "diamond", "size": 10},
                             customdata=offsets,
                             hovertemplate=f"%{{x}}: {names['offset']} = %{{customdata}}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[row["query"] for row in rows], y=[row["query"] for row in rows], name=names["query"],
                             mode="markers", marker={"color": color(2), "symbol": "star", "size": 12}))
    fig.update_yaxes(tickvals=[row["query"] for row in rows], type="category")
    return styled(fig, title=title, x_title=x_title, y_title=y_title, height=height or HEIGHT)
