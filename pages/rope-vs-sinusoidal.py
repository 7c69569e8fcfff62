"""RoPE versus the additive sinusoidal encoding: the table, the four-term split, the shift test,
token lengths and a table of measured differences."""

import streamlit as st

import explorer as ui
from explorer.glossary import glossary
from explorer import latex as tex
from explorer.tryit import try_buttons
from explorer.views import versus as view
from rope_viz import describe
from explorer.figures import heatmap, heatmap_grid, line_chart
from explorer.safe_text import AppText

ui.enter()
PAGE = "versus"
table = ui.cached(view.table)
terms = ui.cached(view.terms)
residuals = ui.cached(view.residuals)
norms = ui.cached(view.norms)
cost_per_token = ui.cached(view.cost_per_token)
FORMULAS = {name: AppText(formula) for name, formula in {  # the four terms, for a chart title (W = W_q W_k^T)
    "content_content": "x W x<sup>T</sup>",
    "content_position": "x W p<sub>n</sub><sup>T</sup>",
    "position_content": "p<sub>m</sub> W x<sup>T</sup>",
    "position_position": "p<sub>m</sub> W p<sub>n</sub><sup>T</sup>",
}.items()}  # the app's own markup: filled into sentences as it is (explorer.safe_text)

# the first screen: the title, the knobs in one row and the sinusoidal table beside its dot products by
# offset; the introduction, the two formulas and the table's explanation follow the charts
st.title(ui.t(f"{PAGE}.title"))
cols = st.columns(4)
seq = ui.knob(PAGE, "seq", where=cols[0])
dim = ui.knob(PAGE, "dim", where=cols[1])
base = ui.knob(PAGE, "base", where=cols[2], format_func=ui.format_base)
seed = ui.knob(PAGE, "seed", where=cols[3])
try_buttons(PAGE, {"far": {"shift": 1000}, "long": {"seq": 1024}, "big": {"base": 500000.0}})
device = ui.device()

st.subheader(ui.t("versus.table_header"))
pe = table(seq, dim, base, str(device))
table_fig = heatmap(pe["drawn"], x=pe["cols"], y=pe["rows"], title=ui.t("versus.pe_title"),
                    x_title=ui.t("versus.dim_axis"), y_title=ui.t("common.position"),
                    colorbar_title=ui.t("versus.pe_bar"))
band_fig = ui.offset_band(pe["profile"], title=ui.t("versus.pe_dot_title"), y_title=ui.t("versus.pe_dot_axis"),
                          mean_name=ui.t("versus.mean"), band_name=ui.t("versus.band"))
ui.charts_side_by_side(table_fig, "table", band_fig, "pe_dot")
ui.explain(ui.t(f"{PAGE}.intro"))
st.latex(tex.label("versus.latex_rope") + r"\ (R_m q_m)^\top (R_n k_n) = q_m^\top R_{n-m}\, k_n \qquad "
         + tex.label("versus.latex_sinusoidal") + r"\ (x_m + p_m)\, W_q W_k^\top (x_n + p_n)^\top")
st.markdown(ui.t("versus.table_text"))
st.latex(r"p_m = \big(\sin m\theta_0,\ \cos m\theta_0,\ \dots\big),\qquad "
         r"p_m \cdot p_n = \sum_t \cos\big((m-n)\,\theta_t\big)")
cols = st.columns(2)
cols[0].metric(ui.t("versus.pe_deviation"), f"{pe['deviation']:.2e}")
cols[1].metric(ui.t("versus.pe_largest"), f"{pe['largest']:.4g}")

st.subheader(ui.t("versus.terms_header"))
st.markdown(ui.t("versus.terms_text"))
st.latex(r"(x_m + p_m) W_q W_k^\top (x_n + p_n)^\top = "
         r"\underbrace{x_m W x_n^\top}_{" + tex.label("versus.term_content_content") + r"} + "
         r"\underbrace{x_m W p_n^\top}_{" + tex.label("versus.term_content_position") + r"}"
         r" + \underbrace{p_m W x_n^\top}_{" + tex.label("versus.term_position_content") + r"} + "
         r"\underbrace{p_m W p_n^\top}_{" + tex.label("versus.term_position_position") + r"},\quad W = W_q W_k^\top")
split = terms(seq, dim, base, seed, str(device))
panels = {ui.t("versus.panel", term=ui.t(f"versus.term_{name}"), formula=FORMULAS[name]): split["drawn"][name]
          for name in view.TERMS}
ui.chart(heatmap_grid(panels, title=ui.t("versus.terms_title"), colorbar_title=ui.t("versus.logit_bar"),
                      **ui.position_axes(split["kept"])), key="terms")
cols = st.columns(4)
for col, name in zip(cols, view.TERMS):
    col.metric(ui.t(f"versus.term_{name}"), f"{split['term_deviation'][name]:.3g}", help=ui.t("versus.term_deviation"))
st.caption(ui.t("versus.deviation_caption", largest=split["largest"]))

st.subheader(ui.t("versus.shift_header"))
st.markdown(ui.t("versus.shift_text"))
cols = st.columns([2, 1, 1])
shift = ui.knob(PAGE, "shift", where=cols[0])
moved = residuals(seq, dim, base, seed, shift, str(device))
for col, enc in zip(cols[1:], view.ENCODINGS):
    col.metric(ui.t("versus.residual_metric", name=ui.t(f"versus.{enc}_panel")), f"{moved['largest'][enc]:.3g}")
ui.chart(heatmap_grid({ui.t(f"versus.{enc}_panel"): moved["drawn"][enc] for enc in view.ENCODINGS},
                      title=ui.t("versus.shift_title", k=shift), colorbar_title=ui.t("versus.residual_bar"),
                      colorscale="Viridis", zmid=None, zmin=0.0, **ui.position_axes(moved["kept"])), key="shift")

st.subheader(ui.t("versus.norm_header"))
st.markdown(ui.t("versus.norm_text"))
lengths = norms(seq, dim, base, seed, str(device))
names = {enc: ui.t(f"versus.norm_{enc}") for enc in lengths["lengths"]}
ui.chart(line_chart(list(range(seq)), {names[enc]: lengths["lengths"][enc] for enc in ("sinusoidal", "rope", "none")},
                    title=ui.t("versus.norm_title"), x_title=ui.t("common.position"),
                    y_title=ui.t("versus.norm_axis"), dashed=(names["none"],)), key="norms")

st.subheader(ui.t("versus.compare_header"))
st.markdown(ui.t("versus.compare_text", device=describe(device)))
with st.spinner(ui.t("versus.measuring")):
    cost = cost_per_token(dim, base, str(device))
rows = [
    (ui.t("versus.row_shift", k=shift), {enc: f"{moved['largest'][enc]:.3g}" for enc in view.ENCODINGS}),
    (ui.t("versus.row_deviation"), {enc: f"{split['logit_deviation'][enc]:.3g}" for enc in view.ENCODINGS}),
    (ui.t("versus.row_relative"), {enc: ui.t("common.yes" if split["relative_only"][enc] else "common.no")
                                   for enc in view.ENCODINGS}),
    (ui.t("versus.row_norm"), {enc: f"{lengths['change'][enc]:.3g}" for enc in view.ENCODINGS}),
    (ui.t("versus.row_cost", d=dim, tokens=view.COST_TOKENS), {enc: ui.t("versus.ns", value=cost[enc])
                                                               for enc in view.ENCODINGS}),
]
st.table([{ui.t("versus.col_measure"): label, ui.t("versus.col_rope"): cells["rope"],
           ui.t("versus.col_sinusoidal"): cells["sinusoidal"]} for label, cells in rows])

glossary("position", "shift", "toeplitz")
ui.questions(PAGE)
