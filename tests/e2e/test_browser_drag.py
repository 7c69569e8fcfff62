"""Direct manipulation in a real browser: points dragged with the mouse inside the drag component's frame, or
moved with the arrow keys, set the page's knobs (and so its URL) when released, and not before: while a point
moves only the frame's readout changes, no websocket frame leaves for the server."""

import math
import re
from urllib.parse import parse_qs, urlparse

import pytest

from rope_viz.complex2d import score_identity
from support.server import wait_for_app
from browser_checks import LOAD_TIMEOUT_MS, assert_clean
from explorer.pure.figures import concept_color
from explorer.pure.views.phase_cancellation import query_and_key

pytestmark = pytest.mark.browser
FRAME = "[data-testid=stMain] iframe[data-testid=stCustomComponentV1]"
COMPLEX = re.compile(r"= (−?\d+\.\d+) ([+−]) (\d+\.\d+)i")


def url_params(page) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlparse(page.url).query).items()}


def wait_for_param(page, name: str, value: str) -> None:
    page.wait_for_url(lambda address: parse_qs(urlparse(address).query).get(name) == [value], timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)


def number(shown: str) -> float:
    return float(shown.replace("−", "-"))


def complex_in(line: str) -> tuple[float, float]:
    """(re, im) of the first "= x ± yi" in a readout line."""
    re_part, sign, im_part = COMPLEX.search(line).groups()
    return number(re_part), (-1 if sign == "−" else 1) * float(im_part)


def score_in(line: str) -> float:
    """The last number of the readout's score line (q·k over all pairs)."""
    return number(line.rsplit("= ", 1)[-1])


def count_frames(page) -> list:
    """The websocket frames the tab sends from now on (each a payload)."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    return sent


def carries(payload, needle: str) -> bool:
    """Whether a websocket frame (text or binary) holds `needle`."""
    return needle.encode() in (payload.encode() if isinstance(payload, str) else payload)


def drag_component(page):
    """The drag component's frame, scrolled into view."""
    page.locator(FRAME).scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    return page.frame_locator(FRAME)


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_dragging_z_sets_a_and_b_once_on_release(page, open_app):
    sent = count_frames(page)
    open_app("complex-numbers", "a=2&b=1&w_mod=1.5&w_angle=60")
    assert_clean(page)
    frame = drag_component(page)
    z_line = frame.locator("[data-line=z]")
    assert complex_in(z_line.inner_text()) == (2.0, 1.0)
    page.wait_for_timeout(500)  # let the session go quiet after its first run
    assert [frame.locator(f"[data-id={point}] .ring").get_attribute("fill") for point in ("z", "w")] == [
        concept_color("query"), concept_color("rope")]  # as in the page's charts

    x, y = centre(frame.locator("[data-id=z] .ring"))
    units = (x - centre(frame.locator("[data-id=w] .ring"))[0]) / 1.25  # pixels per unit: Re z = 2, Re w = 0.75
    before = len(sent)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 3 * units, y - 1 * units, steps=12)  # to about z = -1 + 2i
    page.wait_for_timeout(600)
    during = len(sent) - before
    moved = complex_in(z_line.inner_text())
    product = complex_in(frame.locator("[data-line=product]").inner_text())
    assert url_params(page)["a"] == "2"  # nothing reached the server yet
    page.mouse.up()
    wait_for_param(page, "a", f"{moved[0]:g}")

    assert during == 0, f"{during} websocket frame(s) sent while dragging"
    assert moved == pytest.approx((-1.0, 2.0), abs=0.06)  # the readout followed the mouse
    expected = complex(*moved) * complex(0.75, 1.5 * math.sin(math.radians(60)))  # w = 1.5 e^{i 60°}
    assert product == pytest.approx((expected.real, expected.imag), abs=0.011)  # z·w followed live too
    params = url_params(page)
    assert (number(params["a"]), number(params["b"])) == moved
    assert (params["w_mod"], params["w_angle"]) == ("1.5", "60")
    released = [payload for payload in sent[before:] if carries(payload, '"knobs"')]
    assert len(released) == 1, f"{len(released)} frames carried the dragged value"
    # the page's own table (the core's product) agrees with the frame's readout after the rerun
    assert complex_in(frame.locator("[data-line=z]").inner_text()) == moved
    table = page.locator("[data-testid=stMain] [data-testid=stTable]").first.inner_text()
    assert f"{moved[0]:.4f}" in table and f"{moved[1]:.4f}" in table
    assert_clean(page)


def test_arrow_key_moves_z_and_the_url_follows(page, open_app):
    open_app("complex-numbers", "a=2&b=1&w_mod=1.5&w_angle=60")
    frame = drag_component(page)
    frame.locator("[data-id=z]").focus()
    page.keyboard.press("ArrowRight")  # z moves by 0.1 along Re
    wait_for_param(page, "a", "2.1")
    assert url_params(page)["b"] == "1"
    assert complex_in(frame.locator("[data-line=z]").inner_text()) == (2.1, 1.0)
    assert frame.locator("[data-id=z]").evaluate("node => node === document.activeElement")  # focus kept
    assert frame.locator("[data-id=z]").get_attribute("aria-label")
    assert_clean(page)


def test_moving_both_tokens_keeps_the_score_and_is_sent_on_key_release(page, open_app):
    sent = count_frames(page)
    open_app("phase-cancellation", "m=2&n=5&dim=16&base=10000&pair=1&seed=0")
    frame = drag_component(page)
    score = frame.locator("[data-line=score]")
    q, k = query_and_key(16, 0)
    core = score_identity(q, k, 2, 5, 10000.0).rotated
    assert score_in(score.inner_text()) == pytest.approx(core, abs=1e-6)  # the frame's readout is the core's value
    page.wait_for_timeout(500)

    frame.locator("[data-id=both]").focus()
    before = len(sent)
    for _ in range(3):
        page.keyboard.down("ArrowRight")  # held: moves, sends nothing
    page.wait_for_timeout(500)
    held = len(sent) - before
    assert frame.locator("[data-line=positions]").inner_text().startswith("m = 5, n = 8")
    assert score_in(score.inner_text()) == pytest.approx(core, abs=1e-6)  # both turned, the score did not move
    page.keyboard.up("ArrowRight")
    wait_for_param(page, "m", "5")
    assert held == 0, f"{held} websocket frame(s) sent while the key was held"
    assert url_params(page)["n"] == "8"
    assert score_in(frame.locator("[data-line=score]").inner_text()) == pytest.approx(
        score_identity(q, k, 5, 8, 10000.0).rotated, abs=1e-6)
    assert_clean(page)


def test_dragging_the_key_changes_the_offset_and_the_score(page, open_app):
    sent = count_frames(page)
    open_app("phase-cancellation", "m=2&n=5&dim=16&base=10000&pair=1&seed=0")
    frame = drag_component(page)
    page.wait_for_timeout(500)
    x, y = centre(frame.locator("[data-id=n] .ring"))
    m_x = centre(frame.locator("[data-id=m] .ring"))[0]
    per_position = (x - m_x) / 3  # m = 2 and n = 5 are three positions apart
    # the query, the key and the band between them (their offset) in their colours on every page
    assert [frame.locator(f"[data-id={handle}] .ring").get_attribute("fill") for handle in ("m", "n", "both")] == [
        concept_color(name) for name in ("query", "key", "offset")]
    before = len(sent)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 35 * per_position, y, steps=10)  # to n = 40
    page.wait_for_timeout(500)
    during = len(sent) - before
    assert frame.locator("[data-line=positions]").inner_text().startswith("m = 2, n = 40")
    page.mouse.up()
    wait_for_param(page, "n", "40")
    assert during == 0, f"{during} websocket frame(s) sent while dragging"
    assert url_params(page)["m"] == "2"
    q, k = query_and_key(16, 0)
    assert score_in(frame.locator("[data-line=score]").inner_text()) == pytest.approx(
        score_identity(q, k, 2, 40, 10000.0).rotated, abs=1e-6)
    assert_clean(page)
