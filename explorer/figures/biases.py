"""Builders for comparing position encodings over distance: curves with marked distances, and several
matrices side by side, each on its own colour scale. Data in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .basic import line_chart
from .style import DIVERGING, MARK, styled


def distance_chart(x, series: dict, *, marks: dict[str, float], title: str, x_title: str, y_title: str,
                   dashed: tuple = (), line_shape: str = "linear", height: int | None = None) -> go.Figure:
    """line_chart with a dotted vertical line at each marked x ({label: x}), labelled at the top."""
    fig = line_chart(x, series, title=title, x_title=x_title, y_title=y_title, dashed=dashed, height=height)
    fig.update_traces(line_shape=line_shape)
    for label, where in marks.items():
        fig.add_vline(x=where, line_dash="dot", line_color=MARK, annotation_text=label,
                      annotation_position="top right", annotation_font_size=11)
    return fig


def heatmap_panels(panels: dict[str, np.ndarray], *, x, y, title: str, x_title: str, y_title: str,
                   columns: int = 3, colorscale: str = DIVERGING, height: int | None = None) -> go.Figure:
    """One small heatmap per entry of `panels` ({panel title: matrix}), each on its own colour scale from its
    smallest to its largest entry, with no colour bar: for comparing shapes (is every diagonal constant?), not values.
    x, y: the shared axis labels; rows go down, like a printed matrix."""
    rows = math.ceil(len(panels) / columns)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=list(panels), horizontal_spacing=0.06,
                        vertical_spacing=0.24 if rows > 1 else 0.1)
    for i, z in enumerate(panels.values()):
        fig.add_trace(go.Heatmap(z=z, x=x, y=y, colorscale=colorscale, showscale=False),
                      row=i // columns + 1, col=i % columns + 1)
    styled(fig, title=title, x_title=x_title, y_title=y_title, legend=False, height=height or 330 * rows + 90)
    fig.update_layout(margin={"t": 84})
    fig.update_yaxes(autorange="reversed")
    return fig
