"""Presenter view, for a projector: `?present=1` (the sidebar's "Presenter view" toggle).

In presenter mode the sidebar starts collapsed, text and charts are large enough to read from the back
of a room, and long explanations fold into expanders (`explain`), so a page is its formulas, knobs and
charts. The mode is an app-level knob like the language: it stays on from page to page and a shared
link carries it (the link leaves it out while it is off, so ordinary links do not change).

The larger text comes from the app's one constant stylesheet, `STYLE` (which also keeps wide formulas
inside a phone's screen), injected in `stylesheet()` and nowhere else: no text from a visitor or a link
ever reaches HTML (tests/test_security.py checks both).
"""

from __future__ import annotations

from string import Template

import streamlit as st

from explorer.app import widgets
from explorer.pure.figures.style import PAGE_COLOURS
from explorer.pure.knob_types import BoolKnob
from explorer.app.session import t

PRESENT = BoolKnob("present", False, label="common.present", help="common.present_help")
KEY = "app.present"  # the session-state key of the sidebar toggle

# Chart text in presenter mode: body and title font sizes, and how much taller each chart is drawn.
FONT_SIZE = 20
TITLE_SIZE = 26
HEIGHT_SCALE = 1.25
# A projector washes faint and thin lines out: every drawn line at least this opaque and this wide (lines kept
# faint to set off the one in focus stay behind it, but visible).
LINE_OPACITY = 0.6
LINE_WIDTH = 2.5

# One constant stylesheet, on every page. Its first rules serve phones: a formula or a table wider than the
# screen scrolls inside its own box instead of widening the page, with a shadow at each edge that has more to
# scroll to (white covers, scrolled along with the formula, hide the shadow at an end it has reached); a
# metric's label and value and a link wrap instead of ending in an ellipsis (a cut number reads as another
# number), in lines of even length (no word or character left alone on the last; a value's Chinese words kept
# whole, broken at its spaces), a formula in a metric left
# to KaTeX's own layout (whose accessible copy stays clipped); a slider's value, drawn above its thumb, gets a
# band of its own under the label (which may wrap to two lines); a chart's sub- and superscripts, which Plotly
# sets at 70 % of their text, are never drawn under 9 px, the least any text is; a phone draws the titles of a
# figure's panels (explorer.pure.figures.style.PANEL_TITLE_SIZE, 16 px) smaller; on a phone and on a
# projector the page's first chart comes right under its title, before the knobs and the longer text (on a
# phone, the home page's Start the lesson comes before it too), except on a page whose first chart is drawn from
# the knobs above it, which keeps its order (a container keyed knobs_first); on a phone the real-models page's
# attention map labels every fourth of its key tokens (every token still in its hover). The others are the presenter
# view's: body text, formulas, tables, metrics (the value larger than its label), slider values (above their thumbs,
# clear of the track), select boxes and inputs all set large enough for a projector, applied while the
# sidebar's toggle (key app.present, class st-key-app-present) is on. Its colours ($name) are the figure
# style's (explorer.pure.figures.style.PAGE_COLOURS), filled in once at import.
STYLE = Template("""<style>
[data-testid="stMain"] .katex-display { overflow-x: auto; overflow-y: hidden; max-width: 100%;
  background: linear-gradient(to right, $cover 40%, $clear) left / 2.5rem 100% no-repeat local,
    linear-gradient(to left, $cover 40%, $clear) right / 2.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, $shadow, $shadow_clear) left / 0.9rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, $shadow, $shadow_clear) right / 0.9rem 100% no-repeat
    scroll, $cover; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] table { display: block; overflow-x: auto; max-width: 100%; }
[data-testid="stMain"] [data-testid="stMetricLabel"],
[data-testid="stMain"] [data-testid="stMetricLabel"] :not(.katex, .katex *),
[data-testid="stMain"] [data-testid="stMetricValue"],
[data-testid="stMain"] [data-testid="stMetricValue"] :not(.katex, .katex *),
[data-testid="stMain"] [data-testid="stPageLink-NavLink"] span {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  overflow-wrap: anywhere; text-wrap: balance; height: auto !important; }
[data-testid="stMain"] [data-testid="stMetricValue"],
[data-testid="stMain"] [data-testid="stMetricValue"] * { word-break: keep-all !important; }
[data-testid="stMain"] [data-testid="stSlider"] [data-testid="stWidgetLabel"] { margin-bottom: 1.35rem; }
[data-testid="stMain"] .main-svg tspan[style*="font-size:70%"] { font-size: max(9px, 0.7em) !important; }
@media (max-width: 640px) {
  [data-testid="stMain"] .main-svg .annotation-text[style*="font-size: 16px"] {
    font-size: 10px !important; }
  [data-testid="stMainBlockContainer"]:not(:has(.st-key-knobs_first)) > [data-testid="stVerticalBlock"]
    > :nth-child(1 of :has([data-testid="stHeading"], h1)) { order: -2; }
  [data-testid="stMainBlockContainer"]:not(:has(.st-key-knobs_first)) > [data-testid="stVerticalBlock"]
    > :nth-child(1 of :has([data-testid="stPlotlyChart"])) { order: -1; }
  [data-testid="stMain"] .st-key-attention .xtick:not(:nth-child(4n+1)) { display: none; }
  [data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] > :has(.st-key-lesson_start) { order: -1; }
}
.stApp:has(.st-key-app-present input:checked) [data-testid="stMainBlockContainer"]:not(:has(.st-key-knobs_first))
  > [data-testid="stVerticalBlock"] > :nth-child(1 of :has([data-testid="stHeading"], h1)) { order: -2; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMainBlockContainer"]:not(:has(.st-key-knobs_first))
  > [data-testid="stVerticalBlock"] > :nth-child(1 of :has([data-testid="stPlotlyChart"])) { order: -1; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stSlider"] [data-testid="stWidgetLabel"] { margin-bottom: 2.2rem; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMainBlockContainer"] {
  max-width: 100%; padding-left: 2.5rem; padding-right: 2.5rem; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] [data-testid="stMarkdownContainer"] li,
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] [data-testid="stWidgetLabel"] p,
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stCaptionContainer"] p { font-size: 1.6rem; line-height: 1.45; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] h1 { font-size: 3.4rem; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] h2 { font-size: 2.6rem; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] h3 { font-size: 2.1rem; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] .katex-display { font-size: 1.6rem; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stMetricValue"] { font-size: 2.6rem; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stMetricValue"] p { font-size: inherit; line-height: 1.2; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stSliderThumbValue"] { top: auto; bottom: calc(100% + 0.25rem); }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stSliderThumbValue"] p { font-size: 1.4rem; line-height: 1.2; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  :is([data-testid="stSelectbox"], [data-testid="stMultiSelect"])
  :not([data-testid="stWidgetLabel"], [data-testid="stWidgetLabel"] *),
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] input,
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] textarea,
.stApp:has(.st-key-app-present input:checked) [role="listbox"] [role="option"],
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stPageLink-NavLink"] span,
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] [data-testid="stFileUploader"] section *,
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] [data-testid="stCode"] code,
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] [data-testid="stCode"] code * {
  font-size: 1.4rem !important; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stMetricLabel"] p { font-size: 1.4rem; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] [data-testid="stTable"] :is(th, td),
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"] [data-testid="stTable"] :is(th, td) p {
  font-size: 1.4rem; line-height: 1.35; }
.stApp:has(.st-key-app-present input:checked) [data-testid="stMain"]
  [data-testid="stExpander"] summary p { font-size: 1.4rem; }
</style>""").substitute(PAGE_COLOURS)


def draw() -> bool:
    """The sidebar toggle (its value read from the session, else from the link); True in presenter mode."""
    on = widgets.draw(PRESENT, KEY, t(PRESENT.label), help_text=t(PRESENT.help))
    if not on:
        # an ordinary link stays as it was: the flag is written only while the mode is on
        st.session_state.get(widgets._URL, {}).pop(PRESENT.name, None)
    return on


def on() -> bool:
    """Whether this session shows the presenter view."""
    return st.session_state.get(KEY) is True


def stylesheet() -> None:
    """The app's one constant stylesheet: formulas that fit a phone, and the presenter view's larger text."""
    st.html(STYLE)


def explain(text: str) -> None:
    """A long explanation: written out normally, folded into an expander in presenter mode."""
    if on():
        with st.expander(t("common.explain_more"), icon=":material/notes:"):
            st.markdown(text)
    else:
        st.markdown(text)


def _larger(font: dict | None, size: int) -> dict:
    font = dict(font or {})
    font["size"] = max(size, font.get("size") or 0)
    return font


def enlarge(fig):
    """A plain-dict copy of `fig` with fonts and lines for a projector; `fig` itself (maybe shared from a
    cache) is left untouched."""
    spec = fig.to_dict()
    layout = spec.setdefault("layout", {})
    layout["font"] = _larger(layout.get("font"), FONT_SIZE)
    title = layout.get("title")
    if isinstance(title, dict):
        title["font"] = _larger(title.get("font"), TITLE_SIZE)
    for note in layout.get("annotations", ()):  # subplot titles, mark labels
        note["font"] = _larger(note.get("font"), FONT_SIZE)
        if note.get("yshift"):  # labels set a row apart keep a row of the larger text apart
            note["yshift"] = round(note["yshift"] * FONT_SIZE / 11)
    for trace in spec.get("data", ()):
        if trace.get("textfont"):  # numbers written in a heatmap's cells
            trace["textfont"] = _larger(trace["textfont"], FONT_SIZE - 2)
        if trace.get("type", "scatter") != "scatter":
            continue
        if trace.get("opacity", 1) < LINE_OPACITY:
            trace["opacity"] = LINE_OPACITY
        if "lines" in trace.get("mode", "lines"):
            line = trace.setdefault("line", {})
            if 0 < line.get("width", 2) < LINE_WIDTH:  # Plotly draws 2 px unless told; 0: a band's edge
                line["width"] = LINE_WIDTH
    if layout.get("height"):
        layout["height"] = round(layout["height"] * HEIGHT_SCALE)
    margin = layout.get("margin")
    if isinstance(margin, dict) and margin.get("t"):
        margin["t"] = round(margin["t"] * 1.3)
    return spec
