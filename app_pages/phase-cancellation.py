"""Phase cancellation: R_n R_m^{-1} = R_{n-m}, step by step, in 2-D and in d dimensions."""

import streamlit as st

import explorer as ui
from explorer.app.components import drag
from explorer.app.glossary import glossary
from explorer.app.place import knob_row, metric_row, metric_stack, section
from explorer.app.panels import phase_cancellation as panel
from explorer.app.tryit import try_buttons
from explorer.pure.views import phase_cancellation as view

PAGE = "phase_cancellation"

# the first screen: the title, the knobs in one row, and the score of both tokens sliding together (flat)
# against the key alone sliding (moving); the introduction and the three steps follow
st.title(ui.t(f"{PAGE}.title"))
m, n, dim, base, pair, seed = knob_row(PAGE, "m", "n", "dim", "base", "pair", "seed",
                                       pair=lambda v: {"hi": v["dim"] // 2 - 1})
try_buttons(PAGE, {"far": {"m": 100, "n": 103}, "same": {"m": 40, "n": 40}, "big": {"base": 500000.0, "dim": 64}})
dims = panel.all_pairs(m, n, dim, base, seed)
ui.chart(panel.shift_figure(dims), key="shift")
st.caption(ui.t("phase_cancellation.shift_caption"))

ui.explain(ui.t(f"{PAGE}.intro"))
st.latex(r"(R_m\,q)^{\top}(R_n\,k) \;=\; q^{\top} R_m^{\top} R_n\, k \;=\; q^{\top} R_{n-m}\, k,"
         r"\qquad R_m = R(m\theta) = \begin{pmatrix} \cos m\theta & -\sin m\theta \\ "
         r"\sin m\theta & \cos m\theta \end{pmatrix}")
check = panel.pair_rotations(m, n, dim, base, pair)
st.caption(ui.t("phase_cancellation.theta_caption", i=pair, theta=check.theta, m_angle=check.m_angle,
                n_angle=check.n_angle))

section("phase_cancellation.step1")
st.latex(r"R(\alpha)^{\top} = \begin{pmatrix} \cos\alpha & \sin\alpha \\ -\sin\alpha & \cos\alpha \end{pmatrix}"
         r" = \begin{pmatrix} \cos(-\alpha) & -\sin(-\alpha) \\ \sin(-\alpha) & \cos(-\alpha) \end{pmatrix}"
         r" = R(-\alpha),\qquad R(\alpha)^{\top} R(\alpha) = I \;\Rightarrow\; R(\alpha)^{\top} = R(\alpha)^{-1}")
metric_row(view.inverse_metrics(check))
st.caption(ui.t("phase_cancellation.inverse_note"))

section("phase_cancellation.step2")
st.latex(r"R(\alpha)\,R(\beta) = R(\alpha + \beta)\quad\Rightarrow\quad "
         r"R_n R_m^{-1} = R(n\theta)\,R(-m\theta) = R\big((n - m)\theta\big) = R_{n-m}")
ui.chart(panel.matrices_figure(check, m, n), key="matrices")
st.metric(ui.t("phase_cancellation.relative_error"), f"{check.relative_error:.1e}")

section("phase_cancellation.step3")
st.latex(r"q_m \cdot k_n = (R_m q)^{\top}(R_n k) = q^{\top} R_m^{\top} R_n\, k "
         r"\overset{\text{1}}{=} q^{\top} R_m^{-1} R_n\, k \overset{\text{2}}{=} q^{\top} R_{n-m}\, k")
drag(PAGE, view.track(m, n, dim, base, pair, seed))  # m and n moved on a track set the knobs m and n
path = panel.slide(m, n, dim, base, pair, seed)
steps = path.shifts
ui.chart(panel.slide_figure(m, n, dim, base, pair, seed), key="slide",
         gif=lambda: panel.slide_gif(m, n, dim, base, pair, seed))
st.markdown(ui.t("phase_cancellation.spread", frames=len(steps), last=steps[-1], spread=path.spread))

section("phase_cancellation.dims")
st.latex(r"R_{\Theta,m} = \operatorname{diag}\big(R(m\theta_0),\, R(m\theta_1),\, \dots,\, R(m\theta_{d/2-1})\big),"
         r"\qquad R_{\Theta,m}^{\top} R_{\Theta,n} = \operatorname{diag}\big(R((n-m)\theta_i)\big) = R_{\Theta,n-m}")
with ui.chart_beside(panel.block_figure(dims, m, dim), key="block"):
    metric_stack(view.block_metrics(dims))

glossary("position", "pair", "shift")
ui.questions(PAGE, m=m, n=n, dim=dim, base=base, pair=pair)
