"""Text from outside the app shows as text in a real browser: a shared link, a pasted config, a model name read
from a config, a notice quoting a refused value and a value in a quiz's verdict box, each carrying a Markdown
link, a Markdown image, raw HTML and a javascript: link, put no link, image or script on the page and send no
request to the attacker's address (every request is watched; those to the attacker are counted and answered
with an error)."""

import json
from urllib.parse import urlencode, urlparse

import pytest

from browser_checks import LOAD_TIMEOUT_MS, assert_clean
from explorer.pure import text
from explorer.pure.knobs import lightest
from support.server import streamlit_server, wait_for_app

pytestmark = pytest.mark.browser
PATH = "long-context"
ATTACKER_PORT = 9
PAYLOAD = ("Official notice: [log in again here](http://127.0.0.1:9/phish) ![pixel](http://127.0.0.1:9/pixel.png) "
           "<img src=http://127.0.0.1:9/raw.png> <script>fetch('http://127.0.0.1:9/script')</script> "
           "[run me](javascript:fetch('http://127.0.0.1:9/js')) **URGENT** http://127.0.0.1:9/bare")
MODEL = {"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 2048}
MAIN = "[data-testid=stMain]"
INJECTED = (f"{MAIN} a[href*='127.0.0.1:9/'], {MAIN} a[href^='javascript'], img[src*='127.0.0.1:9/'], "
            f"{MAIN} script, {MAIN} strong:has-text('URGENT'), {MAIN} b:has-text('URGENT')")


@pytest.fixture
def attacker(page):
    """Requests the page makes to the attacker's address (127.0.0.1:9), each aborted and counted."""
    asked = []

    def to_attacker(url: str) -> bool:
        parts = urlparse(url)
        return parts.hostname == "127.0.0.1" and parts.port == ATTACKER_PORT

    page.route(to_attacker, lambda route: (asked.append(route.request.url), route.abort()))
    page.on("request", lambda request: to_attacker(request.url) and asked.append(request.url))
    return asked


def _assert_shown_as_text(page, attacker, *, quoted: bool = True) -> None:
    page.wait_for_timeout(1000)  # images and scripts a page would load have had their chance
    assert_clean(page)
    found = page.locator(INJECTED)
    assert found.count() == 0, found.evaluate_all("els => els.map(e => e.outerHTML)")
    assert attacker == []
    if quoted:  # the payload is on the page, character for character, inside one code span
        code = page.locator(f"{MAIN} code").filter(has_text="[log in again here](http://127.0.0.1:9/phish)")
        assert code.count() >= 1
        assert "<img src=http://127.0.0.1:9/raw.png>" in code.first.text_content()  # hidden in a closed expander too


def _open(page, server, query: dict) -> None:
    """Open the page with `query` over the lightest knobs (a shared, busy machine draws it sooner)."""
    page.goto(f"{server.url}/{PATH}?{urlencode({**lightest('long_context'), **query})}", timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)


def test_a_shared_link_naming_the_model(page, server, attacker):
    """A link's ?config= whose _name_or_path is the payload: the model's line under the first chart."""
    _open(page, server, {"config": json.dumps({**MODEL, "_name_or_path": PAYLOAD})})
    caption = page.locator(f"{MAIN} [data-testid=stCaptionContainer]").filter(has_text="log in again here")
    assert caption.count() == 1
    _assert_shown_as_text(page, attacker)


def test_a_notice_quoting_a_refused_value(page, server, attacker):
    """A link's config whose rope_theta is the payload is refused; the notice quotes the core's reason."""
    _open(page, server, {"config": json.dumps({**MODEL, "rope_theta": PAYLOAD})})
    notice = page.locator(f"{MAIN} [data-testid=stAlert]").filter(has_text="log in again here")
    assert notice.count() == 1
    _assert_shown_as_text(page, attacker)


def test_a_pasted_config(page, server, attacker):
    """A config pasted into the page's text area, its scaling type the payload: refused with a notice."""
    _open(page, server, {})
    page.locator(f"{MAIN} [data-testid=stExpander] summary").filter(
        has_text=text.text("long_context.more_knobs")).click()
    area = page.locator(f"{MAIN} [data-testid=stTextArea] textarea").first
    area.fill(json.dumps({**MODEL, "rope_scaling": {"rope_type": PAYLOAD, "factor": 4.0}}))
    area.press("Control+Enter")
    notice = page.locator(f"{MAIN} [data-testid=stAlert]").filter(has_text="log in again here")
    notice.wait_for(timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    _assert_shown_as_text(page, attacker)


def test_a_preset_name_in_a_link(page, server, attacker):
    """A link whose preset is the payload: refused with a notice that names the knob and quotes nothing."""
    _open(page, server, {"preset": PAYLOAD, "focus": PAYLOAD})
    notices = page.locator(f"{MAIN} [data-testid=stAlert]")
    assert notices.count() >= 1 and not any("log in" in shown for shown in notices.all_inner_texts())
    _assert_shown_as_text(page, attacker, quoted=False)


def test_a_model_type_in_the_menu(page, server, attacker):
    """A link's config whose model_type is the payload: the preset menu (plain text, not Markdown) names it
    in every option, character for character, and its open list adds no link, image or script either."""
    _open(page, server, {"config": json.dumps({**MODEL, "model_type": PAYLOAD})})
    menu = page.locator(f"{MAIN} [data-testid=stSelectbox]").first
    assert PAYLOAD in menu.locator("input").input_value()  # the chosen option, as a text field's value
    menu.click()
    options = page.locator("[role=option]")
    options.first.wait_for(timeout=LOAD_TIMEOUT_MS)
    assert all(PAYLOAD in option for option in options.all_inner_texts())
    _assert_shown_as_text(page, attacker, quoted=False)
    assert page.locator("[role=listbox] a, [role=listbox] img, [role=listbox] code").count() == 0


@pytest.fixture(scope="module")
def quiz_box_server():
    """tests/e2e/quiz_box_app.py served on its own: a quiz's verdict box, with the app's explanation and with
    a link's value in its place."""
    with streamlit_server(script="tests/e2e/quiz_box_app.py") as running:
        yield running


def test_a_value_in_a_quiz_verdict_box(page, quiz_box_server, attacker):
    """The verdict box shows the app's explanation as Markdown with KaTeX math, and the same box with the
    payload in the explanation's place shows it as text."""
    page.goto(f"{quiz_box_server.url}/?{urlencode({'why': PAYLOAD})}", timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    own, filled = page.locator(f"{MAIN} [data-testid=stAlert]").all()
    assert own.locator(".katex").count() >= 1 and own.locator("code").count() == 0
    assert filled.locator(".katex").count() == 0 and "[log in again here]" in filled.inner_text()
    _assert_shown_as_text(page, attacker)
