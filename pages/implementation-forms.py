"""How RoPE is computed: one rotation worked by hand, three equal formulas and their cost, the two
pair layouts, partial rotary, and why the values are left alone."""

import streamlit as st

import explorer as ui
from explorer import latex as tex
from explorer.figures import bar_chart, heatmap, line_chart, plane_vectors, series_bars
from explorer.glossary import glossary
from explorer.layout import knob_row, metric_row, named, say, section, table
from explorer.tryit import try_buttons
from explorer.views import implementation as view
from rope_viz import describe

ui.enter()
PAGE = "implementation"
method_gaps = ui.cached(view.affordable_method_gaps)
method_microseconds = ui.cached(view.batch_method_microseconds, max_entries=32)
layout_gaps = ui.cached(view.batch_layout_gaps)
pair_map = ui.cached(view.pair_map)
partial_split = ui.cached(view.partial_split)
value_lines = ui.cached(view.value_lines)
method_name = named("implementation.method_")

ui.page_header(PAGE)

# 1. One rotation by hand
st.subheader(ui.t("implementation.worked_header"))
q1, q2, theta, m = knob_row(PAGE, "q1", "q2", "theta", "m")
try_buttons(PAGE, {"half": {"theta": 3.142, "m": 1}, "many": {"theta": 0.5, "m": 64}, "far": {"shift": 1000}})
rot = view.worked_rotation(q1, q2, theta, m)
left, right = st.columns([3, 2])
with left:
    st.latex(view.worked_latex(rot, theta, m, tex.label("implementation.latex_rad")))
with right:
    ui.chart(plane_vectors([(ui.t("implementation.worked_before"), *rot.q),
                            (ui.t("implementation.worked_after", m=m), *rot.result)],
                           title=ui.t("implementation.worked_plot_title", angle=rot.angle),
                           x_title=ui.t("implementation.first_coord"), y_title=ui.t("implementation.second_coord")),
             key="worked")
# after the worked example it describes: the chart stays on the first screen
st.markdown(ui.t("implementation.worked_text"))
metric_row(view.worked_metrics(rot))
st.info(say(view.printed_note()), icon="📝")

# 2. Three forms, one result, different costs
section("implementation.forms")
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
seq, dim, seed = knob_row(PAGE, "seq", "dim", "seed")
device = str(ui.device())
compared = method_gaps(seq, dim, seed, device)
methods, gaps = compared["methods"], compared["gaps"]
if compared["dropped"]:
    ui.notice(ui.t("implementation.matrix_too_large"))
with st.spinner(ui.t("implementation.timing_spinner", methods=len(methods))):
    micro = method_microseconds(seq, dim, device, methods)
costs = bar_chart([method_name(method) for method in methods], micro,
                  title=ui.t("implementation.cost_title", seq=seq, dim=dim),
                  x_title=ui.t("implementation.method_axis"), y_title=ui.t("implementation.time_axis"),
                  log_y=True, text=[f"{v:,.1f} µs" for v in micro])
with ui.chart_beside(costs, key="costs"):
    table(view.cost_table(methods, micro))
    table(view.gap_table(gaps))
st.caption(ui.t("implementation.timing_caption", device=describe(ui.device()), seq=seq, dim=dim,
                gap=say(view.gap_sentence(max(gaps.values())))))

# 3. Two layouts, one model
section("implementation.layout")
scores = tex.label("implementation.latex_scores")
st.latex(r"\begin{gathered}p = (0, 2, 4, \dots, d-2,\ 1, 3, \dots, d-1),\qquad "
         r"W_q' = W_q[:, p],\quad W_k' = W_k[:, p] \\ "
         + scores + "_{" + tex.label("implementation.latex_half") + r"}(W_q', W_k') = "
         + scores + "_{" + tex.label("implementation.latex_interleaved") + r"}(W_q, W_k)"
         r"\end{gathered}")
metric_row(view.layout_metrics(layout_gaps(seq, dim, seed, device)))
owners = pair_map(dim)
ui.chart(heatmap(owners["owners"], x=owners["coordinates"], y=[ui.t(f"common.layout_{lay}") for lay in view.LAYOUTS],
                 title=ui.t("implementation.pairs_title"), x_title=ui.t("implementation.coordinate_axis"),
                 y_title=ui.t("implementation.layout_axis"), colorscale="Viridis", zmid=None,
                 colorbar_title=ui.t("implementation.pair_colorbar"), height=260), key="pairs")

# 4. Partial rotary
section("implementation.partial")
st.latex(r"x' = \big(R_{\Theta,m}\, x_{0:r},\ x_{r:d}\big)")
rotary_dim, position = knob_row(PAGE, "rotary_dim", "pos", rotary_dim=view.rotary_dim_range(dim))
split = partial_split(dim, seed, position, rotary_dim)
ui.chart(series_bars({ui.t("implementation.rotated_series", r=rotary_dim): split["rotated"],
                      ui.t("implementation.passed_series"): split["passed"]},
                     title=ui.t("implementation.partial_title", r=rotary_dim, d=dim, m=position),
                     x_title=ui.t("implementation.coordinate_axis"), y_title=ui.t("implementation.change_axis")),
         key="partial")
st.caption(ui.t("implementation.partial_caption", r=rotary_dim, d=dim, rest=dim - rotary_dim))

# 5. Why V is not rotated
section("implementation.value")
st.latex(r"o_m = \sum_n a_{mn}\, v_n,\qquad a_{mn} = \operatorname{softmax}_n\!\Big("
         r"\tfrac{q_m^\top R_{\Theta,n-m}\, k_n}{\sqrt d}\Big)")
st.latex(tex.label("implementation.latex_v_rotated") + r"\ \ o_m = \sum_n a_{mn}\, R_{\Theta,n}\, v_n,\qquad "
         + tex.label("implementation.latex_rotated_back")
         + r"\ \ R_{\Theta,-m}\, o_m = \sum_n a_{mn}\, R_{\Theta,n-m}\, v_n")
shift = ui.knob(PAGE, "shift")
values = value_lines(seq, dim, seed, shift, device)
metric_row(values["metrics"])
ui.chart(line_chart(values["queries"], {ui.t(f"implementation.value_{name}"): values["gaps"][name]
                                        for name in view.VALUE_VARIANTS},
                    title=ui.t("implementation.value_title", shift=shift), x_title=ui.t("implementation.query_axis"),
                    y_title=ui.t("implementation.output_gap_axis"),
                    dashed=(ui.t("implementation.value_rotated_back"),)), key="values")
st.markdown(ui.t("implementation.value_takeaway"))

glossary("pair", "layout", "shift")
ui.questions(PAGE, q1=q1, q2=q2, theta=theta, m=m)
