"""The frequency-clocks page in a real browser: client-side animation, shared links, hostile links."""

import time
from urllib.parse import parse_qs, urlparse

import pytest

from support.server import wait_for_app
from browser_checks import LOAD_TIMEOUT_MS, assert_charts_drawn, assert_clean

pytestmark = pytest.mark.browser
STEM, PATH = "frequency_clocks", "frequency-clocks"
CLOCKS = "[data-testid=stMain] [data-testid=stPlotlyChart] >> nth=0"
# Plotly's slider draws its current value ("Position m = 5") as a label directly in the slider group;
# the tick labels sit deeper, in .slider-labels.
CURRENT_POSITION = ".slider-group > text.slider-label"
SLIDERS = "[data-testid=stSlider]"


def url_params(page) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlparse(page.url).query).items()}


def clock_state(page) -> tuple[str, tuple[str, ...]]:
    """The slider's current-value label and the drawn path of every line in the clocks chart."""
    chart = page.locator(CLOCKS)
    label = chart.locator(CURRENT_POSITION).first.text_content()
    paths = chart.locator(".scatterlayer path.js-line").evaluate_all("ps => ps.map(p => p.getAttribute('d'))")
    return label, tuple(paths)


def slider_value(page, label: str) -> str:
    """The value a labelled slider shows on its thumb."""
    slider = page.locator(SLIDERS).filter(has=page.get_by_text(label, exact=True))
    return slider.locator("[data-testid=stSliderThumbValue]").inner_text().strip()


def test_play_animates_in_the_browser_without_talking_to_the_server(page, open_app):
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(time.monotonic())))
    open_app(PATH)
    assert_clean(page)
    page.wait_for_timeout(500)  # let the session go quiet after its first run
    label_before, paths_before = clock_state(page)
    assert label_before.endswith("= 10"), label_before  # the clocks open at the page's position m = 10
    sent_before = len(sent)

    page.locator(CLOCKS).locator(".updatemenu-button").first.click()  # ▶ Play
    page.wait_for_timeout(1200)
    label_after, paths_after = clock_state(page)
    sent_while_playing = len(sent) - sent_before
    page.locator(CLOCKS).locator(".updatemenu-button").nth(1).click()  # ❚❚ Pause

    assert label_after != label_before, "the position label did not move while playing"
    assert paths_after != paths_before, "the clock hands did not turn while playing"
    assert sent_while_playing == 0, f"{sent_while_playing} websocket message(s) sent to the server while playing"
    assert_clean(page)


def test_shared_link_sets_the_knobs_and_the_url_follows_the_keyboard(page, open_app):
    open_app(PATH, "dim=32&base=500000&max_pos=128&pairs=0,3,7")
    assert_clean(page)
    assert_charts_drawn(page, STEM)
    assert page.locator("[data-testid=stAlertContentWarning]").count() == 0, "a valid link shows a notice"
    dim = page.locator(SLIDERS).first.locator("input[type=range]")
    assert dim.input_value() == "32"
    assert slider_value(page, "Head dimension d") == "32"
    assert slider_value(page, "Base") == "500,000"
    assert slider_value(page, "Max position") == "128"
    tags = page.locator("[data-testid=stMultiSelect]").first.inner_text()
    assert all(f"pair {i}" in tags for i in (0, 3, 7)), tags
    # one frame per position 0..128 on the clocks' own slider
    assert page.locator(CLOCKS).locator(".slider-tick-rect").count() == 129
    params = url_params(page)
    assert (params["dim"], params["base"], params["max_pos"], params["pairs"]) == ("32", "500000", "128", "0,3,7")

    dim.focus()
    page.keyboard.press("ArrowRight")  # one step of 2
    page.wait_for_url(lambda address: parse_qs(urlparse(address).query).get("dim") == ["34"],
                      timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    assert slider_value(page, "Head dimension d") == "34"
    assert url_params(page)["pairs"] == "0,3,7"
    assert_clean(page)
    assert_charts_drawn(page, STEM)


def test_hostile_link_is_repaired_with_a_notice(page, open_app):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    open_app(PATH, "dim=<script>alert(1)</script>&base=nan")
    assert_clean(page)
    assert_charts_drawn(page, STEM)
    notices = page.locator("[data-testid=stAlertContentWarning]")
    assert notices.count() >= 2, "expected a notice for dim and one for base"
    text = " ".join(notices.all_inner_texts())
    assert "dim" in text and "base" in text, text
    params = url_params(page)
    assert (params["dim"], params["base"]) == ("64", "10000"), params
    assert "<script>" not in page.locator("[data-testid=stMain]").inner_html()
    assert not dialogs, f"the link ran script: {dialogs}"
