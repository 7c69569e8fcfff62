"""Every view (page x {desktop 1280x720, presenter view 1280x720, phone 390x844} x {en, zh}) reads cleanly:
no two text boxes overlap, no text is cut (an ellipsis, or chart text past its chart's edge), a plot area on
the first screen, and Chinese chart text drawn with a Simplified Chinese font (support.layout_check).

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
    assert not found.off_first_screen, f"{view.name}: the first plot area starts at {found.first_plot} px"
    assert not found.wrong_font, f"{view.name}: the Chinese chart title was drawn with {found.fonts}"


def test_the_check_sees_covered_and_cut_text(page, open_app):
    """The check can fail: an axis title moved onto a chart's title, a tick label pushed past the chart's
    edge, a metric squeezed until its value is cut by an ellipsis: each is reported."""
    view = View("phase", "phase-cancellation", "desktop", "en")
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
