"""Every string a visitor reads, one TOML file per page per language: ``text/<lang>/<page>.toml``.

A key ``"linear_attention.title"`` is the entry ``title`` of ``linear_attention.toml``: the file's name is the
page id (explorer.pure.sitemap). Everything about a topic is in its own file: ``title`` and ``intro`` (the page's
header), ``nav`` (its name in the sidebar, the lesson's links and closing sentence), ``card`` (its caption on
the home page), its knobs' labels, and its questions (``quiz_<name>``, explorer.pure.questions). Text several
pages share lives in ``common.toml``, the home page's in ``home.toml``. Adding a language is adding one folder
of files with the same keys and the same {placeholders}; a test checks both stay complete.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from string import Formatter

LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "中文"}
_FOLDER = Path(__file__).resolve().parent
UNSPACED = frozenset({"zh"})  # languages written without spaces between words
# Han characters, CJK punctuation and full-width forms: a space between two of them is no space in these languages
_CJK = re.compile(r"[\u2e80-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")
_FORMATTER = Formatter()


def _load(lang: str) -> dict[str, str]:
    strings = {}
    for path in sorted((_FOLDER / lang).glob("*.toml")):
        with path.open("rb") as handle:
            for name, value in tomllib.load(handle).items():
                strings[f"{path.stem}.{name}"] = value
    return strings


STRINGS: dict[str, dict[str, str]] = {lang: _load(lang) for lang in LANGS}


def text(key: str, lang: str = "en", **values) -> str:
    """The string `key` in `lang`, with its {placeholders} filled from `values`."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    try:
        template = STRINGS[lang][key]
    except KeyError:
        raise ValueError(f"no text with key {key!r}") from None
    if not values:
        return template
    return _unspaced(template, values) if lang in UNSPACED else template.format(**values)


def _cjk(char: str) -> bool:
    return bool(char) and _CJK.match(char) is not None


def _unspaced(template: str, values: dict) -> str:
    """template.format(**values), where a space of the template beside a {placeholder} is left out when the
    characters on both sides of it are Han or CJK punctuation (“在 {task} 任务” with task “回忆” reads
    “在回忆任务”; with “recall” the spaces stay). Spaces inside a value are kept as they are."""
    parts: list[str] = []
    joined_after = False  # the previous value ended in a CJK character
    for literal, field, spec, conversion in _FORMATTER.parse(template):
        if joined_after and literal.startswith(" ") and _cjk(literal[1:2]):
            literal = literal[1:]
        if field is None:
            parts.append(literal)
            break
        value = _FORMATTER.format_field(_FORMATTER.convert_field(_FORMATTER.get_field(field, (), values)[0],
                                                                 conversion), spec or "")
        if literal.endswith(" ") and _cjk(literal[-2:-1]) and _cjk(value[:1]):
            literal = literal[:-1]
        parts += [literal, value]
        joined_after = _cjk(value[-1:])
    return "".join(parts)
