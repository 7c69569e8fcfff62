"""Every page on a phone-sized screen (390 x 844): no horizontal scrolling of the page, and every chart
drawn at the screen's width."""

import pytest

from browser_checks import assert_charts_drawn, assert_clean
from explorer.pure.sitemap import PAGES

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}

# How far the page and its main area reach sideways, and the widest chart, in CSS pixels.
_WIDTHS = """() => {
    const main = document.querySelector('[data-testid=stMain]');
    const charts = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')];
    // an element that reaches past the screen's edge, unless a box of its own (a formula that scrolls
    // sideways, KaTeX's hidden MathML, a chart's canvas) holds it within the screen
    const held = el => {
        for (let box = el.parentElement; box && box !== main; box = box.parentElement) {
            if (getComputedStyle(box).overflowX !== 'visible'
                    && box.getBoundingClientRect().right <= window.innerWidth + 1) return true;
        }
        return false;
    };
    const wide = [...main.querySelectorAll('*')]
        .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1 && el.getClientRects().length
                      && !(el.matches('input[type=range]')) && !held(el))
        .slice(0, 5).map(el => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`);
    return {page: document.documentElement.scrollWidth, window: window.innerWidth,
            main: main.scrollWidth, mainBox: main.clientWidth,
            charts: charts.map(c => Math.round(c.getBoundingClientRect().width)), wide};
}"""


@pytest.mark.parametrize("stem,url", [(stem, url) for stem, url, _ in PAGES], ids=[p[0] for p in PAGES])
def test_page_fits_a_phone(page, open_app, stem, url):
    page.set_viewport_size(PHONE)
    open_app(url)
    assert_clean(page)
    assert_charts_drawn(page, stem)
    widths = page.evaluate(_WIDTHS)
    assert widths["page"] <= widths["window"], widths
    assert widths["main"] <= widths["mainBox"], widths
    assert not widths["wide"], widths
    for width in widths["charts"]:
        assert width >= 0.8 * PHONE["width"] - 40, widths  # full width: the columns stack
