"""Builders for attention scores: a profile along the offset with its spread, several heatmaps on one
shared colour scale, and the marks of one chosen cell with the invisible layer that lets a click choose
it. Data in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import DIVERGING, MARK, color, styled


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
