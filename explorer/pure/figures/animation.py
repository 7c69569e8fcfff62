"""Animations that run in the browser alone, on Plotly's own play/pause buttons and frame slider: clocks
with one hand per pair, and a query and a key turning together. Data in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.pure.figures.style import (FACE, FACE_AXES, FIRST_LINE, LABEL_BACKDROP, ZERO_LINE, color, concept_color,
                                         styled, wrapped)


def animation_controls(frame_names: list[str], *, play: str, pause: str, slider_prefix: str,
                       frame_ms: int = 150, redraw: bool = False, active: int = 0, buttons_on_top: bool = False
                       ) -> dict:
    """Layout entries for Plotly's own play/pause buttons and frame slider (no server round-trip).

    active: the frame the slider starts on; buttons_on_top: the play/pause buttons sit at the top right,
    above the plot (where they stay on a short screen), instead of beside the slider."""
    buttons_at = ({"x": 1.0, "y": 1.02, "xanchor": "right", "yanchor": "bottom"} if buttons_on_top else
                  {"x": 0.0, "y": -0.1, "xanchor": "left", "yanchor": "top"})
    still = {"frame": {"duration": 0, "redraw": redraw}, "mode": "immediate", "transition": {"duration": 0}}
    playing = {"frame": {"duration": frame_ms, "redraw": redraw}, "fromcurrent": True,
               "transition": {"duration": 0}, "mode": "immediate"}
    return {
        "updatemenus": [{
            "type": "buttons", "direction": "left", **buttons_at,
            "pad": {"r": 10, "t": 10}, "showactive": False,
            # Plotly has no current frame before its first animation: "play" from a figure opened at frame
            # `active` plays the frames from there on (from the start once it stands on the last one). The
            # pause sign is two bars (U+275A, in DejaVu): the pause symbol U+23F8 needs an emoji font.
            "buttons": [{"label": f"▶ {play}", "method": "animate",
                         "args": [frame_names[active:] if 0 < active < len(frame_names) - 1 else None, playing]},
                        {"label": f"❚❚ {pause}", "method": "animate", "args": [[None], still]}],
        }],
        "sliders": [{
            "active": active, "x": 0.0 if buttons_on_top else 0.22, "len": 1.0 if buttons_on_top else 0.78,
            "y": -0.08, "yanchor": "top",
            "currentvalue": {"prefix": slider_prefix},
            "steps": [{"label": name, "method": "animate", "args": [[name], still]} for name in frame_names],
        }],
    }


_CIRCLE = np.linspace(0.0, 2.0 * math.pi, 121)
CLOCK_ROW = 180  # pixels of a row of clocks
CLOCK_GAP = 64  # pixels between two rows: the lower row's two-line titles stay clear of the row above
SLIDER_BAND = 70  # pixels added under the clocks for the frame slider (its value, rail and numbered ticks)


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
    plot = rows * CLOCK_ROW + (rows - 1) * CLOCK_GAP  # the plot area's height in pixels
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=pair_titles,
                        horizontal_spacing=0.04, vertical_spacing=CLOCK_GAP / plot)
    circle_x, circle_y = np.cos(_CIRCLE).astype(np.float32), np.sin(_CIRCLE).astype(np.float32)
    for j in range(n):
        r, c = divmod(j, cols)
        fig.add_trace(go.Scatter(x=circle_x, y=circle_y, mode="lines", hoverinfo="skip", showlegend=False,
                                 line={"color": FACE, "width": 1}), row=r + 1, col=c + 1)
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
                                    zerolinecolor=FACE_AXES)
    for j in range(n):
        suffix = "" if j == 0 else str(j + 1)
        fig.layout[f"yaxis{suffix}"].update(scaleanchor=f"x{suffix}", scaleratio=1)
    # frames as plain dicts: Plotly validates them once, as the figure stores them (go.Frame and go.Scatter objects
    # are validated on creation and again there: 513 frames of 8 hands took 0.62 CPU-s that way, 0.14 s so)
    fig.frames = [
        {"name": str(int(m)), "traces": hand_traces,
         "data": [{"type": "scatter", "x": [0.0, float(cos[f, j])], "y": [0.0, float(sin[f, j])]} for j in range(n)]}
        for f, m in enumerate(positions)
    ]
    styled(fig, title=title, legend=False)
    # the play button in its own band between the title and the clocks' two-line titles: a taller top
    # margin, and the buttons' bottom edge 96 px above the plot area; the frame slider with its current
    # value, rail and numbered ticks in a band of its own under the clocks (both placed in plot-area
    # fractions); the figure as tall as its bands and its rows of clocks. The controls come last, placed,
    # in one assignment: Plotly validates a slider of a step per frame each time the layout is assigned.
    top = fig.layout.margin.t + 110
    bottom = fig.layout.margin.b + SLIDER_BAND
    height = top + plot + bottom
    controls = animation_controls([str(int(m)) for m in positions], play=play, pause=pause,
                                  slider_prefix=f"{position_label} m = ", frame_ms=frame_ms, active=first,
                                  buttons_on_top=True)
    controls["updatemenus"][0]["y"] = 1 + 96 / plot
    controls["sliders"][0]["y"] = -12 / plot
    fig.update_layout(height=height, margin={"t": top, "b": bottom}, title_y=1 - FIRST_LINE / height, **controls)
    return fig


def pair_turn_animation(frame_names: list[str], query: np.ndarray, key: np.ndarray, frame_titles: list[str],
                        *, names: tuple[str, str], x_title: str, y_title: str, play: str, pause: str,
                        slider_prefix: str, frame_ms: int = 150) -> go.Figure:
    """Two arrows (query and key, each (frames, 2), in their concepts' colours) turning frame by frame; each frame
    sets its own title.

    The faint tracks are the points the arrow tips visit, so the circles they run on are visible.
    """
    extent = float(max(np.abs(query).max(initial=0.0), np.abs(key).max(initial=0.0), 1e-9)) * 1.25
    fig = go.Figure()
    colours = (concept_color("query"), concept_color("key"))
    for colour, path in zip(colours, (query, key)):
        fig.add_trace(go.Scatter(x=path[:, 0], y=path[:, 1], mode="markers", hoverinfo="skip",
                                 showlegend=False, marker={"color": colour, "size": 4, "opacity": 0.5}))
    for colour, name, path in zip(colours, names, (query, key)):
        fig.add_trace(go.Scatter(x=[0.0, float(path[0, 0])], y=[0.0, float(path[0, 1])], mode="lines+markers",
                                 name=name, line={"color": colour, "width": 4},
                                 marker={"size": [0, 11], "symbol": "arrow", "angleref": "previous"}))
    fig.frames = [  # plain dicts, validated once (see clock_animation)
        {"name": frame, "traces": [2, 3], "layout": {"title": {"text": wrapped(text)[0]}},
         "data": [{"type": "scatter", "x": [0.0, float(path[f, 0])], "y": [0.0, float(path[f, 1])]}
                  for path in (query, key)]}
        for f, (frame, text) in enumerate(zip(frame_names, frame_titles))
    ]
    fig.update_layout(**animation_controls(frame_names, play=play, pause=pause, slider_prefix=slider_prefix,
                                           frame_ms=frame_ms, redraw=True))
    styled(fig, title=frame_titles[0], x_title=x_title, y_title=y_title, equal_axes=True, height=520)
    fig.update_xaxes(range=[-extent, extent], zeroline=True, zerolinecolor=ZERO_LINE)
    fig.update_yaxes(range=[-extent, extent], zeroline=True, zerolinecolor=ZERO_LINE)
    # the legend inside the plane's top-left corner (paper coordinates, not the style's figure foot)
    fig.update_layout(margin={"b": 200}, legend={"orientation": "v", "x": 0.01, "y": 0.99, "xanchor": "left",
                                                 "yref": "paper", "yanchor": "top",
                                                 "bgcolor": LABEL_BACKDROP})
    # the play buttons in a band of their own under the x axis's title, and the slider, the whole width, under
    # them (beside them it ran under the pause button on a phone); placed in plot-area fractions: 60 and
    # 104 px below the plot area
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    fig.layout.updatemenus[0].update(y=-60 / plot)
    fig.layout.sliders[0].update(y=-104 / plot, x=0.0, len=1.0)
    return fig
