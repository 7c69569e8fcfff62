"""Long-term decay: RoFormer's bound against distance, a sweep over bases, and measured mean scores."""

import numpy as np
import streamlit as st

import ui
from rope_viz import count_rises, decay_bound, distance_grid, empirical_decay, to_numpy
from rope_viz.figures import line_chart
from ui import controls

PAGE = "decay"
SWEEP_BASES = {2: 1e2, 3: 1e3, 4: 1e4, 5: 1e5, 6: 1e6, 7: 1e7, 8: 1e8, 9: 1e9}  # URL carries the exponent
EMPIRICAL_POINTS = 256  # distances at which the sampled means are evaluated


@ui.cached(max_entries=32)
def bound_curve(dim: int, base: float, max_r: int):
    """The bound at every integer distance 0..max_r (float32 for drawing) and its rise count."""
    bound = decay_bound(dim, base, range(max_r + 1))
    return to_numpy(bound), count_rises(bound)


@ui.cached
def bound_figure(dim: int, base: float, sweep: tuple, max_r: int, log_x: bool, lang: str):
    distances = np.arange(max_r + 1, dtype=np.float32)
    chosen = ui.t("decay.chosen_series", base=controls.format_base(base))
    series = {chosen: bound_curve(dim, base, max_r)[0]}
    for other in sweep:
        if other != base:
            series[ui.t("decay.sweep_series", base=controls.format_base(other))] = bound_curve(dim, other, max_r)[0]
    return line_chart(distances, series, title=ui.t("decay.bound_title", dim=dim),
                      x_title=ui.t("decay.distance_axis"), y_title=ui.t("decay.bound_axis"), log_x=log_x,
                      dashed=tuple(name for name in series if name != chosen))


@ui.cached
def empirical_figure(dim: int, base: float, max_r: int, samples: int, seed: int, log_x: bool, lang: str):
    grid = distance_grid(max_r, EMPIRICAL_POINTS, log=log_x)
    free = empirical_decay(dim, base, grid, samples=samples, seed=seed)
    tied = empirical_decay(dim, base, grid, samples=samples, seed=seed, tied=True)
    return line_chart(to_numpy(grid), {ui.t("decay.free_series"): to_numpy(free),
                                       ui.t("decay.tied_series"): to_numpy(tied)},
                      title=ui.t("decay.empirical_title", samples=samples, base=controls.format_base(base)),
                      x_title=ui.t("decay.distance_axis"), y_title=ui.t("decay.score_axis"), log_x=log_x)


ui.page_header(PAGE)
st.latex(r"B(r) = \frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|,\qquad S_j = \sum_{i=0}^{j-1} e^{\mathrm{i}\, r\theta_i},"
         r"\qquad \theta_i = \mathrm{base}^{-2i/d}")
cols = st.columns(4)
dim = controls.head_dim(PAGE, default=128, where=cols[0])
base = controls.base(PAGE, where=cols[1])
max_r = ui.knob(PAGE, ui.IntKnob("max_r", 1024, 16, 4096, 16), ui.t("decay.max_r"), help=ui.t("decay.max_r_help"),
                where=cols[2])
log_x = ui.knob(PAGE, ui.BoolKnob("log_x", False), ui.t("decay.log_x"), help=ui.t("decay.log_x_help"),
                where=cols[3])

left, right = st.columns(2)
with left:
    exponents = ui.knob(PAGE, ui.IntSetKnob("sweep", (4, 5, 6), min(SWEEP_BASES), max(SWEEP_BASES), 6),
                        ui.t("decay.sweep"), help=ui.t("decay.sweep_help"),
                        format_func=lambda e: controls.format_base(SWEEP_BASES[e]))
    sweep = tuple(SWEEP_BASES[e] for e in exponents)
    ui.chart(bound_figure(dim, base, sweep, max_r, log_x, ui.lang()), key="bound")
with right:
    knob_cols = st.columns(2)
    samples = ui.knob(PAGE, ui.IntKnob("samples", 64, 8, 128, 8), ui.t("decay.samples"),
                      help=ui.t("decay.samples_help"), where=knob_cols[0])
    seed = controls.seed(PAGE, where=knob_cols[1])
    ui.chart(empirical_figure(dim, base, max_r, samples, seed, log_x, ui.lang()), key="empirical")
    st.caption(ui.t("decay.empirical_caption", points=min(max_r + 1, EMPIRICAL_POINTS), max_r=max_r))
    st.markdown(ui.t("decay.empirical_text"))

bound, rises = bound_curve(dim, base, max_r)
low_at = int(bound.argmin())
st.markdown(ui.t("decay.ripple", max_r=max_r, base=controls.format_base(base), rises=rises, steps=max_r,
                 share=rises / max_r, start=float(bound[0]), low=float(bound[low_at]), low_at=low_at,
                 end=float(bound[-1]), ratio=float(bound[-1] / bound[0])))
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