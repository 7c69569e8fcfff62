"""Linear attention with RoPE in the numerator, against softmax attention on the same tokens."""

import streamlit as st

import explorer as ui
from explorer.app import latex as tex
from explorer.app.heavy import timed_on_note
from explorer.app.place import caption, knob_row, metric_stack, named, say, section, sentences
from explorer.app.panels import linear_attention as panel
from explorer.app.tryit import try_buttons
from explorer.pure.views import linear_attention as view

PAGE = "linear_attention"

# the first screen: the title, the knobs in one row and the denominators, where RoPE inside linear attention
# can fail; the introduction, the formulas and both outputs follow
st.title(ui.t(f"{PAGE}.title"))
seq, dim, base, phi, seed = knob_row(PAGE, "seq", "dim", "base", "phi", "seed",
                                     phi={"format_func": named("linear_attention.phi_")})
try_buttons(PAGE, {"fail": {"base": 10.0, "dim": 8, "seq": 64, "seed": 2}, "safe": {"base": 10000.0},
                   "relu": {"phi": "relu"}})
out = panel.attention_outputs(seq, dim, base, phi, seed)

st.subheader(ui.t("linear_attention.denominator_header"))
reading = view.denominator_reading(out, seq)
with ui.chart_beside(panel.denominators(seq, dim, base, phi, seed), key="denominators", widths=(3, 1)):
    metric_stack(reading.metrics)
sentences(reading.lines)
st.markdown(ui.t("linear_attention.denominator_text"))

ui.explain(ui.t(f"{PAGE}.intro"))
st.markdown(ui.t("linear_attention.formula_text"))
# positions as on every page: the query at m, the keys at n (N tokens)
st.latex(tex.label("linear_attention.latex_attention") + r"_m = \frac{\sum_{n=1}^{N} \phi(q_m)^\top \varphi(k_n)\, v_n}"
         r"{\sum_{n=1}^{N} \phi(q_m)^\top \varphi(k_n)}"
         r"= \frac{\phi(q_m)^\top \big(\sum_{n} \varphi(k_n)\, v_n^\top\big)}{\phi(q_m)^\top \sum_{n} \varphi(k_n)}")
st.markdown(ui.t("linear_attention.rope_text"))
st.latex(
    tex.label("linear_attention.latex_attention") + r"_m = \frac{\sum_{n=1}^{N} \big[\mathcal{R}_m \phi(q_m)\big]^\top "
    r"\big[\mathcal{R}_n \varphi(k_n)\big]\, v_n}{\sum_{n=1}^{N} \phi(q_m)^\top \varphi(k_n)},\qquad "
    r"\mathcal{R}_m^\top \mathcal{R}_n = \mathcal{R}_{n-m}"
)

st.subheader(ui.t("linear_attention.outputs_header"))
soft_fig, lin_fig = panel.outputs(seq, dim, base, phi, seed)
ui.charts_side_by_side(soft_fig, "softmax_output", lin_fig, "linear_output")
st.caption(ui.t("linear_attention.heatmap_caption", soft_std=out.soft_std, lin_std=out.lin_std))
notes = view.output_notes(out, seq)
caption(notes.thinned)
if notes.zero is not None:
    st.info(say(notes.zero))

left, right = st.columns([3, 1])
with right:
    channel = view.channel(out, ui.knob(PAGE, "channel", hi=dim - 1))
    metric_stack(channel.metrics)
with left:
    ui.chart(panel.channel(out, channel), key="channel")

section("linear_attention.cost")
st.latex(ui.t("linear_attention.cost_latex"))
ui.chart(panel.cost(dim), key="costs")
st.markdown(say(view.cost_now(seq, dim)))
if ui.knob(PAGE, "timing"):
    times, timed_on = panel.measured_times(dim, phi, base, str(ui.device()))
    ui.chart(panel.timings(times, dim), key="timings")
    st.caption(ui.t("linear_attention.timing_caption"))
    st.caption(say(timed_on_note(timed_on)))

ui.questions(PAGE)
