"""The router: page config, the sidebar (language, device, share link), navigation, and the one place
where a device failure sends the session to the CPU.

Every run, a fresh server's first visit and a deep link included, runs app.py and so this router, which picks the
page from the address with `st.navigation`. The page scripts live in app_pages/, not in a folder named pages/:
Streamlit 1.67 runs the first visit of a process in its older multipage mode when a pages/ folder sits beside
the main script (`PagesManager.uses_pages_directory`, runtime/pages_manager.py, cleared only by `st.navigation`):
that run lists the folder's file names in the sidebar ("app", "check-implementation", ...) until the router's
navigation replaces them, and runs the requested file by itself (AppTest sets the flag again before every run).
"""

from __future__ import annotations

import threading
import time

# Plotly imports pandas lazily while it validates a figure: import it whole here, before any page runs,
# so that sessions building their first figures at the same time never see it half-imported.
import pandas  # noqa: F401
import streamlit as st
import torch

from rope_viz import set_max_elements
from rope_viz.device import describe

from explorer.pure import knobs, text

from explorer.app import client_guard, heavy, memory, presenter, session, widgets
from explorer.app.run_share import SHARES, share_s
from explorer.pure.safe_text import AppText
from explorer.pure.sitemap import PAGES, TOPICS, script

_hooks_lock = threading.Lock()
_hooks_installed = False

# The server's allocation budget, in tensor elements (512 MiB of float32): the library has none, so that a
# notebook's calls are bounded by memory alone; ROPE_VIZ_MAX_ELEMENTS in the environment overrides it.
SERVER_MAX_ELEMENTS = 1 << 27


def install_hooks() -> None:
    """What the server process needs before its first page runs, installed once (importing the app's
    modules installs nothing): every widget value a client sends is checked before Streamlit uses it, and
    what page runs free goes back to the system (glibc keeps it otherwise). The core's element budget is
    set on every run (one assignment), so that every page runs under it."""
    global _hooks_installed
    set_max_elements(SERVER_MAX_ELEMENTS)
    with _hooks_lock:
        if not _hooks_installed:
            client_guard.install()
            memory.return_freed_buffers()
            _hooks_installed = True


def main() -> None:
    """One run of the app: the sidebar, then the chosen page inside it."""
    install_hooks()
    _run()


def _run() -> None:
    if share_s() > 0:  # before any Streamlit call: a rerun sent meanwhile restarts the run here
        time.sleep(SHARES.pace(heavy.session_id()))
    st.set_page_config(page_title="RoPE Explorer", page_icon=":material/360:", layout="wide")
    notice_slot = widgets.begin_run()
    with st.sidebar:
        widgets.draw(knobs.LANG, session.LANG_KEY, "Language / 语言", format_func=text.LANG_NAMES.get)
        presenting = presenter.draw()
    presenter.stylesheet()  # its larger text applies while the toggle above is on
    if presenting:
        st.set_page_config(initial_sidebar_state="collapsed")  # for a projector: the sidebar folded away
    pages = {name: st.Page(script(name), title=session.t(f"{name}.nav"), icon=icon, url_path=url or None,
                           default=not url)
             for name, url, icon in PAGES}
    page = st.navigation(list(pages.values()), expanded=True)  # every topic listed, none behind "View more"
    current = next(name for name, candidate in pages.items() if candidate.url_path == page.url_path)
    session.set_current_page(current)
    # the browser tab names the page, in the visitor's language
    st.set_page_config(page_title=session.t("common.tab_title", page=session.t(f"{current}.nav")))
    with st.sidebar:
        st.caption(session.t("common.device", device=describe(session.device())))
        # a download preference, not part of the view: kept in the session, not in the link (set before
        # the widget, so that a value of the wrong type sent for it is replaced by a valid one)
        st.session_state[session.IMAGE_KEY] = session.image_format()
        st.radio(session.t("common.image_format"), ("png", "svg"), key=session.IMAGE_KEY, horizontal=True,
                 help=session.t("common.image_format_help"), format_func=str.upper)
    if session.device_fell_back():
        session.notice(session.t("common.device_fallback"))
    if session.gpu_failed():
        session.notice(session.t("common.gpu_fallback"))
    wait_for_share()
    began, _ = time.monotonic(), heavy.waited()
    try:
        page.run()
    except (torch.OutOfMemoryError, RuntimeError, NotImplementedError):
        # a GPU out of memory, a driver error or an operator the device lacks: redo the run on the CPU
        if not session.fall_back_to_cpu():
            raise
        st.rerun()
    finally:
        SHARES.add(heavy.session_id(), time.monotonic() - began - heavy.waited())
    lesson_links(current, pages)
    widgets.finish_run(notice_slot)


def wait_for_share() -> None:
    """Before the page runs: a session over its share of the last minute waits until it is back under it, told
    how long (a rerun interrupts the wait at its next redraw)."""
    line = None
    while (wait := SHARES.wait_s(heavy.session_id(), share_s())) > 0:
        if line is None:
            line = st.empty()
        line.warning(session.t("common.share_spent", wait=f"{max(1, round(wait)):,}"), icon=":material/timer:")
        time.sleep(min(wait, heavy.UPDATE_S))
    if line is not None:
        line.empty()


def lesson_links(current: str, pages: dict) -> None:
    """Below a topic page: where it stands in the lesson, and links to the previous and next steps."""
    if current not in TOPICS:
        return
    step = TOPICS.index(current)
    st.divider()
    st.caption(session.t("common.lesson_step", step=step + 1, total=len(TOPICS)))
    back, forward = st.columns(2)
    if step > 0:
        before = TOPICS[step - 1]
        back.page_link(pages[before], label=session.t("common.lesson_previous", title=session.t(f"{before}.nav")),
                       icon=":material/arrow_back:")
    if step + 1 < len(TOPICS):
        after = TOPICS[step + 1]
        forward.page_link(pages[after], label=session.t("common.lesson_next", title=session.t(f"{after}.nav")),
                          icon=":material/arrow_forward:")
        return
    # the last step: what the lesson covered, and where to go from here
    with forward.container(border=True, key="lesson-finished"):
        steps = AppText(session.t("common.list_sep").join(session.t(f"{name}.nav") for name in TOPICS))
        st.markdown(session.t("common.lesson_finished", total=len(TOPICS), steps=steps))
        st.page_link(pages["home"], label=session.t("common.lesson_home"), icon=":material/home:")
        st.page_link(pages["long_context"], label=session.t("common.lesson_again",
                                                             title=session.t("long_context.nav")),
                     icon=":material/replay:")
