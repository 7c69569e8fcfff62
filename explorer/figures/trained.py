"""Builders for the trained-models page: curves with a shaded band each and marked x positions, and grouped
bars. Data in, go.Figure out."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from .style import MARK, color, styled


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def band_lines(series: list[dict], *, marks: dict[str, float], title: str, x_title: str, y_title: str,
               log_x: bool = False, y_range: tuple | None = None, x_ticks=None, height: int | None = None
               ) -> go.Figure:
    """One line per entry of `series`, each with its own shaded band, and a dotted vertical line at every
    marked x ({label: x}). x_ticks: the x values to label (default: Plotly's choice).

    An entry: {"name", "x", "y"} and optionally "low", "high" (the band, drawn when given), "dash" (a line
    dash name, default "solid"), "markers" (bool), "color" (a palette index, default its position), "group"
    (a legend group: entries of one group toggle together)."""
    fig = go.Figure()
    for i, s in enumerate(series):
        c = color(s.get("color", i))
        group = s.get("group", s["name"])
        if s.get("low") is not None and s.get("high") is not None:
            fig.add_trace(go.Scatter(x=s["x"], y=s["high"], mode="lines", line={"width": 0}, hoverinfo="skip",
                                     showlegend=False, legendgroup=group))
            fig.add_trace(go.Scatter(x=s["x"], y=s["low"], mode="lines", line={"width": 0}, fill="tonexty",
                                     fillcolor=_rgba(c, 0.15), hoverinfo="skip", showlegend=False,
                                     legendgroup=group))
        fig.add_trace(go.Scatter(x=s["x"], y=s["y"], name=s["name"], legendgroup=group,
                                 mode="lines+markers" if s.get("markers", True) else "lines",
                                 line={"color": c, "width": s.get("width", 2), "dash": s.get("dash", "solid")},
                                 marker={"size": 6}))
    styled(fig, title=title, x_title=x_title, y_title=y_title, log_x=log_x, **({"height": height} if height else {}))
    for label, where in marks.items():
        # a shape takes data values on a log axis, an annotation takes their log10
        fig.add_vline(x=where, line_dash="dot", line_color=MARK)
        fig.add_annotation(x=math.log10(where) if log_x else where, y=1, yref="paper", text=label,
                           showarrow=False, xanchor="left", yanchor="top", font={"size": 11})
    if y_range is not None:
        fig.update_yaxes(range=list(y_range))
    if x_ticks is not None:
        fig.update_xaxes(tickvals=[float(v) for v in x_ticks], tickformat="d")
    return fig


def grouped_bars(categories, groups: dict, *, title: str, x_title: str, y_title: str,
                 y_range: tuple | None = None, height: int | None = None) -> go.Figure:
    """Bars side by side per category, one colour per entry of `groups` ({legend name: values})."""
    fig = go.Figure([go.Bar(x=list(categories), y=values, name=name, marker_color=color(i))
                     for i, (name, values) in enumerate(groups.items())])
    fig.update_layout(barmode="group")
    styled(fig, title=title, x_title=x_title, y_title=y_title, **({"height": height} if height else {}))
    if y_range is not None:
        fig.update_yaxes(range=list(y_range))
    return fig
