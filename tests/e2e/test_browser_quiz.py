"""A quiz answered in a real browser: the verdict box's explanation is Markdown with its math set by KaTeX, not
code; a wrong answer's box sets the right answer's math too."""

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from browser_checks import LOAD_TIMEOUT_MS
from explorer.pure import questions
from explorer.pure.knobs import lightest

pytestmark = pytest.mark.browser
MAIN = "[data-testid=stMain]"


def _answer(page, name: str, right: bool):
    """Pick the right (or a wrong) option of complex_plane's question `name`; the verdict box it opens."""
    question = next(q for q in questions.page_questions()["complex_numbers"] if q.name == name)
    asked = questions.ask("complex_numbers", question, {}, "en")
    pick = asked.answer if right else (asked.answer + 1) % len(asked.options)
    radio = page.locator(f"{MAIN} [data-testid=stRadio]").filter(has=page.get_by_text(asked.prompt.split("$")[0]))
    radio.locator("[data-testid=stRadioOption]").nth(pick).click()
    head = "Right." if right else "Not quite:"
    box = page.locator(f"{MAIN} [data-testid=stAlert]").filter(has_text=head)
    expect(box).to_have_count(1, timeout=LOAD_TIMEOUT_MS)
    return box


def test_the_verdict_sets_its_math(page, open_app):
    open_app("complex-numbers", urlencode(lightest("complex_numbers")))
    right = _answer(page, "times_i", right=True)
    expect(right.locator(".katex").first).to_be_visible()
    assert right.locator("code").count() == 0
    wrong = _answer(page, "conjugate", right=False)  # "the answer is Its conjugate e^{-iθ}. e^{iθ}e^{-iθ} = 1 ..."
    expect(wrong.locator(".katex")).to_have_count(3)
    assert wrong.locator("code").count() == 0
    assert page.locator("[data-testid=stException]").count() == 0
