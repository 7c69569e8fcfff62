"""Relative attention: RoPE scores depend only on m - n, and moving the whole sequence changes nothing."""

import numpy as np
import streamlit as st

import ui
from rope_viz import (
    attention_weights,
    diagonal_profile,
    dot_product_scale,
    encoded_scores,
    random_attention_inputs,
    shift_residual,
    to_numpy,
    toeplitz_deviation,
)
from rope_viz.figures import heatmap, heatmap_grid
from rope_viz.sampling import downsample
from ui import blocks, controls

PAGE = "relative"
DRAW_SIDE = 256  # heatmaps draw at most this many rows and columns; statistics use the full matrix
WEIGHT_COLOUR_QUANTILE = 0.995  # weights above this quantile share the brightest colour


def inputs(seq: int, dim: int, same: bool, seed: int):
    """Tokens x and projections W_q, W_k on the compute device."""
    return random_attention_inputs(seq, dim, same=same, seed=seed, device=ui.device())


@ui.cached
def score_view(seq: int, dim: int, base: float, same: bool, seed: int):
    """The scores thinned for drawing, their profile along m - n, and full-size statistics."""
    scores = encoded_scores(*inputs(seq, dim, same, seed), base=base)
    drawn, kept, _ = downsample(scores, DRAW_SIDE)
    profile = {name: to_numpy(values) for name, values in diagonal_profile(scores).items()}
    return drawn, kept, profile, toeplitz_deviation(scores), float(scores.abs().max())


@ui.cached
def shift_view(seq: int, dim: int, base: float, same: bool, seed: int, shift: int):
    residual = shift_residual(*inputs(seq, dim, same, seed), shift, base=base)
    drawn, kept, _ = downsample(residual, DRAW_SIDE)
    return drawn, kept, float(residual.max())


@ui.cached
def weights_view(seq: int, dim: int, base: float, same: bool, seed: int, causal: bool):
    """The softmax weights thinned for drawing, and the top of their colour scale (a high
    quantile: the first rows of a causal matrix hold weights near 1 that would wash out the rest)."""
    scores = encoded_scores(*inputs(seq, dim, same, seed), base=base)
    drawn, kept, _ = downsample(attention_weights(scores, causal=causal, scale=dot_product_scale(dim)), DRAW_SIDE)
    return drawn, kept, float(np.quantile(drawn, WEIGHT_COLOUR_QUANTILE))


@ui.cached
def score_figures(seq: int, dim: int, base: float, same: bool, seed: int, lang: str):
    drawn, kept, profile, _, _ = score_view(seq, dim, base, same, seed)
    scores = heatmap(drawn, title=ui.t("relative.scores_title"), colorbar_title=ui.t("relative.score_bar"),
                     **blocks.position_axes(kept))
    band = blocks.offset_band(profile, title=ui.t("relative.profile_title"), y_title=ui.t("common.score"),
                              mean_name=ui.t("relative.profile_mean"), band_name=ui.t("relative.profile_band"))
    return scores, band


@ui.cached
def residual_figure(seq: int, dim: int, base: float, same: bool, seed: int, shift: int, lang: str):
    drawn, kept, _ = shift_view(seq, dim, base, same, seed, shift)
    return heatmap(drawn, title=ui.t("relative.residual_title", k=shift), colorscale="Viridis", zmid=None,
                   colorbar_title=ui.t("relative.residual_bar"), **blocks.position_axes(kept))


@ui.cached
def weights_figure(seq: int, dim: int, base: float, same: bool, seed: int, causal: bool, lang: str):
    drawn, kept, top = weights_view(seq, dim, base, same, seed, causal)
    title = ui.t("relative.weights_title_causal" if causal else "relative.weights_title")
    return heatmap_grid({"": drawn}, columns=1, title=title, colorscale="Viridis", zmid=None, zmin=0.0, zmax=top,
                        colorbar_title=ui.t("relative.weight_bar"), height=440, **blocks.position_axes(kept))


ui.page_header(PAGE)
st.latex(r"(R_m q)^\top (R_n k) = q^\top R_m^\top R_n\, k = q^\top R_{n-m}\, k")

cols = st.columns(5)
seq = ui.knob(PAGE, ui.IntKnob("seq", 128, 8, 2048, 8), ui.t("relative.seq"), help=ui.t("relative.seq_help"),
              where=cols[0])
dim = controls.head_dim(PAGE, where=cols[1])
base = controls.base(PAGE, where=cols[2])
content = ui.knob(PAGE, ui.ChoiceKnob("content", "same", ("same", "random")), ui.t("relative.content"),
                  help=ui.t("relative.content_help"), where=cols[3],
                  format_func=lambda v: ui.t(f"relative.content_{v}"))
seed = controls.seed(PAGE, where=cols[4])
same = content == "same"

_, kept, _, deviation, largest = score_view(seq, dim, base, same, seed)
scores_fig, profile_fig = score_figures(seq, dim, base, same, seed, ui.lang())
blocks.charts_side_by_side(scores_fig, "scores", profile_fig, "profile")
if len(kept) < seq:
    st.caption(ui.t("relative.thinned", s=int(kept[1]), s2=int(kept[2]), n=seq))

st.subheader(ui.t("relative.why_header"))
st.markdown(ui.t("relative.why_text"))
st.markdown(ui.t("relative.same_text" if same else "relative.random_text"))
cols = st.columns(2)
cols[0].metric(ui.t("relative.deviation"), f"{deviation:.3g}")
cols[1].metric(ui.t("relative.largest"), f"{largest:.3g}")

st.subheader(ui.t("relative.shift_header"))
chart_col, text_col = st.columns([3, 2])
with text_col:
    st.markdown(ui.t("relative.shift_text"))
    st.latex(r"A(m+k,\,n+k) = q_m^\top R_{n-m}\, k_n = A(m,\,n)")
    shift = ui.knob(PAGE, ui.IntKnob("shift", 100, 0, 4096, 1), ui.t("relative.shift"),
                    help=ui.t("relative.shift_help"))
    max_residual = shift_view(seq, dim, base, same, seed, shift)[2]
    cols = st.columns(2)
    cols[0].metric(ui.t("relative.max_residual"), f"{max_residual:.2e}")
    cols[1].metric(ui.t("relative.relative_residual"), f"{max_residual / largest:.1e}")
with chart_col:
    ui.chart(residual_figure(seq, dim, base, same, seed, shift, ui.lang()), key="residual")

st.subheader(ui.t("relative.weights_header"))
chart_col, text_col = st.columns([3, 2])
with text_col:
    st.markdown(ui.t("relative.weights_text"))
    causal = ui.knob(PAGE, ui.BoolKnob("causal", False), ui.t("relative.causal"), help=ui.t("relative.causal_help"))
    st.caption(ui.t("relative.weights_caption", top=weights_view(seq, dim, base, same, seed, causal)[2]))
with chart_col:
    ui.chart(weights_figure(seq, dim, base, same, seed, causal, ui.lang()), key="weights")
