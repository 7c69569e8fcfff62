"""The app's few technical terms, written once (text/<lang>/glossary.toml) and shown as a short
glossary in an expander on the pages that use them: `glossary("toeplitz", "pair")`."""

from __future__ import annotations

import streamlit as st

from explorer.app.session import t

TERMS = ("position", "pair", "shift", "wavelength", "toeplitz", "layout")


def glossary(*terms: str) -> None:
    """An expander listing the chosen terms (all of TERMS if none are named), each with its meaning."""
    unknown = set(terms) - set(TERMS)
    if unknown:
        raise ValueError(f"not in the glossary: {sorted(unknown)}")
    with st.expander(t("glossary.header"), icon=":material/menu_book:"):
        st.markdown("\n".join(f"- **{t(f'glossary.{term}')}**: {t(f'glossary.{term}_text')}"
                              for term in (terms or TERMS)))
