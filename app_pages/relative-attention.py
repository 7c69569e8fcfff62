"""Relative attention: RoPE scores depend only on m - n, and moving the whole sequence changes nothing."""

import streamlit as st

import explorer as ui
from explorer.app.glossary import glossary
from explorer.app.place import caption, knob_row, metric_row, named, say, section, sentences
from explorer.app.panels import relative_attention as panel
from explorer.app.tryit import try_buttons
from explorer.pure.views import relative_attention as view

PAGE = "relative_attention"


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

scored = panel.scores(seq, dim, base, same, seed, device)
charts = st.container()  # the charts come first on the screen, but show the cell chosen below them

st.subheader(ui.t("relative_attention.cell_header"))
st.caption(ui.t("relative_attention.cell_text"))
m, n = knob_row(PAGE, "m", "n", m={"hi": seq - 1}, n={"hi": seq - 1})
score = panel.cell(seq, dim, base, same, seed, m, n, device)
sentences(view.cell_reading(scored, seq, m, n, score, same))

scores_fig, profile_fig = panel.score_figures(scored, seq, m, n, score)
with charts:
    ui.charts_side_by_side(scores_fig, "scores", profile_fig, "profile", on_pick_left=pick)
    caption(view.thinned(scored.kept, seq))

section("relative_attention.why")
st.markdown(say(view.content_text(same)))
metric_row(view.score_metrics(scored))

st.subheader(ui.t("relative_attention.shift_header"))
chart_col, text_col = st.columns([3, 2])
with text_col:
    st.markdown(ui.t("relative_attention.shift_text"))
    st.latex(r"A(m+s,\,n+s) = q^\top R_{(n+s)-(m+s)}\, k = q^\top R_{n-m}\, k = A(m,\,n)")
    shift = ui.knob(PAGE, "shift")
    moved = panel.residual(seq, dim, base, same, seed, shift, device)
    metric_row(view.residual_metrics(moved, scored))
with chart_col:
    ui.chart(panel.residual_figure(moved, shift), key="residual")

st.subheader(ui.t("relative_attention.weights_header"))
chart_col, text_col = st.columns([3, 2])
with text_col:
    st.markdown(ui.t("relative_attention.weights_text"))
    causal = ui.knob(PAGE, "causal")
    weighed = panel.weights(seq, dim, base, same, seed, causal, device)
    st.caption(ui.t("relative_attention.weights_caption", top=weighed.top))
with chart_col:
    ui.chart(panel.weights_figure(weighed, causal), key="weights")

glossary("position", "shift", "toeplitz")
ui.questions(PAGE)
