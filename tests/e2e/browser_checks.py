"""What the browser tests look for on a page: headings, charts, errors; and full-page screenshots."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

from support.server import ROOT, wait_for_app
from explorer.pure import text

ARTIFACTS = ROOT / "test-artifacts"
VIEWPORT = {"width": 1400, "height": 900}
LOAD_TIMEOUT_MS = 60_000
# What Streamlit shows instead of the page when a script raises (the app's config hides the details).
ERROR_TEXTS = ("Traceback", "has encountered an error")
MAIN_CHARTS = "[data-testid=stMain] [data-testid=stPlotlyChart]"
# The landing page only links to the topics; every topic page explains itself with charts.


def title(stem: str, lang: str = "en") -> str:
    """The page's heading as the app writes it (its text `<stem>.title`)."""
    return text.text(f"{stem}.title", lang)


def heading(page: Page) -> str:
    return page.locator("[data-testid=stMain] h1").first.inner_text().strip()


def assert_clean(page: Page) -> None:
    """No exception element, no error alert, no dialog (the app opens none), no traceback text."""
    exceptions = page.locator("[data-testid=stException]")
    assert exceptions.count() == 0, f"the page shows an exception: {exceptions.all_inner_texts()}"
    assert page.locator("[data-testid=stAlertContentError]").count() == 0, "the page shows an error alert"
    dialogs = page.locator("[data-testid=stDialog]")
    assert dialogs.count() == 0, f"a dialog covers the page: {dialogs.all_inner_texts()}"
    text = page.locator("[data-testid=stApp]").inner_text()
    for bad in ERROR_TEXTS:
        assert bad not in text, f"the page text contains {bad!r}"


def assert_charts_drawn(page: Page, stem: str) -> None:
    """Every page shows at least one chart (home: the clocks in motion), and every one has its svg."""
    charts = page.locator(MAIN_CHARTS)
    drawn = page.locator(f"{MAIN_CHARTS}:has(.main-svg)")
    assert charts.count() >= 1, f"{stem}: no chart on the page"
    assert drawn.count() == charts.count(), f"{stem}: {charts.count() - drawn.count()} chart(s) not drawn"


def save_screenshot(page: Page, name: str) -> Path:
    """A full-page screenshot, test-artifacts/<name>.png.

    Streamlit scrolls its main area inside the window, so the window is grown to the content's height
    for the shot (at most 8000 px) and then set back.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    height = page.evaluate("""() => Math.max(...['stMain', 'stAppViewContainer', 'stMainBlockContainer']
        .map(id => document.querySelector(`[data-testid=${id}]`)).filter(Boolean).map(el => el.scrollHeight))""")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": min(max(height, VIEWPORT["height"]), 8000)})
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    page.wait_for_timeout(500)  # responsive charts redraw at the new size
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(VIEWPORT)
    return path
