"""Long-term decay: RoFormer's bound against distance, a sweep over bases, and measured mean scores."""

import streamlit as st

import explorer as ui
from explorer.pure.figures import line_chart
from explorer.app.glossary import glossary
from explorer.pure.knobs import SWEEP_BASES
from explorer.app.layout import knob_row, labelled, say
from explorer.app.tryit import try_buttons
from explorer.pure.views import long_term_decay as view

ui.enter()
PAGE = "long_term_decay"
bound_curve = ui.cached(view.bound_curve, max_entries=32)
sampled_means = ui.cached(view.sampled_means)

# the first screen: the title, the knobs and the bound beside the measured scores; the introduction and
# the bound's formula follow the charts
st.title(ui.t(f"{PAGE}.title"))
dim, base, max_r, log_x = knob_row(PAGE, "dim", "base", "max_r", "log_x")
try_buttons(PAGE, {"big": {"base": 500000.0}, "small": {"base": 100.0}, "linear": {"log_x": False}})

left, right = st.columns(2)
with left:
    exponents = ui.knob(PAGE, "sweep", format_func=lambda e: ui.format_base(SWEEP_BASES[e]))
    lines = view.sweep_lines(dim, base, max_r, exponents, curve=bound_curve)
    ui.chart(
        line_chart(
            bound_curve(dim, base, max_r)["distances"],
            dict(labelled(lines["series"])),
            title=ui.t("long_term_decay.bound_title", dim=dim),
            x_title=ui.t("long_term_decay.distance_axis"),
            y_title=ui.t("long_term_decay.bound_axis"),
            log_x=log_x,
            dashed=tuple(say(name) for name in lines["dashed"]),
        ),
        key="bound",
    )
with right:
    samples, seed = knob_row(PAGE, "samples", "seed")
    means = sampled_means(dim, base, max_r, samples, seed, log_x)
    ui.chart(
        line_chart(
            means["distances"],
            {ui.t("long_term_decay.free_series"): means["free"], ui.t("long_term_decay.tied_series"): means["tied"]},
            title=ui.t("long_term_decay.empirical_title", samples=samples, base=ui.format_base(base)),
            x_title=ui.t("long_term_decay.distance_axis"),
            y_title=ui.t("long_term_decay.score_axis"),
            log_x=log_x,
        ),
        key="empirical",
    )
    st.caption(ui.t("long_term_decay.empirical_caption", points=len(means["distances"]), max_r=max_r))
    st.markdown(ui.t("long_term_decay.empirical_text"))

ui.explain(ui.t(f"{PAGE}.intro"))
st.latex(r"B(r) = \frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|,\qquad S_j = \sum_{i=0}^{j-1} e^{\mathrm{i}\, r\theta_i},"
         r"\qquad \theta_i = \mathrm{base}^{-2i/d}")

st.markdown(say(view.ripple_reading(bound_curve(dim, base, max_r), base, max_r)))
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
