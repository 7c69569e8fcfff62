"""Strings of the versus page: {key: (english, chinese)}."""

STRINGS: dict[str, tuple[str, str]] = {
    "versus.nav": ("RoPE vs sinusoidal", "RoPE 与正弦编码"),
    "versus.title": ("RoPE vs sinusoidal", "RoPE 与正弦编码"),
    "versus.intro": ("", ""),
}
