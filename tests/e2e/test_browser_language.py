"""Switching the language in a real browser, and links that open in Chinese."""

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from support.server import wait_for_app
from browser_checks import LOAD_TIMEOUT_MS, assert_charts_drawn, assert_clean, heading, title
from explorer.pure import text
from explorer.pure.sitemap import PAGES

pytestmark = pytest.mark.browser
LANGUAGE_RADIO = "[data-testid=stSidebar] [data-testid=stRadio]"
NAV_LINKS = "[data-testid=stSidebarNav] a"


def lang_in_url(address: str) -> list[str] | None:
    return parse_qs(urlparse(address).query).get("lang")


def nav_labels(page) -> list[str]:
    """The sidebar's page names (each link shows an icon, then the name)."""
    return [text.split("\n")[-1].strip() for text in page.locator(NAV_LINKS).all_inner_texts()]


def chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_language_radio_switches_to_chinese(page, open_app):
    open_app("frequency-clocks", "dim=32")
    assert heading(page) == title("frequency_clocks", "en")
    assert nav_labels(page) == [text.text(f"{stem}.nav", "en") for stem, _, _ in PAGES]

    radio = page.locator(LANGUAGE_RADIO).filter(has_text="Language / 语言")
    radio.locator("[data-testid=stRadioOption]").filter(has_text="中文").click()
    page.wait_for_url(lambda address: lang_in_url(address) == ["zh"], timeout=LOAD_TIMEOUT_MS)
    expect(page.locator("[data-testid=stMain] h1").first).to_have_text(title("frequency_clocks", "zh"),
                                                                       timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    assert chinese(heading(page)), heading(page)
    assert nav_labels(page) == [text.text(f"{stem}.nav", "zh") for stem, _, _ in PAGES]
    assert parse_qs(urlparse(page.url).query)["dim"] == ["32"], "switching language lost the other knobs"
    assert_clean(page)
    assert_charts_drawn(page, "frequency_clocks")


@pytest.mark.parametrize("stem,path", [("home", ""), ("frequency_clocks", "frequency-clocks")])
def test_lang_zh_link_opens_in_chinese(page, open_app, stem, path):
    open_app(path, "lang=zh")
    assert heading(page) == title(stem, "zh") and chinese(heading(page)), heading(page)
    assert lang_in_url(page.url) == ["zh"]
    assert page.title() == text.text("common.tab_title", "zh", page=text.text(f"{stem}.nav", "zh"))
    assert_clean(page)
    assert_charts_drawn(page, stem)
