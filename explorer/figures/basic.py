"""General builders: lines, heatmaps, bars and arrows in the plane. Data in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import DIVERGING, color, styled


def line_chart(x, series: dict, *, title: str, x_title: str, y_title: str, log_x: bool = False,
               log_y: bool = False, markers: bool = False, dashed: tuple = (), height: int | None = None
               ) -> go.Figure:
    """One line per entry of `series` ({legend name: y values}) over the shared x values."""
    fig = go.Figure()
    for i, (name, y) in enumerate(series.items()):
        fig.add_trace(go.Scatter(
            x=x, y=y, name=name, mode="lines+markers" if markers else "lines",
            line={"color": color(i), "width": 2, "dash": "dash" if name in dashed else "solid"},
        ))
    kwargs = {"height": height} if height else {}
    return styled(fig, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y, **kwargs)


def heatmap(z: np.ndarray, *, title: str, x_title: str, y_title: str, x=None, y=None,
            colorscale: str = DIVERGING, zmid: float | None = 0.0, colorbar_title: str = "",
            height: int | None = None, reversed_y: bool = True) -> go.Figure:
    """A matrix as a heatmap; rows go down when reversed_y, like a printed matrix."""
    fig = go.Figure(go.Heatmap(z=z, x=x, y=y, colorscale=colorscale, zmid=zmid,
                               colorbar={"title": {"text": colorbar_title}}))
    styled(fig, title=title, x_title=x_title, y_title=y_title, legend=False,
           **({"height": height} if height else {}))
    if reversed_y:
        fig.update_yaxes(autorange="reversed")
    return fig


def bar_chart(categories, values, *, title: str, x_title: str, y_title: str, log_y: bool = False,
              text=None) -> go.Figure:
    fig = go.Figure(go.Bar(x=categories, y=values, marker_color=[color(i) for i in range(len(values))],
                           text=text, textposition="outside" if text is not None else None))
    return styled(fig, title=title, x_title=x_title, y_title=y_title, log_y=log_y, legend=False)


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
