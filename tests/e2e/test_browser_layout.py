"""Every view (page x {desktop 1280x720, presenter view 1280x720 and 1920x1080, phone 390x844} x {en, zh})
reads cleanly: no two text boxes overlap, no text is cut (an ellipsis, or chart text past its chart's edge),
no text over a widget, no metric value smaller than its label, no text too small, no formula cut without a
scroll cue, no flat heatmap, no faint line in the presenter view, a plot area on the first screen, and Chinese
chart text drawn with a Simplified Chinese font (support.layout_check).

`python -m bench layout` prints the same findings as a table per page."""

import pytest

from support.layout_check import VIEWS, View, inspect
from browser_checks import assert_clean, save_screenshot

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("view", VIEWS, ids=[view.name for view in VIEWS])
def test_view_reads_cleanly(page, open_app, view):
    page.set_viewport_size(view.viewport)
    open_app(view.path, view.query)
    assert_clean(page)
    page.wait_for_timeout(300)  # responsive charts settle at the window's width
    found = inspect(page, view)
    if not found.clean:
        save_screenshot(page, f"layout-{view.name}")
    assert not found.overlaps, f"{view.name}: text boxes overlap: {found.overlaps}"
    assert not found.truncated, f"{view.name}: text cut: {found.truncated}"
    assert not found.on_widget, f"{view.name}: text over a widget: {found.on_widget}"
    assert not found.small_values, f"{view.name}: metric values smaller than their labels: {found.small_values}"
    assert not found.small_text, f"{view.name}: text under {view.min_text_px} px: {found.small_text}"
    assert not found.cut_formulas, f"{view.name}: formulas cut with no scroll cue: {found.cut_formulas}"
    assert not found.flat_plots, f"{view.name}: heatmaps of about one colour: {found.flat_plots}"
    assert not found.faint_lines, f"{view.name}: lines too faint for a projector: {found.faint_lines}"
    assert not found.off_first_screen, \
        f"{view.name}: the first screen shows {found.first_shown:.0f} px of a plot area (from {found.first_plot} px)"
    assert not found.wrong_font, f"{view.name}: the Chinese chart title was drawn with {found.fonts}"


def test_the_check_sees_covered_and_cut_text(page, open_app):
    """The check can fail: an axis title moved onto a chart's title, a tick label pushed past the chart's
    edge, a metric squeezed until its value is cut by an ellipsis: each is reported."""
    view = View("phase_cancellation", "phase-cancellation", "desktop", "en")
    page.set_viewport_size(view.viewport)
    open_app(view.path)
    assert inspect(page, view).clean
    page.evaluate("""() => {
        const chart = document.querySelector('[data-testid=stMain] [data-testid=stPlotlyChart]');
        const title = chart.querySelector('.infolayer .gtitle'), axis = chart.querySelector('.infolayer .xtitle');
        const to = title.getBoundingClientRect(), from = axis.getBoundingClientRect();
        axis.setAttribute('transform', `translate(${to.left - from.left}, ${to.top - from.top})`);
        const tick = [...chart.querySelectorAll('.xtick > text')].pop();
        tick.setAttribute('transform', 'translate(2000, 0) ' + (tick.getAttribute('transform') || ''));
        const value = document.querySelector('[data-testid=stMain] [data-testid=stMetricValue]');
        for (const el of [value, ...value.querySelectorAll('*')]) {
            for (const [name, setting] of [['white-space', 'nowrap'], ['overflow', 'hidden'],
                                           ['text-overflow', 'ellipsis'], ['max-width', '20px']]) {
                el.style.setProperty(name, setting, 'important');
            }
        }
    }""")
    found = inspect(page, view)
    assert any("chart title" in pair and "axis title" in pair for pair in found.overlaps), found.overlaps
    assert any("past its chart's edge" in cut for cut in found.truncated), found.truncated
    assert any("ellipsis" in cut for cut in found.truncated), found.truncated


# One defect of each kind, put into a clean view by script (the phase page in the presenter view has sliders,
# metrics, wide formulas, a heatmap of small matrices and lines), and the words its finding must hold.
DEFECTS = {
    "on_widget": ("""() => {
        const value = document.querySelector('[data-testid=stMain] [data-testid=stSliderThumbValue]');
        const track = [...value.closest('[data-testid=stSlider]').querySelectorAll('[role=group] div')]
            .find(el => el.getBoundingClientRect().height <= 8 && el.getBoundingClientRect().width > 30);
        const v = value.getBoundingClientRect(), t = track.getBoundingClientRect();
        value.style.transform = `translateY(${t.top + t.height / 2 - (v.top + v.height / 2)}px)`;
    }""", "over a slider track"),
    "small_values": ("""() => {
        const value = document.querySelector('[data-testid=stMain] [data-testid=stMetricValue]');
        for (const el of [value, ...value.querySelectorAll('*')]) {
            el.style.setProperty('font-size', '12px', 'important');
        }
    }""", "value 12.0 px"),
    "small_text": ("""() => {
        document.querySelector('[data-testid=stMain] .xtick > text').style.fontSize = '7px';
    }""", "at 7 px"),
    "cut_formulas": ("""() => {
        const formula = document.querySelector('[data-testid=stMain] .katex-display');
        formula.style.maxWidth = '150px';
        formula.style.background = 'none';
    }""", "wider than its box"),
    "flat_plots": ("""() => {
        const canvas = document.createElement('canvas');
        canvas.width = canvas.height = 8;
        const paint = canvas.getContext('2d');
        paint.fillStyle = '#3b4cc0';
        paint.fillRect(0, 0, 8, 8);
        const chart = document.querySelector('[data-testid=stMain] .main-svg image').closest('.main-svg');
        chart.querySelectorAll('image').forEach(image => image.setAttribute('href', canvas.toDataURL()));
    }""", "its colours span 0 levels"),
    "faint_lines": ("""() => {
        const faint = document.createElement('style');  // a rule: it holds when Plotly redraws the chart
        faint.textContent = '[data-testid=stMain] .scatterlayer path.js-line { stroke-opacity: 0.2 !important; }';
        document.head.appendChild(faint);
    }""", "opacity 0.2"),
}


@pytest.mark.parametrize("kind", DEFECTS)
def test_the_check_sees_each_new_defect(page, open_app, kind):
    """The check can fail on each kind of finding: a slider's value moved onto its track, a metric's value
    set smaller than its label, a tick label at 7 px, a formula squeezed with its scroll shadows removed, a
    chart's heatmaps painted one colour, a presenter line made faint: each is reported."""
    view = View("phase_cancellation", "phase-cancellation", "presenter", "en")
    page.set_viewport_size(view.viewport)
    open_app(view.path, view.query)
    page.wait_for_timeout(300)
    assert inspect(page, view).clean
    script, words = DEFECTS[kind]
    page.evaluate(script)
    page.wait_for_timeout(100)
    found = inspect(page, view)
    assert any(words in item for item in getattr(found, kind)), (kind, getattr(found, kind))
