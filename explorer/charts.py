"""How charts are placed on a page: the app's chart settings (larger in the presenter view, with the
image, CSV and animated-GIF downloads), a chart beside its notes, two charts side by side, the axes
and bands of position-by-position score charts, and cells of a score map picked by a click."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from rope_viz.figures import profile_band

from . import presenter, session
from .exports import PICK_LAYER, figure_csv, file_name
from .session import t
from .widgets import url_params


def chart(fig, key: str, *, gif=None, on_pick=None) -> None:
    """Draw a figure from rope_viz.figures with the app's chart settings: its toolbar saves the image
    (PNG at twice the size, or SVG, as chosen in the sidebar), and a button below it saves its data as
    CSV; both files are named after the page, the chart and the knobs' values. `gif`, for an animation:
    a function returning the animation as GIF bytes, called only when the visitor asks for the file.

    In the presenter view the chart is drawn from an enlarged copy (the figure may be shared from a
    cache and is never changed). The toolbar shows on hover only, so on a phone it never covers a title."""
    name = file_name(session.current_page(), key, url_params())
    image = {"format": session.image_format(), "filename": name, "scale": 2}
    shown = presenter.enlarge(fig) if presenter.on() else fig
    picking = {} if on_pick is None else {"on_select": lambda: on_pick(st.session_state.get(key)),
                                          "selection_mode": "points"}
    st.plotly_chart(shown, width="stretch", theme=None, key=key,
                    config={"displaylogo": False, "responsive": True, "displayModeBar": "hover",
                            "toImageButtonOptions": image}, **picking)
    with st.container(horizontal=True, gap="small"):
        st.download_button(t("common.download_csv"), data=lambda: figure_csv(fig), file_name=f"{name}.csv",
                           mime="text/csv", key=f"{key}.csv", on_click="ignore", type="tertiary",
                           icon=":material/download:")
        if gif is not None:
            st.download_button(t("common.download_gif"), data=gif, file_name=f"{name}.gif", mime="image/gif",
                               key=f"{key}.gif", on_click="ignore", type="tertiary", icon=":material/animation:",
                               help=t("common.download_gif_help"))


def chart_beside(fig, key: str, widths: tuple = (3, 2)):
    """Draw `fig` in a wide left column and return the right column, for `with` blocks of notes or metrics."""
    left, right = st.columns(list(widths))
    with left:
        chart(fig, key=key)
    return right


def charts_side_by_side(left_fig, left_key: str, right_fig, right_key: str, *, on_pick_left=None) -> None:
    """Two charts in two equal columns."""
    left, right = st.columns(2)
    with left:
        chart(left_fig, key=left_key, on_pick=on_pick_left)
    with right:
        chart(right_fig, key=right_key)


def position_axes(kept) -> dict:
    """Heatmap axes of a query-by-key matrix, labelled with the original positions of the rows and
    columns drawn (`kept`, from explorer.views.sampling.downsample)."""
    return dict(x=kept, y=kept, x_title=t("common.key_position"), y_title=t("common.query_position"))


PICK_SIDE = 64  # a click picks one of at most 64 x 64 cells of a score map (about 50 kB of points)


def pickable_cells(fig, kept, values, hover: str) -> None:
    """Lay invisible points over a query-by-key heatmap (rows and columns at positions `kept`, cell
    values `values`) so that a click picks a cell: plotly selects the points of scatter traces, never
    heatmap cells. Past PICK_SIDE positions every s-th one is pickable. The points also carry the hover
    label (`hover`, a plotly hovertemplate over x = n, y = m and customdata = the cell's value)."""
    kept = np.asarray(kept)
    step = max(1, math.ceil(len(kept) / PICK_SIDE))
    n, m = np.meshgrid(kept[::step].astype(np.int32), kept[::step].astype(np.int32))
    values = np.asarray(values, dtype=np.float32)[::step, ::step]
    hidden = {"marker": {"opacity": 0}}
    fig.add_trace(go.Scatter(x=n.ravel(), y=m.ravel(), customdata=values.ravel(), mode="markers", meta=PICK_LAYER,
                             marker={"size": 12, "opacity": 0}, selected=hidden, unselected=hidden,
                             hovertemplate=hover, showlegend=False))
    # the axes end at the heatmap's edges (points would widen them by a margin), rows going down
    half = (kept[1] - kept[0]) / 2 if len(kept) > 1 else 0.5
    edges = [float(kept[0] - half), float(kept[-1] + half)]
    fig.update_xaxes(range=edges, autorange=False)
    fig.update_yaxes(range=edges[::-1], autorange=False)


def picked_cell(event) -> tuple[int, int] | None:
    """The (m, n) of the cell a click picked, from a chart's selection event (as the client sent it, so
    checked: None unless the first picked point is a finite (n, m) of a pick layer)."""
    try:
        point = event["selection"]["points"][0]
        n, m = float(point["x"]), float(point["y"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if not (math.isfinite(m) and math.isfinite(n)) or m != int(m) or n != int(n):
        return None
    return int(m), int(n)


def mark_cell(scores_fig, profile_fig, m: int, n: int, seq: int, score: float, name: str) -> None:
    """Show the chosen cell (m, n): ringed on the score map with its diagonal (every cell with the same
    m - n) dotted, and on the profile the offset m - n and the cell's own score."""
    offset = m - n
    first, last = max(0, offset), min(seq - 1, seq - 1 + offset)  # the rows the diagonal crosses
    line = {"color": "black", "width": 1.5}
    scores_fig.add_trace(go.Scatter(x=[first - offset, last - offset], y=[first, last], mode="lines",
                                    line={**line, "dash": "dot"}, hoverinfo="skip", showlegend=False))
    scores_fig.add_trace(go.Scatter(x=[n], y=[m], mode="markers", name=name, hoverinfo="skip", showlegend=False,
                                    marker={"symbol": "square-open", "size": 14, "line": line, "color": "black"}))
    profile_fig.add_vline(x=offset, line={**line, "dash": "dot"})
    profile_fig.add_trace(go.Scatter(x=[offset], y=[score], mode="markers", name=name,
                                     marker={"symbol": "square-open", "size": 12, "line": line, "color": "black"}))


def offset_band(profile: dict, *, title: str, y_title: str, mean_name: str, band_name: str):
    """A diagonal_profile (its arrays as numpy) drawn against the offset m - n: the mean of each
    diagonal inside the band from its smallest to its largest entry."""
    return profile_band(profile["offset"], profile["mean"], profile["min"], profile["max"], title=title,
                        x_title=t("common.offset"), y_title=y_title, mean_name=mean_name, band_name=band_name)


def page_header(prefix: str) -> None:
    """The page title and its short introduction, from `<prefix>.title` and `<prefix>.intro` (folded into
    an expander in the presenter view)."""
    st.title(t(f"{prefix}.title"))
    presenter.explain(t(f"{prefix}.intro"))
