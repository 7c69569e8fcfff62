"""Every page in a real browser: reachable from the sidebar and by its URL, drawn, free of errors."""

from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from support.server import wait_for_app
from browser_checks import LOAD_TIMEOUT_MS, assert_charts_drawn, assert_clean, heading, save_screenshot, title
from explorer.pure.sitemap import PAGES

pytestmark = pytest.mark.browser
NAV_LINKS = "[data-testid=stSidebarNav] a"


def test_sidebar_lists_every_page_in_order(page, open_app):
    open_app()
    hrefs = page.locator(NAV_LINKS).evaluate_all("links => links.map(a => a.href)")
    assert [urlparse(h).path for h in hrefs] == [f"/{url}" for _, url, _ in PAGES]


@pytest.mark.parametrize("stem,url", [(stem, url) for stem, url, _ in PAGES], ids=[p[0] for p in PAGES])
def test_page_opens_by_its_url(page, open_app, stem, url):
    open_app(url)
    assert urlparse(page.url).path == f"/{url}"
    assert heading(page) == title(stem)
    assert_clean(page)
    assert_charts_drawn(page, stem)
    save_screenshot(page, f"page-{stem}")
    assert_clean(page)  # still clean after the charts were redrawn at full height


def test_sidebar_links_open_every_page(page, open_app):
    open_app()
    order = list(range(1, len(PAGES))) + [0]  # every page, then back home
    for index in order:
        stem, url, _ = PAGES[index]
        page.locator(NAV_LINKS).nth(index).click()
        page.wait_for_url(lambda address, url=url: urlparse(address).path == f"/{url}")
        # the new page's heading first, so the wait below sees the new run, not the old page
        expect(page.locator("[data-testid=stMain] h1").first).to_have_text(title(stem), timeout=LOAD_TIMEOUT_MS)
        wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
        assert_clean(page)
        assert_charts_drawn(page, stem)
