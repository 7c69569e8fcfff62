"""Bars: one colour per bar, one trace per named series (overlaid or side by side), and bars coloured by
the section they belong to. Data in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.pure.figures.style import HEIGHT, color, styled


def bar_chart(categories, values, *, title: str, x_title: str, y_title: str, log_y: bool = False,
              text=None) -> go.Figure:
    fig = go.Figure(go.Bar(x=categories, y=values, marker_color=[color(i) for i in range(len(values))],
                           text=text, textposition="outside" if text is not None else None))
    return styled(fig, title=title, x_title=x_title, y_title=y_title, log_y=log_y, legend=False)


def series_bars(series: dict, *, title: str, x_title: str, y_title: str, log_y: bool = False) -> go.Figure:
    """One bar trace per entry of `series` ({legend name: (x values, y values)}), one colour each."""
    fig = go.Figure([go.Bar(x=x, y=y, name=name, marker_color=color(i))
                     for i, (name, (x, y)) in enumerate(series.items())])
    fig.update_layout(barmode="overlay", bargap=0.1)
    return styled(fig, title=title, x_title=x_title, y_title=y_title, log_y=log_y)


def grouped_bars(categories, groups: dict, *, title: str, x_title: str, y_title: str,
                 y_range: tuple | None = None, height: int | None = None) -> go.Figure:
    """Bars side by side per category, one colour per entry of `groups` ({legend name: values})."""
    fig = go.Figure([go.Bar(x=list(categories), y=values, name=name, marker_color=color(i))
                     for i, (name, values) in enumerate(groups.items())])
    fig.update_layout(barmode="group")
    styled(fig, title=title, x_title=x_title, y_title=y_title, height=height or HEIGHT)
    if y_range is not None:
        fig.update_yaxes(range=list(y_range))
    return fig


def pair_sections(speeds: np.ndarray, sections: dict[str, tuple[int, int]], *, title: str, x_title: str,
                  y_title: str, height: int | None = None) -> go.Figure:
    """Each pair's speed as a bar on a log axis, coloured by the section ({name: (first, stop)}) of pairs it
    belongs to."""
    fig = go.Figure()
    for i, (name, (first, stop)) in enumerate(sections.items()):
        fig.add_trace(go.Bar(x=np.arange(first, stop, dtype=np.int32), y=speeds[first:stop], name=name,
                             marker_color=color(i)))
    fig.update_layout(bargap=0.1)
    return styled(fig, title=title, x_title=x_title, y_title=y_title, log_y=True,
                  height=height or HEIGHT)
