"""How RoPE is computed: one rotation worked by hand, three equal formulas and their cost, the two
pair layouts, partial rotary, and why the values are left alone."""

import streamlit as st

import explorer as ui
from explorer.app import latex as tex
from explorer.app.glossary import glossary
from explorer.app.heavy import timed_on_note
from explorer.app.place import knob_row, metric_row, say, section, table
from explorer.app.panels import implementation_forms as panels
from explorer.app.tryit import try_buttons
from explorer.pure.views import implementation_forms as view


PAGE = "implementation_forms"

ui.page_header(PAGE)

# 1. One rotation by hand
st.subheader(ui.t("implementation_forms.worked_header"))
q1, q2, theta, m = knob_row(PAGE, "q1", "q2", "theta", "m")
try_buttons(PAGE, {"half": {"theta": 3.142, "m": 1}, "many": {"theta": 0.5, "m": 64}, "far": {"shift": 1000}})
rot = view.worked_rotation(q1, q2, theta, m)
left, right = st.columns([3, 2])
with left:
    st.latex(view.worked_latex(rot, theta, m, tex.label("implementation_forms.latex_rad")))
with right:
    ui.chart(panels.worked(rot, m), key="worked")
# after the worked example it describes: the chart stays on the first screen
st.markdown(ui.t("implementation_forms.worked_text"))
metric_row(view.worked_metrics(rot))
st.info(say(view.printed_note()), icon=":material/edit_note:")

# 2. Three forms, one result, different costs
section("implementation_forms.forms")
for form, latex in zip(("matrix", "pairs", "complex"), (
        r"q'_m = R_{\Theta,m}\,q,\qquad R_{\Theta,m} = \operatorname{diag}\big(R(m\theta_0), \dots, "
        r"R(m\theta_{d/2-1})\big)",
        r"q'_m = q \odot \cos(m\boldsymbol\theta) + \tilde q \odot \sin(m\boldsymbol\theta),\qquad "
        r"\tilde q = (-q_1, q_0, -q_3, q_2, \dots)",
        r"z_i = q_{2i} + \mathrm{i}\,q_{2i+1},\qquad z'_i = z_i\, e^{\mathrm{i}\, m\theta_i}")):
    name_col, formula_col = st.columns([1, 3], vertical_alignment="center")
    name_col.markdown(f"**{panels.method_name(form)}**  \n{ui.t(f'implementation_forms.cost_{form}')}")
    formula_col.latex(latex)

st.markdown(ui.t("implementation_forms.batch_text"))
seq, dim, seed = knob_row(PAGE, "seq", "dim", "seed")
device = str(ui.device())
compared = panels.method_gaps(seq, dim, seed, device)
methods, gaps = compared.methods, compared.gaps
if compared.dropped:
    ui.notice(ui.t("implementation_forms.matrix_too_large"))
micro, timed_on = panels.method_microseconds(seq, dim, device, tuple(methods))
costs = panels.costs(methods, micro, seq, dim)
with ui.chart_beside(costs, key="costs"):
    table(view.cost_table(methods, micro))
    table(view.gap_table(gaps))
st.caption(ui.t("implementation_forms.timing_caption", seq=seq, dim=dim,
                gap=say(view.gap_sentence(max(gaps.values())))))
st.caption(say(timed_on_note(timed_on)))

# 3. Two layouts, one model
section("implementation_forms.layout")
scores = tex.label("implementation_forms.latex_scores")
st.latex(r"\begin{gathered}p = (0, 2, 4, \dots, d-2,\ 1, 3, \dots, d-1),\qquad "
         r"W_q' = W_q[:, p],\quad W_k' = W_k[:, p] \\ "
         + scores + "_{" + tex.label("implementation_forms.latex_half") + r"}(W_q', W_k') = "
         + scores + "_{" + tex.label("implementation_forms.latex_interleaved") + r"}(W_q, W_k)"
         r"\end{gathered}")
metric_row(view.layout_metrics(panels.layout_gaps(seq, dim, seed, device)))
ui.chart(panels.pairs(dim), key="pairs")

# 4. Partial rotary
section("implementation_forms.partial")
st.latex(r"x' = \big(R_{\Theta,m}\, x_{0:r},\ x_{r:d}\big)")
rotary_dim, position = knob_row(PAGE, "rotary_dim", "pos", rotary_dim=view.rotary_dim_range(dim))
ui.chart(panels.partial(dim, seed, position, rotary_dim), key="partial")
st.caption(ui.t("implementation_forms.partial_caption", r=rotary_dim, d=dim, rest=dim - rotary_dim))

# 5. Why V is not rotated
section("implementation_forms.value")
st.latex(r"o_m = \sum_n a_{mn}\, v_n,\qquad a_{mn} = \operatorname{softmax}_n\!\Big("
         r"\tfrac{q_m^\top R_{\Theta,n-m}\, k_n}{\sqrt d}\Big)")
st.latex(tex.label("implementation_forms.latex_v_rotated") + r"\ \ o_m = \sum_n a_{mn}\, R_{\Theta,n}\, v_n,\qquad "
         + tex.label("implementation_forms.latex_rotated_back")
         + r"\ \ R_{\Theta,-m}\, o_m = \sum_n a_{mn}\, R_{\Theta,n-m}\, v_n")
shift = ui.knob(PAGE, "shift")
values = panels.value_lines(seq, dim, seed, shift, device)
metric_row(values.metrics)
ui.chart(panels.values(values, shift), key="values")
st.markdown(ui.t("implementation_forms.value_takeaway"))

glossary("pair", "layout", "shift")
ui.questions(PAGE, q1=q1, q2=q2, theta=theta, m=m)
