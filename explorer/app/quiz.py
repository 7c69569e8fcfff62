"""Check your understanding: a topic page ends with `ui.questions(PAGE, **knob_values)`, which draws the
page's questions (explorer.pure.questions) as radios with no preselection, and once one is answered, the
verdict and why. The visitor's choice lives only in the session's widget state: it is never written to the
link, and nothing is stored anywhere else.
"""

from __future__ import annotations

import zlib

import streamlit as st

from explorer.app.session import t
from explorer.pure.questions import Asked, ask, page_questions


def questions(page: str, **knobs) -> None:
    """The page's questions, each a radio with no preselection and, once answered, the verdict and why."""
    from explorer.app.session import lang

    asked_here = page_questions().get(page, ())
    if not asked_here:
        return
    st.subheader(t("quiz.header"))
    for question in asked_here:
        asked = ask(page, question, knobs, lang())
        # the knob values (and the language) are part of the key: a new question starts unanswered
        signature = "_".join(str(v) for v in (lang(), *asked.options))
        key = f"quiz.{asked.key}.{zlib.crc32(signature.encode())}"
        choice = st.radio(asked.prompt, asked.options, index=None, key=key)
        if choice is None:
            continue
        verdict(asked, asked.options.index(choice))


def verdict(asked: Asked, chosen: int) -> None:
    """The box under an answered question: right or not, the right answer, and why (the app's Markdown
    and math; a value that is not the app's own text in its place would show as text)."""
    if chosen == asked.answer:
        st.success(t("quiz.right", why=asked.why), icon=":material/check_circle:")
    else:
        st.error(t("quiz.wrong", answer=asked.options[asked.answer], why=asked.why), icon=":material/cancel:")
