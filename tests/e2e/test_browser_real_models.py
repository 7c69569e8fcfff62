"""RoPE in real models in a real browser: the page loads, its charts draw, and a visitor's text carrying markup
stays text, in sentences, in the table and in the attention map's token labels."""

from urllib.parse import urlencode

import pytest

from browser_checks import assert_charts_drawn, assert_clean, heading, title

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
