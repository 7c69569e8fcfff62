"""Every user-visible string of the app, in English and Simplified Chinese.

Strings live in one module per page (plus `common`), each a dict
``{key: (english, chinese)}``; keys are prefixed by the page they belong to.
"""

from __future__ import annotations

from . import common, complex_plane, decay, home, implementation, linear, phase, relative, rotations, versus

LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "中文"}

STRINGS: dict[str, tuple[str, str]] = {}
for _module in (common, home, rotations, relative, versus, complex_plane, phase, implementation, decay, linear):
    _clash = STRINGS.keys() & _module.STRINGS.keys()
    if _clash:
        raise ValueError(f"i18n keys defined twice: {sorted(_clash)}")
    STRINGS.update(_module.STRINGS)


def text(key: str, lang: str = "en", **values) -> str:
    """The string `key` in `lang` ("en" or "zh"), with {placeholders} filled from `values`."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    try:
        pair = STRINGS[key]
    except KeyError:
        raise ValueError(f"no text with key {key!r}") from None
    template = pair[LANGS.index(lang)]
    return template.format(**values) if values else template
