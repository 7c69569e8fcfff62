"""One visitor's session: the compute device (and its one fallback policy), the language, notices.

Device policy: pages compute on the CPU, unless `ROPE_VIZ_DEVICE` names another device. Their tensors are
page-sized, and on an H100 every page's warm rerun took 1.2 to 1.7 times as long with CUDA as on the same
machine's CPU (kernel launches and transfers that the arithmetic never repays). Heavy work, the live
training run, goes to the fastest device (`explorer.app.live_budget`). When a page run fails on a GPU (out of
memory, a driver error, an operator the device lacks), the router reruns the page on the CPU and the
session stays there (`fall_back_to_cpu`). Nothing else catches device errors.
"""

from __future__ import annotations

import threading

import streamlit as st
import torch

from rope_viz.device import requested_device

from explorer.pure import text
from explorer.app.cache_guard import forbid_inside_cache
from explorer.pure.safe_text import AppText, one_line, shown

_CPU_ONLY = "_cpu_only"
IMAGE_KEY = "app.img"  # the session-state key of the chart image format
_run = threading.local()  # the page this thread is running
_NOTICES = "_notices"
LANG_KEY = "app.lang"  # the session-state key of the language radio


@st.cache_resource
def _server_device() -> tuple[str, bool]:
    """(the device pages compute on, whether the requested one was unusable)."""
    try:
        return str(requested_device() or torch.device("cpu")), False
    except ValueError:
        return "cpu", True


def device() -> torch.device:
    """The compute device of this session."""
    forbid_inside_cache("device()")
    if st.session_state.get(_CPU_ONLY):
        return torch.device("cpu")
    return torch.device(_server_device()[0])


def fall_back_to_cpu() -> bool:
    """After a GPU failure, compute on the CPU for the rest of the session; False if already there."""
    if device().type == "cpu":
        return False
    st.session_state[_CPU_ONLY] = True
    return True


def gpu_failed() -> bool:
    return bool(st.session_state.get(_CPU_ONLY))


def device_fell_back() -> bool:
    return _server_device()[1]


def lang() -> str:
    chosen = st.session_state.get(LANG_KEY)
    return chosen if chosen in text.LANGS else "en"


def image_format() -> str:
    return st.session_state.get(IMAGE_KEY) if st.session_state.get(IMAGE_KEY) in ("png", "svg") else "png"


def set_current_page(page: str) -> None:
    _run.page = page


def current_page() -> str:
    """The id of the page being run (explorer.pure.sitemap), "" outside a page."""
    return getattr(_run, "page", "")


def t(key: str, **values) -> AppText:
    """The string `key` in the session's language; every value from outside the app's own text is
    filled in as text, never as Markdown (`explorer.pure.safe_text`)."""
    forbid_inside_cache("t()")
    return AppText(text.text(key, lang(), **{name: shown(value) for name, value in values.items()}))


def plain(key: str, **values) -> str:
    """The string `key` in the session's language for a place that shows plain text, not Markdown (a menu's
    options): text values filled in as they are, on one line."""
    forbid_inside_cache("plain()")
    return text.text(key, lang(), **{name: one_line(value) if isinstance(value, str) else value
                                     for name, value in values.items()})


def notice(message: str) -> None:
    """Queue a warning shown at the top of the page (a message not written by `t` is shown as text)."""
    st.session_state.setdefault(_NOTICES, []).append(shown(message))


def take_notices() -> list[str]:
    notices = st.session_state.get(_NOTICES, [])
    st.session_state[_NOTICES] = []
    return notices
