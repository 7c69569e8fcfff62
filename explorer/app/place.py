"""How a page places its parts: rows of knobs, rows and stacks of metrics, the Phrases views return, tables
and sections; and charts, with the app's chart settings (larger in the presenter view, with the image, CSV
and animated-GIF downloads), a chart beside its notes, two charts side by side, the axes and bands of
position-by-position score charts, and the cell of a score map a click picked."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import pandas as pd
import streamlit as st

from explorer.app import presenter, session
from explorer.app.session import t
from explorer.app.widgets import knob, url_params
from explorer.pure import text
from explorer.pure.exports import figure_csv, file_name
from explorer.pure.figures import profile_band
from explorer.pure.knobs import PAGE_KNOBS, format_base
from explorer.pure.views.phrases import Metric, Phrase


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


# --- charts ------------------------------------------------------------------------------------------
def toolbar_locale(lang: str) -> dict:
    """Plotly config that writes the chart toolbar's tooltips and notes in `lang` (none for English, Plotly's
    own): a locale named `lang` whose dictionary maps each English message (text/en/toolbar.toml) to its
    translation."""
    if lang == "en":
        return {}
    keys = [key for key in text.STRINGS["en"] if key.startswith("toolbar.")]
    return {"locale": lang, "locales": {lang: {"dictionary": {text.text(key): text.text(key, lang) for key in keys}}}}


def chart(fig, key: str, *, gif=None, on_pick=None) -> None:
    """Draw a figure from explorer.pure.figures with the app's chart settings: its toolbar saves the image
    (PNG at twice the size, or SVG, as chosen in the sidebar), and a button below it saves its data as
    CSV; both files are named after the page, the chart and the knobs' values. `gif`, for an animation:
    a function returning the animation as GIF bytes, called only when the visitor asks for the file.

    In the presenter view the chart is drawn from an enlarged copy (the figure may be shared from a
    cache and is never changed). The toolbar shows on hover only, so on a phone it never covers a title."""
    name = file_name(session.current_page(), key, url_params())
    image = {"format": session.image_format(), "filename": name, "scale": 2}
    shown = presenter.enlarge(fig) if presenter.on() else fig
    picking = {} if on_pick is None else {"on_select": lambda: on_pick(st.session_state.get(key)),
                                          "selection_mode": "points"}
    st.plotly_chart(shown, width="stretch", theme=None, key=key,
                    config={"displaylogo": False, "responsive": True, "displayModeBar": "hover",
                            "toImageButtonOptions": image, **toolbar_locale(session.lang())}, **picking)
    with st.container(horizontal=True, gap="small"):
        st.download_button(t("common.download_csv"), data=lambda: figure_csv(fig), file_name=f"{name}.csv",
                           mime="text/csv", key=f"{key}.csv", on_click="ignore", type="tertiary",
                           icon=":material/download:")
        if gif is not None:
            st.download_button(t("common.download_gif"), data=gif, file_name=f"{name}.gif", mime="image/gif",
                               key=f"{key}.gif", on_click="ignore", type="tertiary", icon=":material/animation:",
                               help=t("common.download_gif_help"))


def chart_beside(fig, key: str, widths: tuple = (3, 2)):
    """Draw `fig` in a wide left column and return the right column, for `with` blocks of notes or metrics."""
    left, right = st.columns(list(widths))
    with left:
        chart(fig, key=key)
    return right


def charts_side_by_side(left_fig, left_key: str, right_fig, right_key: str, *, on_pick_left=None) -> None:
    """Two charts in two equal columns."""
    left, right = st.columns(2)
    with left:
        chart(left_fig, key=left_key, on_pick=on_pick_left)
    with right:
        chart(right_fig, key=right_key)


def position_axes(kept) -> dict:
    """Heatmap axes of a query-by-key matrix, labelled with the original positions of the rows and
    columns drawn (`kept`, from explorer.pure.views.sampling.downsample)."""
    return dict(x=kept, y=kept, x_title=t("common.key_position"), y_title=t("common.query_position"))


def picked_cell(event) -> tuple[int, int] | None:
    """The (m, n) of the cell a click picked, from a chart's selection event (as the client sent it, so
    checked: None unless the first picked point is a finite (n, m) of a pick layer)."""
    try:
        point = event["selection"]["points"][0]
        n, m = float(point["x"]), float(point["y"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if not (math.isfinite(m) and math.isfinite(n)) or m != int(m) or n != int(n):
        return None
    return int(m), int(n)


def offset_band(profile: dict, *, title: str, y_title: str, mean_name: str, band_name: str):
    """A diagonal_profile (its arrays as numpy) drawn against the offset m - n: the mean of each
    diagonal inside the band from its smallest to its largest entry."""
    return profile_band(profile["offset"], profile["mean"], profile["min"], profile["max"], title=title,
                        x_title=t("common.offset"), y_title=y_title, mean_name=mean_name, band_name=band_name)


def page_header(prefix: str) -> None:
    """The page title and its short introduction, from `<prefix>.title` and `<prefix>.intro` (folded into
    an expander in the presenter view)."""
    st.title(t(f"{prefix}.title"))
    presenter.explain(t(f"{prefix}.intro"))
