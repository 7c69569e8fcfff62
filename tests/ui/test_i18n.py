"""Every user-visible string exists in English and Chinese, and every key a page asks for is defined."""

import re
import string
from pathlib import Path

import pytest

from rope_viz import i18n

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("key", sorted(i18n.STRINGS))
def test_both_languages_present_with_the_same_placeholders(key):
    # (symbol-only labels such as "z·w" or "90°" are the same in both languages)
    english, chinese = i18n.STRINGS[key]
    assert english.strip() and chinese.strip(), key
    if "\\" not in english:  # LaTeX strings use braces for grouping and are never formatted
        assert _fields(english) == _fields(chinese), key


def test_every_literal_key_used_by_the_app_exists():
    used = set()
    for path in SOURCES:
        used |= set(re.findall(r"""\bt\(\s*["']([a-z_]+\.[a-z0-9_]+)["']""", path.read_text(encoding="utf-8")))
    assert used, "no ui.t(...) calls found"
    assert not used - set(i18n.STRINGS), sorted(used - set(i18n.STRINGS))


def test_unknown_key_and_language_raise_value_error():
    with pytest.raises(ValueError, match="key"):
        i18n.text("no.such_key")
    with pytest.raises(ValueError, match="lang"):
        i18n.text("home.title", "fr")
