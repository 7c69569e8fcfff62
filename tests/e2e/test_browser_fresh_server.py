"""Right after the server starts: a first visitor who arrives by a page link, and many visitors at once."""

from contextlib import contextmanager
from pathlib import Path

import pytest

from support.server import streamlit_server, wait_for_app
from browser_checks import (LOAD_TIMEOUT_MS, assert_charts_drawn, assert_clean, heading,
                            title)
from explorer.pure import text
from explorer.pure.sitemap import PAGES, script

pytestmark = pytest.mark.browser


@contextmanager
def output_on_failure(server):
    """Add the end of the server's output (where a page's traceback lands) to a failed assertion."""
    try:
        yield
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n--- streamlit server output ---\n{server.log_tail()}") from None


def test_first_visit_after_start_by_a_page_link_gets_the_page_and_no_dialog(page):
    """The first session after a server start that arrives by a page link (a class opening a teacher's
    link after the host woke the app up): the right page, drawn and working, with no "Page not found"
    dialog. No folder named pages/ makes Streamlit run that first visit in its older multipage mode: the router
    runs it.
    """
    with streamlit_server() as fresh, output_on_failure(fresh):
        page.goto(f"{fresh.url}/frequency-clocks?dim=32", timeout=LOAD_TIMEOUT_MS)
        wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
        assert heading(page) == title("frequency_clocks")
        assert_charts_drawn(page, "frequency_clocks")
        page.wait_for_timeout(1000)  # a dialog would have arrived with the run's messages
        dialog = page.locator("[data-testid=stDialog]")
        assert dialog.count() == 0, dialog.inner_text()
        assert_clean(page)
        assert "dim=32" in page.url  # the link's knobs survived the first visit
        clocks = page.locator("[data-testid=stMain] [data-testid=stPlotlyChart]").first
        label = clocks.locator(".slider-group > text.slider-label").first
        before = label.text_content()
        clocks.locator(".updatemenu-button").first.click()  # ▶ Play
        page.wait_for_timeout(1200)
        assert label.text_content() != before, "the animation did not play"


# Records, from the document's first paint, every change of the sidebar's list of pages: (ms since the navigation
# started, the links' labels).
NAV_LOG = """
window.navLog = [];
new MutationObserver(() => {
    const links = [...document.querySelectorAll('[data-testid=stSidebarNav] a')]
        .map(a => a.innerText.trim().split('\\n').pop().trim());  // a link's last line: its label after its icon
    const last = window.navLog.length ? window.navLog[window.navLog.length - 1][1] : null;
    if (links.length && JSON.stringify(links) !== JSON.stringify(last)) window.navLog.push([performance.now(), links]);
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def test_the_first_visit_after_start_never_lists_file_names_in_the_sidebar(page):
    """The first visit of a fresh server: from the first paint on, the sidebar lists the pages by their titles only,
    never by their scripts' file names ("app", "check-implementation", ...), which Streamlit's older multipage mode
    draws from a folder named pages/ beside the main script until the router's st.navigation replaces them."""
    files = {"app"} | {Path(script(name)).stem for name, _, _ in PAGES}
    names = files | {f.replace("_", " ") for f in files}
    page.add_init_script(NAV_LOG)
    with streamlit_server() as fresh, output_on_failure(fresh):
        page.goto(fresh.url, timeout=LOAD_TIMEOUT_MS)
        wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
        log = page.evaluate("window.navLog")
    raw = [(round(ms), sorted(names & set(links))) for ms, links in log if names & set(links)]
    assert log and not raw, f"file names listed in the sidebar (ms, names): {raw[:3]}; every list: {log}"
    assert log[-1][1] == [text.text(f"{name}.nav", "en") for name, _, _ in PAGES]  # the titles, in the lesson's order


def test_every_chart_page_opened_at_once_after_start_is_served(browser_context):
    """The first figures of a fresh server are built by several sessions at the same time.

    Plotly imports pandas on the first figure it validates; unless the router imports it first, some of
    these sessions get the half-imported module and fail with AttributeError.
    """
    chart_pages = [(stem, url) for stem, url, _ in PAGES if url]  # every topic (home is opened first)
    with streamlit_server() as fresh, output_on_failure(fresh):
        home = browser_context.new_page()
        home.goto(fresh.url, timeout=LOAD_TIMEOUT_MS)
        wait_for_app(home, timeout=LOAD_TIMEOUT_MS)
        tabs = [browser_context.new_page() for _ in chart_pages]
        try:
            for tab, (_, url) in zip(tabs, chart_pages):
                tab.goto(f"{fresh.url}/{url}", timeout=LOAD_TIMEOUT_MS, wait_until="commit")
            for tab, (stem, _) in zip(tabs, chart_pages):
                wait_for_app(tab, timeout=2 * LOAD_TIMEOUT_MS)
                assert heading(tab) == title(stem)
                assert_clean(tab)
                assert_charts_drawn(tab, stem)
        finally:
            for tab in [home, *tabs]:
                tab.close()
