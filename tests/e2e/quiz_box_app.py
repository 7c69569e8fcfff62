"""A small page for tests/e2e/test_browser_injection.py: a question's verdict box twice, first with the app's
own explanation (Markdown with math), then with the link's `why` value in the explanation's place."""

import dataclasses

import streamlit as st

from explorer.app import quiz
from explorer.pure import questions

times_i = next(question for question in questions.page_questions()["complex_numbers"] if question.name == "times_i")
asked = questions.ask("complex_numbers", times_i, {}, "en")
quiz.verdict(asked, asked.answer)
quiz.verdict(dataclasses.replace(asked, why=st.query_params.get("why", "")), asked.answer)
