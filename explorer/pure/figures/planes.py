"""Points and arrows in the plane: clouds of points (one colour per series), and arrows from the origin with the
unit circle and dotted angle arcs. Data in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.pure.figures.style import CIRCLE, HEIGHT, ZERO_LINE, color, concept_color, styled


def scatter_chart(series: dict, *, title: str, x_title: str, y_title: str, equal_axes: bool = False,
                  joined: bool = False, colors: dict | None = None, height: int | None = None) -> go.Figure:
    """One cloud of points per entry of `series` ({legend name: (x values, y values)}), each in its own colour
    (`colors`, {legend name: colour}, pins one, as in line_chart; the others take the palette in order).
    equal_axes: one unit as long on both axes (points on a circle look round); joined: each series' points
    joined in order by a thin line (a path, an orbit)."""
    fig = go.Figure()
    for i, (name, (x, y)) in enumerate(series.items()):
        c = (colors or {}).get(name, color(i))
        fig.add_trace(go.Scatter(x=x, y=y, name=name, mode="lines+markers" if joined else "markers",
                                 marker={"color": c, "size": 7}, line={"color": c, "width": 1}))
    return styled(fig, title=title, x_title=x_title, y_title=y_title, equal_axes=equal_axes, height=height or HEIGHT)


def plane_diagram(vectors: list[tuple], *, title: str, x_title: str, y_title: str, arcs: tuple = (),
                  dashes: dict | None = None, unit_circle: bool = True, height: int | None = None) -> go.Figure:
    """Arrows from the origin, one per (name, x, y, concept) in the concept's colour (style.CONCEPTS), on equal
    axes with an optional unit circle, plus dotted angle arcs.

    arcs: (name, xs, ys, concept) polylines, drawn in the concept's colour (that of the arrow they belong to).
    dashes: {arrow name: Plotly dash} for arrows drawn dashed or dotted (a turned copy of a solid arrow).
    """
    dashes = dashes or {}
    fig = go.Figure()
    extent = max([1.0] + [max(abs(vx), abs(vy)) for _, vx, vy, _ in vectors]) * 1.25
    if unit_circle:
        t = np.linspace(0, 2 * np.pi, 181, dtype=np.float32)
        fig.add_trace(go.Scatter(x=np.cos(t), y=np.sin(t), mode="lines", showlegend=False,
                                 hoverinfo="skip", line={"color": CIRCLE, "width": 1}))
    for name, vx, vy, concept in vectors:
        fig.add_trace(go.Scatter(x=[0.0, vx], y=[0.0, vy], mode="lines+markers", name=name,
                                 line={"color": concept_color(concept), "width": 3, "dash": dashes.get(name, "solid")},
                                 marker={"size": [0, 10], "symbol": "arrow", "angleref": "previous"}))
    for name, xs, ys, concept in arcs:
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=name, hoverinfo="name",
                                 line={"color": concept_color(concept), "width": 1.5, "dash": "dot"}))
    styled(fig, title=title, x_title=x_title, y_title=y_title, equal_axes=True,
           height=height or HEIGHT)
    fig.update_xaxes(range=[-extent, extent], zeroline=True, zerolinecolor=ZERO_LINE)
    fig.update_yaxes(range=[-extent, extent], zeroline=True, zerolinecolor=ZERO_LINE)
    return fig
