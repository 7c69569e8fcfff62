"""Does every view of the app read cleanly? One page in one window size and one language is a view:
every page x {desktop 1280x720, presenter view 1280x720, phone 390x844} x {en, zh}.

For a view, `inspect(page)` collects the boxes of every text a reader must read (chart titles, legends,
toolbars, axis and colour-bar titles, tick labels, annotations; metric labels and values; slider labels, values and
their end labels) and reports:
- overlaps: two text boxes that cover each other (more than OVERLAP_PX each way);
- truncated: a text cut off: an ellipsis (CSS text-overflow) that hides part of it, or chart text that
  reaches past its chart's edge, where the svg clips it;
- first_plot: how far down the window the first chart's plot area starts (the view makes its point on the
  first screen when it is at most `height - PLOT_SHOWN_PX`);
and, in Chinese, `chart_fonts(page)` asks Chromium (DevTools protocol) which platform fonts drew the first
chart title, which must be a Simplified Chinese family.

The browser test (tests/e2e/test_browser_layout.py) asserts it for every view; `python -m bench.layout`
prints the per-page table and writes JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.pages import PAGES

WINDOWS = {"desktop": ({"width": 1280, "height": 720}, ""),
           "presenter": ({"width": 1280, "height": 720}, "present=1"),
           "phone": ({"width": 390, "height": 844}, "")}
LANGS = ("en", "zh")
OVERLAP_PX = 4  # two boxes overlap when they share more than this many pixels both ways (a line's box has
# room above and below its letters: two lines set 3 px into each other do not touch)
PLOT_SHOWN_PX = 60  # of the first plot area inside the first screen
SIMPLIFIED = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "PingFang SC",
              "Microsoft YaHei", "WenQuanYi Zen Hei")


@dataclass(frozen=True)
class View:
    stem: str  # the page id
    path: str  # its url path
    window: str  # a key of WINDOWS
    lang: str

    @property
    def viewport(self) -> dict:
        return WINDOWS[self.window][0]

    @property
    def query(self) -> str:
        return "&".join(part for part in (WINDOWS[self.window][1], "lang=zh" if self.lang == "zh" else "") if part)

    @property
    def name(self) -> str:
        return f"{self.stem}-{self.window}-{self.lang}"


VIEWS = tuple(View(stem, path, window, lang) for stem, path, _ in PAGES for window in WINDOWS for lang in LANGS)

# Every text box a reader reads, with its kind, its group (what it belongs to: a chart or a widget) and the
# box it must stay within (a chart's svg); and the texts an ellipsis cuts.
_COLLECT = """() => {
    const main = document.querySelector('[data-testid=stMain]');
    // drawn, and not hidden by a box that clips it (a folded expander keeps its content laid out); for chart
    // text, the chart is: text past the chart's edge is clipped, and reported as cut
    const shown = el => {
        if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
        const own = el.getBoundingClientRect();
        if (!(own.width > 0 && own.height > 0)) return false;
        const held = el.closest('[data-testid=stPlotlyChart]') || el;
        const r = held.getBoundingClientRect();
        for (let up = held.parentElement; up && up !== main; up = up.parentElement) {
            if (getComputedStyle(up).overflow === 'visible') continue;
            const c = up.getBoundingClientRect();
            if (Math.min(r.right, c.right) - Math.max(r.left, c.left) <= 0
                    || Math.min(r.bottom, c.bottom) - Math.max(r.top, c.top) <= 0) return false;
        }
        return true;
    };
    // an HTML element's text: the union of its text's boxes, not its block (a label's row is as wide as its
    // column, a line holding a formula is taller than its letters), KaTeX's clipped accessible copy left out;
    // an svg element's box
    const textRect = el => {
        if (el instanceof SVGElement) return el.getBoundingClientRect();
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (!node.textContent.trim() || node.parentElement.closest('.katex-mathml')) continue;
            range.selectNodeContents(node);
            for (const r of range.getClientRects()) {
                if (!r.width || !r.height) continue;
                left = Math.min(left, r.left); top = Math.min(top, r.top);
                right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
            }
        }
        return left < right ? {left, top, width: right - left, height: bottom - top} : el.getBoundingClientRect();
    };
    const box = (el, kind, group, within) => {
        const r = textRect(el);
        return {kind, group, text: (el.textContent || '').trim().slice(0, 60),
                x: r.left, y: r.top, w: r.width, h: r.height, within};
    };
    const boxes = [];
    [...main.querySelectorAll('[data-testid=stPlotlyChart]')].forEach((chart, i) => {
        const svg = chart.querySelector('.main-svg');
        if (!svg || !shown(svg)) return;
        const s = svg.getBoundingClientRect();
        const within = {x: s.left, y: s.top, w: s.width, h: s.height};
        const add = (selector, kind) => chart.querySelectorAll(selector).forEach(el => {
            if (shown(el) && el.textContent.trim()) boxes.push(box(el, kind, `chart ${i}`, within));
        });
        add('.infolayer .gtitle', 'chart title');
        add('.infolayer text[class$=title]:not(.gtitle):not(.legendtitletext)', 'axis title');
        add('.infolayer .annotation-text', 'annotation');
        add('.infolayer .legend .scrollbox', 'legend');
        add('[class$=tick] > text', 'tick label');
        chart.querySelectorAll('.modebar').forEach(el => {
            if (el.getClientRects().length) boxes.push(box(el, 'toolbar', `chart ${i}`, null));
        });
    });
    main.querySelectorAll('[data-testid=stMetric]').forEach((metric, i) => {
        for (const [sel, kind] of [['[data-testid=stMetricLabel]', 'metric label'],
                                   ['[data-testid=stMetricValue]', 'metric value']]) {
            const el = metric.querySelector(sel);
            if (el && shown(el)) boxes.push(box(el, kind, `metric ${i}`, null));
        }
    });
    main.querySelectorAll('[data-testid=stSlider]').forEach((slider, i) => {
        for (const [sel, kind] of [['[data-testid=stWidgetLabel] [data-testid=stMarkdownContainer]', 'slider label'],
                                   ['[data-testid=stSliderThumbValue]', 'slider value'],
                                   ['[data-testid=stSliderTickBarMin]', 'slider end'],
                                   ['[data-testid=stSliderTickBarMax]', 'slider end']]) {
            slider.querySelectorAll(sel).forEach(el => {
                if (shown(el)) boxes.push(box(el, kind, `slider ${i}`, null));
            });
        }
    });
    const cut = [...main.querySelectorAll('*')]
        .filter(el => getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1
                      && shown(el))
        .map(el => ({kind: 'ellipsis', text: el.textContent.trim().slice(0, 60)}));
    const plots = [...main.querySelectorAll('[data-testid=stPlotlyChart] .main-svg .nsewdrag')]
        .filter(shown).map(a => a.getBoundingClientRect().top);
    return {boxes, cut, firstPlot: plots.length ? Math.min(...plots) : null,
            height: window.innerHeight, width: window.innerWidth};
}"""


@dataclass
class Findings:
    view: View
    overlaps: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)
    first_plot: float | None = None
    fonts: dict[str, int] | None = None  # Chinese views: the platform fonts of the first chart title

    @property
    def off_first_screen(self) -> bool:
        return self.first_plot is None or self.first_plot > self.view.viewport["height"] - PLOT_SHOWN_PX

    @property
    def wrong_font(self) -> bool:
        if self.fonts is None:
            return False
        cjk = [family for family in self.fonts if "CJK" in family or "Han" in family or family in SIMPLIFIED]
        return not cjk or any(family not in SIMPLIFIED for family in cjk)

    @property
    def clean(self) -> bool:
        return not (self.overlaps or self.truncated or self.off_first_screen or self.wrong_font)

    def summary(self) -> dict:
        return {"view": self.view.name, "overlaps": self.overlaps, "truncated": self.truncated,
                "first_plot": self.first_plot, "off_first_screen": self.off_first_screen,
                "fonts": self.fonts, "wrong_font": self.wrong_font}


def _shared(a: dict, b: dict) -> tuple[float, float]:
    """How far two boxes cover each other, across and down (negative: apart)."""
    return (min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]),
            min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]))


def _outside(a: dict) -> bool:
    """Chart text that reaches past its chart's svg by more than OVERLAP_PX."""
    s = a["within"]
    return s is not None and (a["x"] < s["x"] - OVERLAP_PX or a["y"] < s["y"] - OVERLAP_PX
                              or a["x"] + a["w"] > s["x"] + s["w"] + OVERLAP_PX
                              or a["y"] + a["h"] > s["y"] + s["h"] + OVERLAP_PX)


def judge(view: View, collected: dict) -> Findings:
    """The findings from what _COLLECT returned."""
    found = Findings(view, first_plot=collected["firstPlot"])
    boxes = collected["boxes"]
    for i, a in enumerate(boxes):
        if _outside(a):
            found.truncated.append(f"{a['kind']} {a['text']!r} past its chart's edge")
        for b in boxes[i + 1:]:
            if a["kind"] == b["kind"] == "tick label":  # Plotly spaces an axis's own labels
                continue
            across, down = _shared(a, b)
            if across > OVERLAP_PX and down > OVERLAP_PX:
                found.overlaps.append(f"{a['kind']} {a['text']!r} / {b['kind']} {b['text']!r}")
    found.truncated += [f"{c['text']!r} cut by an ellipsis" for c in collected["cut"]]
    return found


def chart_fonts(page) -> dict[str, int] | None:
    """{platform font family: glyphs} that drew the first chart title, through the DevTools protocol."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "[data-testid=stMain] .main-svg .gtitle"})
        if not node["nodeId"]:
            return None
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    finally:
        cdp.detach()
    return {font["familyName"]: font["glyphCount"] for font in fonts}


def inspect(page, view: View) -> Findings:
    """The findings of `view`, already open in `page` at its viewport."""
    found = judge(view, page.evaluate(_COLLECT))
    if view.lang == "zh":
        found.fonts = chart_fonts(page)
    return found
