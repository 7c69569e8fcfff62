"""Strings of the implementation page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "implementation.nav": ("Implementation", "实现方式"),
    "implementation.title": ("Implementation", "实现方式"),
    "implementation.intro": ("", ""),
}
