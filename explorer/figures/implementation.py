"""Builders for the implementation page: bars split into named groups. Data in, go.Figure out."""

from __future__ import annotations

import plotly.graph_objects as go

from .style import color, styled


def series_bars(series: dict, *, title: str, x_title: str, y_title: str, log_y: bool = False) -> go.Figure:
    """One bar trace per entry of `series` ({legend name: (x values, y values)}), one colour each."""
    fig = go.Figure([go.Bar(x=x, y=y, name=name, marker_color=color(i))
                     for i, (name, (x, y)) in enumerate(series.items())])
    fig.update_layout(barmode="overlay", bargap=0.1)
    return styled(fig, title=title, x_title=x_title, y_title=y_title, log_y=log_y)
