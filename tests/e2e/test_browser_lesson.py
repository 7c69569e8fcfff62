"""The lesson in a real browser: home -> "Start the lesson" (on the first screen of a projector and of a
phone) -> next -> ... -> the last topic, with the step numbers on the way; and the presenter flag, which
stays in the address from page to page."""

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from support.server import wait_for_app
from browser_checks import LOAD_TIMEOUT_MS, assert_charts_drawn, assert_clean, title
from explorer.pure import text
from explorer.pure.sitemap import TOPICS, url_path

pytestmark = pytest.mark.browser
MAIN = "[data-testid=stMain]"


def main_link(page, label: str):
    return page.locator(f"{MAIN} a").filter(has_text=label).first


def arrive(page, stem: str) -> None:
    page.wait_for_url(lambda address: urlparse(address).path == f"/{url_path(stem)}", timeout=LOAD_TIMEOUT_MS)
    expect(page.locator(f"{MAIN} h1").first).to_have_text(title(stem), timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def test_the_lesson_from_home_to_the_last_step(page, open_app):
    open_app()
    assert_clean(page)
    main_link(page, text.text("home.start_lesson")).click()
    for step, stem in enumerate(TOPICS):
        arrive(page, stem)
        assert_clean(page)
        expect(page.locator(MAIN)).to_contain_text(
            text.text("common.lesson_step", step=step + 1, total=len(TOPICS)))
        if step > 0:
            expect(main_link(page, text.text("common.lesson_previous", title=text.text(f"{TOPICS[step - 1]}.nav")))) \
                .to_be_visible()
        if step + 1 < len(TOPICS):
            main_link(page, text.text("common.lesson_next", title=text.text(f"{TOPICS[step + 1]}.nav"))).click()
    assert page.locator(f"{MAIN} a").filter(has_text=text.text("common.lesson_next", title="")).count() == 0
    # the last step ends with a finish panel: what was covered, and links onward
    expect(page.locator(f"{MAIN} .st-key-lesson-finished")).to_contain_text("You have finished the lesson")
    main_link(page, text.text("common.lesson_home")).click()
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    expect(main_link(page, text.text("home.start_lesson"))).to_be_visible()


@pytest.mark.parametrize("screen", [{"width": 1280, "height": 720}, {"width": 390, "height": 844}],
                         ids=["projector", "phone"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_start_the_lesson_is_on_the_first_screen(page, open_app, screen, lang):
    page.set_viewport_size(screen)
    open_app("", f"lang={lang}")
    # a page link with a tooltip is drawn twice, one copy hidden (on a phone, the desktop one): the shown one
    start = page.locator(f"{MAIN} a:visible").filter(has_text=text.text("home.start_lesson", lang)).first
    expect(start).to_be_visible()
    box = start.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= screen["height"], (box, screen)


def test_presenter_flag_stays_in_the_shared_link(page, open_app):
    open_app("frequency-clocks", "present=1&dim=32")
    assert_clean(page)
    assert_charts_drawn(page, "frequency_clocks")
    assert query(page).get("present") == ["1"] and query(page).get("dim") == ["32"]
    expect(page.locator("[data-testid=stSidebar]")).to_have_attribute("data-collapsed", "true")
    big = page.locator(f"{MAIN} h1").first.evaluate("h => parseFloat(getComputedStyle(h).fontSize)")
    assert big >= 48, big  # the presenter stylesheet is in force
    # the intro is folded away, the charts carry larger fonts
    expect(page.locator(f"{MAIN} [data-testid=stExpander]").first).to_contain_text(text.text("common.explain_more"))
    share = page.locator("[data-testid=stSidebar] [data-testid=stCode]").first.text_content()
    assert "present=1" in share and "dim=32" in share, share

    main_link(page, text.text("common.lesson_next", title=text.text("phase_cancellation.nav"))).click()
    arrive(page, "phase_cancellation")
    assert query(page).get("present") == ["1"], page.url
    assert_clean(page)

    page.goto(page.url.replace("present=1", "present=0"), timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    assert "present" not in query(page), page.url
    small = page.locator(f"{MAIN} h1").first.evaluate("h => parseFloat(getComputedStyle(h).fontSize)")
    assert small < big
