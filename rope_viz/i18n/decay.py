"""Strings of the decay page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "decay.nav": ("Long-term decay", "远程衰减"),
    "decay.title": ("Long-term decay", "远程衰减"),
    "decay.intro": ("", ""),
}
