"""Text from outside the app, shown as text: never as Markdown, HTML, a link or an image.

Streamlit renders Markdown in captions, notices, labels and option names, and turns a bare web or mail
address into a link even when every punctuation mark is backslash-escaped (GitHub-flavoured Markdown finds
addresses in the parsed text). So a value that is not plainly inert is quoted as an inline code span: its
characters show one for one (no link, image, HTML, emphasis, formula or icon code is read inside one),
in a monospace face that marks it as quoted. `session.t` passes every value it fills into a sentence
through `shown`, and `session.notice` every message that is not the app's own text, so a new page gets
this without asking for it. The options of a menu (a selectbox, a multiselect) are plain text, never
Markdown, where a code span would show its backticks: `session.plain` fills values in as they are, on one
line. Numbers, and strings of letters, digits and a few harmless marks (a length
written "4,096", a base "1e+06", a model name such as "meta-llama/Llama-3.1-8B"), are kept as they are.
"""

from __future__ import annotations

import re
import unicodedata

MAX_CHARS = 300  # a quoted value longer than this is cut, with an ellipsis
# ASCII letters, digits, space and marks that start no Markdown construct; every non-ASCII character
# (Chinese, accents, CJK punctuation) is inert too: Markdown's syntax and web addresses are ASCII.
_INERT = re.compile(r"[A-Za-z0-9 ,.%+\-/()='?;^\u0080-\U0010ffff]*")


class AppText(str):
    """A sentence the app wrote from its own text files: Markdown meant as Markdown."""


def one_line(value: str) -> str:
    """`value` on one line: control, format, private and unassigned characters dropped, every run of white
    space one space."""
    kept = "".join(ch for ch in value if unicodedata.category(ch)[0] != "C" or ch.isspace())
    flat = " ".join(kept.split())
    return flat if len(flat) <= MAX_CHARS else flat[:MAX_CHARS - 1] + "…"


def inert(value: str) -> bool:
    """Whether `value` reads the same as text and as Markdown (no markup, no web or mail address)."""
    return bool(_INERT.fullmatch(value)) and "www." not in value.lower()


def shown(value):
    """`value` ready to sit inside a Markdown sentence: the app's own text and non-strings unchanged, an
    inert string on one line, anything else quoted as an inline code span."""
    if isinstance(value, AppText) or not isinstance(value, str):
        return value
    flat = one_line(value)
    if inert(flat):
        return flat
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    return f"{fence} {flat} {fence}"  # the spaces keep a backtick at either end from joining the fence
