"""Every icon the app draws is one of Streamlit's Material icons, named as Streamlit 1.67 knows them: an emoji
shows as an empty box on a PC without an emoji font (a Linux PC driving a projector, often)."""

import re
from pathlib import Path

from streamlit.material_icon_names import ALL_MATERIAL_ICONS

from explorer.pure.sitemap import FOLDER, PAGES

ROOT = Path(__file__).resolve().parents[2]
MATERIAL = re.compile(r":material/([a-z0-9_]+):")


def _icons_in_the_source() -> list[str]:
    found = []
    for path in [*ROOT.joinpath("explorer").rglob("*.py"), *ROOT.joinpath(FOLDER).glob("*.py")]:
        found += re.findall(r"""\bicon\s*=\s*["']([^"']*)["']""", path.read_text(encoding="utf-8"))
    return found


def test_page_icons_and_every_icon_literal_are_material_icons_that_exist():
    icons = [icon for _, _, icon in PAGES] + _icons_in_the_source()
    assert len(icons) > len(PAGES)
    for icon in icons:
        name = MATERIAL.fullmatch(icon)
        assert name is not None, f"{icon!r} is not a :material/<name>: icon"
        assert name.group(1) in ALL_MATERIAL_ICONS, f"{icon!r}: no such Material icon in this Streamlit"
