"""Check an implementation: the RoPE conformance kit. Choose a model, download its probe file, upload an engine's
answers (or let the demo plant a known bug into the reference), and read a verdict per kind of layer; a failure
shows its error against position and pair beside the same curves for the bug that explains it."""

import streamlit as st

import explorer as ui
from explorer.app.place import say, table
from explorer.app.panels import check_implementation as panels
from explorer.pure.views import check_implementation as view
from rope_viz.conformance import MAX_FILE_BYTES

PAGE = "check_implementation"

st.title(ui.t(f"{PAGE}.title"))
left, right = st.columns(2)
name = ui.knob(PAGE, "model", where=left)
demo = ui.knob(PAGE, "demo", where=right, format_func=lambda v: ui.t(f"check_implementation.demo_{v}"))
layout = ui.knob(PAGE, "layout", where=right, format_func=lambda v: ui.t(f"check_implementation.layout_{v}"))
with st.expander(ui.t("check_implementation.paste_header"), icon=":material/content_paste:"):
    config_text = ui.knob(PAGE, "config")
    refused = view.choose(name, config_text).refused
    if refused is not None:
        st.warning(ui.t("check_implementation.config_refused", detail=refused), icon=":material/block:")
first_failure = st.container()  # on the first screen: where the first failing kind goes wrong, as curves
ui.explain(ui.t(f"{PAGE}.intro"))

st.subheader(ui.t("check_implementation.files_header"))
st.markdown(ui.t("check_implementation.files_text"))
probe, file_name = panels.probe_file(name, config_text)
st.download_button(
    ui.t("check_implementation.download"),
    data=probe,
    file_name=file_name,
    mime="application/octet-stream",
    icon=":material/download:",
)
limit = min(MAX_FILE_BYTES, st.get_option("server.maxUploadSize") << 20)  # the server refuses more first
uploaded = st.file_uploader(ui.t("check_implementation.upload"), type=["safetensors"], key="conformance_answers",
                            help=ui.t("check_implementation.upload_help", limit=f"{limit >> 20}"))
panels.answer_examples()
upload = None
if uploaded is not None:
    if uploaded.size > limit:
        st.warning(ui.t("check_implementation.upload_too_big", size=f"{uploaded.size:,}", limit=f"{limit:,}"),
                   icon=":material/block:")
    else:
        upload = uploaded.getvalue()
data = panels.check(name, config_text, demo, upload, layout)
if data.source == "demo" and not data.ok:  # beside the knobs, on the first screen: this failure was planted
    left.info(ui.t("check_implementation.demo_first", bug=ui.t(f"check_implementation.demo_{demo}")),
              icon=":material/science:")
if data.upload_refused is not None:
    st.warning(ui.t("check_implementation.upload_refused", detail=data.upload_refused), icon=":material/block:")

st.subheader(ui.t("check_implementation.verdict_header"))
if data.source == "upload":
    st.caption(ui.t("check_implementation.source_upload"))
elif data.demo_missing:
    st.info(ui.t("check_implementation.demo_missing", bug=ui.t(f"check_implementation.demo_{demo}")))
else:
    st.caption(ui.t("check_implementation.source_demo", bug=ui.t(f"check_implementation.demo_{demo}")))
rows = data.rows
failed = [row for row in rows if not row.ok]
if failed:
    st.warning(ui.t("check_implementation.some_fail", failed=len(failed), kinds=len(rows)), icon=":material/cancel:")
else:
    st.success(ui.t("check_implementation.all_pass", kinds=len(rows)), icon=":material/check_circle:")
panels.verdict_table(rows)
st.caption(ui.t("check_implementation.table_caption"))

for index, failure in enumerate(data.failures):
    st.subheader(ui.t("check_implementation.failure_header", kind=failure.kind))
    st.markdown(say(failure.cell))
    if failure.first_pair is not None:
        st.markdown(
            ui.t("check_implementation.where", pair=failure.first_pair, position=f"{failure.first_position:,}")
        )
    by_position, by_pair = panels.failure_charts(failure)
    with first_failure if index == 0 else st.container():  # the first one on the first screen
        if index == 0:  # a planted bug says so here too: the presenter view puts this first
            st.caption(ui.t("check_implementation.first_failure" + ("_demo" if data.source == "demo" else ""),
                            kind=failure.kind, bug=ui.t(f"check_implementation.demo_{demo}")))
        ui.charts_side_by_side(by_position, f"position_{failure.kind}", by_pair, f"pair_{failure.kind}")
    for note in failure.notes:  # the layout a q/k-permuting loader makes right, where the answers stop
        st.markdown(say(note))
    links = [f"[{label}]({url})" if url else label for label, url in failure.links]
    if links:
        st.markdown(f"{ui.t('check_implementation.shipped_in')} {', '.join(links)}")  # the kit's own list of reports

st.subheader(ui.t("check_implementation.bugs_header"))
st.markdown(ui.t("check_implementation.bugs_text"))
table(view.bug_table())
panels.engines_today()  # the recorded report card: every preset through each engine's own RoPE
st.subheader(ui.t("check_implementation.cli_header"))
st.markdown(ui.t("check_implementation.cli_text"))
st.code("python -m rope_viz.conformance probe Llama-3.1-8B -o probe.safetensors\n"
        "python -m rope_viz.conformance verify Llama-3.1-8B answers.safetensors --json report.json", language="bash")

# ------------------------------------------------------------------ a GGUF file's RoPE as llama.cpp reads it
st.subheader(ui.t("check_implementation.gguf_header"))
st.markdown(ui.t("check_implementation.gguf_text"))
gguf_limit = min(view.MAX_GGUF_BYTES, st.get_option("server.maxUploadSize") << 20)
gguf_file = st.file_uploader(ui.t("check_implementation.gguf_upload"), type=["gguf"], key="conformance_gguf",
                             help=ui.t("check_implementation.gguf_upload_help", limit=f"{gguf_limit >> 20}"))
if gguf_file is not None and gguf_file.size > gguf_limit:
    st.warning(ui.t("check_implementation.gguf_too_big", size=f"{gguf_file.size:,}", limit=f"{gguf_limit:,}"),
               icon=":material/block:")
elif gguf_file is not None:
    panels.show_gguf(panels.gguf_check(gguf_file.getvalue(), name, config_text))
st.code("python -m rope_viz.conformance gguf model.gguf --config config.json", language="bash")
ui.questions(PAGE)
