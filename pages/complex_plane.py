"""Complex numbers as points of the plane: a quarter turn by i, general products, rotors, the matrix."""

import math

import pandas as pd
import streamlit as st

import ui
from rope_viz import to_numpy
from rope_viz.complex2d import (
    IMAGINARY_UNIT,
    arc,
    complex_multiply,
    conjugate,
    distance,
    from_polar,
    multiply_in_polar,
    rotate_by_matrix,
    rotor,
    to_polar,
)
from rope_viz.figures import plane_diagram
from ui import blocks

PAGE = "complex_plane"


def angle_arc(name: str, radius: float, start: float, stop: float, color_index: int) -> tuple:
    """A dotted arc for plane_diagram, from angle `start` to `stop` (radians)."""
    points = to_numpy(arc(radius, start, stop))
    return name, points[:, 0], points[:, 1], color_index


def axes() -> dict:
    return {"x_title": ui.t("complex_plane.re_axis"), "y_title": ui.t("complex_plane.im_axis")}


@ui.cached
def quarter_turn_figure(z: tuple, lang: str):
    iz = complex_multiply(IMAGINARY_UNIT, z)
    modulus, angle = to_polar(z)
    arcs = (angle_arc(ui.t("complex_plane.arc_90"), 0.4 * modulus, angle, angle + math.pi / 2, 1),) if modulus else ()
    return plane_diagram([(ui.t("complex_plane.z_name"), *z), (ui.t("complex_plane.iz_name"), *iz)], arcs=arcs,
                         title=ui.t("complex_plane.i_title"), **axes())


@ui.cached
def product_figure(z: tuple, w: tuple, lang: str):
    zw = complex_multiply(z, w)
    (z_modulus, z_angle), (w_modulus, w_angle) = to_polar(z), to_polar(w)
    _, angle_sum = multiply_in_polar(z, w)
    scale = max(1.0, z_modulus, w_modulus, to_polar(zw)[0])  # arcs sit at fixed shares of the largest arrow
    arcs = (angle_arc(ui.t("complex_plane.arc_z"), 0.2 * scale, 0.0, z_angle, 0),
            angle_arc(ui.t("complex_plane.arc_w"), 0.3 * scale, 0.0, w_angle, 1),
            angle_arc(ui.t("complex_plane.arc_sum"), 0.4 * scale, 0.0, angle_sum, 2))
    vectors = [(ui.t("complex_plane.z_name"), *z), (ui.t("complex_plane.w_name"), *w),
               (ui.t("complex_plane.zw_name"), *zw)]
    return plane_diagram(vectors, arcs=arcs, title=ui.t("complex_plane.product_title"), **axes())


@ui.cached
def rotor_figure(z: tuple, theta_deg: int, lang: str):
    theta = math.radians(theta_deg)
    turned = complex_multiply(z, rotor(theta))
    back = complex_multiply(turned, conjugate(rotor(theta)))
    modulus, angle = to_polar(z)
    arcs = (angle_arc(ui.t("complex_plane.arc_theta"), 0.5 * modulus, angle, angle + theta, 2),) if modulus else ()
    vectors = [(ui.t("complex_plane.z_name"), *z), (ui.t("complex_plane.rotor_name"), *rotor(theta)),
               (ui.t("complex_plane.turned_name"), *turned), (ui.t("complex_plane.back_name"), *back)]
    return plane_diagram(vectors, arcs=arcs, dashed=(ui.t("complex_plane.back_name"),),
                         title=ui.t("complex_plane.rotor_title", deg=theta_deg), **axes())


def polar_row(name: str, z: tuple) -> dict:
    modulus, angle = to_polar(z)
    return {ui.t("complex_plane.col_number"): name, ui.t("complex_plane.col_re"): f"{z[0]:.4f}",
            ui.t("complex_plane.col_im"): f"{z[1]:.4f}", ui.t("complex_plane.col_modulus"): f"{modulus:.4f}",
            ui.t("complex_plane.col_angle"): f"{math.degrees(angle):.2f}"}


ui.page_header(PAGE)
st.latex(r"z = a + b\,i = r\,e^{i\varphi},\qquad r = |z| = \sqrt{a^2 + b^2},\qquad "
         r"\varphi = \arg z,\qquad e^{i\varphi} = \cos\varphi + i\sin\varphi")
cols = st.columns(3)
a = ui.knob(PAGE, ui.FloatKnob("a", 2.0, -3.0, 3.0, 2), ui.t("complex_plane.a"),
            help=ui.t("complex_plane.a_help"), where=cols[0])
b = ui.knob(PAGE, ui.FloatKnob("b", 1.0, -3.0, 3.0, 2), ui.t("complex_plane.b"),
            help=ui.t("complex_plane.b_help"), where=cols[1])
theta_deg = ui.knob(PAGE, ui.IntKnob("theta", 50, -180, 180, 1), ui.t("complex_plane.theta"),
                    help=ui.t("complex_plane.theta_help"), where=cols[2])
z = (a, b)
theta = math.radians(theta_deg)
z_modulus, z_angle = to_polar(z)
if z_modulus:
    st.markdown(ui.t("complex_plane.z_polar", a=a, b=b, modulus=z_modulus, deg=math.degrees(z_angle), rad=z_angle))
else:
    st.markdown(ui.t("complex_plane.z_origin"))

st.subheader(ui.t("complex_plane.i_header"))
st.markdown(ui.t("complex_plane.i_text"))
st.latex(r"i\,(a + b\,i) = a\,i + b\,i^2 = -b + a\,i \quad\Longleftrightarrow\quad (a, b) \mapsto (-b, a)")
with blocks.chart_beside(quarter_turn_figure(z, ui.lang()), key="quarter_turn"):
    iz = complex_multiply(IMAGINARY_UNIT, z)
    turn = to_polar(complex_multiply(iz, conjugate(z)))[1]  # the angle from z to i·z
    st.metric(ui.t("complex_plane.iz_name"), ui.t("complex_plane.iz_value", x=iz[0], y=iz[1]))
    st.markdown(ui.t("complex_plane.iz_check", nb=-b, a=a, mz=z_modulus, miz=to_polar(iz)[0],
                     turn=math.degrees(turn) if z_modulus else 90.0))

st.subheader(ui.t("complex_plane.product_header"))
st.markdown(ui.t("complex_plane.product_text"))
st.latex(r"z\,w = \left(|z|\,e^{i\varphi}\right)\left(|w|\,e^{i\psi}\right) = |z|\,|w|\;e^{i(\varphi + \psi)},"
         r"\qquad (a + b\,i)(c + d\,i) = (ac - bd) + (ad + bc)\,i")
cols = st.columns(2)
w_modulus = ui.knob(PAGE, ui.FloatKnob("w_mod", 1.5, 0.0, 3.0, 2), ui.t("complex_plane.w_modulus"),
                    help=ui.t("complex_plane.w_modulus_help"), where=cols[0])
w_deg = ui.knob(PAGE, ui.IntKnob("w_angle", 60, -180, 180, 1), ui.t("complex_plane.w_angle"),
                help=ui.t("complex_plane.w_angle_help"), where=cols[1])
w = from_polar(w_modulus, math.radians(w_deg))
zw = complex_multiply(z, w)
with blocks.chart_beside(product_figure(z, w, ui.lang()), key="product"):
    st.table(pd.DataFrame([polar_row(ui.t("complex_plane.z_name"), z), polar_row(ui.t("complex_plane.w_name"), w),
                           polar_row(ui.t("complex_plane.zw_name"), zw)]).set_index(ui.t("complex_plane.col_number")))
    polar_modulus, polar_angle = multiply_in_polar(z, w)
    zw_modulus, zw_angle = to_polar(zw)
    st.markdown(ui.t("complex_plane.product_check", modulus=polar_modulus, angle=math.degrees(polar_angle),
                     zw_modulus=zw_modulus, zw_angle=math.degrees(zw_angle)))

st.subheader(ui.t("complex_plane.rotor_header"))
st.markdown(ui.t("complex_plane.rotor_text"))
st.latex(r"|e^{i\theta}| = \sqrt{\cos^2\theta + \sin^2\theta} = 1,\qquad "
         r"\overline{e^{i\theta}} = e^{-i\theta} = \left(e^{i\theta}\right)^{-1},\qquad "
         r"z\,e^{i\theta}\,e^{-i\theta} = z")
turned = complex_multiply(z, rotor(theta))
back = complex_multiply(turned, conjugate(rotor(theta)))
with blocks.chart_beside(rotor_figure(z, theta_deg, ui.lang()), key="rotor"):
    st.metric(ui.t("complex_plane.rotor_modulus"), f"{to_polar(rotor(theta))[0]:.15f}")
    st.metric(ui.t("complex_plane.lengths"), f"{z_modulus:.6f} → {to_polar(turned)[0]:.6f}")
    st.metric(ui.t("complex_plane.back_error"), f"{distance(back, z):.1e}")

st.subheader(ui.t("complex_plane.matrix_header"))
st.markdown(ui.t("complex_plane.matrix_text"))
st.latex(r"\begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}"
         r"\begin{pmatrix} a \\ b \end{pmatrix} = "
         r"\begin{pmatrix} a\cos\theta - b\sin\theta \\ a\sin\theta + b\cos\theta \end{pmatrix}"
         r"\quad\Longleftrightarrow\quad (a + b\,i)(\cos\theta + i\sin\theta)")
by_matrix = rotate_by_matrix(z, theta)
first, second = ui.t("complex_plane.first"), ui.t("complex_plane.second")
st.table(pd.DataFrame({
    ui.t("complex_plane.way"): [ui.t("complex_plane.way_complex"), ui.t("complex_plane.way_matrix"),
                                ui.t("complex_plane.way_difference")],
    first: [f"{turned[0]:.17g}", f"{by_matrix[0]:.17g}", f"{turned[0] - by_matrix[0]:.1e}"],
    second: [f"{turned[1]:.17g}", f"{by_matrix[1]:.17g}", f"{turned[1] - by_matrix[1]:.1e}"],
}).set_index(ui.t("complex_plane.way")))
st.markdown(ui.t("complex_plane.matrix_gap", gap=distance(turned, by_matrix)))
st.info(ui.t("complex_plane.bridge"))
