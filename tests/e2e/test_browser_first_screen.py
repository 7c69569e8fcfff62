"""Every topic page makes its point on the first screen of a projector (1280x720): the plot area of a drawn
chart shows inside the window, PLOT_SHOWN_PX of its height at least, before any scrolling; and on the clocks
page the page's position knob and the animation's own slider are one position."""

from urllib.parse import parse_qs, urlparse

import pytest

from explorer.pure.sitemap import URLS
from support.server import wait_for_app
from browser_checks import LOAD_TIMEOUT_MS, MAIN_CHARTS, VIEWPORT, assert_clean, save_screenshot

pytestmark = pytest.mark.browser
PROJECTOR = {"width": 1280, "height": 720}
PLOT_SHOWN_PX = 60  # of a chart's plot area inside the first screen, top to bottom
TOPIC_PAGES = tuple(url for url in URLS if url)  # every page but home
CLOCKS = f"{MAIN_CHARTS} >> nth=0"
CURRENT_POSITION = ".slider-group > text.slider-label"


@pytest.fixture
def projector(page):
    page.set_viewport_size(PROJECTOR)
    yield page
    page.set_viewport_size(VIEWPORT)


@pytest.mark.parametrize("path", TOPIC_PAGES)
def test_a_drawn_chart_starts_on_the_first_screen(projector, open_app, path):
    """Not just a chart's title, nor a strip of a plot: a plot area (where the data is drawn) shows at least
    PLOT_SHOWN_PX of its height inside the window."""
    open_app(path)
    assert_clean(projector)
    projector.wait_for_timeout(300)  # responsive charts settle at the window's width
    areas = projector.locator(f"{MAIN_CHARTS}:has(.main-svg) .nsewdrag").evaluate_all(
        "areas => areas.map(a => [a.getBoundingClientRect().top, a.getBoundingClientRect().bottom])")
    assert areas, f"{path}: no drawn chart"
    shown = max(min(bottom, PROJECTOR["height"]) - max(top, 0) for top, bottom in areas)
    if shown < PLOT_SHOWN_PX:
        save_screenshot(projector, f"first-screen-{path}")
    assert shown >= PLOT_SHOWN_PX, \
        f"{path}: the first screen shows {shown:.0f} px of a plot area (of {PROJECTOR['height']} px)"


def test_the_position_knob_and_the_animation_slider_agree(projector, open_app):
    open_app("frequency-clocks")
    chart = projector.locator(CLOCKS)
    assert chart.locator(CURRENT_POSITION).first.text_content().strip().endswith("= 10")
    play = chart.locator(".updatemenu-button").first
    assert play.bounding_box()["y"] < PROJECTOR["height"], "the play button is below the first screen"

    knob = projector.locator("[data-testid=stSlider]").filter(
        has=projector.get_by_text("Position m", exact=True)).locator("input[type=range]")
    for m in range(11, 16):  # one step at a time: a key pressed while the page reruns can be lost on a busy machine
        knob.focus()
        projector.keyboard.press("ArrowRight")
        projector.wait_for_url(lambda address, m=m: parse_qs(urlparse(address).query).get("m") == [str(m)],
                               timeout=LOAD_TIMEOUT_MS)
        wait_for_app(projector, timeout=LOAD_TIMEOUT_MS)
    projector.wait_for_timeout(300)
    assert chart.locator(CURRENT_POSITION).first.text_content().strip().endswith("= 15")
    assert knob.input_value() == "15"


def test_a_click_on_the_score_map_chooses_that_cell(page, open_app):
    """Clicking cell (m, n) of the relative page's score map moves the page's m and n there (and the URL)."""
    seq, m, n = 16, 3, 12
    open_app("relative-attention", f"seq={seq}&m=10&n=2")
    assert_clean(page)
    area = page.locator(f"{MAIN_CHARTS} >> nth=0").locator(".nsewdrag").first.bounding_box()
    # row m from the top (the map reads like a printed matrix), column n from the left, at the cell's centre
    x, y = area["x"] + (n + 0.5) / seq * area["width"], area["y"] + (m + 0.5) / seq * area["height"]
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    page.mouse.click(x, y)
    page.wait_for_url(lambda address: parse_qs(urlparse(address).query).get("m") == [str(m)]
                      and parse_qs(urlparse(address).query).get("n") == [str(n)], timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    assert_clean(page)
    assert page.get_by_text(f"A({m}, {n}) = ").count() == 1
