"""Builders for the precision charts: lines with labelled vertical marks (context lengths, a threshold).
Data in, go.Figure out."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from .basic import line_chart

MARK_COLOR = "#7a7a7a"


def marked_lines(x, series: dict, *, marks: dict, title: str, x_title: str, y_title: str, log_x: bool = False,
                 log_y: bool = False, markers: bool = False, dashed: tuple = (), height: int | None = None
                 ) -> go.Figure:
    """`line_chart` of `series` ({legend name: y values}) over x, with a dotted vertical line at every
    entry of `marks` ({label: x value}), its label written at the top of the plot.

    Shapes take data values on a log axis; annotations take their log10 (Plotly's convention), so the
    label's position is converted here."""
    fig = line_chart(x, series, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y,
                     markers=markers, dashed=dashed, height=height)
    for label, at in marks.items():
        fig.add_shape(type="line", x0=at, x1=at, xref="x", y0=0, y1=1, yref="paper", layer="below",
                      line={"color": MARK_COLOR, "width": 1, "dash": "dot"})
        fig.add_annotation(x=math.log10(at) if log_x else at, xref="x", y=1, yref="paper", text=label,
                           showarrow=False, xanchor="left", yanchor="top", xshift=2,
                           font={"size": 11, "color": MARK_COLOR})
    return fig
