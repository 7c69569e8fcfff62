"""Builders for position on image grids and mixed sequences: score maps shaped like the image, the
three position-id rows of a multimodal sequence, and the pairs split into axis sections.
Data in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import SEQUENTIAL, color, styled


def patch_maps(panels: dict[str, np.ndarray], *, query: tuple[int, int], title: str, x_title: str, y_title: str,
               query_name: str, colorbar_title: str = "", colorscale: str = SEQUENTIAL, zmid: float | None = None,
               height: int | None = None) -> go.Figure:
    """One image-shaped heatmap (rows down, columns across) per entry of `panels` ({panel title: (h, w)
    map}) side by side on one colour scale, each with the query cell (row, col) marked (hovering the
    mark shows `query_name`)."""
    columns = len(panels)
    fig = make_subplots(rows=1, cols=columns, subplot_titles=list(panels), horizontal_spacing=0.05)
    row, col = query
    for i, z in enumerate(panels.values()):
        rows, cols = z.shape
        fig.add_trace(go.Heatmap(z=z, x=np.arange(cols, dtype=np.int32), y=np.arange(rows, dtype=np.int32),
                                 coloraxis="coloraxis"), row=1, col=i + 1)
        fig.add_trace(go.Scatter(x=[col], y=[row], mode="markers", name=query_name, showlegend=False,
                                 marker={"symbol": "x-thin", "size": 14, "line": {"width": 3, "color": "white"}}),
                      row=1, col=i + 1)
    fig.update_layout(coloraxis={"colorscale": colorscale, "cmid": zmid,
                                 "colorbar": {"title": {"text": colorbar_title}}})
    styled(fig, title=title, x_title=x_title, y_title=y_title, height=height or 380, legend=False)
    fig.update_layout(margin={"t": 84})
    fig.update_yaxes(autorange="reversed")
    for i in range(columns):
        fig.update_yaxes(scaleanchor=f"x{i + 1 if i else ''}", scaleratio=1, constrain="domain", row=1, col=i + 1)
        fig.update_xaxes(constrain="domain", row=1, col=i + 1)
    return fig


def position_id_rows(index: np.ndarray, rows: dict[str, np.ndarray], spans: list[tuple[int, int, str, bool]], *,
                     title: str, x_title: str, y_title: str, height: int | None = None) -> go.Figure:
    """One step line per position-id row ({name: ids}) against the token index, over bands that mark the
    segments (start, stop, label, highlighted) of the sequence; highlighted bands are tinted."""
    fig = go.Figure()
    for start, stop, label, highlighted in spans:
        fig.add_vrect(x0=start - 0.5, x1=stop - 0.5, fillcolor="#dcebf0" if highlighted else "#f4f4f4",
                      line_width=0, layer="below", annotation_text=label, annotation_position="top left",
                      annotation_font_size=11)
    for i, (name, ids) in enumerate(rows.items()):
        fig.add_trace(go.Scatter(x=index, y=ids, name=name, mode="lines+markers", line_shape="hv",
                                 line={"color": color(i), "width": 2, "dash": ("solid", "dash", "dot")[i % 3]},
                                 marker={"size": 4}))
    return styled(fig, title=title, x_title=x_title, y_title=y_title, **({"height": height} if height else {}))


def pair_sections(speeds: np.ndarray, sections: dict[str, tuple[int, int]], *, title: str, x_title: str,
                  y_title: str, height: int | None = None) -> go.Figure:
    """Each pair's speed as a bar on a log axis, coloured by the section ({name: (first, stop)}) of pairs it
    belongs to."""
    fig = go.Figure()
    for i, (name, (first, stop)) in enumerate(sections.items()):
        fig.add_trace(go.Bar(x=np.arange(first, stop, dtype=np.int32), y=speeds[first:stop], name=name,
                             marker_color=color(i)))
    fig.update_layout(bargap=0.1)
    return styled(fig, title=title, x_title=x_title, y_title=y_title, log_y=True,
                  **({"height": height} if height else {}))
