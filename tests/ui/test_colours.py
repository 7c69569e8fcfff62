"""One home for colour: every colour the app draws is named in explorer/pure/figures/style.py. A colour literal
(#rgb, #rrggbb, rgb(...), hsl(...)) anywhere else in the app's code, pages, text or the drag component's
JavaScript and HTML fails here; the theme's accent in .streamlit/config.toml is the palette's first colour."""

import re
import tomllib
from pathlib import Path

from explorer.pure.figures import style

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "explorer" / "pure" / "figures" / "style.py"
COLOUR = re.compile(r"(?<![\w&])#(?:[0-9a-f]{8}|[0-9a-f]{6}|[0-9a-f]{3,4})\b|\b(?:rgba?|hsla?)\(\s*\d", re.IGNORECASE)


def test_colour_literals_live_only_in_the_style_module():
    sources = [ROOT / "app.py", *(path for folder in ("explorer", "pages")
                                  for path in sorted((ROOT / folder).rglob("*"))
                                  if path.suffix in {".py", ".js", ".html", ".css", ".toml"})]
    found = [f"{path.relative_to(ROOT)}:{n}: {match.group()}" for path in sources if path != HOME
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for match in COLOUR.finditer(line)]
    assert not found, found
    assert COLOUR.search('"#d1495b", "rgba(255, 255, 255, 0.8)", "#fff"')  # the pattern finds what it should


def test_the_theme_accent_is_the_palette_first_colour():
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["theme"]
    assert theme["primaryColor"] == style.PALETTE[0]
