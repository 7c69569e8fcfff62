"""The questions at the end of each topic page: every computed answer against an independent computation
written here (no rope_viz, no app code), over many knob settings, in both languages."""

import math
import string

import pytest
from hypothesis import given, settings, strategies as st
from markdown_it import MarkdownIt

from explorer.pure import questions as quiz

from explorer.pure import text
from explorer.pure.safe_text import AppText
from explorer.pure.knobs import BASES, PAGE_KNOBS
from explorer.pure.sitemap import TOPICS

LANGS = text.LANGS
dims = st.integers(1, 128).map(lambda half: 2 * half)
bases = st.sampled_from(BASES)


def asked(page, name, knobs, lang="en"):
    (question,) = [q for q in quiz.page_questions()[page] if q.name == name]
    return quiz.ask(page, question, knobs, lang)


def right_number(shown: quiz.Asked) -> float:
    return float(shown.options[shown.answer].replace(",", ""))


def check_numbers(shown: quiz.Asked, expected: float, places: int) -> None:
    """The right option is `expected` as shown; the options differ from each other and from it."""
    assert right_number(shown) == pytest.approx(expected, abs=1.01 * 10 ** -places + 1e-9 * abs(expected))
    assert len(set(shown.options)) == len(shown.options) == quiz.OPTIONS
    for k, option in enumerate(shown.options):
        if k != shown.answer:
            assert option != shown.options[shown.answer]


@given(dim=dims, base=bases)
@settings(max_examples=60, deadline=None)
def test_full_turn_is_two_pi_over_theta(dim, base):
    pair = (dim // 2) // 4
    expected = 2 * math.pi / base ** (-2 * pair / dim)
    for lang in LANGS:
        shown = asked("frequency_clocks", "full_turn", {"dim": dim, "base": base}, lang)
        check_numbers(shown, round(expected, 1), 1)
        assert f"{pair}" in shown.prompt and f"{dim}" in shown.prompt


def test_full_turn_at_the_defaults_names_pair_8():
    shown = asked("frequency_clocks", "full_turn", {"dim": 64, "base": 10000.0})
    assert "d = 64" in shown.prompt and "pair 8" in shown.prompt and "10,000" in shown.prompt
    assert shown.options[shown.answer] == f"{2 * math.pi * 10000 ** (16 / 64):,.1f}" == "62.8"


@given(m=st.integers(0, 128), n=st.integers(0, 128), dim=st.integers(1, 32).map(lambda h: 2 * h),
       base=bases, data=st.data())
@settings(max_examples=60, deadline=None)
def test_relative_angle_is_offset_times_theta(m, n, dim, base, data):
    pair = data.draw(st.integers(0, dim // 2 - 1))
    expected = (n - m) * base ** (-2 * pair / dim)
    shown = asked("phase_cancellation", "relative_angle", {"m": m, "n": n, "dim": dim, "base": base, "pair": pair})
    check_numbers(shown, expected, 4)


@given(a=st.integers(-300, 300), b=st.integers(-300, 300), w_mod=st.integers(0, 300), w_angle=st.integers(-180, 180))
@settings(max_examples=60, deadline=None)
def test_product_length_multiplies_lengths(a, b, w_mod, w_angle):
    a, b, w_mod = a / 100, b / 100, w_mod / 100
    shown = asked("complex_numbers", "product_length", {"a": a, "b": b, "w_mod": w_mod, "w_angle": w_angle})
    check_numbers(shown, math.sqrt(a * a + b * b) * w_mod, 3)


@given(q1=st.integers(-500, 500), q2=st.integers(-500, 500), theta=st.integers(-3142, 3142), m=st.integers(0, 64))
@settings(max_examples=60, deadline=None)
def test_first_coordinate_is_the_first_row_of_the_rotation(q1, q2, theta, m):
    q1, q2, theta = q1 / 100, q2 / 100, theta / 1000
    shown = asked("implementation_forms", "first_coordinate", {"q1": q1, "q2": q2, "theta": theta, "m": m})
    check_numbers(shown, q1 * math.cos(m * theta) - q2 * math.sin(m * theta), 4)


def test_first_coordinate_of_the_worked_example():
    shown = asked("implementation_forms", "first_coordinate", {"q1": 1.0, "q2": 2.0, "theta": 0.5, "m": 1})
    assert shown.options[shown.answer] == "-0.0813"


@given(dim=dims, base=bases)
@settings(max_examples=40, deadline=None)
def test_bound_at_zero_is_half_of_d_over_two_plus_one(dim, base):
    shown = asked("long_term_decay", "bound_at_zero", {"dim": dim, "base": base})
    check_numbers(shown, (dim / 2 + 1) / 2, 1)


@given(start=st.integers(0, 1 << 20))
@settings(max_examples=60, deadline=None)
def test_bf16_gap_is_two_to_the_exponent_minus_seven(start):
    position = max(start, 1)
    expected = 2.0 ** (math.floor(math.log2(position)) - 7)  # 8 significant bits
    for lang in LANGS:
        shown = asked("precision", "bf16_gap", {"start": start}, lang)
        check_numbers(shown, expected, 4)
        assert f"{position:,}" in shown.prompt


def test_bf16_gap_at_the_default_start_is_16():
    shown = asked("precision", "bf16_gap", {"start": 4090})
    assert shown.options[shown.answer] == "16" and "4,090" in shown.prompt


@given(width=st.integers(2, 32), height=st.integers(2, 32))
@settings(max_examples=40, deadline=None)
def test_raster_rows_are_one_image_width_apart(width, height):
    ids = {(r, c): r * width + c for r in range(height) for c in range(width)}  # raster order, row by row
    expected = ids[(1, 0)] - ids[(0, 0)]
    for lang in LANGS:
        shown = asked("images_and_video", "raster_rows", {"width": width, "height": height}, lang)
        check_numbers(shown, expected, 0)
        assert str(width) in shown.prompt


@given(heads=st.integers(1, 16))
@settings(max_examples=16, deadline=None)
def test_alibi_first_slope_follows_the_largest_power_of_two(heads):
    power = 1
    while power * 2 <= heads:
        power *= 2
    expected = 2.0 ** (-8 / power)
    shown = asked("distance_biases", "alibi_first_slope", {"heads": heads})
    assert right_number(shown) == pytest.approx(expected, rel=1e-3)
    assert len(set(shown.options)) == quiz.OPTIONS and f"{heads}" in shown.prompt


def test_alibi_first_slope_with_eight_heads_is_one_half():
    assert asked("distance_biases", "alibi_first_slope", {"heads": 8}).options[
        asked("distance_biases", "alibi_first_slope", {"heads": 8}).answer] == "0.5"


@given(dim=dims, base=bases, train_len=st.integers(2, 4096))
@settings(max_examples=40, deadline=None)
def test_full_turns_count_the_wavelengths_within_the_training_length(dim, base, train_len):
    expected = sum(2 * math.pi * base ** (2 * i / dim) <= train_len - 1 for i in range(dim // 2))
    for lang in LANGS:
        shown = asked("rope_designs", "full_turns", {"dim": dim, "base": base, "train_len": train_len}, lang)
        check_numbers(shown, expected, 0)
        assert f"{train_len}" in shown.prompt


def test_full_turns_of_the_shipped_models_is_three():
    shown = asked("rope_designs", "full_turns", {})  # d = 32, base 10,000, 32 tokens: wavelengths 6.3, 11.2, 19.9, 35.3
    assert shown.options[shown.answer] == "3" and "32" in shown.prompt


def at_defaults(page: str, question: quiz.Question, lang: str) -> quiz.Asked:
    """`question` asked with the page's own knob defaults."""
    defaults = {name: spec.default for name, spec in PAGE_KNOBS[page].items()}
    knobs = {k: v for k, v in defaults.items() if question.numbers and k in question.numbers.__code__.co_varnames}
    return quiz.ask(page, question, knobs, lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", sorted(quiz.page_questions()))
def test_every_question_at_the_default_knobs(page, lang):
    """Two or three questions, each with different options, the right one named in the text's answer key,
    and an explanation; numbers come from the page's own knob defaults."""
    questions = quiz.page_questions()[page]
    assert 2 <= len(questions) <= 3
    for question in questions:
        shown = at_defaults(page, question, lang)
        assert shown.prompt.strip() and shown.why.strip()
        assert 3 <= len(shown.options) == len(set(shown.options))
        assert 0 <= shown.answer < len(shown.options)
        if question.numbers is None:  # a question in words: option _1 of its text is the right one
            assert shown.options[shown.answer] == text.text(f"{page}.quiz_{question.name}_1", lang).format()
        for said in (shown.prompt, shown.why, *shown.options):  # the app's own Markdown, its math kept
            assert isinstance(said, AppText) and said.count("$") % 2 == 0


@pytest.mark.parametrize("lang", LANGS)
def test_the_verdict_boxes_are_prose_with_no_code(lang):
    """What a verdict box says (right: why; not quite: the right answer and why) is sentences and math: rendered
    as CommonMark (markdown-it, as the page's Markdown is), none of it is set as code."""
    for page, questions in quiz.page_questions().items():
        for question in questions:
            shown = at_defaults(page, question, lang)
            for key, values in (("quiz.right", {"why": shown.why}),
                                ("quiz.wrong", {"answer": shown.options[shown.answer], "why": shown.why})):
                html = MarkdownIt("commonmark").render(text.text(key, lang, **values))
                assert "<code>" not in html, (page, question.name, html)


def test_questions_belong_to_topic_pages_and_right_answers_move_around():
    assert set(quiz.page_questions()) <= set(TOPICS)
    positions = {quiz.ask(page, q, {}, "en").answer for page, qs in quiz.page_questions().items() for q in qs
                 if q.numbers is None}
    assert len(positions) >= 3, "the right answer is not always in the same place"


def test_question_text_has_the_same_placeholders_in_both_languages():
    checked = 0
    for key, english in text.STRINGS["en"].items():
        if key.startswith("quiz.") or ".quiz_" in key:
            checked += 1
            fields = {f for _, f, _, _ in string.Formatter().parse(english) if f}
            assert fields == {f for _, f, _, _ in string.Formatter().parse(text.STRINGS["zh"][key]) if f}, key
    assert checked > 50  # the questions are found in their pages' own files


PAYLOAD = "[log in](http://127.0.0.1:9/x) ![p](http://127.0.0.1:9/p.png) <b>loud</b>"


def test_a_value_filled_into_a_question_shows_as_text_and_its_math_stays_math():
    """The texts keep their $...$ math unquoted; a value that is not plainly a number (here one that could
    have come from a link) lands in the prompt and the explanation as one code span, never as Markdown."""
    hostile = quiz.Question("product_length", lambda **_: quiz.Numbers(
        {"a": PAYLOAD, "b": 1.0, "w_mod": 1.0, "w_angle": 0}, 1.0, (2.0, 3.0)))
    shown = quiz.ask("complex_numbers", hostile, {}, "en")
    assert f"` {PAYLOAD} `" in shown.prompt and "$|z\\,w|$" in shown.prompt
    assert shown.prompt.count(PAYLOAD) == 1 and "`" not in shown.prompt.replace(f"` {PAYLOAD} `", "")
    (times_i,) = [q for q in quiz.page_questions()["complex_numbers"] if q.name == "times_i"]
    why = quiz.ask("complex_numbers", times_i, {}, "en").why
    assert why.startswith("$i = e^{i\\pi/2}$") and "`" not in why


def test_every_question_text_belongs_to_a_question_its_page_asks():
    """A topic's quiz_<name>... keys (its own text file) all serve a question its view declares in QUIZ."""
    declared = {(page, q.name) for page, questions in quiz.page_questions().items() for q in questions}
    stray = []
    for key in text.STRINGS["en"]:
        page, _, name = key.partition(".")
        if name.startswith("quiz_"):
            asked, _, part = name.removeprefix("quiz_").rpartition("_")
            if (page, name.removeprefix("quiz_")) not in declared and not (
                    (page, asked) in declared and (part == "why" or part.isdigit())):
                stray.append(key)
    assert stray == []
    assert quiz.text_key("precision", "gap") == "precision.quiz_gap"
