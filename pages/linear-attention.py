"""Linear attention with RoPE in the numerator, against softmax attention on the same tokens."""

import numpy as np
import streamlit as st

import explorer as ui
from explorer import latex as tex
from explorer.tryit import try_buttons
from explorer.views import linear as view
from explorer.figures import heatmap, line_chart

ui.enter()
PAGE = "linear"
attention_outputs = ui.cached(view.attention_outputs)
costs = ui.cached(view.costs)
measured_times = ui.cached(view.measured_times)

# the first screen: the title, the knobs in one row and the denominators, where RoPE inside linear attention
# can fail; the introduction, the formulas and both outputs follow
st.title(ui.t(f"{PAGE}.title"))
cols = st.columns(5)
seq = ui.knob(PAGE, "seq", where=cols[0])
dim = ui.knob(PAGE, "dim", where=cols[1])
base = ui.knob(PAGE, "base", where=cols[2], format_func=ui.format_base)
phi = ui.knob(PAGE, "phi", where=cols[3], format_func=lambda v: ui.t(f"linear.phi_{v}"))
seed = ui.knob(PAGE, "seed", where=cols[4])
try_buttons(PAGE, {"fail": {"base": 10.0, "dim": 8, "seq": 64, "seed": 2}, "safe": {"base": 10000.0},
                   "relu": {"phi": "relu"}})
out = attention_outputs(seq, dim, base, phi, seed)
positions = np.arange(seq, dtype=np.float32)

st.subheader(ui.t("linear.denominator_header"))
zero = ui.t("linear.zero_series")
denominators = line_chart(positions, {ui.t("linear.unrotated_series"): out["den"],
                                      ui.t("linear.rotated_series"): out["den_rot"],
                                      zero: np.zeros(seq, dtype=np.float32)},
                          title=ui.t("linear.denominator_title"), x_title=ui.t("linear.query_axis"),
                          y_title=ui.t("linear.denominator_axis"), dashed=(zero,))
with ui.chart_beside(denominators, key="denominators", widths=(3, 1)):
    st.metric(ui.t("linear.min_unrotated"), f"{out['min_den']:.4g}")
    st.metric(ui.t("linear.min_rotated"), f"{out['min_den_rot']:.4g}")
    st.metric(ui.t("linear.nonpositive"), ui.t("linear.nonpositive_value", count=out["nonpositive"], seq=seq))
st.markdown(ui.t("linear.denominator_result", ratio=out["worst_ratio"], count=out["nonpositive"], seq=seq) + " "
            + ui.t("linear.denominator_broken" if out["nonpositive"] else "linear.denominator_safe_here"))
st.markdown(ui.t("linear.denominator_text"))

ui.explain(ui.t(f"{PAGE}.intro"))
st.markdown(ui.t("linear.formula_text"))
# positions as on every page: the query at m, the keys at n (N tokens)
st.latex(tex.label("linear.latex_attention") + r"_m = \frac{\sum_{n=1}^{N} \phi(q_m)^\top \varphi(k_n)\, v_n}"
         r"{\sum_{n=1}^{N} \phi(q_m)^\top \varphi(k_n)}"
         r"= \frac{\phi(q_m)^\top \big(\sum_{n} \varphi(k_n)\, v_n^\top\big)}{\phi(q_m)^\top \sum_{n} \varphi(k_n)}")
st.markdown(ui.t("linear.rope_text"))
st.latex(tex.label("linear.latex_attention") + r"_m = \frac{\sum_{n=1}^{N} \big[\mathcal{R}_m \phi(q_m)\big]^\top "
         r"\big[\mathcal{R}_n \varphi(k_n)\big]\, v_n}{\sum_{n=1}^{N} \phi(q_m)^\top \varphi(k_n)},\qquad "
         r"\mathcal{R}_m^\top \mathcal{R}_n = \mathcal{R}_{n-m}")

st.subheader(ui.t("linear.outputs_header"))
soft_fig, lin_fig = (heatmap(out[f"{name}_drawn"], x=out["cols"], y=out["rows"], title=ui.t(f"linear.{name}_title"),
                             x_title=ui.t("linear.channel_axis"), y_title=ui.t("linear.query_axis"),
                             colorbar_title=ui.t("linear.output_axis"))
                     for name in ("softmax", "linear"))
ui.charts_side_by_side(soft_fig, "softmax_output", lin_fig, "linear_output")
st.caption(ui.t("linear.heatmap_caption", soft_std=out["soft_std"], lin_std=out["lin_std"]))
if out["row_step"] > 1:
    st.caption(ui.t("linear.heatmap_thinned", step=out["row_step"]))
if out["zero_queries"]:
    st.info(ui.t("linear.zero_queries", count=out["zero_queries"], seq=seq))

left, right = st.columns([3, 1])
with right:
    channel = ui.knob(PAGE, "channel", hi=dim - 1)
    st.metric(ui.t("linear.correlation"), f"{out['correlation']:.3f}", help=ui.t("linear.correlation_help"))
    st.metric(ui.t("linear.shift", shift=view.SHIFT), f"{out['shift_change']:.1e}",
              help=ui.t("linear.shift_help", shift=view.SHIFT))
with left:
    ui.chart(line_chart(positions, {ui.t("linear.softmax_series"): np.ascontiguousarray(out["softmax"][:, channel]),
                                    ui.t("linear.linear_series"): np.ascontiguousarray(out["linear"][:, channel])},
                        title=ui.t("linear.channel_title", c=channel), x_title=ui.t("linear.query_axis"),
                        y_title=ui.t("linear.output_axis")), key="channel")

st.subheader(ui.t("linear.cost_header"))
st.markdown(ui.t("linear.cost_text"))
st.latex(ui.t("linear.cost_latex"))
counted = costs(dim)
ui.chart(line_chart(counted["lengths"], {ui.t("linear.softmax_series"): counted["softmax"],
                                         ui.t("linear.linear_series"): counted["linear"]},
                    title=ui.t("linear.cost_title", dim=dim), x_title=ui.t("linear.length_axis"),
                    y_title=ui.t("linear.cost_axis"), log_x=True, log_y=True, markers=True), key="costs")
soft_now, lin_now = view.cost_at(seq, dim)
st.markdown(ui.t("linear.cost_now", seq=seq, dim=dim, soft=soft_now, lin=lin_now, ratio=soft_now / lin_now))
if ui.knob(PAGE, "timing"):
    times = measured_times(dim, phi, base, str(ui.device()))
    ui.chart(line_chart(times["lengths"], {ui.t("linear.softmax_series"): times["softmax"] * 1000,
                                           ui.t("linear.linear_series"): times["linear"] * 1000},
                        title=ui.t("linear.timing_title", device=times["device"], dim=dim),
                        x_title=ui.t("linear.length_axis"), y_title=ui.t("linear.time_axis"), log_x=True, log_y=True,
                        markers=True), key="timings")
    st.caption(ui.t("linear.timing_caption"))

ui.questions(PAGE)
