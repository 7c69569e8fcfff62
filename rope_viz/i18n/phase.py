"""Strings of the phase page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "phase.nav": ("Phase cancellation", "相位相消"),
    "phase.title": ("Phase cancellation", "相位相消"),
    "phase.intro": ("", ""),
}
