"""Every page on a phone-sized screen (390 x 844): no horizontal scrolling of the page, every chart drawn at
the screen's width, and a panel flat by design saying so inside its plot area, readably."""

import pytest

from browser_checks import assert_charts_drawn, assert_clean
from explorer.pure import text
from explorer.pure.sitemap import PAGES

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}

# How far the page and its main area reach sideways, and the widest chart, in CSS pixels.
_WIDTHS = """() => {
    const main = document.querySelector('[data-testid=stMain]');
    const charts = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')];
    // an element that reaches past the screen's edge, unless a box of its own (a formula that scrolls
    // sideways, KaTeX's hidden MathML, a chart's canvas) holds it within the screen
    const held = el => {
        for (let box = el.parentElement; box && box !== main; box = box.parentElement) {
            if (getComputedStyle(box).overflowX !== 'visible'
                    && box.getBoundingClientRect().right <= window.innerWidth + 1) return true;
        }
        return false;
    };
    const wide = [...main.querySelectorAll('*')]
        .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1 && el.getClientRects().length
                      && !(el.matches('input[type=range]')) && !held(el))
        .slice(0, 5).map(el => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`);
    return {page: document.documentElement.scrollWidth, window: window.innerWidth,
            main: main.scrollWidth, mainBox: main.clientWidth,
            charts: charts.map(c => Math.round(c.getBoundingClientRect().width)), wide};
}"""


@pytest.mark.parametrize("stem,url", [(stem, url) for stem, url, _ in PAGES], ids=[p[0] for p in PAGES])
def test_page_fits_a_phone(page, open_app, stem, url):
    page.set_viewport_size(PHONE)
    open_app(url)
    assert_clean(page)
    assert_charts_drawn(page, stem)
    widths = page.evaluate(_WIDTHS)
    assert widths["page"] <= widths["window"], widths
    assert widths["main"] <= widths["mainBox"], widths
    assert not widths["wide"], widths
    for width in widths["charts"]:
        assert width >= 0.8 * PHONE["width"] - 40, widths  # full width: the columns stack


# The panels that are flat by design and the note each carries (explorer/pure/text/<lang>/<page>.toml)
FLAT_NOTES = {"distance-biases": "distance_biases.nope_flat", "rope-vs-sinusoidal": "rope_vs_sinusoidal.content_flat",
              "images-and-video": "images_and_video.mrope_note"}
# Each note written on a panel (an annotation placed by its axes' domain): its text, its drawn font size and
# box, and the box of the plot area it sits on.
_NOTES_ON_PANELS = """() => [...document.querySelectorAll('[data-testid=stMain] .main-svg .annotation')].map(note => {
    const svg = note.closest('.main-svg').parentElement;
    const text = note.querySelector('.annotation-text');
    const scale = text.getScreenCTM();
    return {text: text.textContent, box: text.getBoundingClientRect().toJSON(),
            size: parseFloat(getComputedStyle(text).fontSize) * Math.hypot(scale.a, scale.b),
            areas: [...svg.querySelectorAll('.nsewdrag')].map(a => ({subplot: a.dataset.subplot,
                                                                     box: a.getBoundingClientRect().toJSON()}))};
})"""


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("url", sorted(FLAT_NOTES))
def test_a_flat_panel_says_so_readably_on_a_phone(page, open_app, url, lang):
    """The note of a panel flat by design is drawn inside one plot area, whole, at no less than 9 px."""
    page.set_viewport_size(PHONE)
    open_app(url, "lang=zh" if lang == "zh" else "")
    said = "".join(text.text(FLAT_NOTES[url], lang).replace("<br>", " ").split())  # however its lines break
    notes = [n for n in page.evaluate(_NOTES_ON_PANELS) if "".join(n["text"].split()) == said]
    assert len(notes) == 1, f"{url}: no note {said!r} on a chart"
    (note,) = notes
    box = note["box"]
    inside = [a["subplot"] for a in note["areas"]
              if a["box"]["left"] <= box["left"] and box["right"] <= a["box"]["right"]
              and a["box"]["top"] <= box["top"] and box["bottom"] <= a["box"]["bottom"]]
    assert len(inside) == 1, (url, box, note["areas"])
    assert note["size"] >= 9, note
