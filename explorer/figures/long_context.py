"""Builders for the long-context page: lines over a shaded stretch of the x axis (the trained range)."""

from __future__ import annotations

import plotly.graph_objects as go

from .basic import line_chart

BAND_FILL = "rgba(48, 99, 142, 0.10)"


def shaded_lines(x, series: dict, *, band: tuple[float, float], band_name: str, title: str, x_title: str,
                 y_title: str, log_x: bool = False, log_y: bool = False, dashed: tuple = (),
                 height: int | None = None) -> go.Figure:
    """`line_chart` with the x range band = (x0, x1) shaded and labelled `band_name`."""
    fig = line_chart(x, series, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y,
                     dashed=dashed, height=height)
    fig.add_vrect(x0=band[0], x1=band[1], fillcolor=BAND_FILL, line_width=0, layer="below",
                  annotation_text=band_name, annotation_position="top left")
    return fig
