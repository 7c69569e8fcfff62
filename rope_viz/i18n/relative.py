"""Strings of the relative page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "relative.nav": ("Relative attention", "相对注意力"),
    "relative.title": ("Relative attention", "相对注意力"),
    "relative.intro": ("", ""),
}
