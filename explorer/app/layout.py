"""Rows of knobs, rows and stacks of metrics, and the Phrases views return, put on a page."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pandas as pd
import streamlit as st

from explorer.pure.knobs import PAGE_KNOBS, format_base
from explorer.app.session import t
from explorer.pure.views.phrases import Metric, Phrase
from explorer.app.widgets import knob


def say(said: Phrase) -> str:
    """The text of a Phrase in the visitor's language (Phrase arguments first, a tuple of them as a list)."""
    return t(said.key, **{name: _said(value) for name, value in said.args.items()})


def _said(value):
    if isinstance(value, Phrase):
        return say(value)
    if isinstance(value, tuple) and value and all(isinstance(v, Phrase) for v in value):
        sep = t("common.list_sep")
        return type(sep)(sep.join(say(v) for v in value))  # still of the type t() gives the app's own text
    return value


def named(prefix: str) -> Callable[[object], str]:
    """A knob's format_func that shows option `v` as the text `<prefix>v`."""
    return lambda value: t(f"{prefix}{value}")


def knob_row(page: str, *names: str, widths: Iterable[float] | None = None, beside: Callable[[], None] | None = None,
             **options):
    """Knobs of `page` side by side, one column each (`widths` for other proportions; columns past the
    names stay empty), returning their values in order (one knob: its value). `options[name]`: knob()'s
    keyword arguments, or a function of the values drawn before it in the row (a dict by name) returning
    them, for a range that depends on a knob beside it (a narrowed `hi` narrows the default too). A base is
    shown with thousands separators. `beside`: drawn in the first column past the knobs (try-this buttons)."""
    columns = st.columns(list(widths) if widths is not None else len(names) + (beside is not None))
    values: dict = {}
    for name, where in zip(names, columns):
        given = options.get(name, {})
        kwargs = dict(given(values) if callable(given) else given)
        spec = PAGE_KNOBS[page][name]
        if spec.label == "common.base":
            kwargs.setdefault("format_func", format_base)
        if "hi" in kwargs and "default" not in kwargs and isinstance(spec.default, int | float):
            kwargs["default"] = min(spec.default, kwargs["hi"])  # a repaired link falls back to a value that fits
        values[name] = knob(page, name, where=where, **kwargs)
    if beside is not None:
        with columns[len(names)]:
            beside()
    return values[names[0]] if len(names) == 1 else tuple(values.values())


def metric_row(metrics: Iterable[Metric], *, columns=None) -> None:
    """Metrics side by side, one column each (new columns, or the `columns` given, e.g. beside a knob)."""
    metrics = list(metrics)
    for item, where in zip(metrics, columns if columns is not None else st.columns(len(metrics))):
        _metric(item, where)


def metric_stack(metrics: Iterable[Metric], *, where=None) -> None:
    """Metrics one under another in `where` (a column; by default the current container)."""
    for item in metrics:
        _metric(item, where if where is not None else st)


def _metric(item: Metric, where) -> None:
    value = say(item.value) if isinstance(item.value, Phrase) else item.value
    where.metric(say(item.label), value, help=say(item.help) if item.help is not None else None)


def labelled(items: Iterable[tuple]) -> list[tuple]:
    """Tuples whose first item is a Phrase (a point or an arc of a diagram) with that item said."""
    return [(say(name), *rest) for name, *rest in items]


def bullets(lines: Iterable[Phrase]) -> None:
    """Phrases as a bulleted list (nothing when there are none)."""
    lines = [say(line) for line in lines]
    if lines:
        st.markdown("\n".join(f"- {line}" for line in lines))


def paragraphs(lines: Iterable[Phrase | None]) -> None:
    """Phrases as paragraphs, one after another (None skipped)."""
    for line in lines:
        if line is not None:
            st.markdown(say(line))


def table(columns: dict[str, list], *, index: str | None = None) -> None:
    """A table from a view: column header text key -> cells (text, numbers or Phrases); `index`: the header
    of the column that labels the rows."""
    frame = pd.DataFrame({t(head): [say(c) if isinstance(c, Phrase) else c for c in cells]
                          for head, cells in columns.items()})
    st.table(frame.set_index(t(index)) if index is not None else frame)


def section(prefix: str) -> None:
    """A section's heading and its opening text: the texts `<prefix>_header` and `<prefix>_text`."""
    st.subheader(t(f"{prefix}_header"))
    st.markdown(t(f"{prefix}_text"))


def sentences(lines: Iterable[Phrase]) -> None:
    """Phrases as one paragraph."""
    st.markdown(" ".join(say(line) for line in lines))


def caption(line: Phrase | None) -> None:
    """A Phrase as a caption (nothing for None)."""
    if line is not None:
        st.caption(say(line))
