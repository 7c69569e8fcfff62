"""RoPE versus the additive sinusoidal encoding: the table, the four-term split, the shift test,
token lengths and a table of measured differences."""

import streamlit as st

import explorer as ui
from explorer.app import latex as tex
from explorer.app.glossary import glossary
from explorer.app.place import knob_row, metric_row, section, table
from explorer.app.panels import rope_vs_sinusoidal as panel
from explorer.app.tryit import try_buttons
from explorer.pure.views import rope_vs_sinusoidal as view
from rope_viz.device import describe

PAGE = "rope_vs_sinusoidal"

# the first screen: the title, the knobs in one row and the sinusoidal table beside its dot products by
# offset; the introduction, the two formulas and the table's explanation follow the charts
st.title(ui.t(f"{PAGE}.title"))
seq, dim, base, seed = knob_row(PAGE, "seq", "dim", "base", "seed")
try_buttons(PAGE, {"far": {"shift": 1000}, "long": {"seq": 1024}, "big": {"base": 500000.0}})
device = ui.device()

st.subheader(ui.t("rope_vs_sinusoidal.table_header"))
pe = panel.encoding_table(seq, dim, base, str(device))
table_fig, band_fig = panel.table(seq, dim, base, str(device))
ui.charts_side_by_side(table_fig, "table", band_fig, "pe_dot")
ui.explain(ui.t(f"{PAGE}.intro"))
st.latex(tex.label("rope_vs_sinusoidal.latex_rope") + r"\ (R_m q_m)^\top (R_n k_n) = q_m^\top R_{n-m}\, k_n \qquad "
         + tex.label("rope_vs_sinusoidal.latex_sinusoidal") + r"\ (x_m + p_m)\, W_q W_k^\top (x_n + p_n)^\top")
st.markdown(ui.t("rope_vs_sinusoidal.table_text"))
st.latex(r"p_m = \big(\sin m\theta_0,\ \cos m\theta_0,\ \dots\big),\qquad "
         r"p_m \cdot p_n = \sum_t \cos\big((m-n)\,\theta_t\big)")
metric_row(view.table_metrics(pe))

section("rope_vs_sinusoidal.terms")
st.latex(
    r"(x_m + p_m) W_q W_k^\top (x_n + p_n)^\top = "
    r"\underbrace{x_m W x_n^\top}_{" + tex.label("rope_vs_sinusoidal.term_content_content") + r"} + "
    r"\underbrace{x_m W p_n^\top}_{" + tex.label("rope_vs_sinusoidal.term_content_position") + r"}"
    r" + \underbrace{p_m W x_n^\top}_{" + tex.label("rope_vs_sinusoidal.term_position_content") + r"} + "
    r"\underbrace{p_m W p_n^\top}_{"
    + tex.label("rope_vs_sinusoidal.term_position_position")
    + r"},\quad W = W_q W_k^\top"
)
split = panel.terms(seq, dim, base, seed, str(device))
ui.chart(panel.term_maps(seq, dim, base, seed, str(device)), key="terms")
metric_row(view.term_metrics(split))
st.caption(ui.t("rope_vs_sinusoidal.deviation_caption", largest=split.largest))

section("rope_vs_sinusoidal.shift")
cols = st.columns([2, 1, 1])
shift = ui.knob(PAGE, "shift", where=cols[0])
moved = panel.residuals(seq, dim, base, seed, shift, str(device))
metric_row(view.residual_metrics(moved), columns=cols[1:])
ui.chart(panel.shift_maps(seq, dim, base, seed, shift, str(device)), key="shift")

section("rope_vs_sinusoidal.norm")
lengths = panel.norms(seq, dim, base, seed, str(device))
ui.chart(panel.norm_lines(seq, dim, base, seed, str(device)), key="norms")

st.subheader(ui.t("rope_vs_sinusoidal.compare_header"))
st.markdown(ui.t("rope_vs_sinusoidal.compare_text", device=describe(device)))
with st.spinner(ui.t("rope_vs_sinusoidal.measuring")):
    cost = panel.cost_per_token(dim, base, str(device))
table(view.compare_table(moved, split, lengths, cost, shift, dim))

glossary("position", "shift", "toeplitz")
ui.questions(PAGE)
