"""Knobs whose state lives in the URL, the active language, and visible notices.

Each run: app.py calls `begin_run()`, the page calls `knob(...)` for every control (the value
is read from the session, else from the URL, validated by its `ui.params` spec, and repaired
with a notice when needed), and app.py calls `finish_run()`, which writes every knob back into
the query string so the address bar always reproduces the view.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st
import torch

from rope_viz import i18n
from rope_viz.device import get_device

from . import params

_URL = "_url_params"
_NOTICES = "_notices"
LANG_KNOB = params.ChoiceKnob("lang", "en", i18n.LANGS)


@st.cache_resource
def _resolve_device() -> tuple[str, bool]:
    try:
        return str(get_device()), False
    except ValueError:
        return "cpu", True


_CPU_ONLY = "_cpu_only"


def device() -> torch.device:
    """The compute device: the server's, or the CPU when it is unusable or failed in this session."""
    if st.session_state.get(_CPU_ONLY):
        return torch.device("cpu")
    return torch.device(_resolve_device()[0])


def fall_back_to_cpu() -> bool:
    """After a GPU failure, compute on the CPU for the rest of the session; False if already on the CPU."""
    if device().type == "cpu":
        return False
    st.session_state[_CPU_ONLY] = True
    return True


def gpu_failed() -> bool:
    return bool(st.session_state.get(_CPU_ONLY))


def device_fell_back() -> bool:
    return _resolve_device()[1]


def lang() -> str:
    return st.session_state.get("app.lang", "en") if st.session_state.get("app.lang") in i18n.LANGS else "en"


def t(key: str, **values) -> str:
    """The user-visible string `key` in the active language."""
    return i18n.text(key, lang(), **values)


def notice(message: str) -> None:
    """Queue a warning shown at the top of the page."""
    st.session_state.setdefault(_NOTICES, []).append(message)


def begin_run() -> st.delta_generator.DeltaGenerator:
    """Reset the per-run registry; returns the slot where notices will be shown."""
    st.session_state[_URL] = {}
    st.session_state[_NOTICES] = []
    return st.container()


def _widget(spec: params.Knob, label: str, key: str, help_text: str | None, where, format_func):
    common = dict(label=label, key=key, help=help_text)
    if isinstance(spec, (params.IntKnob, params.FloatKnob)) and spec.lo == spec.hi:
        return where.caption(f"{label}: {spec.lo}")  # a one-value range needs no slider
    if isinstance(spec, params.IntKnob):
        return where.slider(min_value=spec.lo, max_value=spec.hi, step=spec.step, **common)
    if isinstance(spec, params.FloatKnob):
        return where.slider(min_value=float(spec.lo), max_value=float(spec.hi),
                            step=10.0 ** -spec.digits if spec.digits else 1.0, **common)
    if isinstance(spec, params.NumberChoiceKnob):
        return where.select_slider(options=list(spec.options), format_func=format_func or (lambda v: f"{v:g}"),
                                   **common)
    if isinstance(spec, params.ChoiceKnob):
        return where.radio(options=list(spec.options), format_func=format_func or str, horizontal=True,
                           **common)
    if isinstance(spec, params.BoolKnob):
        return where.toggle(**common)
    if isinstance(spec, params.IntSetKnob):
        return where.multiselect(options=list(range(spec.lo, spec.hi + 1)), max_selections=spec.most,
                                 format_func=format_func or str, **common)
    raise TypeError(f"no widget for {type(spec).__name__}")


def knob(page: str, spec: params.Knob, label: str, *, help: str | None = None, where=None,
         format_func=None):
    """Draw the widget for `spec` and return its (always valid) value.

    The value comes from the session when the widget already exists, else from the URL's
    `spec.name` parameter; a value the spec rejects is replaced and a notice is shown.
    """
    where = where if where is not None else st
    key = f"{page}.{spec.name}"
    if key in st.session_state:
        value, _ = spec.coerce(st.session_state[key])
    else:
        raw = st.query_params.get(spec.name)
        value, replaced = (spec.default, False) if raw is None else spec.parse(raw)
        if replaced:
            notice(t("common.notice_replaced", name=spec.name, value=spec.dump(value)))
    st.session_state[key] = value
    _widget(spec, label, key, help, where, format_func)
    value = st.session_state[key]
    st.session_state.setdefault(_URL, {})[spec.name] = spec.dump(value)
    return value


def finish_run(notice_slot) -> None:
    """Show queued notices, write every knob into the URL and offer the link to copy."""
    for message in st.session_state.get(_NOTICES, []):
        notice_slot.warning(message, icon="⚠️")
    wanted = st.session_state.get(_URL, {})
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    base = st.context.url
    if base:
        with st.sidebar.expander(t("common.share"), icon="🔗"):
            st.caption(t("common.share_help"))
            st.code(f"{base}?{urlencode(wanted)}", language=None, wrap_lines=True)


def page_header(prefix: str) -> None:
    """The page title and its short introduction, from `<prefix>.title` and `<prefix>.intro`."""
    st.title(t(f"{prefix}.title"))
    st.markdown(t(f"{prefix}.intro"))


def chart(fig, key: str | None = None) -> None:
    """Draw a figure from rope_viz.figures with the app's chart settings."""
    st.plotly_chart(fig, width="stretch", theme=None, key=key,
                    config={"displaylogo": False, "responsive": True})


def cached(func=None, *, max_entries: int = 16, ttl: int = 3600):
    """st.cache_data with the app's bounds (entries and time to live)."""
    decorator = st.cache_data(max_entries=max_entries, ttl=ttl, show_spinner=False)
    return decorator(func) if func is not None else decorator
