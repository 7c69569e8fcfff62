"""Long-term decay: RoFormer's bound against distance, a sweep over bases, and measured mean scores."""

import streamlit as st

import explorer as ui
from explorer.app.glossary import glossary
from explorer.pure.knobs import SWEEP_BASES
from explorer.app.place import knob_row, say
from explorer.app.panels import long_term_decay as panel
from explorer.app.tryit import try_buttons
from explorer.pure.views import long_term_decay as view

PAGE = "long_term_decay"

# the first screen: the title, the knobs and the bound beside the measured scores; the introduction and
# the bound's formula follow the charts
st.title(ui.t(f"{PAGE}.title"))
dim, base, max_r, log_x = knob_row(PAGE, "dim", "base", "max_r", "log_x")
try_buttons(PAGE, {"big": {"base": 500000.0}, "small": {"base": 100.0}, "linear": {"log_x": False}})

left, right = st.columns(2)
with left:
    exponents = ui.knob(PAGE, "sweep", format_func=lambda e: ui.format_base(SWEEP_BASES[e]))
    ui.chart(panel.bound_figure(dim, base, max_r, exponents, log_x), key="bound")
with right:
    samples, seed = knob_row(PAGE, "samples", "seed")
    means = panel.sampled_means(dim, base, max_r, samples, seed, log_x)
    ui.chart(panel.means_figure(means, samples, base, log_x), key="empirical")
    st.caption(ui.t("long_term_decay.empirical_caption", points=len(means.distances), max_r=max_r))
    st.markdown(ui.t("long_term_decay.empirical_text"))

ui.explain(ui.t(f"{PAGE}.intro"))
st.latex(r"B(r) = \frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|,\qquad S_j = \sum_{i=0}^{j-1} e^{\mathrm{i}\, r\theta_i},"
         r"\qquad \theta_i = \mathrm{base}^{-2i/d}")

st.markdown(say(view.ripple_reading(panel.bound_curve(dim, base, max_r), base, max_r)))
st.markdown(ui.t("long_term_decay.ripple_remark"))

st.subheader(ui.t("long_term_decay.argument_header"))
st.markdown(ui.t("long_term_decay.argument_pairs"))
st.latex(r"(\mathcal{R}_m q)^\top(\mathcal{R}_n k) = "
         r"\mathrm{Re}\Big[\sum_{i=0}^{d/2-1} h_i\, e^{\mathrm{i}\, r\theta_i}\Big],"
         r"\qquad h_i = q_{[2i:2i+1]}\, k^{*}_{[2i:2i+1]},\qquad r = m - n")
st.markdown(ui.t("long_term_decay.argument_abel"))
st.latex(r"S_j = \sum_{i=0}^{j-1} e^{\mathrm{i}\, r\theta_i},\qquad "
         r"\sum_{i=0}^{d/2-1} h_i\,(S_{i+1} - S_i) = -\sum_{i=0}^{d/2-1} S_{i+1}\,(h_{i+1} - h_i)")
st.markdown(ui.t("long_term_decay.argument_bound"))
st.latex(r"\big|(\mathcal{R}_m q)^\top(\mathcal{R}_n k)\big| \le \sum_{i=0}^{d/2-1} |S_{i+1}|\,|h_{i+1} - h_i|"
         r"\le \Big(\max_i |h_{i+1} - h_i|\Big)\sum_{j=1}^{d/2} |S_j|")
glossary("pair", "wavelength")
ui.questions(PAGE, dim=dim, base=base)
