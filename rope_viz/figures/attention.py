"""Builders for attention scores: a profile along the offset with its spread, and several
heatmaps on one shared colour scale. Data in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import DIVERGING, color, styled


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
                   fillcolor="rgba(0, 121, 140, 0.25)", legendgroup="band"),
        go.Scatter(x=offsets, y=mean, mode="lines", name=mean_name, line={"color": color(0), "width": 2}),
    ])
    return styled(fig, title=title, x_title=x_title, y_title=y_title, **({"height": height} if height else {}))


def heatmap_grid(panels: dict[str, np.ndarray], *, x, y, title: str, x_title: str, y_title: str,
                 colorbar_title: str = "", columns: int = 2, colorscale: str = DIVERGING,
                 zmid: float | None = 0.0, zmin: float | None = None, zmax: float | None = None,
                 height: int | None = None) -> go.Figure:
    """One heatmap per entry of `panels` ({panel title: matrix}), all on one colour scale, so
    that equal colours mean equal values across panels. x, y: the shared axis labels of a matrix
    (rows go down, like a printed matrix)."""
    rows = math.ceil(len(panels) / columns)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=list(panels),
                        horizontal_spacing=0.08, vertical_spacing=0.16 if rows > 1 else 0.1)
    for i, z in enumerate(panels.values()):
        fig.add_trace(go.Heatmap(z=z, x=x, y=y, coloraxis="coloraxis"), row=i // columns + 1,
                      col=i % columns + 1)
    fig.update_layout(coloraxis={"colorscale": colorscale, "cmid": zmid, "cmin": zmin, "cmax": zmax,
                                 "colorbar": {"title": {"text": colorbar_title}}})
    styled(fig, title=title, x_title=x_title, y_title=y_title, legend=False, height=height or 340 * rows + 100)
    fig.update_layout(margin={"t": 84})  # room for the panel titles under the figure title
    fig.update_yaxes(autorange="reversed")
    return fig
