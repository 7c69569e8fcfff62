"""Arrows from the origin in the plane, with the unit circle and dotted angle arcs. Data in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import color, styled


def plane_vectors(vectors: list[tuple[str, float, float]], *, title: str, x_title: str, y_title: str,
                  unit_circle: bool = True, height: int | None = None) -> go.Figure:
    """Arrows from the origin, one per (name, x, y), on equal axes with an optional unit circle."""
    fig = go.Figure()
    extent = max([1.0] + [max(abs(vx), abs(vy)) for _, vx, vy in vectors]) * 1.25
    if unit_circle:
        t = np.linspace(0, 2 * np.pi, 181, dtype=np.float32)
        fig.add_trace(go.Scatter(x=np.cos(t), y=np.sin(t), mode="lines", showlegend=False,
                                 hoverinfo="skip", line={"color": "#bbbbbb", "width": 1}))
    for i, (name, vx, vy) in enumerate(vectors):
        fig.add_trace(go.Scatter(x=[0.0, vx], y=[0.0, vy], mode="lines+markers", name=name,
                                 line={"color": color(i), "width": 3},
                                 marker={"size": [0, 10], "symbol": "arrow", "angleref": "previous"}))
    styled(fig, title=title, x_title=x_title, y_title=y_title, equal_axes=True,
           **({"height": height} if height else {}))
    fig.update_xaxes(range=[-extent, extent], zeroline=True, zerolinecolor="#999999")
    fig.update_yaxes(range=[-extent, extent], zeroline=True, zerolinecolor="#999999")
    return fig


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
