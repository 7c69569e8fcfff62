"""Phase cancellation: R_n R_m^{-1} = R_{n-m}, step by step, in 2-D and in d dimensions."""

import streamlit as st
import torch

import ui
from rope_viz import angles, inv_freq, random_tokens, rotation_matrix, to_numpy
from rope_viz.complex2d import relative_rotation, score_identity, shared_shift, shifted_scores, turn_shifts
from rope_viz.figures import heatmap, line_chart, matrix_panels, pair_turn_animation
from ui import blocks, controls

PAGE = "phase"
SCORE_SHIFTS = tuple(range(65))  # shifts of the d-dimensional score chart


@ui.cached
def query_and_key(dim: int, seed: int) -> torch.Tensor:
    return random_tokens(2, dim, seed=seed, dtype=torch.float64)


@ui.cached
def theta_of(dim: int, base: float, pair: int) -> float:
    return float(inv_freq(dim, base, dtype=torch.float64)[pair])


@ui.cached
def matrices_figure(m: int, n: int, theta: float, lang: str):
    check = relative_rotation(m, n, theta)
    mats = [to_numpy(mat) for mat in (check.r_m, check.r_n, check.product, check.relative)]
    titles = [ui.t("phase.panel_rm", m=m), ui.t("phase.panel_rn", n=n), ui.t("phase.panel_product"),
              ui.t("phase.panel_relative", d=n - m)]
    return matrix_panels(mats, titles, title=ui.t("phase.matrices_title"), x_title=ui.t("phase.column"),
                         y_title=ui.t("phase.row"))


@ui.cached
def slide_figure(dim: int, seed: int, pair: int, m: int, n: int, theta: float, lang: str):
    q, k = query_and_key(dim, seed)
    shifts = turn_shifts(theta)
    path = shared_shift(q[2 * pair: 2 * pair + 2].tolist(), k[2 * pair: 2 * pair + 2].tolist(), m, n, theta, shifts)
    steps = [int(s) for s in shifts]
    titles = [ui.t("phase.frame_title", s=s, qm=m + s, kn=n + s, dot=float(dot)) for s, dot in zip(steps, path.dots)]
    fig = pair_turn_animation([str(s) for s in steps], to_numpy(path.query), to_numpy(path.key), titles,
                              names=(ui.t("phase.query_name"), ui.t("phase.key_name")),
                              x_title=ui.t("phase.first"), y_title=ui.t("phase.second"), play=ui.t("phase.play"),
                              pause=ui.t("phase.pause"), slider_prefix=ui.t("phase.shift_prefix"))
    return fig, path.dot_spread, steps[-1], len(steps)


@ui.cached
def block_figure(m: int, dim: int, base: float, lang: str):
    return heatmap(to_numpy(rotation_matrix(m, dim, base, dtype=torch.float64)),
                   title=ui.t("phase.block_title", m=m, d=dim), x_title=ui.t("phase.column"),
                   y_title=ui.t("phase.row"), colorbar_title=ui.t("phase.entry"))


@ui.cached
def shift_figure(dim: int, base: float, seed: int, m: int, n: int, lang: str):
    q, k = query_and_key(dim, seed)
    both, key_only = shifted_scores(q, k, m, n, SCORE_SHIFTS, base)
    return line_chart(list(SCORE_SHIFTS), {ui.t("phase.both_series"): to_numpy(both),
                                           ui.t("phase.key_series"): to_numpy(key_only)},
                      title=ui.t("phase.shift_title"), x_title=ui.t("phase.shift_axis"),
                      y_title=ui.t("phase.score_axis"))


ui.page_header(PAGE)
st.latex(r"(R_m\,q)^{\top}(R_n\,k) \;=\; q^{\top} R_m^{\top} R_n\, k \;=\; q^{\top} R_{n-m}\, k,"
         r"\qquad R_m = R(m\theta) = \begin{pmatrix} \cos m\theta & -\sin m\theta \\ "
         r"\sin m\theta & \cos m\theta \end{pmatrix}")
cols = st.columns(3)
m = ui.knob(PAGE, ui.IntKnob("m", 2, 0, 128, 1), ui.t("common.query_position"), help=ui.t("phase.m_help"),
            where=cols[0])
n = ui.knob(PAGE, ui.IntKnob("n", 5, 0, 128, 1), ui.t("common.key_position"), help=ui.t("phase.n_help"),
            where=cols[1])
seed = controls.seed(PAGE, where=cols[2])
cols = st.columns(3)
dim = controls.head_dim(PAGE, default=16, hi=64, where=cols[0])
base = controls.base(PAGE, where=cols[1])
pair = ui.knob(PAGE, ui.IntKnob("pair", min(1, dim // 2 - 1), 0, dim // 2 - 1, 1), ui.t("phase.pair"),
               help=ui.t("phase.pair_help"), where=cols[2])
theta = theta_of(dim, base, pair)
check = relative_rotation(m, n, theta)
m_angle, n_angle = angles([m, n], dim, base)[:, pair].tolist()
st.caption(ui.t("phase.theta_caption", i=pair, theta=theta, m_angle=m_angle, n_angle=n_angle))

st.subheader(ui.t("phase.step1_header"))
st.markdown(ui.t("phase.step1_text"))
st.latex(r"R(\alpha)^{\top} = \begin{pmatrix} \cos\alpha & \sin\alpha \\ -\sin\alpha & \cos\alpha \end{pmatrix}"
         r" = \begin{pmatrix} \cos(-\alpha) & -\sin(-\alpha) \\ \sin(-\alpha) & \cos(-\alpha) \end{pmatrix}"
         r" = R(-\alpha),\qquad R(\alpha)^{\top} R(\alpha) = I \;\Rightarrow\; R(\alpha)^{\top} = R(\alpha)^{-1}")
cols = st.columns(2)
cols[0].metric(ui.t("phase.transpose_error"), f"{check.transpose_error:.1e}")
cols[1].metric(ui.t("phase.negative_error"), f"{check.negative_error:.1e}")
st.caption(ui.t("phase.inverse_note"))

st.subheader(ui.t("phase.step2_header"))
st.markdown(ui.t("phase.step2_text"))
st.latex(r"R(\alpha)\,R(\beta) = R(\alpha + \beta)\quad\Rightarrow\quad "
         r"R_n R_m^{-1} = R(n\theta)\,R(-m\theta) = R\big((n - m)\theta\big) = R_{n-m}")
ui.chart(matrices_figure(m, n, theta, ui.lang()), key="matrices")
st.metric(ui.t("phase.relative_error"), f"{check.relative_error:.1e}")

st.subheader(ui.t("phase.step3_header"))
st.markdown(ui.t("phase.step3_text"))
st.latex(r"q_m \cdot k_n = (R_m q)^{\top}(R_n k) = q^{\top} R_m^{\top} R_n\, k "
         r"\overset{\text{1}}{=} q^{\top} R_m^{-1} R_n\, k \overset{\text{2}}{=} q^{\top} R_{n-m}\, k")
slide, spread, last_shift, frames = slide_figure(dim, seed, pair, m, n, theta, ui.lang())
ui.chart(slide, key="slide")
st.markdown(ui.t("phase.spread", frames=frames, last=last_shift, spread=spread))

st.subheader(ui.t("phase.dims_header"))
st.markdown(ui.t("phase.dims_text"))
st.latex(r"R_{\Theta,m} = \operatorname{diag}\big(R(m\theta_0),\, R(m\theta_1),\, \dots,\, R(m\theta_{d/2-1})\big),"
         r"\qquad R_{\Theta,m}^{\top} R_{\Theta,n} = \operatorname{diag}\big(R((n-m)\theta_i)\big) = R_{\Theta,n-m}")
q, k = query_and_key(dim, seed)
identity = score_identity(q, k, m, n, base)
with blocks.chart_beside(block_figure(m, dim, base, ui.lang()), key="block"):
    st.metric(ui.t("phase.lhs"), f"{identity.rotated:.15f}")
    st.metric(ui.t("phase.rhs"), f"{identity.relative:.15f}")
    st.metric(ui.t("phase.difference"), f"{identity.difference:.1e}")
    st.metric(ui.t("phase.matrix_error"), f"{identity.matrix_error:.1e}")
ui.chart(shift_figure(dim, base, seed, m, n, ui.lang()), key="shift")
st.caption(ui.t("phase.shift_caption"))
