"""The questions that end each topic page, in no language yet: what is asked, the right answer and the
wrong ones, and `ask`, which words them in a language (no Streamlit: explorer.app.quiz draws them).

Each page's questions are declared in its view (`QUIZ` in explorer/pure/views/<page>.py), and their
text lives in the page's own text file, explorer/pure/text/<lang>/<page>.toml, under `quiz_<name>` (the
question), `quiz_<name>_why` (the one-line explanation) and, for a question in words, `quiz_<name>_1` (the
right answer), `quiz_<name>_2`, `_3`, ... (wrong ones). Every one of them is a format string (a literal
brace is doubled, as in `$e^{{i\\theta}}$`) and Markdown with $...$ math; the values filled in go through
`explorer.pure.safe_text.shown`, so anything that is not plainly a number shows as text. A question with
numbers is generated from the page's own knobs by a function of its view: it computes the right answer with
the core (`rope_viz`) and plausible wrong ones (other pairs' values, a sign slip, a forgotten factor), so the
answer is right for every knob setting. Options are shown in a fixed order that does not always put the
right answer first.
"""

from __future__ import annotations

import importlib
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from explorer.pure.sitemap import TOPICS
from explorer.pure.safe_text import AppText, shown
from explorer.pure.text import STRINGS

OPTIONS = 4  # choices shown for a question with numbers
FALLBACKS = (math.pi, 2 * math.pi, 0.5, 2.0, 10.0)  # wrong choices of last resort, when the knobs make the others equal


@dataclass(frozen=True)
class Numbers:
    """A question with numbers: the values its text needs, the right answer and the wrong candidates in
    order of preference (the first that look different once formatted are used), and the format."""

    values: dict
    answer: float
    wrong: tuple
    format: str = "{:,.4g}"

    def options(self) -> tuple[tuple[str, ...], int]:
        """(the formatted options, all different, right one first; the index of the right one = 0)."""
        shown = [self.format.format(self.answer + 0.0)]
        for candidate in (*self.wrong, *FALLBACKS):
            label = self.format.format(candidate + 0.0)  # + 0.0: no "-0"
            if math.isfinite(candidate) and label not in shown:
                shown.append(label)
            if len(shown) == OPTIONS:
                break
        return tuple(shown), 0


@dataclass(frozen=True)
class Question:
    """One question of a page: `name` names its text; `numbers`, for a question with numbers, takes the
    page's knob values and returns its `Numbers`."""

    name: str
    numbers: Callable[..., Numbers] | None = field(default=None)


@dataclass(frozen=True)
class Asked:
    """A question as shown: its text, its options, which one is right, and why."""

    key: str
    prompt: str
    options: tuple[str, ...]
    answer: int
    why: str


@cache
def page_questions() -> dict[str, tuple[Question, ...]]:
    """{page: its questions}, read from each topic's view (imported on first use: the views load torch)."""
    declared = {page: getattr(importlib.import_module(f"explorer.pure.views.{page}"), "QUIZ", ())
                for page in TOPICS}
    return {page: questions for page, questions in declared.items() if questions}


def _order(key: str, count: int) -> list[int]:
    """A fixed shuffle of `count` options for question `key`: the right answer (index 0) moves around."""
    first = zlib.crc32(key.encode()) % count
    return [(first + j) % count for j in range(count)][::-1] if count > 2 else [first, 1 - first]


def text_key(page: str, name: str) -> str:
    """The text key of question `name` of `page`: `quiz_<name>` in the page's own text file."""
    return f"{page}.quiz_{name}"


def _said(key: str, lang: str, **values) -> AppText:
    """The text `key` in `lang`: the app's own Markdown, each value filled in as text."""
    return AppText(STRINGS[lang][key].format(**{name: shown(v) for name, v in values.items()}))


def _word_options(key: str, lang: str) -> tuple[str, ...]:
    options, j = [], 1
    while f"{key}_{j}" in STRINGS[lang]:
        options.append(_said(f"{key}_{j}", lang))
        j += 1
    return tuple(options)


def ask(page: str, question: Question, knobs: dict, lang: str) -> Asked:
    """The question in `lang` for these knob values (pure: no Streamlit, for the tests as well). Its texts
    are the app's own (`AppText`): a box that fills them in keeps their Markdown and math."""
    key, said = f"{page}_{question.name}", text_key(page, question.name)
    if question.numbers is not None:
        numbers = question.numbers(**knobs)
        options, _ = numbers.options()
        options, values = tuple(AppText(option) for option in options), numbers.values
    else:
        options, values = _word_options(said, lang), {}
    order = _order(key, len(options))
    return Asked(key=key, prompt=_said(said, lang, **values), options=tuple(options[j] for j in order),
                 answer=order.index(0), why=_said(f"{said}_why", lang, answer=options[0], **values))
