"""Builders for the plane pages: arrows with angle arcs, 2x2 matrices with their numbers, and a
query/key pair turning together in the browser. Data in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .animation import animation_controls
from .basic import plane_vectors
from .style import DIVERGING, color, styled


def plane_diagram(vectors: list[tuple[str, float, float]], *, title: str, x_title: str, y_title: str,
                  arcs: tuple = (), dashed: tuple = (), unit_circle: bool = True,
                  height: int | None = None) -> go.Figure:
    """Arrows from the origin (see `plane_vectors`) plus dotted angle arcs.

    arcs: (name, xs, ys, color index) polylines, drawn in the colour of the arrow they belong to.
    dashed: names of arrows drawn dashed (a result that should land on another arrow).
    """
    fig = plane_vectors(vectors, title=title, x_title=x_title, y_title=y_title, unit_circle=unit_circle,
                        height=height)
    fig.for_each_trace(lambda tr: tr.update(line_dash="dash"), selector=lambda tr: tr.name in dashed)
    for name, xs, ys, index in arcs:
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=name, hoverinfo="name",
                                 line={"color": color(index), "width": 1.5, "dash": "dot"}))
    return fig


def matrix_panels(matrices: list[np.ndarray], panel_titles: list[str], *, title: str, x_title: str,
                  y_title: str, digits: int = 4, height: int = 300) -> go.Figure:
    """Small matrices side by side as heatmaps on one colour scale (-1..1), each cell showing its number."""
    fig = make_subplots(rows=1, cols=len(matrices), subplot_titles=panel_titles, horizontal_spacing=0.05)
    for j, mat in enumerate(matrices):
        labels = [str(i + 1) for i in range(mat.shape[0])]
        fig.add_trace(go.Heatmap(z=mat, x=labels, y=labels, zmin=-1, zmax=1, colorscale=DIVERGING,
                                 showscale=j == len(matrices) - 1, texttemplate=f"%{{z:.{digits}f}}",
                                 hovertemplate=f"%{{y}}, %{{x}}: %{{z:.{digits + 6}f}}<extra></extra>"),
                      row=1, col=j + 1)
    styled(fig, title=title, x_title=x_title, y_title=y_title, height=height, legend=False)
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed", title_text=None)
    fig.update_yaxes(title_text=y_title, row=1, col=1)  # one row title, on the first panel
    return fig


def pair_turn_animation(frame_names: list[str], query: np.ndarray, key: np.ndarray, frame_titles: list[str],
                        *, names: tuple[str, str], x_title: str, y_title: str, play: str, pause: str,
                        slider_prefix: str, frame_ms: int = 150) -> go.Figure:
    """Two arrows (query and key, each (frames, 2)) turning frame by frame; each frame sets its own title.

    The faint tracks are the points the arrow tips visit, so the circles they run on are visible.
    """
    extent = float(max(np.abs(query).max(initial=0.0), np.abs(key).max(initial=0.0), 1e-9)) * 1.25
    fig = go.Figure()
    for j, path in enumerate((query, key)):
        fig.add_trace(go.Scatter(x=path[:, 0], y=path[:, 1], mode="markers", hoverinfo="skip",
                                 showlegend=False, marker={"color": color(j), "size": 4, "opacity": 0.5}))
    for j, (name, path) in enumerate(zip(names, (query, key))):
        fig.add_trace(go.Scatter(x=[0.0, float(path[0, 0])], y=[0.0, float(path[0, 1])], mode="lines+markers",
                                 name=name, line={"color": color(j), "width": 4},
                                 marker={"size": [0, 11], "symbol": "arrow", "angleref": "previous"}))
    fig.frames = [
        go.Frame(name=frame, traces=[2, 3], layout={"title": {"text": text}},
                 data=[go.Scatter(x=[0.0, float(path[f, 0])], y=[0.0, float(path[f, 1])]) for path in (query, key)])
        for f, (frame, text) in enumerate(zip(frame_names, frame_titles))
    ]
    fig.update_layout(**animation_controls(frame_names, play=play, pause=pause, slider_prefix=slider_prefix,
                                           frame_ms=frame_ms, redraw=True))
    styled(fig, title=frame_titles[0], x_title=x_title, y_title=y_title, equal_axes=True, height=520)
    fig.update_xaxes(range=[-extent, extent], zeroline=True, zerolinecolor="#999999")
    fig.update_yaxes(range=[-extent, extent], zeroline=True, zerolinecolor="#999999")
    fig.update_layout(margin={"b": 110}, legend={"orientation": "v", "x": 0.01, "y": 0.99, "xanchor": "left",
                                                 "yanchor": "top", "bgcolor": "rgba(255,255,255,0.8)"})
    return fig
