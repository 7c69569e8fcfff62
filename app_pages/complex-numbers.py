"""Complex numbers as points of the plane: a quarter turn by i, general products, rotors, the matrix."""

import streamlit as st

import explorer as ui
from explorer.app.components import drag
from explorer.app.place import knob_row, metric_stack, say, section, table
from explorer.app.panels import complex_numbers as panel
from explorer.app.tryit import try_buttons
from explorer.pure.views import complex_numbers as view

PAGE = "complex_numbers"


# the first screen: the title, the two knobs of z and the quarter turn they drive; the introduction after it
st.title(ui.t(f"{PAGE}.title"))
a, b = knob_row(PAGE, "a", "b", widths=[1, 1, 2],
                beside=lambda: try_buttons(PAGE, {"real": {"a": 2.0, "b": 0.0}, "i": {"a": 0.0, "b": 1.0}}))
quarter = view.quarter_turn(a, b)
notes = view.quarter_notes(quarter, a, b)
with ui.chart_beside(panel.quarter(quarter), key="quarter_turn"):
    metric_stack([notes.metric])
    st.markdown(say(notes.check))

ui.explain(ui.t(f"{PAGE}.intro"))
st.latex(r"z = a + b\,i = r\,e^{i\varphi},\qquad r = |z| = \sqrt{a^2 + b^2},\qquad "
         r"\varphi = \arg z,\qquad e^{i\varphi} = \cos\varphi + i\sin\varphi")
st.markdown(say(notes.polar))

section("complex_numbers.i")
st.latex(r"i\,(a + b\,i) = a\,i + b\,i^2 = -b + a\,i \quad\Longleftrightarrow\quad (a, b) \mapsto (-b, a)")

section("complex_numbers.product")
st.latex(r"z\,w = \left(|z|\,e^{i\varphi}\right)\left(|w|\,e^{i\psi}\right) = |z|\,|w|\;e^{i(\varphi + \psi)},"
         r"\qquad (a + b\,i)(c + d\,i) = (ac - bd) + (ad + bc)\,i")
w_modulus, w_deg = knob_row(PAGE, "w_mod", "w_angle")
drag(PAGE, view.drag_plane(a, b, w_modulus, w_deg))  # z and w moved on the plane set the four knobs above
prod = view.product(a, b, w_modulus, w_deg)
with ui.chart_beside(panel.product(prod), key="product"):
    table(view.product_table(prod), index="complex_numbers.col_number")
    st.markdown(say(view.product_check(prod)))

section("complex_numbers.rotor")
st.latex(r"|e^{i\theta}| = \sqrt{\cos^2\theta + \sin^2\theta} = 1,\qquad "
         r"\overline{e^{i\theta}} = e^{-i\theta} = \left(e^{i\theta}\right)^{-1},\qquad "
         r"z\,e^{i\theta}\,e^{-i\theta} = z")
theta_deg = knob_row(PAGE, "theta", widths=[1, 2],  # beside the two charts it turns
                     beside=lambda: try_buttons(PAGE, {"half": {"theta": 180}, "quarter": {"theta": 90}}))
turn = view.rotor_turn(a, b, theta_deg)
with ui.chart_beside(panel.rotor(turn, theta_deg), key="rotor"):
    metric_stack(view.rotor_metrics(turn))

section("complex_numbers.matrix")
st.latex(r"\begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}"
         r"\begin{pmatrix} a \\ b \end{pmatrix} = "
         r"\begin{pmatrix} a\cos\theta - b\sin\theta \\ a\sin\theta + b\cos\theta \end{pmatrix}"
         r"\quad\Longleftrightarrow\quad (a + b\,i)(\cos\theta + i\sin\theta)")
st.markdown(ui.t("complex_numbers.matrix_gap", gap=turn.gap))
with st.expander(ui.t("complex_numbers.all_digits")):  # the check at readable precision above, every digit here
    table(view.digits_table(turn), index="complex_numbers.way")
st.info(ui.t("complex_numbers.bridge"))

ui.questions(PAGE, a=a, b=b, w_mod=w_modulus, w_angle=w_deg)
