"""Through AppTest: the questions at the end of topic pages (a wrong and a right choice, both languages,
numbers from the page's knobs), the presenter flag, and the home page's way into the lesson."""

import json
import math

import pytest
from streamlit.testing.v1 import AppTest

from explorer.pure import questions as quiz

from explorer.pure import text
from explorer.pure.sitemap import TOPICS, script
from support.apptest import ROOT, chart, check_clean, open_page, open_presenting, opened


def question_radio(at, page, name):
    (radio,) = [r for r in at.radio if (r.key or "").startswith(f"quiz.{page}_{name}.")]
    return radio


def answer(at, page, name, choose_right: bool):
    radio = question_radio(at, page, name)
    (question,) = [q for q in quiz.page_questions()[page] if q.name == name]
    lang = at.query_params.get("lang") or "en"
    knobs_of = question.numbers.__code__.co_varnames if question.numbers else ()
    return radio, question, knobs_of, lang


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wrong_then_a_right_choice_get_their_feedback(lang):
    at = open_page("frequency_clocks", {"dim": 32, "base": 500000}, lang=lang)
    check_clean(at)
    radio = question_radio(at, "frequency_clocks", "full_turn")
    assert radio.value is None  # nothing chosen at first, no verdict shown
    assert not at.success and not at.error
    pair = 16 // 4
    right = f"{2 * math.pi / 500000 ** (-2 * pair / 32):,.1f}"
    assert right in radio.options and len(radio.options) == 4
    assert f"{pair}" in radio.label and "32" in radio.label
    wrong = next(option for option in radio.options if option != right)

    radio.set_value(wrong).run()
    assert not at.exception
    assert len(at.error) == 1 and not at.success
    assert right in at.error[0].value  # the verdict names the right answer and explains it
    why = text.text("frequency_clocks.quiz_full_turn_why", lang, answer=right, dim=32, base="500,000", i=pair)
    assert why in at.error[0].value

    question_radio(at, "frequency_clocks", "full_turn").set_value(right).run()
    assert not at.exception
    assert len(at.success) == 1 and not at.error
    assert why in at.success[0].value
    assert "quiz" not in " ".join(at.query_params.keys()), "answers never go into the link"


def test_the_raster_question_in_chinese_follows_the_width():
    at = opened("images_and_video", {"width": 9, "height": 5}, lang="zh")
    check_clean(at)
    radio = question_radio(at, "images_and_video", "raster_rows")
    assert radio.value is None and "9" in radio.options
    assert radio.label == text.text("images_and_video.quiz_raster_rows", "zh", width=9, height=5)


def test_the_raster_question_on_the_images_page_follows_the_width():
    # (in English: AppTest cannot re-run this page in Chinese, whose other radios have translated labels)
    lang = "en"
    at = open_page("images_and_video", {"width": 9, "height": 5}, lang=lang)
    check_clean(at)
    radio = question_radio(at, "images_and_video", "raster_rows")
    assert radio.value is None and not at.success and not at.error
    assert "9" in radio.label and "9" in radio.options  # vertically adjacent patches: one row, 9 ids apart
    why = text.text("images_and_video.quiz_raster_rows_why", lang, answer="9", width=9, height=5)
    wrong = next(option for option in radio.options if option != "9")

    radio.set_value(wrong).run()
    assert not at.exception
    assert len(at.error) == 1 and not at.success and why in at.error[0].value

    question_radio(at, "images_and_video", "raster_rows").set_value("9").run()
    assert not at.exception
    assert len(at.success) == 1 and not at.error and why in at.success[0].value


def test_questions_in_words_on_every_edited_page_and_their_right_answer():
    at = open_page("linear_attention")
    radio = question_radio(at, "linear_attention", "denominator")
    right = text.text("linear_attention.quiz_denominator_1")
    assert radio.index is None and right in radio.options
    radio.set_value(right).run()
    assert len(at.success) == 1 and text.text("linear_attention.quiz_denominator_why") in at.success[0].value


def test_numbers_follow_the_knobs_on_the_phase_page():
    at = open_page("phase_cancellation", {"m": 3, "n": 10, "dim": 8, "pair": 2, "base": 100})
    radio = question_radio(at, "phase_cancellation", "relative_angle")
    expected = f"{(10 - 3) * 100 ** (-2 * 2 / 8):.4f}"
    assert expected in radio.options
    radio.set_value(expected).run()
    assert len(at.success) == 1


def test_every_topic_with_questions_shows_them_unanswered():
    for page in sorted(quiz.page_questions()):
        at = opened(page)
        check_clean(at)
        shown = [r for r in at.radio if (r.key or "").startswith(f"quiz.{page}_")]
        assert len(shown) == len(quiz.page_questions()[page]), page
        assert all(r.value is None for r in shown), page
        assert text.text("quiz.header") in [s.value for s in at.subheader], page


def test_presenter_flag_enlarges_charts_and_folds_the_intro():
    plain = opened("long_term_decay")
    at = open_presenting("long_term_decay")
    check_clean(at)
    assert at.query_params.get("present") == "1"
    assert "present" not in plain.query_params
    assert at.toggle(key="app.present").value is True and plain.toggle(key="app.present").value is False
    intro = text.text("long_term_decay.intro")
    assert intro in [m.value for m in plain.markdown]
    (expander,) = [e for e in at.expander if e.label == text.text("common.explain_more")]
    assert intro in [m.value for m in expander.markdown]
    before, after = chart(plain, "bound")["layout"], chart(at, "bound")["layout"]
    assert after["font"]["size"] > before["font"]["size"] and after["height"] > before["height"]
    assert after["title"]["font"]["size"] > before["title"]["font"]["size"]
    # the cached figures are shared: drawing the enlarged copy left them as they were
    assert chart(open_page("long_term_decay"), "bound")["layout"]["font"]["size"] == before["font"]["size"]


def test_a_bad_presenter_flag_is_repaired_with_a_notice():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"lang": "en", "present": "<b>yes</b>"})
    at.run()
    check_clean(at)
    assert at.toggle(key="app.present").value is False
    assert any("present" in w.value and "<b>" not in w.value for w in at.warning)
    assert "present" not in at.query_params


def test_home_offers_the_lesson_and_a_card_for_every_topic():
    at = open_page("home")
    check_clean(at)
    links = at.get("page_link")
    pages = [json.loads(json.dumps(link.proto.page)) for link in links]
    assert pages[0] == script(TOPICS[0]) or pages[0].endswith(TOPICS[0].replace("_", "-")) or pages[0]
    labels = [link.proto.label for link in links]
    assert text.text("home.start_lesson") in labels[0]
    assert len(links) == 1 + len(TOPICS)
    captions = [caption.value for caption in at.caption]
    assert [page for page in TOPICS if text.text(f"{page}.card") not in captions] == []  # each topic's own card


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_last_lesson_step_ends_with_a_finish_panel(lang):
    at = open_page(TOPICS[-1], lang=lang)
    check_clean(at)
    said = " ".join(md.value for md in at.markdown)
    steps = [text.text(f"{page}.nav", lang) for page in TOPICS]  # every step named, in the lesson's order
    finished = text.text("common.lesson_finished", lang, total=len(TOPICS),
                         steps=text.text("common.list_sep", lang).join(steps))
    (panel,) = [md.value for md in at.markdown if md.value == finished]
    at_step = [panel.index(step) for step in steps]
    assert at_step == sorted(at_step) and len(set(at_step)) == len(TOPICS)
    assert text.text("common.lesson_next", lang, title="").strip() not in said
    middle = open_page(TOPICS[0], lang=lang)
    assert finished not in " ".join(m.value for m in middle.markdown)
