"""A real Chromium against a real app server: one server, one browser and one browser context for the run.

Each test opens its own tab, which is its own Streamlit session; sharing the context keeps the
browser's cache, so the app's scripts load once, not once per test.
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import sync_playwright

from support.server import CHROMIUM, launch_chromium, streamlit_server, wait_for_app
from browser_checks import LOAD_TIMEOUT_MS, VIEWPORT


@pytest.fixture(scope="session")
def server(browser_context):
    """The app server, already visited once at its home page.

    The first session after a start pays for the app's imports (test_browser_fresh_server watches that
    visit); without this visit whichever test happened to run first would. The visit also loads the app's
    scripts into the browser cache.
    """
    with streamlit_server() as running:
        tab = browser_context.new_page()
        tab.goto(running.url, timeout=LOAD_TIMEOUT_MS)
        wait_for_app(tab, timeout=LOAD_TIMEOUT_MS)
        tab.close()
        yield running


@pytest.fixture(scope="session")
def browser_context():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's chromium "
                    "(apt-get install -y chromium)", pytrace=False)
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        context = chromium.new_context(viewport=VIEWPORT)
        context.set_default_timeout(LOAD_TIMEOUT_MS)
        yield context
        context.close()
        chromium.close()


@pytest.fixture
def page(browser_context):
    tab = browser_context.new_page()
    yield tab
    tab.close()


@pytest.fixture
def open_app(page, server):
    """open_app(path, query): open /<path>?<query> in `page` and wait until every chart is drawn."""
    def go(path: str = "", query: str = "") -> None:
        page.goto(f"{server.url}/{path}" + (f"?{query}" if query else ""), timeout=LOAD_TIMEOUT_MS)
        wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    return go


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Attach the end of the server's output to a failed test (a page's traceback is logged there)."""
    outcome = yield
    report = outcome.get_result()
    server = getattr(item, "funcargs", {}).get("server")
    if report.failed and server is not None:
        report.sections.append(("streamlit server output", server.log_tail()))
