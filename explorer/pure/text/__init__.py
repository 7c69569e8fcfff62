"""Every string a visitor reads, one TOML file per page per language: ``text/<lang>/<page>.toml``.

A key ``"linear_attention.title"`` is the entry ``title`` of ``linear_attention.toml``: the file's name is the
page id (explorer.pure.sitemap). Everything about a topic is in its own file: ``title`` and ``intro`` (the page's
header), ``nav`` (its name in the sidebar, the lesson's links and closing sentence), ``card`` (its caption on
the home page), its knobs' labels, and its questions (``quiz_<name>``, explorer.pure.questions). Text several
pages share lives in ``common.toml``, the home page's in ``home.toml``. Adding a language is adding one folder
of files with the same keys and the same {placeholders}; a test checks both stay complete.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "中文"}
_FOLDER = Path(__file__).resolve().parent


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
    return template.format(**values) if values else template
