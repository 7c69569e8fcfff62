"""Right after the server starts: a first visitor who arrives by a page link, and many visitors at once."""

from contextlib import contextmanager

import pytest

from support.server import streamlit_server, wait_for_app
from browser_checks import (LOAD_TIMEOUT_MS, PAGES_WITHOUT_CHARTS, assert_charts_drawn, assert_clean, heading,
                            title)
from ui.pages import PAGES

pytestmark = pytest.mark.browser


@contextmanager
def output_on_failure(server):
    """Add the end of the server's output (where a page's traceback lands) to a failed assertion."""
    try:
        yield
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n--- streamlit server output ---\n{server.log_tail()}") from None


def test_first_visit_after_start_by_a_page_link_gets_the_right_working_page(page):
    """The first session after a server start that arrives by a page link.

    Streamlit treats a folder named pages/ as its legacy multipage folder until the router's first
    st.navigation run, so this one session also gets Streamlit's own "Page not found" notice over the
    right page (README, Known limitations). What the visitor needs is checked: the right page is drawn,
    the notice is the only thing wrong, and once it is closed the page is clean and its animation plays.
    """
    with streamlit_server() as fresh, output_on_failure(fresh):
        page.goto(f"{fresh.url}/frequency-clocks?dim=32", timeout=LOAD_TIMEOUT_MS)
        wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
        assert heading(page) == title("rotations")
        assert_charts_drawn(page, "rotations")
        dialog = page.locator("[data-testid=stDialog]")
        if dialog.count():
            assert "not found" in dialog.inner_text().lower(), dialog.inner_text()
            page.keyboard.press("Escape")
            dialog.wait_for(state="detached", timeout=LOAD_TIMEOUT_MS)
        assert_clean(page)
        clocks = page.locator("[data-testid=stMain] [data-testid=stPlotlyChart]").first
        label = clocks.locator(".slider-group > text.slider-label").first
        before = label.text_content()
        clocks.locator(".updatemenu-button").first.click()  # ▶ Play
        page.wait_for_timeout(1200)
        assert label.text_content() != before, "the animation did not play after the notice was closed"


def test_every_chart_page_opened_at_once_after_start_is_served(browser_context):
    """The first figures of a fresh server are built by several sessions at the same time.

    Plotly imports pandas on the first figure it validates; unless the router imports it first, some of
    these sessions get the half-imported module and fail with AttributeError.
    """
    chart_pages = [(stem, url) for stem, url, _ in PAGES if stem not in PAGES_WITHOUT_CHARTS]
    with streamlit_server() as fresh, output_on_failure(fresh):
        home = browser_context.new_page()  # the first session runs the router once (see the test above)
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
