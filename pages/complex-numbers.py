"""Complex numbers as points of the plane: a quarter turn by i, general products, rotors, the matrix."""

import pandas as pd
import streamlit as st

import explorer as ui
from explorer.tryit import try_buttons
from explorer.views import complex_plane as view
from explorer.figures import plane_diagram

ui.enter()
PAGE = "complex_plane"


def axes() -> dict:
    return {"x_title": ui.t("complex_plane.re_axis"), "y_title": ui.t("complex_plane.im_axis")}


def arc_trace(name: str, points, color_index: int) -> tuple:
    """A dotted arc for plane_diagram from a view's (xs, ys)."""
    return name, *points, color_index


def polar_row(name: str, row: dict) -> dict:
    return {ui.t("complex_plane.col_number"): name, ui.t("complex_plane.col_re"): f"{row['re']:.4f}",
            ui.t("complex_plane.col_im"): f"{row['im']:.4f}",
            ui.t("complex_plane.col_modulus"): f"{row['modulus']:.4f}",
            ui.t("complex_plane.col_angle"): f"{row['angle_deg']:.2f}"}


# the first screen: the title, the two knobs of z and the quarter turn they drive; the introduction after it
st.title(ui.t(f"{PAGE}.title"))
cols = st.columns([1, 1, 2])
a = ui.knob(PAGE, "a", where=cols[0])
b = ui.knob(PAGE, "b", where=cols[1])
with cols[2]:
    try_buttons(PAGE, {"real": {"a": 2.0, "b": 0.0}, "i": {"a": 0.0, "b": 1.0}})
quarter = view.quarter_turn(a, b)
z, iz = quarter["z"], quarter["iz"]
arcs = (arc_trace(ui.t("complex_plane.arc_90"), quarter["arc"], 1),) if quarter["arc"] is not None else ()
quarter_fig = plane_diagram([(ui.t("complex_plane.z_name"), *z), (ui.t("complex_plane.iz_name"), *iz)], arcs=arcs,
                            title=ui.t("complex_plane.i_title"), **axes())
with ui.chart_beside(quarter_fig, key="quarter_turn"):
    st.metric(ui.t("complex_plane.iz_name"), ui.t("complex_plane.iz_value", x=iz[0], y=iz[1]))
    st.markdown(ui.t("complex_plane.iz_check", nb=-b, a=a, mz=quarter["modulus"], miz=quarter["iz_modulus"],
                     turn=quarter["turn_deg"]))

ui.explain(ui.t(f"{PAGE}.intro"))
st.latex(r"z = a + b\,i = r\,e^{i\varphi},\qquad r = |z| = \sqrt{a^2 + b^2},\qquad "
         r"\varphi = \arg z,\qquad e^{i\varphi} = \cos\varphi + i\sin\varphi")
if quarter["modulus"]:
    st.markdown(ui.t("complex_plane.z_polar", a=a, b=b, modulus=quarter["modulus"], deg=quarter["angle_deg"],
                     rad=quarter["angle"]))
else:
    st.markdown(ui.t("complex_plane.z_origin"))

st.subheader(ui.t("complex_plane.i_header"))
st.markdown(ui.t("complex_plane.i_text"))
st.latex(r"i\,(a + b\,i) = a\,i + b\,i^2 = -b + a\,i \quad\Longleftrightarrow\quad (a, b) \mapsto (-b, a)")

st.subheader(ui.t("complex_plane.product_header"))
st.markdown(ui.t("complex_plane.product_text"))
st.latex(r"z\,w = \left(|z|\,e^{i\varphi}\right)\left(|w|\,e^{i\psi}\right) = |z|\,|w|\;e^{i(\varphi + \psi)},"
         r"\qquad (a + b\,i)(c + d\,i) = (ac - bd) + (ad + bc)\,i")
cols = st.columns(2)
w_modulus = ui.knob(PAGE, "w_mod", where=cols[0])
w_deg = ui.knob(PAGE, "w_angle", where=cols[1])
prod = view.product(a, b, w_modulus, w_deg)
names = (ui.t("complex_plane.z_name"), ui.t("complex_plane.w_name"), ui.t("complex_plane.zw_name"))
product_fig = plane_diagram(
    [(name, *point) for name, point in zip(names, (prod["z"], prod["w"], prod["zw"]))],
    arcs=tuple(arc_trace(ui.t(f"complex_plane.arc_{which}"), points, index)
               for index, (which, points) in enumerate(zip(("z", "w", "sum"), prod["arcs"]))),
    title=ui.t("complex_plane.product_title"), **axes())
with ui.chart_beside(product_fig, key="product"):
    st.table(pd.DataFrame([polar_row(name, row) for name, row in zip(names, prod["rows"])])
             .set_index(ui.t("complex_plane.col_number")))
    st.markdown(ui.t("complex_plane.product_check", modulus=prod["polar_modulus"], angle=prod["polar_angle_deg"],
                     zw_modulus=prod["rows"][2]["modulus"], zw_angle=prod["rows"][2]["angle_deg"]))

st.subheader(ui.t("complex_plane.rotor_header"))
st.markdown(ui.t("complex_plane.rotor_text"))
st.latex(r"|e^{i\theta}| = \sqrt{\cos^2\theta + \sin^2\theta} = 1,\qquad "
         r"\overline{e^{i\theta}} = e^{-i\theta} = \left(e^{i\theta}\right)^{-1},\qquad "
         r"z\,e^{i\theta}\,e^{-i\theta} = z")
cols = st.columns([1, 2])
theta_deg = ui.knob(PAGE, "theta", where=cols[0])  # beside the two charts it turns
with cols[1]:
    try_buttons(PAGE, {"half": {"theta": 180}, "quarter": {"theta": 90}})
turn = view.rotor_turn(a, b, theta_deg)
turned = turn["turned"]
arcs = (arc_trace(ui.t("complex_plane.arc_theta"), turn["arc"], 2),) if turn["arc"] is not None else ()
rotor_fig = plane_diagram([(ui.t("complex_plane.z_name"), *z), (ui.t("complex_plane.rotor_name"), *turn["rotor"]),
                           (ui.t("complex_plane.turned_name"), *turned),
                           (ui.t("complex_plane.back_name"), *turn["back"])],
                          arcs=arcs, dashed=(ui.t("complex_plane.back_name"),),
                          title=ui.t("complex_plane.rotor_title", deg=theta_deg), **axes())
with ui.chart_beside(rotor_fig, key="rotor"):
    st.metric(ui.t("complex_plane.rotor_modulus"), f"{turn['rotor_modulus']:.4g}",
              help=ui.t("complex_plane.digits_help", value=f"{turn['rotor_modulus']:.15f}"))
    st.metric(ui.t("complex_plane.lengths"), f"{turn['modulus']:.6f} → {turn['turned_modulus']:.6f}")
    st.metric(ui.t("complex_plane.back_error"), f"{turn['back_error']:.1e}")

st.subheader(ui.t("complex_plane.matrix_header"))
st.markdown(ui.t("complex_plane.matrix_text"))
st.latex(r"\begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}"
         r"\begin{pmatrix} a \\ b \end{pmatrix} = "
         r"\begin{pmatrix} a\cos\theta - b\sin\theta \\ a\sin\theta + b\cos\theta \end{pmatrix}"
         r"\quad\Longleftrightarrow\quad (a + b\,i)(\cos\theta + i\sin\theta)")
by_matrix, difference = turn["by_matrix"], turn["difference"]
first, second = ui.t("complex_plane.first"), ui.t("complex_plane.second")
st.markdown(ui.t("complex_plane.matrix_gap", gap=turn["gap"]))
with st.expander(ui.t("complex_plane.all_digits")):  # the check at readable precision above, every digit here
    st.table(pd.DataFrame({
        ui.t("complex_plane.way"): [ui.t("complex_plane.way_complex"), ui.t("complex_plane.way_matrix"),
                                    ui.t("complex_plane.way_difference")],
        first: [f"{turned[0]:.17g}", f"{by_matrix[0]:.17g}", f"{difference[0]:.1e}"],
        second: [f"{turned[1]:.17g}", f"{by_matrix[1]:.17g}", f"{difference[1]:.1e}"],
    }).set_index(ui.t("complex_plane.way")))
st.info(ui.t("complex_plane.bridge"))

ui.questions(PAGE, a=a, b=b, w_mod=w_modulus, w_angle=w_deg)
