"""Strings of the linear page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "linear.nav": ("Linear attention", "线性注意力"),
    "linear.title": ("Linear attention", "线性注意力"),
    "linear.intro": ("", ""),
}
