"""Text from outside the app is filled into sentences as text: inert strings as they are, anything else as an
inline code span that holds it character for character."""

import re

from hypothesis import given
from hypothesis import strategies as st

from explorer.pure.safe_text import MAX_CHARS, AppText, shown

PAYLOAD = ("Official notice: [log in again here](http://127.0.0.1:9/phish) ![pixel](http://127.0.0.1:9/pixel.png) "
           "**URGENT** <img src=http://127.0.0.1:9/raw.png> <script>alert(1)</script> [j](javascript:alert(1)) "
           "www.example.com a@b.co :red[x] $x^2$")


def _code_span_content(text: str) -> str:
    """The content of one CommonMark inline code span (a hand-written reading of the spec: the opening and
    closing runs of backticks have the same length, one space is stripped at each end when both are)."""
    fence = re.match(r"`+", text).group(0)
    assert text.endswith(fence) and not text.endswith("`" + fence)
    inner = text[len(fence):-len(fence)]
    assert not any(len(run) == len(fence) for run in re.findall(r"`+", inner))
    return inner[1:-1] if inner.startswith(" ") and inner.endswith(" ") and inner.strip() else inner


def test_inert_values_and_numbers_are_kept():
    for value in ("4,096", "1e+06", "meta-llama/Llama-3.1-8B", "gemma-7b", "128k", "45%", "旋转位置编码", ""):
        assert shown(value) == value
    assert shown(3) == 3 and shown(2.5) == 2.5 and shown(None) is None


def test_the_apps_own_text_is_kept():
    own = AppText("**bold** and [a link](https://example.org)")
    assert shown(own) is own


def test_markup_is_quoted_whole():
    quoted = shown(PAYLOAD)
    assert _code_span_content(quoted) == PAYLOAD


@given(st.text(max_size=400))
def test_any_string_comes_back_inert_or_as_one_code_span_of_its_flattened_text(value):
    out = shown(value)
    flat = " ".join("".join(ch for ch in value if ch.isprintable() or ch.isspace()).split())
    if len(flat) > MAX_CHARS:
        flat = flat[:MAX_CHARS - 1] + "…"
    if out == flat:
        assert "`" not in out and "[" not in out and "<" not in out and "www." not in out.lower()
    else:
        assert "\n" not in out and _code_span_content(out) == flat


def test_t_quotes_outside_values_and_notice_quotes_foreign_messages(monkeypatch):
    import streamlit as st_module

    from explorer.app import session

    state = {}
    monkeypatch.setattr(st_module, "session_state", state)
    monkeypatch.setattr("explorer.app.session.forbid_inside_cache", lambda what: None)
    line = session.t("long_context.config_invalid", detail=PAYLOAD, preset="gemma-7b")
    assert isinstance(line, AppText) and f"`` {PAYLOAD} ``" not in line and f"` {PAYLOAD} `" in line
    session.notice(PAYLOAD)
    session.notice(line)
    assert session.take_notices() == [f"` {PAYLOAD} `", line]
