"""The one look of every chart in the app: palette, fonts, margins, axis titles."""

from __future__ import annotations

import plotly.graph_objects as go

PALETTE = ("#d1495b", "#00798c", "#edae49", "#30638e", "#66a182", "#8d6a9f", "#003d5b", "#e07a5f")
DIVERGING = "RdBu_r"
SEQUENTIAL = "Viridis"
FONT = "Inter, 'Noto Sans SC', 'Microsoft YaHei', sans-serif"
HEIGHT = 420
GRID = "#ebebeb"
AXIS_LINE = "#c8c8c8"


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def styled(fig: go.Figure, *, title: str, x_title: str | None = None, y_title: str | None = None,
           height: int = HEIGHT, log_x: bool = False, log_y: bool = False, equal_axes: bool = False,
           legend: bool = True) -> go.Figure:
    """Apply the house style and the (already translated) titles to `fig`, and return it."""
    fig.update_layout(
        title={"text": title, "x": 0.01, "xanchor": "left", "y": 0.98, "yanchor": "top", "yref": "container",
               "font": {"size": 16}},
        font={"family": FONT, "size": 13},
        template="none",  # the look is set below: a named template costs ~50 ms per figure to validate
        paper_bgcolor="white",
        plot_bgcolor="white",
        height=height,
        # a legend sits in its own band between the title and the plot, clear of the axis titles
        margin={"l": 60, "r": 20, "t": 92 if legend else 56, "b": 50},
        colorway=list(PALETTE),
        showlegend=legend,
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"},
        hovermode="closest",
    )
    fig.update_xaxes(gridcolor=GRID, zerolinecolor=AXIS_LINE, linecolor=AXIS_LINE, automargin=True)
    fig.update_yaxes(gridcolor=GRID, zerolinecolor=AXIS_LINE, linecolor=AXIS_LINE, automargin=True)
    if x_title is not None:
        fig.update_xaxes(title_text=x_title)
    if y_title is not None:
        fig.update_yaxes(title_text=y_title)
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    if equal_axes:
        fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return fig
