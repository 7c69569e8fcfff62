"""Check an implementation: the RoPE conformance kit. Choose a model, download its probe file, upload an engine's
answers (or let the demo plant a known bug into the reference), and read a verdict per kind of layer; a failure
shows its error against position and pair beside the same curves for the bug that explains it."""

import streamlit as st

import explorer as ui
from explorer.figures import line_chart
from explorer.layout import say, table
from explorer.views import conformance as view
from rope_viz.conformance import MAX_FILE_BYTES

ui.enter()
PAGE = "conformance"
check = ui.cached(view.check, max_entries=8)
probe_file = ui.cached(view.probe_file, max_entries=8)

st.title(ui.t(f"{PAGE}.title"))
left, right = st.columns(2)
name = ui.knob(PAGE, "model", where=left)
demo = ui.knob(PAGE, "demo", where=right, format_func=lambda v: ui.t(f"conformance.demo_{v}"))
with st.expander(ui.t("conformance.paste_header"), icon=":material/content_paste:"):
    config_text = ui.knob(PAGE, "config")
    refused = view.choose(name, config_text)["refused"]
    if refused is not None:
        st.warning(ui.t("conformance.config_refused", detail=refused), icon=":material/block:")
first_failure = st.container()  # on the first screen: where the first failing kind goes wrong, as curves
ui.explain(ui.t(f"{PAGE}.intro"))

st.subheader(ui.t("conformance.files_header"))
st.markdown(ui.t("conformance.files_text"))
probe, file_name = probe_file(name, config_text)
st.download_button(ui.t("conformance.download"), data=probe, file_name=file_name, mime="application/octet-stream",
                   icon=":material/download:")
limit = min(MAX_FILE_BYTES, st.get_option("server.maxUploadSize") << 20)  # the server refuses more first
uploaded = st.file_uploader(ui.t("conformance.upload"), type=["safetensors"], key="conformance_answers",
                            help=ui.t("conformance.upload_help", limit=f"{limit >> 20}"))
upload = None
if uploaded is not None:
    if uploaded.size > limit:
        st.warning(ui.t("conformance.upload_too_big", size=f"{uploaded.size:,}", limit=f"{limit:,}"),
                   icon=":material/block:")
    else:
        upload = uploaded.getvalue()
data = check(name, config_text, demo, upload)
if data["upload_refused"] is not None:
    st.warning(ui.t("conformance.upload_refused", detail=data["upload_refused"]), icon=":material/block:")

st.subheader(ui.t("conformance.verdict_header"))
if data["source"] == "upload":
    st.caption(ui.t("conformance.source_upload"))
elif data["demo_missing"]:
    st.info(ui.t("conformance.demo_missing", bug=ui.t(f"conformance.demo_{demo}")))
else:
    st.caption(ui.t("conformance.source_demo", bug=ui.t(f"conformance.demo_{demo}")))
rows = data["rows"]
failed = [row for row in rows if not row["ok"]]
if failed:
    st.warning(ui.t("conformance.some_fail", failed=len(failed), kinds=len(rows)), icon=":material/cancel:")
else:
    st.success(ui.t("conformance.all_pass", kinds=len(rows)), icon=":material/check_circle:")
table({"conformance.col_kind": [row["kind"] for row in rows],
       "conformance.col_layers": [ui.t("conformance.layers_cell", layers=row["layers"], count=row["count"])
                                  for row in rows],
       "conformance.col_rope": [row["rope"] for row in rows],
       "conformance.col_result": [ui.t("conformance.pass" if row["ok"] else "conformance.fail") for row in rows],
       "conformance.col_error": [f"{row['max_error']:.3g}" for row in rows],
       "conformance.col_bug": [row["bug"] for row in rows]})
st.caption(ui.t("conformance.table_caption"))

for index, failure in enumerate(data["failures"]):
    st.subheader(ui.t("conformance.failure_header", kind=failure["kind"]))
    st.markdown(say(failure["cell"]))
    if failure["first_pair"] is not None:
        st.markdown(ui.t("conformance.where", pair=failure["first_pair"], position=f"{failure['first_position']:,}"))
    observed, matched = ui.t("conformance.observed"), ui.t("conformance.matched")
    series = {observed: failure["observed_by_position"]}
    pair_series = {observed: failure["observed_by_pair"]}
    if failure["bug_by_position"] is not None:
        series[matched] = failure["bug_by_position"]
        pair_series[matched] = failure["bug_by_pair"]
    with first_failure if index == 0 else st.container():  # the first one on the first screen
        if index == 0:
            st.caption(ui.t("conformance.first_failure", kind=failure["kind"]))
        ui.charts_side_by_side(
            line_chart(failure["positions"], series, title=ui.t("conformance.by_position_title"),
                       x_title=ui.t("conformance.position_axis"), y_title=ui.t("conformance.error_axis"), log_x=True,
                       log_y=True, markers=True, dashed=(matched,)), f"position_{failure['kind']}",
            line_chart(failure["pairs"], pair_series, title=ui.t("conformance.by_pair_title"),
                       x_title=ui.t("conformance.pair_axis"), y_title=ui.t("conformance.error_axis"), log_y=True,
                       dashed=(matched,)), f"pair_{failure['kind']}")
    links = [f"[{label}]({url})" if url else label for label, url in failure["links"]]
    if links:
        st.markdown(f"{ui.t('conformance.shipped_in')} {', '.join(links)}")  # the kit's own list of reports

st.subheader(ui.t("conformance.bugs_header"))
st.markdown(ui.t("conformance.bugs_text"))
table(view.bug_table())
st.subheader(ui.t("conformance.cli_header"))
st.markdown(ui.t("conformance.cli_text"))
st.code("python -m rope_viz.conformance probe Llama-3.1-8B -o probe.safetensors\n"
        "python -m rope_viz.conformance verify Llama-3.1-8B answers.safetensors --json report.json", language="bash")
ui.questions(PAGE)
