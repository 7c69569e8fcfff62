"""Why 2025-26 models changed RoPE (NoPE layers, query temperature, local RoPE, p-RoPE, partial RoPE), answered
by four-layer transformers trained here: accuracy past the training length, what each frequency is used for,
and the pair-layout mix-up."""

import streamlit as st

import explorer as ui
from explorer import training
from explorer.layout import bullets, knob_row, metric_row, say, section, sentences, table
from explorer.panels import designs as panels
from explorer.views import designs as view

ui.enter()
PAGE = "designs"

ui.page_header(PAGE)
folder = str(training.results_dir())
stamp = view.grid_stamp(folder)

st.subheader(ui.t("designs.accuracy_header"))
chart_slot = st.container()  # the chart first, its knobs under it
task, factor = knob_row(PAGE, "task", "factor", widths=(1, 1, 1), task={"format_func": panels.task_name},
                        factor={"format_func": lambda v: f"{v:g}×"})
data = panels.grid_curves(folder, stamp, task)
if data["curves"]:
    with chart_slot:
        ui.chart(panels.accuracy(folder, stamp, task), key="accuracy")
    st.markdown(ui.t("designs.accuracy_text"))
    st.caption(say(view.source(data, task)))
else:
    st.info(say(view.source(data, task)))
    st.stop()

section("designs.questions")
table(view.scheme_table(data, factor), index="designs.scheme_column")
for answer in view.answers(data, factor, task):
    sentences([answer["question"], answer["verdict"], answer["paper"]])

section("designs.frequency")
with st.spinner(ui.t("trained.computing")):
    use = panels.frequency_use(folder, stamp, task)
if use["models"]:
    ui.chart(panels.norms(folder, stamp, task), key="norms")
    bullets(view.frequency_reading(use))

section("designs.removal")
if (removed := panels.removal(folder, stamp, task, factor)) is not None:
    metric_row(view.removal_metrics(removed))
    st.markdown(say(view.removal_reading(removed)))

section("designs.mixup")
if (mixed := panels.layout_mixup(folder, stamp, task, factor)) is not None:
    ui.chart(panels.mixup(folder, stamp, task, factor), key="mixup")
    st.markdown(say(view.mixup_reading(mixed)))
