"""Every user-visible string exists in every language with the same placeholders, every key the app asks
for is defined, and the core holds no page text."""

import re
import string
from pathlib import Path

import pytest

from explorer.pure import text
from explorer.pure.sitemap import FOLDER

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "app.py", *sorted((ROOT / FOLDER).glob("*.py")), *sorted((ROOT / "explorer").rglob("*.py"))]
ENGLISH = text.STRINGS["en"]


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_language_has_the_same_keys():
    for lang in text.LANGS:
        assert set(text.STRINGS[lang]) == set(ENGLISH), lang
    assert {path.stem for path in (ROOT / "explorer" / "pure" / "text" / "en").glob("*.toml")} == {
        path.stem for path in (ROOT / "explorer" / "pure" / "text" / "zh").glob("*.toml")}


def test_every_string_is_text_in_both_languages():
    failing = [key for key in sorted(ENGLISH)
               if not (isinstance(ENGLISH[key], str) and isinstance(text.STRINGS["zh"][key], str))]
    assert not failing, failing


def test_no_string_is_blank_in_either_language():
    failing = [key for key in sorted(ENGLISH)
               if not (str(ENGLISH[key]).strip() and str(text.STRINGS["zh"][key]).strip())]
    assert not failing, failing


def test_both_languages_have_the_same_placeholders():
    # (symbol-only labels such as "z·w" or "90°" are the same in both languages); LaTeX strings use braces for
    # grouping and are never formatted
    failing = {key: (_fields(ENGLISH[key]), _fields(text.STRINGS["zh"][key])) for key in sorted(ENGLISH)
               if "\\" not in ENGLISH[key] and _fields(ENGLISH[key]) != _fields(text.STRINGS["zh"][key])}
    assert not failing, failing


def test_every_literal_key_used_by_the_app_exists():
    used = set()
    for path in SOURCES:
        used |= set(re.findall(r"""\bt\(\s*f?["']([a-z_]+\.[a-z0-9_]+)["']""", path.read_text(encoding="utf-8")))
    assert used, "no t(...) calls found"
    assert not used - set(ENGLISH), sorted(used - set(ENGLISH))


def test_every_declared_knob_label_exists():
    from explorer.pure.knobs import PAGE_KNOBS

    for page, knobs in PAGE_KNOBS.items():
        for name, spec in knobs.items():
            assert spec.label in ENGLISH, (page, name, spec.label)
            assert not spec.help or spec.help in ENGLISH, (page, name, spec.help)


def test_unknown_key_and_language_raise_value_error():
    with pytest.raises(ValueError, match="key"):
        text.text("no.such_key")
    with pytest.raises(ValueError, match="lang"):
        text.text("home.title", "fr")


def test_the_core_holds_no_page_text():
    offenders = [str(path.relative_to(ROOT)) for path in (ROOT / "rope_viz").rglob("*.py")
                 if re.search(r"[\u4e00-\u9fff]", path.read_text(encoding="utf-8"))]
    assert not offenders, offenders
    assert not (ROOT / "rope_viz" / "i18n").exists()


def test_chinese_words_filled_in_take_no_spaces_but_latin_words_keep_them():
    """A word put into a Chinese sentence joins its Han neighbours ("在回忆任务"), a Latin one keeps its spaces;
    every template, every placeholder (a hand-written check: no space between two Han characters anywhere)."""
    values = {"task": "回忆", "factor": 2.0, "design": "NoPE", "a": "1", "b": "2", "baseline": "RoPE"}
    assert text.text("rope_designs.verdict_higher", "zh", **values).startswith("在回忆任务、2× 长度上")
    assert text.text("rope_designs.verdict_higher", "zh", **{**values, "task": "recall"}).startswith("在 recall 任务")
    assert text.text("rope_designs.verdict_higher", "en", **{**values, "task": "recall"}).startswith("On recall at")
    for key, template in text.STRINGS["zh"].items():
        fields = _fields(template)
        if not fields or any(not name.isidentifier() for name in fields):
            continue
        filled = text.text(key, "zh", **{name: _Han() for name in fields})
        assert not re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", filled.replace("词 元", "")), (key, filled)
    own_space = text.text("rope_designs.verdict_higher", "zh", **{**values, "task": "两 个"})
    assert own_space.startswith("在两 个任务")  # a value's own space stays


class _Han(str):
    """A Chinese word that takes any format spec (a placeholder may ask for {n:,} or {x:.2f})."""

    def __new__(cls):
        return super().__new__(cls, "词 元")

    def __format__(self, spec):
        return str(self)
