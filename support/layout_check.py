"""Does every view of the app read cleanly? One page in one window size and one language is a view:
every page x {desktop 1280x720, presenter view 1280x720 and 1920x1080 (a projector), phone 390x844} x {en, zh}.

For a view, `inspect(page)` collects the boxes of every text a reader must read (chart titles, legends,
toolbars, axis and colour-bar titles, tick labels, annotations, an animation's buttons and frame slider; metric
labels and values; slider labels, values and their end labels) and reports:
- overlaps: two text boxes that cover each other (more than OVERLAP_PX each way);
- truncated: a text cut off: an ellipsis (CSS text-overflow) that hides part of it, or chart text that
  reaches past its chart's edge, where the svg clips it;
- on_widget: a text box over a widget it does not belong to: a slider's track (its own value included), a
  button, a select box, the play/pause buttons and frame slider of an animation, a component's frame;
- small_values: a metric whose value is drawn smaller than its label;
- small_text: text drawn under MIN_TEXT_PX (in the presenter view: under PRESENTER_TEXT_PX, the size of
  ordinary body text; an index, such as a chart label's sub- or superscript, under INDEX_SHARE of that, and
  never under MIN_TEXT_PX), in the page, its charts and its components' frames;
- cut_formulas: a displayed formula wider than its box with no cue that it scrolls (a shadow at the edge);
- flat_plots: a chart whose heatmaps and images, all its panels together (and those of the charts in the same
  row of columns), barely vary in colour (FLAT_SPREAD): it shows nothing (one flat panel beside a patterned one
  is a comparison, and is not reported);
- faint_lines: in the presenter view, a chart line fainter (opacity) or thinner than a projector shows;
- first_plot: how far down the window the first chart's plot area starts, and first_shown: how many pixels
  of a plot area, at most, the first screen shows (the view makes its point on the first screen when that
  is at least PLOT_SHOWN_PX: a plot area that starts on it but is only a strip, such as three image-shaped
  maps side by side on a phone, does not);
and, in Chinese, `chart_fonts(page)` asks Chromium (DevTools protocol) which platform fonts drew the first
chart title, which must be a Simplified Chinese family.

The browser test (tests/e2e/test_browser_layout.py) asserts it for every view; `python -m bench.layout`
prints the per-page table and writes JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.pure.sitemap import PAGES

WINDOWS = {"desktop": ({"width": 1280, "height": 720}, ""),
           "presenter": ({"width": 1280, "height": 720}, "present=1"),
           "presenter1080": ({"width": 1920, "height": 1080}, "present=1"),
           "phone": ({"width": 390, "height": 844}, "")}
LANGS = ("en", "zh")
OVERLAP_PX = 4  # two boxes overlap when they share more than this many pixels both ways (a line's box has
# room above and below its letters: two lines set 3 px into each other do not touch)
MIN_TEXT_PX = 9  # no text is drawn smaller
PRESENTER_TEXT_PX = 16  # nor, on a projector, smaller than ordinary body text
INDEX_SHARE = 0.7  # a sub- or superscript may be this much of either, but no smaller than MIN_TEXT_PX
FLAT_SPREAD = 24  # a chart is flat when 99.6 % of its heatmaps' pixels lie within this many levels (of 255)
FAINT_OPACITY = 0.45  # a presenter chart's line is faint under this opacity (all its layers multiplied) ...
THIN_PX = 1.5  # ... or this stroke width
PLOT_SHOWN_PX = 60  # of a plot area inside the first screen, top to bottom
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

    @property
    def presenter(self) -> bool:
        return "present=1" in WINDOWS[self.window][1]

    @property
    def min_text_px(self) -> int:
        return PRESENTER_TEXT_PX if self.presenter else MIN_TEXT_PX


VIEWS = tuple(View(stem, path, window, lang) for stem, path, _ in PAGES for window in WINDOWS for lang in LANGS)

# Every text box a reader reads, with its kind, its group (what it belongs to: a chart or a widget) and the
# box it must stay within (a chart's svg); and the texts an ellipsis cuts.
_COLLECT = r"""async ([minText, INDEX_SHARE, leastText]) => {
    const main = document.querySelector('[data-testid=stMain]');
    // a component's frame draws after the page's run has ended: wait (at most 3 s) until each has its text
    for (let tries = 0; tries < 30; tries++) {
        const drawing = [...main.querySelectorAll('iframe')].filter(f => {
            try {
                const inner = f.contentDocument;
                return !(inner && inner.body && inner.body.innerText.trim() && f.getBoundingClientRect().height > 0);
            } catch (e) { return false; }  // another origin
        });
        if (!drawing.length) break;
        await new Promise(resolve => setTimeout(resolve, 100));
    }
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
    const boxEls = [];  // the element of each box, in order
    const box = (el, kind, group, within) => {
        const r = textRect(el);
        boxEls.push(el);
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
        add('.slider-current-value', 'animation label');
        add('.updatemenu-button text', 'animation label');
        add('.slider-label', 'animation tick');
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
    const plotAreas = [...main.querySelectorAll('[data-testid=stPlotlyChart] .main-svg .nsewdrag')]
        .filter(shown).map(a => ({top: a.getBoundingClientRect().top, bottom: a.getBoundingClientRect().bottom}));
    // widgets, with the text boxes that belong to them (a button's own label)
    const widgets = [];
    const widget = (el, kind, r) => {
        r = r || el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && shown(el))
            widgets.push({el, kind, x: r.left, y: r.top, w: r.width, h: r.height});
    };
    main.querySelectorAll('[data-testid=stSlider] [role=group] div').forEach(el => {
        const r = el.getBoundingClientRect();
        if (r.height > 0 && r.height <= 8 && r.width > 30 && !el.querySelector('*')) widget(el, 'slider track', r);
    });
    main.querySelectorAll('button, [data-baseweb=select], iframe').forEach(el => widget(el, el.tagName === 'IFRAME'
        ? 'component' : el.tagName === 'BUTTON' ? 'button' : 'select box'));
    main.querySelectorAll('.main-svg .slider-rail-rect').forEach(el => widget(el, 'animation slider'));
    main.querySelectorAll('.main-svg .updatemenu-button').forEach(el => widget(el, 'animation button'));
    const owned = collectedEls => widgets.map(w => ({kind: w.kind, x: w.x, y: w.y, w: w.w, h: w.h,
        own: collectedEls.map((el, i) => w.el.contains(el) ? i : -1).filter(i => i >= 0)}));
    // every text drawn, its size in pixels on the screen: HTML by its computed font size, svg text scaled by
    // its svg's transform; in the page and in its components' frames (served from the app, so readable)
    const small = [];
    const sizeOf = el => {
        const px = parseFloat(getComputedStyle(el).fontSize);
        if (!(el instanceof el.ownerDocument.defaultView.SVGElement)) return px;
        const m = el.getScreenCTM();
        return m ? px * Math.hypot(m.a, m.b) : px;
    };
    const docs = [[document, main]];
    main.querySelectorAll('iframe').forEach(f => {
        try {
            const inner = f.contentDocument;
            if (inner && inner.body && shown(f)) docs.push([inner, inner.body]);
        } catch (e) { /* another origin */ }
    });
    for (const [doc, root] of docs) {
        const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const el = node.parentElement;
            if (!/[^\s\u200b-\u200d\ufeff]/.test(node.textContent) || !el
                || el.closest('.katex-mathml, style, script')) continue;
            const size = sizeOf(el);
            // an index (a chart label's <sub>/<sup>, which Plotly draws at 70 %; a formula's script) may be
            // smaller, as in print, but never under the least size of all
            const index = el.closest('.mtight') || /font-size:\s*70%/.test(el.getAttribute('style') || '');
            if (size >= (index ? Math.max(minText * INDEX_SHARE, leastText) : minText)) continue;
            const visible = doc === document ? shown(el)
                : el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
            if (!visible) continue;
            small.push({text: node.textContent.trim().slice(0, 40), size: Math.round(size * 10) / 10});
        }
    }
    // a metric's value against its label: the largest text each draws
    const largest = el => {
        let size = 0;
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.textContent.trim() && !node.parentElement.closest('.katex-mathml'))
                size = Math.max(size, sizeOf(node.parentElement));
        }
        return size;
    };
    const metrics = [...main.querySelectorAll('[data-testid=stMetric]')].filter(shown).map(metric => {
        const label = metric.querySelector('[data-testid=stMetricLabel]');
        const value = metric.querySelector('[data-testid=stMetricValue]');
        return {text: (value ? value.textContent : '').trim().slice(0, 40),
                label: label ? largest(label) : 0, value: value ? largest(value) : 0};
    });
    // a displayed formula wider than its box, and whether a gradient (a shadow at the edge) shows it scrolls
    const gradient = el => ['backgroundImage', 'maskImage', 'webkitMaskImage']
        .some(name => (getComputedStyle(el)[name] || '').includes('gradient'));
    const formulas = [...main.querySelectorAll('.katex-display')].filter(shown)
        .filter(el => el.scrollWidth > el.clientWidth + 4)  // KaTeX's last glyph may reach a few px out
        .map(el => ({text: (el.querySelector('annotation') || {textContent: ''}).textContent.slice(0, 40),
                     over: el.scrollWidth - el.clientWidth,
                     cue: gradient(el) || gradient(el.parentElement)}));
    // a chart's heatmaps and images together (a flat panel beside a patterned one is a comparison): the spread
    // of their drawn pixels, per colour channel, between the 0.2 % and 99.8 % quantiles
    const histograms = href => new Promise(resolve => {
        const img = new Image();
        img.onload = () => {
            const canvas = document.createElement('canvas');
            canvas.width = Math.min(img.width, 256); canvas.height = Math.min(img.height, 256);
            const ctx = canvas.getContext('2d');
            ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
            const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
            const counts = [0, 1, 2].map(() => new Array(256).fill(0));
            for (let i = 0; i < data.length; i += 4) {
                if (data[i + 3] > 0) for (let c = 0; c < 3; c++) counts[c][data[i + c]]++;
            }
            resolve(counts);
        };
        img.onerror = () => resolve(null);
        img.src = href;
    });
    const spread = counts => {
        let widest = 0;
        for (const channel of counts) {
            const n = channel.reduce((a, b) => a + b, 0);
            let low = 0, high = 255, seen = 0;
            for (; low < 255 && (seen += channel[low]) <= n * 0.002; low++);
            seen = 0;
            for (; high > 0 && (seen += channel[high]) <= n * 0.002; high--);
            widest = Math.max(widest, high - low);
        }
        return widest;
    };
    // charts in one row of columns are judged together, as a chart's panels are (each reported by the first)
    const plots = [];
    const charts = [...main.querySelectorAll('[data-testid=stPlotlyChart]')];
    const rows = new Map();
    charts.forEach((chart, i) => {
        const row = chart.closest('[data-testid=stHorizontalBlock]') || chart;
        if (!rows.has(row)) rows.set(row, []);
        rows.get(row).push([i, chart]);
    });
    for (const together of rows.values()) {
        let total = null;
        for (const [, chart] of together) {
            for (const image of chart.querySelectorAll('.main-svg image')) {
                const href = image.getAttribute('href') || image.getAttribute('xlink:href');
                const counts = href && shown(image) ? await histograms(href) : null;
                if (counts) total = total ? total.map((t, c) => t.map((v, k) => v + counts[c][k])) : counts;
            }
        }
        if (total) plots.push({chart: together[0][0], spread: spread(total)});
    }
    // the lines of the charts' traces: opacity (every layer's, multiplied) and stroke width
    const lines = [];
    charts.forEach((chart, i) => chart.querySelectorAll('.scatterlayer .trace path.js-line').forEach(path => {
        const style = getComputedStyle(path);
        const width = parseFloat(style.strokeWidth);
        if (style.stroke === 'none' || !(width > 0) || !path.getAttribute('d') || !shown(path)) return;
        let opacity = parseFloat(style.strokeOpacity);
        for (let up = path; up && up !== chart; up = up.parentElement) {
            opacity *= parseFloat(getComputedStyle(up).opacity);
        }
        const rgba = style.stroke.match(/rgba\([^)]*,\s*([\d.]+)\)/);
        if (rgba) opacity *= parseFloat(rgba[1]);
        lines.push({chart: i, opacity: Math.round(opacity * 100) / 100, width});
    }));
    return {boxes, cut, plotAreas,
            height: window.innerHeight, width: window.innerWidth, small, metrics, formulas, plots, lines,
            widgets: owned(boxEls)};
}"""


@dataclass
class Findings:
    view: View
    overlaps: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)
    on_widget: list[str] = field(default_factory=list)
    small_values: list[str] = field(default_factory=list)
    small_text: list[str] = field(default_factory=list)
    cut_formulas: list[str] = field(default_factory=list)
    flat_plots: list[str] = field(default_factory=list)
    faint_lines: list[str] = field(default_factory=list)
    first_plot: float | None = None
    first_shown: float = 0.0
    fonts: dict[str, int] | None = None  # Chinese views: the platform fonts of the first chart title

    @property
    def off_first_screen(self) -> bool:
        return self.first_shown < PLOT_SHOWN_PX

    @property
    def wrong_font(self) -> bool:
        if self.fonts is None:
            return False
        cjk = [family for family in self.fonts if "CJK" in family or "Han" in family or family in SIMPLIFIED]
        return not cjk or any(family not in SIMPLIFIED for family in cjk)

    @property
    def clean(self) -> bool:
        return not (any(getattr(self, kind) for kind in KINDS) or self.off_first_screen or self.wrong_font)

    def summary(self) -> dict:
        return {"view": self.view.name, **{kind: getattr(self, kind) for kind in KINDS},
                "first_plot": self.first_plot, "first_shown": self.first_shown,
                "off_first_screen": self.off_first_screen,
                "fonts": self.fonts, "wrong_font": self.wrong_font}


KINDS = ("overlaps", "truncated", "on_widget", "small_values", "small_text", "cut_formulas", "flat_plots",
         "faint_lines")  # the findings listed per view


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
    areas, screen = collected["plotAreas"], view.viewport["height"]
    found = Findings(view, first_plot=min((a["top"] for a in areas), default=None),
                     first_shown=max((min(a["bottom"], screen) - max(a["top"], 0) for a in areas), default=0.0))
    boxes = collected["boxes"]
    for i, a in enumerate(boxes):
        if _outside(a):
            found.truncated.append(f"{a['kind']} {a['text']!r} past its chart's edge")
        for b in boxes[i + 1:]:
            if a["kind"] == b["kind"] in ("tick label", "animation tick"):  # Plotly spaces an axis's own labels
                continue
            across, down = _shared(a, b)
            if across > OVERLAP_PX and down > OVERLAP_PX:
                found.overlaps.append(f"{a['kind']} {a['text']!r} / {b['kind']} {b['text']!r}")
    found.truncated += [f"{c['text']!r} cut by an ellipsis" for c in collected["cut"]]
    for w in collected["widgets"]:
        for i, a in enumerate(boxes):
            across, down = _shared(a, w)
            if i not in w["own"] and across > OVERLAP_PX and down > min(OVERLAP_PX, w["h"] / 2):
                found.on_widget.append(f"{a['kind']} {a['text']!r} over a {w['kind']}")
    found.small_values = [f"{m['text']!r}: value {m['value']:.1f} px, label {m['label']:.1f} px"
                          for m in collected["metrics"] if m["value"] and m["value"] < m["label"] - 0.5]
    found.small_text = [f"{s['text']!r} at {s['size']} px" for s in collected["small"]]
    found.cut_formulas = [f"{f['text']!r} {f['over']} px wider than its box" for f in collected["formulas"]
                          if not f["cue"]]
    found.flat_plots = [f"chart {p['chart']}: its colours span {p['spread']} levels" for p in collected["plots"]
                        if p["spread"] is not None and p["spread"] <= FLAT_SPREAD]
    if view.presenter:
        found.faint_lines = [f"chart {line['chart']}: a line of opacity {line['opacity']}, {line['width']} px wide"
                             for line in collected["lines"]
                             if line["opacity"] < FAINT_OPACITY or line["width"] < THIN_PX]
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
    found = judge(view, page.evaluate(_COLLECT, [view.min_text_px, INDEX_SHARE, MIN_TEXT_PX]))
    if view.lang == "zh":
        found.fonts = chart_fonts(page)
    return found
