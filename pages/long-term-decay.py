"""Long-term decay: RoFormer's bound against distance, a sweep over bases, and measured mean scores."""

import numpy as np
import streamlit as st

import explorer as ui
from explorer.glossary import glossary
from explorer.knobs import SWEEP_BASES
from explorer.tryit import try_buttons
from explorer.views import decay as view
from explorer.figures import line_chart

ui.enter()
PAGE = "decay"
bound_curve = ui.cached(view.bound_curve, max_entries=32)
sampled_means = ui.cached(view.sampled_means)

# the first screen: the title, the knobs and the bound beside the measured scores; the introduction and
# the bound's formula follow the charts
st.title(ui.t(f"{PAGE}.title"))
cols = st.columns(4)
dim = ui.knob(PAGE, "dim", where=cols[0])
base = ui.knob(PAGE, "base", where=cols[1], format_func=ui.format_base)
max_r = ui.knob(PAGE, "max_r", where=cols[2])
log_x = ui.knob(PAGE, "log_x", where=cols[3])
try_buttons(PAGE, {"big": {"base": 500000.0}, "small": {"base": 100.0}, "linear": {"log_x": False}})

left, right = st.columns(2)
with left:
    exponents = ui.knob(PAGE, "sweep", format_func=lambda e: ui.format_base(SWEEP_BASES[e]))
    chosen = ui.t("decay.chosen_series", base=ui.format_base(base))
    series = {chosen: bound_curve(dim, base, max_r)["bound"]}
    for other in (SWEEP_BASES[e] for e in exponents):
        if other != base:
            series[ui.t("decay.sweep_series", base=ui.format_base(other))] = bound_curve(dim, other, max_r)["bound"]
    ui.chart(line_chart(np.arange(max_r + 1, dtype=np.float32), series, title=ui.t("decay.bound_title", dim=dim),
                        x_title=ui.t("decay.distance_axis"), y_title=ui.t("decay.bound_axis"), log_x=log_x,
                        dashed=tuple(name for name in series if name != chosen)), key="bound")
with right:
    knob_cols = st.columns(2)
    samples = ui.knob(PAGE, "samples", where=knob_cols[0])
    seed = ui.knob(PAGE, "seed", where=knob_cols[1])
    means = sampled_means(dim, base, max_r, samples, seed, log_x)
    ui.chart(line_chart(means["distances"], {ui.t("decay.free_series"): means["free"],
                                             ui.t("decay.tied_series"): means["tied"]},
                        title=ui.t("decay.empirical_title", samples=samples, base=ui.format_base(base)),
                        x_title=ui.t("decay.distance_axis"), y_title=ui.t("decay.score_axis"), log_x=log_x),
             key="empirical")
    st.caption(ui.t("decay.empirical_caption", points=len(means["distances"]), max_r=max_r))
    st.markdown(ui.t("decay.empirical_text"))

ui.explain(ui.t(f"{PAGE}.intro"))
st.latex(r"B(r) = \frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|,\qquad S_j = \sum_{i=0}^{j-1} e^{\mathrm{i}\, r\theta_i},"
         r"\qquad \theta_i = \mathrm{base}^{-2i/d}")

ripple = bound_curve(dim, base, max_r)
st.markdown(ui.t("decay.ripple", max_r=max_r, base=ui.format_base(base), rises=ripple["rises"], steps=max_r,
                 share=ripple["rises"] / max_r, start=ripple["start"], low=ripple["low"], low_at=ripple["low_at"],
                 end=ripple["end"], ratio=ripple["ratio"]))
st.markdown(ui.t("decay.ripple_remark"))

st.subheader(ui.t("decay.argument_header"))
st.markdown(ui.t("decay.argument_pairs"))
st.latex(r"(\mathcal{R}_m q)^\top(\mathcal{R}_n k) = "
         r"\mathrm{Re}\Big[\sum_{i=0}^{d/2-1} h_i\, e^{\mathrm{i}\, r\theta_i}\Big],"
         r"\qquad h_i = q_{[2i:2i+1]}\, k^{*}_{[2i:2i+1]},\qquad r = m - n")
st.markdown(ui.t("decay.argument_abel"))
st.latex(r"S_j = \sum_{i=0}^{j-1} e^{\mathrm{i}\, r\theta_i},\qquad "
         r"\sum_{i=0}^{d/2-1} h_i\,(S_{i+1} - S_i) = -\sum_{i=0}^{d/2-1} S_{i+1}\,(h_{i+1} - h_i)")
st.markdown(ui.t("decay.argument_bound"))
st.latex(r"\big|(\mathcal{R}_m q)^\top(\mathcal{R}_n k)\big| \le \sum_{i=0}^{d/2-1} |S_{i+1}|\,|h_{i+1} - h_i|"
         r"\le \Big(\max_i |h_{i+1} - h_i|\Big)\sum_{j=1}^{d/2} |S_j|")
glossary("pair", "wavelength")
ui.questions(PAGE, dim=dim, base=base)
