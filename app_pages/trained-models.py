"""Tiny transformers trained here with RoPE, sinusoidal, ALiBi or no position encoding, tested past their
training length: accuracy against evaluation length, their attention maps, and a short run of your own."""

import streamlit as st

import explorer as ui
from explorer.app import live_run, live_budget
from explorer.app.place import bullets, caption, knob_row, metric_row, paragraphs, say
from explorer.app.panels import rope_designs as designs_panels
from explorer.app.panels import trained_models as panel
from explorer.pure.views import rope_designs as designs_view
from explorer.pure.views import trained_models as view

PAGE = "trained_models"
enc, scal, task_name = panel.enc, panel.scal, panel.task_name

owner = live_run.owner()
ui.page_header(PAGE)
folder = str(live_budget.results_dir())
stamp = view.grid_stamp(folder)
grid = view.grid_lines(panel.shipped(folder, stamp), folder)
if grid.notice is not None:
    st.info(say(grid.notice))

# --- accuracy against evaluation length ---------------------------------------------------------------------
st.subheader(ui.t("trained_models.accuracy_header"))
chart_slot = st.container()  # the chart first, its knobs under it
task, factor, show_scalings = knob_row(PAGE, "task", "factor", "scalings", task={"format_func": task_name},
                                       factor={"format_func": lambda v: f"{v:g}×"})
data = panel.shipped_curves(folder, stamp, task)
live_runs = live_budget.finished()
accuracy = view.accuracy_chart(data, live_runs, task, owner, show_scalings)
with chart_slot:
    if accuracy.series:
        ui.chart(panel.accuracy(accuracy, PAGE, task), key="accuracy")
# the two tasks and where the results come from, under their chart (which comes on the first screen)
st.markdown(ui.t("trained_models.accuracy_text"))
caption(grid.source)
found = view.findings(data, factor)
if found is not None:
    st.caption(say(found.caption))
    paragraphs(found.paragraphs)
    bullets(found.claims)
    four_layer = designs_panels.grid_curves(folder, designs_view.grid_stamp(folder), task)
    if (across := view.alibi_across(data, four_layer, factor, "trained_models.alibi_across")) is not None:
        st.markdown(say(across))
elif grid.source is not None:
    st.info(ui.t("trained_models.no_task", task=task_name(task)))

# --- attention maps of the shipped weights -------------------------------------------------------------------
st.subheader(ui.t("trained_models.maps_header"))
st.markdown(ui.t("trained_models.maps_text"))
encoding, layer, head, scaling = knob_row(PAGE, "encoding", "layer", "head", "scaling",
                                          encoding={"format_func": enc}, scaling={"format_func": scal})
with st.spinner(ui.t("trained_models.computing")):
    maps = panel.attention_view(folder, stamp, task, encoding, layer, head, factor, scaling)
if maps is None:
    st.info(ui.t("trained_models.no_weights", encoding=enc(encoding), task=task_name(task)))
else:
    reading = view.map_reading(maps, encoding, layer, head, factor, scaling)
    short_fig, long_fig = panel.maps(maps, reading)
    ui.charts_side_by_side(short_fig, "map_short", long_fig, "map_long")
    caption(reading.thinned)
    metric_row(reading.metrics)
    st.markdown(say(reading.verdict))
    locked = panel.locked_heads(folder, stamp, task, factor, scaling)
    if locked.encodings:
        with ui.chart_beside(panel.locked(folder, stamp, task, factor, scaling), key="locked"):
            st.markdown(ui.t("trained_models.locked_text"))
            bullets(view.locked_reading(locked, factor).lines)

# --- train it yourself ---------------------------------------------------------------------------------------
st.subheader(ui.t("trained_models.live_header"))
st.markdown(say(view.live_intro(data, live_budget.LIVE_STEPS, live_budget.KEEP)))
t_encoding, t_task, t_len, t_seed = knob_row(PAGE, "train_encoding", "train_task", "train_len", "train_seed",
                                             train_encoding={"format_func": enc},
                                             train_task={"format_func": task_name})
live_run.start_button(t_task, t_encoding, t_len, t_seed)
live_run.status()
for run in live_runs:
    st.caption(say(view.run_line(run, owner, factor)))

ui.questions(PAGE)
