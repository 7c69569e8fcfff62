"""The frequency clocks: one unit circle per rotating pair, animated in the browser."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .animation import animation_controls
from .style import color, styled

_CIRCLE = np.linspace(0.0, 2.0 * math.pi, 121)


def clock_animation(positions: list[int], cos: np.ndarray, sin: np.ndarray, pair_titles: list[str], *,
                    title: str, play: str, pause: str, position_label: str, frame_ms: int = 120,
                    start: int = 0) -> go.Figure:
    """Unit circles with a hand at angle m * theta_i for each chosen pair, one frame per position.

    cos, sin: (len(positions), n_pairs) of the hand angles. The play/pause buttons and the
    position slider are Plotly's own, so the animation runs entirely in the browser. start: the
    position the figure opens at (hands drawn there, the slider on it; the nearest drawn position if
    `start` is not one of `positions`); the play button sits above the clocks.
    """
    n = len(pair_titles)
    first = int(np.abs(np.asarray(positions, dtype=np.float64) - start).argmin()) if len(positions) else 0
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=pair_titles,
                        horizontal_spacing=0.04, vertical_spacing=0.12)
    circle_x, circle_y = np.cos(_CIRCLE).astype(np.float32), np.sin(_CIRCLE).astype(np.float32)
    for j in range(n):
        r, c = divmod(j, cols)
        fig.add_trace(go.Scatter(x=circle_x, y=circle_y, mode="lines", hoverinfo="skip", showlegend=False,
                                 line={"color": "#cccccc", "width": 1}), row=r + 1, col=c + 1)
    hand_traces = []
    for j in range(n):
        r, c = divmod(j, cols)
        fig.add_trace(go.Scatter(x=[0.0, float(cos[first, j])], y=[0.0, float(sin[first, j])], mode="lines+markers",
                                 showlegend=False, line={"color": color(j), "width": 4},
                                 marker={"size": [0, 9]}), row=r + 1, col=c + 1)
        hand_traces.append(n + j)
    for axis in fig.layout:
        if axis.startswith("xaxis") or axis.startswith("yaxis"):
            fig.layout[axis].update(range=[-1.15, 1.15], showticklabels=False, showgrid=False, zeroline=True,
                                    zerolinecolor="#e5e5e5")
    for j in range(n):
        suffix = "" if j == 0 else str(j + 1)
        fig.layout[f"yaxis{suffix}"].update(scaleanchor=f"x{suffix}", scaleratio=1)
    fig.frames = [
        go.Frame(name=str(int(m)), traces=hand_traces,
                 data=[go.Scatter(x=[0.0, float(cos[f, j])], y=[0.0, float(sin[f, j])]) for j in range(n)])
        for f, m in enumerate(positions)
    ]
    fig.update_layout(**animation_controls([str(int(m)) for m in positions], play=play, pause=pause,
                                           slider_prefix=f"{position_label} m = ", frame_ms=frame_ms,
                                           active=first, buttons_on_top=True))
    height = 230 * rows + 140
    styled(fig, title=title, height=height, legend=False)
    # the play button in its own band between the title and the clocks' titles: a taller top margin, and
    # the buttons' bottom edge 46 px above the plot area (updatemenus are placed in plot-area fractions)
    top = 104
    fig.update_layout(margin={"t": top})
    fig.layout.updatemenus[0].update(y=1 + 46 / (height - top - fig.layout.margin.b))
    return fig
