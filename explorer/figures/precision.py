"""Builders for the precision charts: lines with labelled vertical marks (context lengths, a threshold).
Data in, go.Figure out."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from .basic import line_chart
from .style import MARK

THRESHOLD_COLOR = "#3a3a3a"


def _vertical(fig: go.Figure, at: float, label: str, *, log_x: bool, top: bool, color: str, dash: str) -> None:
    """A vertical line at x = `at` across the plot, labelled at its top or bottom. Shapes take data values on
    a log axis; annotations take their log10 (Plotly's convention), so the label's position is converted."""
    fig.add_shape(type="line", x0=at, x1=at, xref="x", y0=0, y1=1, yref="paper", layer="below",
                  line={"color": color, "width": 1, "dash": dash})
    fig.add_annotation(x=math.log10(at) if log_x else at, xref="x", y=1 if top else 0, yref="paper", text=label,
                       showarrow=False, xanchor="left", yanchor="top" if top else "bottom", xshift=2,
                       font={"size": 11, "color": color}, bgcolor="rgba(255, 255, 255, 0.8)")


def marked_lines(x, series: dict, *, marks: dict, title: str, x_title: str, y_title: str, log_x: bool = False,
                 log_y: bool = False, markers: bool = False, dashed: tuple = (), colors: dict | None = None,
                 thresholds: dict | None = None, height: int | None = None) -> go.Figure:
    """`line_chart` of `series` ({legend name: y values}) over x, with a dotted vertical line at every entry
    of `marks` ({label: x value}, labelled at the top of the plot) and a dashed, darker one at every entry of
    `thresholds` (labelled at the bottom, clear of the marks). `colors` ({legend name: colour}) pins a
    series' colour, so that one series looks the same in several charts. A log y axis reads in powers of 10.
    """
    fig = line_chart(x, series, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y,
                     markers=markers, dashed=dashed, height=height)
    for trace in fig.data:
        if colors and trace.name in colors:
            trace.line.color = colors[trace.name]
            if markers:
                trace.marker.color = colors[trace.name]
    for label, at in marks.items():
        _vertical(fig, at, label, log_x=log_x, top=True, color=MARK, dash="dot")
    for label, at in (thresholds or {}).items():
        _vertical(fig, at, label, log_x=log_x, top=False, color=THRESHOLD_COLOR, dash="dash")
    if log_y:
        fig.update_yaxes(exponentformat="power")
    return fig
