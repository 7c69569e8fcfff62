"""RoPE in real models in a real browser: the page loads, its charts draw, and a visitor's text carrying markup
stays text, in sentences, in the table and in the attention map's token labels."""

from urllib.parse import urlencode

import pytest

from browser_checks import VIEWPORT, assert_charts_drawn, assert_clean, heading, title

pytestmark = pytest.mark.browser
MAIN = "[data-testid=stMain]"
HOSTILE = "<img src=x onerror=alert(1)> <b>bold</b> **strong** $x$"


def test_the_page_draws(page, open_app):
    open_app("real-models")
    assert_clean(page)
    assert heading(page) == title("real_models")
    assert_charts_drawn(page, "real_models")


def test_a_visitors_markup_stays_text(page, open_app):
    open_app("real-models", urlencode({"text": HOSTILE}))
    assert_clean(page)
    assert_charts_drawn(page, "real_models")
    assert page.locator(f"{MAIN} img[src=x], {MAIN} strong:has-text('strong'), {MAIN} b:has-text('bold')").count() == 0
    ticks = page.locator(f"{MAIN} [data-testid=stPlotlyChart] .xtick text").all_text_contents()
    assert "<" in "".join(ticks)  # the chart's labels show the characters themselves
    assert page.locator(f"{MAIN} [data-testid=stPlotlyChart] .xtick b").count() == 0


PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}
MAP = f"{MAIN} .st-key-attention"
# where the attention map's drawn key-token labels end (at their ticks: they are turned -60°), and their font size
_KEY_LABELS = """els => els
    .filter(e => e.getClientRects().length && getComputedStyle(e.parentElement).display !== 'none')
    .map(e => [e.getBoundingClientRect().right, parseFloat(getComputedStyle(e).fontSize)])"""


def _top(page, selector: str) -> float:
    return page.locator(selector).first.bounding_box()["y"]


@pytest.mark.parametrize("where", ["phone", "presenter"])
def test_the_maps_knobs_come_before_it_on_a_phone_and_a_projector(page, open_app, where):
    """The model, the text and the layer and head knobs above the attention map, not below it."""
    page.set_viewport_size(PHONE if where == "phone" else PROJECTOR)
    try:
        open_app("real-models", "present=1" if where == "presenter" else "")
        assert_clean(page)
        knobs = [_top(page, f"{MAIN} [data-testid=stSelectbox]"), _top(page, f"{MAIN} [data-testid=stExpander]"),
                 _top(page, f"{MAIN} [data-testid=stSlider]")]
        assert knobs == sorted(knobs) and knobs[-1] < _top(page, MAP), (knobs, _top(page, MAP))
    finally:
        page.set_viewport_size(VIEWPORT)


def test_the_maps_key_labels_do_not_pile_up_on_a_phone(page, open_app):
    page.set_viewport_size(PHONE)
    try:
        open_app("real-models")
        assert_clean(page)
        ends = sorted(page.locator(f"{MAP} .xtick text").evaluate_all(_KEY_LABELS))
        assert len(ends) >= 4
        piled = [(a, b) for (a, size), (b, _) in zip(ends, ends[1:]) if b - a < size]  # closer than a line
        assert not piled, f"{len(piled)} of {len(ends)} key labels lie closer than a line to the next"
    finally:
        page.set_viewport_size(VIEWPORT)


def test_the_passkey_table_is_as_large_as_the_text_in_presenter_view(page, open_app):
    page.set_viewport_size(PROJECTOR)
    try:
        open_app("real-models", "present=1")
        assert_clean(page)
        cell = page.locator(f"{MAIN} [data-testid=stTable] td").filter(has_text="asked").first
        prose = page.locator(f"{MAIN} [data-testid=stMarkdownContainer] p").first
        size = [float(x.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px")) for x in (cell, prose)]
        assert size[0] >= 20 and size[0] >= 0.8 * size[1], size
    finally:
        page.set_viewport_size(VIEWPORT)


def test_the_read_button_reads_the_text(page, open_app):
    open_app("real-models")
    page.locator(f"{MAIN} [data-testid=stExpander] summary").first.click()
    page.locator(f"{MAIN} textarea").fill("The cat sat on the mat because it was warm.")
    page.get_by_role("button", name="Read this text").click()
    page.get_by_text("Reading your own text").wait_for(timeout=300_000)
    assert_clean(page)
