"""How RoPE is computed: one rotation worked by hand, three equal formulas and their cost, the two
pair layouts, partial rotary, and why the values are left alone."""

import numpy as np
import pandas as pd
import streamlit as st

import explorer as ui
from explorer.glossary import glossary
from explorer import latex as tex
from explorer.tryit import try_buttons
from explorer.views import implementation as view
from rope_viz import METHODS, describe
from explorer.figures import bar_chart, heatmap, line_chart, plane_vectors, series_bars

ui.enter()
PAGE = "implementation"
method_gaps = ui.cached(view.batch_method_gaps)
method_microseconds = ui.cached(view.batch_method_microseconds, max_entries=32)
layout_gaps = ui.cached(view.batch_layout_gaps)
pair_owners = ui.cached(view.pair_owners)
partial_change = ui.cached(view.partial_change)
value_gaps = ui.cached(view.value_shift_gaps)


def number(value: float, spec: str = ".5f") -> str:
    """A value for the hand calculation (five decimals by default), in brackets when negative."""
    return f"({value:{spec}})" if value < 0 else f"{value:{spec}}"


def worked_latex(r: view.WorkedRotation, theta: float, m: int) -> str:
    (a, b), (c, d) = r.matrix
    rows = [rf"m\theta &= {m} \times {theta:g} = {r.angle:.5f}\ " + tex.label("implementation.latex_rad"),
            rf"\cos m\theta &= {r.cos:.5f},\qquad \sin m\theta = {r.sin:.5f}",
            rf"R_m &= \begin{{pmatrix}} {a:.5f} & {b:.5f} \\ {c:.5f} & {d:.5f} \end{{pmatrix}}"]
    for i, (row, terms) in enumerate(zip(r.matrix, r.terms), start=1):
        products = " + ".join(rf"{number(entry)} \times {number(q, 'g')}" for entry, q in zip(row, r.q))
        sums = " + ".join(number(term) for term in terms)
        rows.append(rf"q'_{i} &= R_{{{i}1}} q_1 + R_{{{i}2}} q_2 = {products}")
        rows.append(rf"&= {sums} = {r.result[i - 1]:.5f}")
    rows.append(rf"|q| &= {r.norm_before:.5f} \ \longrightarrow\ |q'| = {r.norm_after:.5f}")
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def method_name(method: str) -> str:
    return ui.t(f"implementation.method_{method}")


ui.page_header(PAGE)

# 1. One rotation by hand
st.subheader(ui.t("implementation.worked_header"))
cols = st.columns(4)
q1 = ui.knob(PAGE, "q1", where=cols[0])
q2 = ui.knob(PAGE, "q2", where=cols[1])
theta = ui.knob(PAGE, "theta", where=cols[2])
m = ui.knob(PAGE, "m", where=cols[3])
try_buttons(PAGE, {"half": {"theta": 3.142, "m": 1}, "many": {"theta": 0.5, "m": 64}, "far": {"shift": 1000}})
rot = view.worked_rotation(q1, q2, theta, m)
left, right = st.columns([3, 2])
with left:
    st.latex(worked_latex(rot, theta, m))
with right:
    ui.chart(plane_vectors([(ui.t("implementation.worked_before"), *rot.q),
                            (ui.t("implementation.worked_after", m=m), *rot.result)],
                           title=ui.t("implementation.worked_plot_title", angle=rot.angle),
                           x_title=ui.t("implementation.first_coord"), y_title=ui.t("implementation.second_coord")),
             key="worked")
st.markdown(ui.t("implementation.worked_text"))  # after the worked example it describes: the chart stays on the first screen
metric_cols = st.columns(4)
for col, key, value in zip(metric_cols, ("result_first", "result_second", "norm_before", "norm_after"),
                           (*rot.result, rot.norm_before, rot.norm_after)):
    col.metric(ui.t(f"implementation.{key}"), f"{value:.5f}")
note = view.check_printed_result()
st.info(ui.t("implementation.note_typo", x=note.printed[0], y=note.printed[1], norm=note.true_norm,
             printed_norm=note.printed_norm, rounded=note.with_rounded_table[1]), icon="📝")

# 2. Three forms, one result, different costs
st.subheader(ui.t("implementation.forms_header"))
st.markdown(ui.t("implementation.forms_text"))
for form, latex in zip(("matrix", "pairs", "complex"), (
        r"q'_m = R_{\Theta,m}\,q,\qquad R_{\Theta,m} = \operatorname{diag}\big(R(m\theta_0), \dots, "
        r"R(m\theta_{d/2-1})\big)",
        r"q'_m = q \odot \cos(m\boldsymbol\theta) + \tilde q \odot \sin(m\boldsymbol\theta),\qquad "
        r"\tilde q = (-q_1, q_0, -q_3, q_2, \dots)",
        r"z_i = q_{2i} + \mathrm{i}\,q_{2i+1},\qquad z'_i = z_i\, e^{\mathrm{i}\, m\theta_i}")):
    name_col, formula_col = st.columns([1, 3], vertical_alignment="center")
    name_col.markdown(f"**{method_name(form)}**  \n{ui.t(f'implementation.cost_{form}')}")
    formula_col.latex(latex)

st.markdown(ui.t("implementation.batch_text"))
cols = st.columns(3)
seq = ui.knob(PAGE, "seq", where=cols[0])
dim = ui.knob(PAGE, "dim", where=cols[1])
seed = ui.knob(PAGE, "seed", where=cols[2])
device = str(ui.device())
methods = METHODS
try:
    gaps = method_gaps(seq, dim, seed, device, methods)
except ValueError:
    ui.notice(ui.t("implementation.matrix_too_large"))
    methods = tuple(method for method in METHODS if method != "matrix")
    gaps = method_gaps(seq, dim, seed, device, methods)
with st.spinner(ui.t("implementation.timing_spinner", methods=len(methods))):
    micro = method_microseconds(seq, dim, device, methods)

labels = [method_name(method) for method in methods]
costs = bar_chart(labels, micro, title=ui.t("implementation.cost_title", seq=seq, dim=dim),
                  x_title=ui.t("implementation.method_axis"), y_title=ui.t("implementation.time_axis"),
                  log_y=True, text=[f"{v:,.1f} µs" for v in micro])
with ui.chart_beside(costs, key="costs"):
    fastest = float(micro.min())
    st.table(pd.DataFrame({
        ui.t("implementation.col_method"): labels,
        ui.t("implementation.col_time"): [f"{v:,.1f}" for v in micro],
        ui.t("implementation.col_relative"): [f"{v / fastest:,.1f}×" for v in micro],
    }))
    st.table(pd.DataFrame({
        ui.t("implementation.col_pair"): [f"{method_name(a)} ↔ {method_name(b)}" for a, b in gaps],
        ui.t("implementation.col_gap"): [f"{g:.1e}" for g in gaps.values()],
    }))
st.caption(ui.t("implementation.timing_caption", device=describe(ui.device()), seq=seq, dim=dim,
                gap=max(gaps.values())))

# 3. Two layouts, one model
st.subheader(ui.t("implementation.layout_header"))
st.markdown(ui.t("implementation.layout_text"))
st.latex(r"\begin{gathered}p = (0, 2, 4, \dots, d-2,\ 1, 3, \dots, d-1),\qquad "
         r"W_q' = W_q[:, p],\quad W_k' = W_k[:, p] \\ "
         + tex.label("implementation.latex_scores") + "_{" + tex.label("implementation.latex_half") + r"}(W_q', W_k') = "
         + tex.label("implementation.latex_scores") + "_{" + tex.label("implementation.latex_interleaved") + r"}(W_q, W_k)"
         r"\end{gathered}")
layout_result = layout_gaps(seq, dim, seed, device)
cols = st.columns(3)
for col, name in zip(cols, ("rotated", "scores_same_weights", "scores_permuted_weights")):
    col.metric(ui.t(f"implementation.gap_{name}"), f"{layout_result[name]:.2e}",
               help=ui.t(f"implementation.gap_{name}_help"))
layouts = [ui.t(f"common.layout_{layout}") for layout in view.LAYOUTS]
ui.chart(heatmap(pair_owners(dim), x=np.arange(dim), y=layouts,
                 title=ui.t("implementation.pairs_title"), x_title=ui.t("implementation.coordinate_axis"),
                 y_title=ui.t("implementation.layout_axis"), colorscale="Viridis", zmid=None,
                 colorbar_title=ui.t("implementation.pair_colorbar"), height=260), key="pairs")

# 4. Partial rotary
st.subheader(ui.t("implementation.partial_header"))
st.markdown(ui.t("implementation.partial_text"))
st.latex(r"x' = \big(R_{\Theta,m}\, x_{0:r},\ x_{r:d}\big)")
cols = st.columns(2)
rotary_dim = ui.knob(PAGE, "rotary_dim", where=cols[0], hi=dim, default=max(2, dim // 4 * 2))
position = ui.knob(PAGE, "pos", where=cols[1])
change = partial_change(dim, seed, position, rotary_dim)
coords = np.arange(dim)
ui.chart(series_bars({ui.t("implementation.rotated_series", r=rotary_dim): (coords[:rotary_dim], change[:rotary_dim]),
                      ui.t("implementation.passed_series"): (coords[rotary_dim:], change[rotary_dim:])},
                     title=ui.t("implementation.partial_title", r=rotary_dim, d=dim, m=position),
                     x_title=ui.t("implementation.coordinate_axis"), y_title=ui.t("implementation.change_axis")),
         key="partial")
st.caption(ui.t("implementation.partial_caption", r=rotary_dim, d=dim, rest=dim - rotary_dim))

# 5. Why V is not rotated
st.subheader(ui.t("implementation.value_header"))
st.markdown(ui.t("implementation.value_text"))
st.latex(r"o_m = \sum_n a_{mn}\, v_n,\qquad a_{mn} = \operatorname{softmax}_n\!\Big("
         r"\tfrac{q_m^\top R_{\Theta,n-m}\, k_n}{\sqrt d}\Big)")
st.latex(tex.label("implementation.latex_v_rotated") + r"\ \ o_m = \sum_n a_{mn}\, R_{\Theta,n}\, v_n,\qquad "
         + tex.label("implementation.latex_rotated_back") + r"\ \ R_{\Theta,-m}\, o_m = \sum_n a_{mn}\, R_{\Theta,n-m}\, v_n")
shift = ui.knob(PAGE, "shift")
value_result = value_gaps(seq, dim, seed, shift, device)
cols = st.columns(3)
for col, name in zip(cols, view.VALUE_VARIANTS):
    col.metric(ui.t(f"implementation.value_{name}"), f"{float(value_result[name].max()):.2e}")
ui.chart(line_chart(np.arange(seq), {ui.t(f"implementation.value_{name}"): value_result[name]
                                     for name in view.VALUE_VARIANTS},
                    title=ui.t("implementation.value_title", shift=shift), x_title=ui.t("implementation.query_axis"),
                    y_title=ui.t("implementation.output_gap_axis"),
                    dashed=(ui.t("implementation.value_rotated_back"),)), key="values")
st.markdown(ui.t("implementation.value_takeaway"))

glossary("pair", "layout", "shift")
ui.questions(PAGE, q1=q1, q2=q2, theta=theta, m=m)
