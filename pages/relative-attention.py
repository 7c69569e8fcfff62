"""Relative attention: RoPE scores depend only on m - n, and moving the whole sequence changes nothing."""

import streamlit as st

import explorer as ui
from explorer.pure.figures import heatmap, heatmap_grid, mark_cell, pick_layer
from explorer.app.glossary import glossary
from explorer.app.layout import caption, knob_row, metric_row, named, say, section, sentences
from explorer.app.tryit import try_buttons
from explorer.pure.views import relative_attention as view

ui.enter()
PAGE = "relative_attention"
scores = ui.cached(view.scores)
residual = ui.cached(view.residual)
weights = ui.cached(view.weights)
cell = ui.cached(view.cell)


def pick(event) -> None:
    """A click on the score map chooses its cell (m, n)."""
    chosen = ui.picked_cell(event)
    if chosen is not None:
        ui.set_knobs(PAGE, dict(zip(("m", "n"), chosen)))


ui.page_header(PAGE)
# the charts plot against the offset m − n: the formula names that one variable too
st.latex(r"(R_m q)^\top (R_n k) = q^\top R_m^\top R_n\, k = q^\top R_{n-m}\, k = g_{q,k}(m - n)")

seq, dim, base, content, seed = knob_row(PAGE, "seq", "dim", "base", "content", "seed",
                                         content={"format_func": named("relative_attention.content_")})
try_buttons(PAGE, {"far": {"shift": 1000}, "random": {"content": "random"}, "big": {"base": 500000.0}})
same = content == "same"
device = str(ui.device())

scored = scores(seq, dim, base, same, seed, device)
kept = scored["kept"]
charts = st.container()  # the charts come first on the screen, but show the cell chosen below them

st.subheader(ui.t("relative_attention.cell_header"))
st.caption(ui.t("relative_attention.cell_text"))
m, n = knob_row(PAGE, "m", "n", m={"hi": seq - 1}, n={"hi": seq - 1})
score = cell(seq, dim, base, same, seed, m, n, device)
sentences(view.cell_reading(scored, seq, m, n, score, same))

scores_fig = heatmap(
    scored["drawn"],
    title=ui.t("relative_attention.scores_title"),
    colorbar_title=ui.t("relative_attention.score_bar"),
    **ui.position_axes(kept),
)
pick_layer(scores_fig, kept, scored["drawn"], ui.t("relative_attention.pick_hover"))
profile_fig = ui.offset_band(
    scored["profile"],
    title=ui.t("relative_attention.profile_title"),
    y_title=ui.t("common.score"),
    mean_name=ui.t("relative_attention.profile_mean"),
    band_name=ui.t("relative_attention.profile_band"),
)
mark_cell(scores_fig, profile_fig, m, n, seq, score, ui.t("relative_attention.cell_name"))
with charts:
    ui.charts_side_by_side(scores_fig, "scores", profile_fig, "profile", on_pick_left=pick)
    caption(view.thinned(kept, seq))

section("relative_attention.why")
st.markdown(say(view.content_text(same)))
metric_row(view.score_metrics(scored))

st.subheader(ui.t("relative_attention.shift_header"))
chart_col, text_col = st.columns([3, 2])
with text_col:
    st.markdown(ui.t("relative_attention.shift_text"))
    st.latex(r"A(m+s,\,n+s) = q^\top R_{(n+s)-(m+s)}\, k = q^\top R_{n-m}\, k = A(m,\,n)")
    shift = ui.knob(PAGE, "shift")
    moved = residual(seq, dim, base, same, seed, shift, device)
    metric_row(view.residual_metrics(moved, scored))
with chart_col:
    ui.chart(
        heatmap(
            moved["drawn"],
            title=ui.t("relative_attention.residual_title", s=shift),
            colorscale="Viridis",
            zmid=None,
            colorbar_title=ui.t("relative_attention.residual_bar"),
            **ui.position_axes(moved["kept"]),
        ),
        key="residual",
    )

st.subheader(ui.t("relative_attention.weights_header"))
chart_col, text_col = st.columns([3, 2])
with text_col:
    st.markdown(ui.t("relative_attention.weights_text"))
    causal = ui.knob(PAGE, "causal")
    weighed = weights(seq, dim, base, same, seed, causal, device)
    st.caption(ui.t("relative_attention.weights_caption", top=weighed["top"]))
with chart_col:
    ui.chart(heatmap_grid({"": weighed["drawn"]}, columns=1,
                          title=say(view.weights_title(causal)),
                          colorscale="Viridis", zmid=None, zmin=0.0, zmax=weighed["top"],
                          colorbar_title=ui.t("relative_attention.weight_bar"), height=440,
                          **ui.position_axes(weighed["kept"])), key="weights")

glossary("position", "shift", "toeplitz")
ui.questions(PAGE)
