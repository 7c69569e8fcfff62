"""Chinese pages are drawn with Simplified Chinese glyphs. The page declares <html lang="en">, so left to
itself Chromium picks a CJK font by that language (seen: Noto Sans CJK JP, whose 直, 骨, 角, 与 have Japanese
shapes); the theme's font stack names a Simplified Chinese family first. Chromium is asked, through the
DevTools protocol, which platform font it actually used for a Chinese heading."""

import pytest

from browser_checks import assert_clean
from explorer.pure import text

pytestmark = pytest.mark.browser
SIMPLIFIED = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "PingFang SC",
              "Microsoft YaHei", "WenQuanYi Zen Hei")


def fonts_used(page, selector: str) -> dict[str, int]:
    """{platform font family: glyphs drawn with it} for the first element matching `selector`."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert node, f"nothing matches {selector}"
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        cdp.detach()
    return {font["familyName"]: font["glyphCount"] for font in fonts}


@pytest.mark.parametrize("path", ["relative-attention", "frequency-clocks"])
def test_a_chinese_heading_is_drawn_with_a_simplified_chinese_font(page, open_app, path):
    open_app(path, "lang=zh")
    assert_clean(page)
    used = fonts_used(page, "[data-testid=stMain] h1")
    cjk = {family: glyphs for family, glyphs in used.items() if "CJK" in family or "Han" in family
           or family in SIMPLIFIED}
    assert cjk, f"no CJK font drew the heading ({used}): install one, e.g. Debian's fonts-noto-cjk"
    assert all(family in SIMPLIFIED for family in cjk), f"the Chinese heading was drawn with {cjk}"


def test_latin_text_keeps_the_apps_own_font(page, open_app):
    open_app("relative-attention")
    # Streamlit's bundled Source Sans is a web font: the platform reports its file's family name
    for selector in ("[data-testid=stMain] h1", "[data-testid=stMain] [data-testid=stMarkdownContainer] p"):
        used = fonts_used(page, selector)
        assert used and all(family.startswith("SourceSans") for family in used), (selector, used)


def test_chinese_chart_text_is_drawn_with_a_simplified_chinese_font(page, open_app):
    """Chart titles are SVG text with the figures' own font list: in Chinese it resolves to a Simplified
    Chinese family too, not to the Japanese shapes Chromium picks by the page's language."""
    open_app("relative-attention", "lang=zh")
    assert_clean(page)
    page.wait_for_selector(".main-svg .gtitle")
    used = fonts_used(page, ".main-svg .gtitle")
    cjk = {family: glyphs for family, glyphs in used.items() if "CJK" in family or "Han" in family
           or family in SIMPLIFIED}
    assert cjk and all(family in SIMPLIFIED for family in cjk), f"the Chinese chart title was drawn with {used}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_chart_toolbar_speaks_the_pages_language(page, open_app, lang):
    """The toolbar's tooltips come from Plotly in English; in Chinese each one is translated (all but
    Streamlit's own Fullscreen button)."""
    open_app("frequency-clocks", f"lang={lang}")
    assert_clean(page)
    chart = page.locator("[data-testid=stPlotlyChart]").first
    chart.scroll_into_view_if_needed()
    chart.hover()
    page.locator(".modebar-btn").first.wait_for()
    titles = [button.get_attribute("data-title") for button in chart.locator(".modebar-btn").all()]
    expected = [text.text(f"toolbar.{key}", lang) for key in ("png", "zoom", "pan", "zoom_in", "zoom_out",
                                                              "autoscale", "reset")]
    assert titles[:-1] == expected and titles[-1] == "Fullscreen", titles
