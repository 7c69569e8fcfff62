"""The one look of every chart in the app: palette, fonts, margins, axis titles."""

from __future__ import annotations

import plotly.graph_objects as go

PALETTE = ("#d1495b", "#00798c", "#edae49", "#30638e", "#66a182", "#8d6a9f", "#003d5b", "#e07a5f")
DIVERGING = "RdBu_r"
SEQUENTIAL = "Viridis"
# the page's own typeface (the theme's `font` in .streamlit/config.toml, the same list): Streamlit's bundled
# Source Sans for Latin, then Simplified Chinese families by their installed names (Debian's fonts-noto-cjk
# is "Noto Sans CJK SC"; without it a visitor gets Noto Sans SC, Source Han Sans SC, PingFang SC on a Mac,
# Microsoft YaHei on Windows, else the browser's sans-serif)
FONT = "'Source Sans', 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif"
HEIGHT = 420
GRID = "#ebebeb"
AXIS_LINE = "#c8c8c8"
MARK = "#555555"  # reference lines and marks laid over the data (a trained length, a chosen cell)


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def rgba(hex_color: str, alpha: float) -> str:
    """A "#rrggbb" colour with opacity `alpha`, as Plotly's "rgba(r, g, b, a)"."""
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def _merged(base: dict, extra: dict) -> dict:
    """`base` updated by `extra`, nested dicts merged key by key (as plotly's update does)."""
    out = dict(base)
    for key, value in extra.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def styled(fig: go.Figure, *, title: str, x_title: str | None = None, y_title: str | None = None,
           height: int = HEIGHT, log_x: bool = False, log_y: bool = False, equal_axes: bool = False,
           legend: bool = True) -> go.Figure:
    """Apply the house style and the (already translated) titles to `fig`, and return it.

    The whole layout is assigned at once: the figure's own settings (subplot domains, annotations, ...)
    merged with the style, which also goes to every x and y axis of its subplots. Plotly validates one
    assignment about six times faster than the same settings made by update_layout/update_xaxes calls."""
    style = {
        "title": {"text": title, "x": 0.01, "xanchor": "left", "y": 0.98, "yanchor": "top", "yref": "container",
                  "font": {"size": 16}},
        "font": {"family": FONT, "size": 13},
        "template": "none",  # the look is set here: a named template costs ~50 ms per figure to validate
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "height": height,
        # a legend sits in its own band between the title and the plot, clear of the axis titles
        "margin": {"l": 60, "r": 20, "t": 92 if legend else 56, "b": 50},
        "colorway": list(PALETTE),
        "showlegend": legend,
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"},
        "hovermode": "closest",
    }
    layout = fig.layout.to_plotly_json()
    axes = {name for name in layout if name[1:5] == "axis" and name[0] in "xy"} | {"xaxis", "yaxis"}
    for name in sorted(axes):
        axis = {"gridcolor": GRID, "zerolinecolor": AXIS_LINE, "linecolor": AXIS_LINE, "automargin": True}
        axis_title, log = (x_title, log_x) if name[0] == "x" else (y_title, log_y)
        if axis_title is not None:
            axis["title"] = {"text": axis_title}
        if log:
            axis["type"] = "log"
        if equal_axes and name[0] == "y":
            axis.update(scaleanchor="x", scaleratio=1)
        style[name] = axis
    fig.layout = _merged(layout, style)
    return fig
