"""Words inside formulas come from the text files like every other string: `label(key)` is the string
`key` in the visitor's language, escaped for LaTeX and wrapped in \\text{...}, ready to join into st.latex."""

from __future__ import annotations

from explorer.app.session import t

# LaTeX's special characters in text mode, each with what prints it literally
_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "%": r"\%", "#": r"\#", "&": r"\&",
            "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def escape(text: str) -> str:
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def label(key: str, **values) -> str:
    """\\text{...} holding the text `key` (with its placeholders filled), safe inside st.latex."""
    return r"\text{" + escape(t(key, **values)) + "}"
