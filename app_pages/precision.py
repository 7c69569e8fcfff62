"""Where RoPE's rotations break in bfloat16, float16 and float32, measured against the exact angle m * theta_i."""

import streamlit as st

import explorer as ui
from explorer.app.heavy import timed_on_note
from explorer.app.place import knob_row, metric_row, metric_stack, paragraphs, say, section
from explorer.app.panels import precision as panels
from explorer.pure.views import precision as view

PAGE = "precision"

ui.page_header(PAGE)

st.subheader(ui.t("precision.error_header"))
dim, base, pair = knob_row(PAGE, "dim", "base", "pair", pair=lambda chosen: view.pair_knob(chosen["dim"]))
with st.spinner(ui.t("precision.computing")):
    curves = panels.error_curves(dim, base)
ui.charts_side_by_side(panels.errors(dim, base, view.FASTEST, "precision.fastest_title"), "fastest_pair",
                       panels.errors(dim, base, pair, "precision.chosen_title"), "chosen_pair")
st.caption(ui.t("precision.error_caption", window=view.WINDOW, points=len(curves.positions),
                floor=view.FLOOR, overflow=curves.overflow_from))
# what the curves measure, and the recipes they name, under the charts (the charts come on the first screen)
st.latex(r"\theta_i = b^{-2i/d},\qquad \varepsilon_{m,i} = \big|\,\mathrm{wrap}_{(-\pi,\pi]}"
         r"\big(\tilde\varphi_{m,i} - m\,\theta_i\big)\big|")
st.markdown(ui.t("precision.recipes_text"))
st.markdown(ui.t("precision.pair0_text"))
metric_row(view.limit_metrics(panels.limits()))

section("precision.staircase")
start = ui.knob(PAGE, "start")
positions_fig, angles_fig = panels.stairs(start, dim, base, pair)
ui.charts_side_by_side(positions_fig, "staircase", angles_fig, "staircase_angle")
metric_row(view.staircase_metrics(panels.staircase(start, dim, base, pair)))

st.subheader(ui.t("precision.scores_header"))
st.markdown(ui.t("precision.scores_text", window=view.SCORE_WINDOW))
far, recipe, seed = knob_row(PAGE, "far", "recipe", "seed", widths=[2, 4, 1], far={"format_func": ui.format_base},
                             recipe={"format_func": lambda r: ui.t(view.series_key(r))})
scored = panels.scores(far, recipe, dim, base, seed)
both, difference = panels.score_maps(far, recipe, dim, base, seed)
ui.chart(both, key="scores")
with ui.chart_beside(difference, key="difference"):
    metric_stack(view.score_metrics(scored))
metric_row(view.relative_metrics(scored))
if (note := view.collapsed_note(scored)) is not None:
    st.info(say(note))
paragraphs([view.scores_result(scored, recipe, far)])

section("precision.fix")
with ui.chart_beside(panels.fix(dim, base), key="fix"):
    metric_stack(view.fix_metrics(curves))
st.caption(ui.t("precision.fix_caption", window=view.WINDOW, short=view.SHORT))
paragraphs([view.fix_result(curves)])
st.markdown(ui.t("precision.cost_text"))
if ui.knob(PAGE, "timing"):
    timed, timed_on = panels.angle_fix_times(dim, base, str(ui.device()))
    timing_fig = panels.timing(timed, dim)
    with ui.chart_beside(timing_fig, key="timing"):
        metric_stack(view.timing_metrics(timed))
    st.caption(say(view.timing_caption(timed)))
    st.caption(say(timed_on_note(timed_on)))

ui.questions(PAGE, start=start)
