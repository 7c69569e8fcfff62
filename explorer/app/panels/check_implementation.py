"""Check an implementation's cached verdicts and probe file, and a failing kind's two charts: its error against
position and against pair, each beside the same curve for the bug that explains it."""

from __future__ import annotations

import functools
import hashlib

import pandas as pd
import streamlit as st

from explorer.app import heavy, presenter
from explorer.app.place import chart, say, table
from explorer.app.cache import cached
from explorer.app.session import t
from explorer.pure.figures import line_chart
from explorer.pure.views import check_implementation as view
from explorer.pure.views import engines_today as engines_view
from explorer.pure.views.phrases import phrase

_check = cached(view.check, max_entries=8)
probe_file = cached(view.probe_file, max_entries=8)
gguf_check = cached(view.gguf_check, max_entries=4)


def check(name: str, config_text: str, demo: str, upload: bytes | None, layout: str) -> view.Check:
    """The verdicts: a demo's cached; an upload's verified as a job of the server's one queue (one at a time, one
    per session, the same file and model verified once), keyed by the file's sha256."""
    if upload is None:
        return _check(name, config_text, demo, None, layout)
    key = ("kit", name, config_text, demo, hashlib.sha256(upload).hexdigest(), layout)
    return heavy.run("kit", key, functools.partial(view.check, name, config_text, demo, upload, layout),
                     what=t("check_implementation.section_verify"))


def verdict_table(rows: list[view.VerdictRow]) -> None:
    """A row per kind of layer: its layers, its rotation, pass or fail, the largest error and the diagnosis."""
    table({
        "check_implementation.col_kind": [row.kind for row in rows],
        "check_implementation.col_layers": [
            t("check_implementation.layers_cell", layers=row.layers, count=row.count) for row in rows],
        "check_implementation.col_rope": [row.rope for row in rows],
        "check_implementation.col_result": [
            t("check_implementation.pass" if row.ok else "check_implementation.fail") for row in rows],
        "check_implementation.col_error": [f"{row.max_error:.3g}" for row in rows],
        "check_implementation.col_bug": [row.bug for row in rows],
    })


def answer_examples() -> None:
    """docs/conformance.md's two scripts that fill an answers file (Llama 2, in PyTorch and in NumPy), folded."""
    with st.expander(t("check_implementation.examples_header"), icon=":material/code:"):
        for tab, kind in zip(st.tabs(["PyTorch", "NumPy"]), ("torch", "numpy")):
            tab.code(view.answer_example(kind), language="python")


def position_chart(curves: view.FailureCurves, title: str):
    """The error against position, observed and (dashed) the matched bug's."""
    observed, matched = t("check_implementation.observed"), t("check_implementation.matched")
    series = {observed: curves.observed_by_position}
    if curves.bug_by_position is not None:
        series[matched] = curves.bug_by_position
    return line_chart(curves.positions, series, title=title, x_title=t("check_implementation.position_axis"),
                      y_title=t("check_implementation.error_axis"), log_x=True, log_y=True, markers=True,
                      dashed=(matched,))


def failure_charts(failure: view.Failure):
    """The error against position and against pair, observed and (dashed) the matched bug's: two figures.
    Not cached as figures: they are drawn from the cached verdicts, an upload's among them."""
    curves = failure.curves
    observed, matched = t("check_implementation.observed"), t("check_implementation.matched")
    pair_series = {observed: curves.observed_by_pair}
    if curves.bug_by_pair is not None:
        pair_series[matched] = curves.bug_by_pair
    by_position = position_chart(curves, t("check_implementation.by_position_title"))
    by_pair = line_chart(curves.pairs, pair_series, title=t("check_implementation.by_pair_title"),
                         x_title=t("check_implementation.pair_axis"), y_title=t("check_implementation.error_axis"),
                         log_y=True, dashed=(matched,))
    return by_position, by_pair


def engines_today() -> None:
    """The recorded report card: a row per preset, a column per engine, then each failing kind's error against
    position beside the bug's, two to a row."""
    card = engines_view.engines_today()
    st.subheader(t("check_implementation.engines_header"))
    st.markdown(t("check_implementation.engines_text", date=card.date))
    columns = {t("check_implementation.col_preset"): [name for name, _ in card.rows]}
    for i, label in enumerate(card.engines):
        columns[label] = [say(cells[i]) for _, cells in card.rows]
    frame = pd.DataFrame(columns)
    if presenter.on():  # a projector: every row at once, in the presenter view's table text, as large as the prose
        st.table(frame.set_index(frame.columns[0]))
    else:
        st.dataframe(frame, hide_index=True)
    for start in range(0, len(card.failures), 2):
        for column, index in zip(st.columns(2), range(start, min(start + 2, len(card.failures)))):
            failure = card.failures[index]
            with column:
                st.caption(say(phrase("check_implementation.engines_failure", preset=failure.preset,
                                      engine=failure.engine, kind=failure.kind, bug=failure.cell)))
                title = t("check_implementation.engines_chart_title", preset=failure.preset, engine=failure.engine)
                chart(position_chart(failure.curves, title), key=f"engine_{index}")


def show_gguf(reading: view.GGUFCheck) -> None:
    """A GGUF file's reading: refused (why), or its name and architecture, the verdict, and a row per group of
    layers (llama.cpp's rotation beside the config's, and their differences); every text from the file as text."""
    if reading.refused is not None:
        st.warning(t("check_implementation.gguf_refused", detail=reading.refused), icon=":material/block:")
    else:
        st.caption(t("check_implementation.gguf_read", name=reading.name or "—", arch=reading.architecture))
        if reading.mismatch is not None:
            st.info(t("check_implementation.gguf_mismatch", detail=reading.mismatch))
        elif reading.ok:
            st.success(t("check_implementation.gguf_agrees"), icon=":material/check_circle:")
        else:
            st.warning(t("check_implementation.gguf_differs"), icon=":material/cancel:")
        columns = {
            "check_implementation.col_layers": [
                t("check_implementation.layers_cell", layers=row.layers, count=row.count) for row in reading.rows
            ],
            "check_implementation.col_llama_cpp": [row.llama_cpp for row in reading.rows],
        }
        if reading.compared:
            columns["check_implementation.col_config"] = [row.config for row in reading.rows]
            columns["check_implementation.col_differences"] = [row.differences for row in reading.rows]
        table(columns)
