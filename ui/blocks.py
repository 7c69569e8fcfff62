"""Building blocks that several pages share: a chart beside its notes, two charts side by side, and the
axes and bands of position-by-position score charts."""

from __future__ import annotations

import streamlit as st

from rope_viz.figures import profile_band

from .state import chart, t


def chart_beside(fig, key: str, widths: tuple = (3, 2)):
    """Draw `fig` in a wide left column and return the right column, for `with` blocks of notes or metrics."""
    left, right = st.columns(list(widths))
    with left:
        chart(fig, key=key)
    return right


def charts_side_by_side(left_fig, left_key: str, right_fig, right_key: str) -> None:
    """Two charts in two equal columns."""
    left, right = st.columns(2)
    with left:
        chart(left_fig, key=left_key)
    with right:
        chart(right_fig, key=right_key)


def position_axes(kept) -> dict:
    """Heatmap axes of a query-by-key matrix, labelled with the original positions of the rows and
    columns drawn (`kept`, from rope_viz.sampling.downsample)."""
    return dict(x=kept, y=kept, x_title=t("common.key_position"), y_title=t("common.query_position"))


def offset_band(profile: dict, *, title: str, y_title: str, mean_name: str, band_name: str):
    """A diagonal_profile (its arrays as numpy) drawn against the offset m - n: the mean of each
    diagonal inside the band from its smallest to its largest entry."""
    return profile_band(profile["offset"], profile["mean"], profile["min"], profile["max"], title=title,
                        x_title=t("common.offset"), y_title=y_title, mean_name=mean_name, band_name=band_name)
