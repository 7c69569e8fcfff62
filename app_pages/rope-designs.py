"""Why 2025-26 models changed RoPE (NoPE layers, query temperature, local RoPE, p-RoPE, partial RoPE), answered
by four-layer transformers trained here: accuracy past the training length, what each frequency is used for,
and the pair-layout mix-up."""

import streamlit as st

import explorer as ui
from explorer.app import live_budget
from explorer.app.place import bullets, knob_row, metric_row, say, section, sentences, table
from explorer.app.panels import rope_designs as panels
from explorer.pure.views import rope_designs as view
from explorer.pure.views import trained_models as trained_view

PAGE = "rope_designs"

ui.page_header(PAGE)
folder = str(live_budget.results_dir())
stamp = view.grid_stamp(folder)

st.subheader(ui.t("rope_designs.accuracy_header"))
chart_slot = st.container()  # the chart first, its knobs under it
task, factor = knob_row(PAGE, "task", "factor", widths=(1, 1, 1), task={"format_func": panels.task_name},
                        factor={"format_func": lambda v: f"{v:g}×"})
data = panels.grid_curves(folder, stamp, task)
if data.curves:
    with chart_slot:
        ui.chart(panels.accuracy(folder, stamp, task), key="accuracy")
    st.markdown(ui.t("rope_designs.accuracy_text"))
    st.caption(say(view.source(data, task)))
else:
    st.info(say(view.source(data, task)))
    st.stop()

section("rope_designs.questions")
table(view.scheme_table(data, factor), index="rope_designs.scheme_column")
for answer in view.answers(data, factor, task):
    sentences([answer.question, answer.verdict, answer.paper])
two_layer = panels.two_layer_curves(folder, trained_view.grid_stamp(folder), task)
if (across := trained_view.alibi_across(data, two_layer, factor, "rope_designs.alibi_across")) is not None:
    st.markdown(say(across))

# what the seed-0 models do: evaluated once with the results (python -m rope_viz.toy evaluate4), read here
evaluated = view.evaluations_stamp(folder)
if (notice := view.evaluations_notice(folder, stamp, evaluated)) is not None:
    st.info(say(notice))
section("rope_designs.frequency")
use = panels.frequency_use(folder, evaluated, task)
if use.models:
    ui.chart(panels.norms(folder, evaluated, task), key="norms")
    bullets(view.frequency_reading(use))
    if (alike := view.norms_alike(use)) is not None:
        st.markdown(say(alike))

section("rope_designs.removal")
if (removed := panels.removal(folder, evaluated, task, factor)) is not None:
    metric_row(view.removal_metrics(removed))
    st.markdown(say(view.removal_reading(removed, data)))

section("rope_designs.mixup")
if (mixed := panels.layout_mixup(folder, evaluated, task, factor)) is not None:
    ui.chart(panels.mixup(folder, evaluated, task, factor), key="mixup")
    st.caption(say(view.mixup_scored(mixed, task)))
    st.markdown(say(view.mixup_reading(mixed)))

facts = data.facts
ui.questions(PAGE, dim=facts.dim, base=facts.base, train_len=data.train_len)
