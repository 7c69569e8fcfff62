"""Long context: what PI, NTK, dynamic NTK, YaRN, Llama 3 and LongRoPE do to a real model's RoPE."""

import streamlit as st

import explorer as ui
from explorer.pure.knobs import LONG_CONTEXT_PRESETS
from explorer.app.place import knob_row, metric_stack, say, section, table
from explorer.app.panels import long_context as panels
from explorer.pure.views import long_context as view

PAGE = "long_context"


def length(n: int) -> str:
    return f"{n:,}"


ui.page_header(PAGE)
top = st.columns(3)
# the knobs that refine a setting wait in an expander, so that the first chart is on the first screen
more = st.expander(ui.t("long_context.more_knobs"), icon=":material/tune:")
with more:
    config_text = ui.knob(PAGE, "config")
# while a pasted config is valid, the menu names it: every preset is replaced by it
probe = panels.resolve_model(LONG_CONTEXT_PRESETS[0], config_text)
preset_name = ui.knob(PAGE, "preset", where=top[0], format_func=(lambda v: ui.plain(
    "long_context.preset_replaced", preset=v, model_type=probe.model_type or "?")) if probe.pasted else None)
target = ui.knob(PAGE, "target", where=top[1], format_func=length)
model = panels.resolve_model(preset_name, config_text)
if (refused := view.refusal(model, preset_name)) is not None:  # answered next to the box
    more.warning(say(refused))
focus_choice = ui.knob(PAGE, "focus", where=top[2], format_func=lambda v: ui.plain(
    "long_context.focus_model", rope_type=model.rope_type) if v == "model" else panels.method_name(v))

with more:
    cols = st.columns(3)
    original_choice = ui.knob(PAGE, "original", where=cols[0], format_func=lambda v: ui.t(
        "long_context.original_model", n=model.original) if v == "model" else length(int(v)))
    original = model.original if original_choice == "model" else int(original_choice)
    factor_knob = ui.knob(PAGE, "factor", where=cols[1])
    with cols[2]:
        beta_fast = ui.knob(PAGE, "beta_fast")
        beta_slow = ui.knob(PAGE, "beta_slow", hi=min(32.0, beta_fast))
    low_freq, high_freq = knob_row(PAGE, "low_freq", "high_freq", widths=(1, 1, 1),
                                   high_freq=lambda chosen: {"lo": chosen["low_freq"] + 0.5})
if target <= original:
    st.info(ui.t("long_context.within_training", target=target, original=original))

setting = view.Setting(model, target, original, factor_knob or target / original, beta_fast, beta_slow, low_freq,
                       high_freq)
with st.spinner(ui.t("long_context.computing")):
    curves = panels.scaling_curves(*setting)
for name, reason in curves.skipped.items():
    st.info(ui.t("long_context.skipped", method=panels.method_name(name), reason=reason[:200]))
focus, missing = view.focus_for(focus_choice, curves, model.rope_type)
if missing is not None:
    st.info(say(missing))

st.subheader(ui.t("long_context.factors_header"))
ui.chart(panels.factors(setting, focus), key="factors")
# the setting in words, under its first chart (which comes on the first screen)
st.caption(say(view.model_line(model)))
st.markdown(ui.t("long_context.setting", original=original, target=target, factor=setting.factor))
st.markdown(ui.t("long_context.factors_text"))
st.latex(r"\theta_i = \mathrm{base}^{-2i/d},\qquad \theta_i' = \theta_i / f_i,\qquad "
         r"f_i = \theta_i / \theta_i' \in [1, s],\qquad s = T / L")
table(view.band_table(curves), index="long_context.band_method")
st.caption(ui.t("long_context.band_caption"))

section("long_context.wavelength")
ui.chart(panels.wavelengths(setting, focus), key="wavelengths")
st.markdown(say(view.wavelength_result(curves)))

section("long_context.angles")
with ui.chart_beside(panels.angles(setting, focus), key="angles", widths=(3, 1)):
    metric_stack(view.unseen_metrics(curves))

section("long_context.scores")
knob_cols = st.columns(4)
samples = ui.knob(PAGE, "samples", where=knob_cols[0])
seed = ui.knob(PAGE, "seed", where=knob_cols[1])
with st.spinner(ui.t("long_context.computing")):
    free_fig, tied_fig = panels.scores(setting, focus, samples, seed)
ui.charts_side_by_side(free_fig, "scores_free", tied_fig, "scores_tied")
st.caption(ui.t("long_context.scores_caption", points=view.score_points(target), samples=samples))

section("long_context.entropy")
st.latex(r"\mathrm{softmax}\Big(\frac{a^2\,(\mathcal{R}_m q)^\top \mathcal{R}_n k}{\sqrt{d}}\Big),\qquad "
         r"a = 0.1 \ln s + 1,\qquad H = -\sum_n p_n \ln p_n")
if (yarn := curves.methods.get("yarn")) is not None:
    row_args = (model.rotary_dim, yarn.inv_freq, yarn.attention_factor, target, seed)
    row = panels.softmax_row(*row_args)
    with ui.chart_beside(panels.softmax(*row_args), key="softmax_row", widths=(3, 1)):
        metric_stack(view.entropy_metrics(row))
    st.markdown(say(view.entropy_result(row)))

section("long_context.trap")
st.latex(r"\mathrm{base}'(n) = \mathrm{base}\cdot\Big(\frac{s\,n}{L} - (s - 1)\Big)^{d/(d-2)},\qquad "
         r"(\mathcal{R}_m^{(T)} q)^\top \mathcal{R}_n^{(P)} k \ne (\mathcal{R}_m^{(T)} q)^\top \mathcal{R}_n^{(T)} k")
prompt = ui.knob(PAGE, "prompt", where=knob_cols[2], format_func=length)
if (trap_args := view.trap_args(setting, curves, prompt, samples, seed)) is not None:
    metrics, result = view.trap_reading(panels.dynamic_trap(*trap_args), trap_args)
    with ui.chart_beside(panels.trap(trap_args), key="dynamic_trap", widths=(3, 1)):
        metric_stack(metrics)
    st.markdown(say(result))
else:
    st.info(ui.t("long_context.trap_needs", target=target))

ui.questions(PAGE)
