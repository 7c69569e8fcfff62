"""Strings of the complex_plane page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "complex_plane.nav": ("Complex numbers & rotation", "复数与旋转"),
    "complex_plane.title": ("Complex numbers & rotation", "复数与旋转"),
    "complex_plane.intro": ("", ""),
}
