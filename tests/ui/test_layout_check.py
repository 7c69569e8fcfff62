"""The layout check's judgement (support.layout_check.judge), on boxes laid out by hand."""

from support.layout_check import LANGS, VIEWS, WINDOWS, judge
from explorer.pure.sitemap import PAGES


def box(kind, x, y, w=50, h=20, within=None):
    return {"kind": kind, "text": kind, "x": x, "y": y, "w": w, "h": h, "within": within}


def laid_out(boxes, first_plot=100, plot_height=300, **found):
    """What the browser collects for a view: these boxes, nothing else found, one plot area plot_height px
    tall from first_plot down."""
    return {"boxes": boxes, "cut": [], "widgets": [], "metrics": [], "small": [], "formulas": [], "plots": [],
            "lines": [], "plotAreas": [{"top": first_plot, "bottom": first_plot + plot_height}], **found}


def test_every_page_in_every_window_and_language():
    assert len(VIEWS) == len(PAGES) * len(WINDOWS) * len(LANGS)
    assert len({view.name for view in VIEWS}) == len(VIEWS)


def test_boxes_that_cover_each_other_overlap():
    """Two boxes that share more than a few pixels both ways overlap; touching or apart, they do not; text
    past its chart's edge is cut; a first plot below the first screen, or one that shows only a strip of
    itself there, is reported."""
    view = VIEWS[0]
    chart = {"x": 0, "y": 0, "w": 400, "h": 300}
    apart = judge(view, laid_out([box("chart title", 10, 10, within=chart), box("legend", 10, 32, within=chart)]))
    assert apart.clean
    over = judge(view, laid_out([box("chart title", 10, 10), box("legend", 30, 20)]))
    assert len(over.overlaps) == 1
    past = judge(view, laid_out([box("chart title", 380, 10, within=chart)]))
    assert past.truncated and not past.overlaps
    low = judge(view, laid_out([], first_plot=view.viewport["height"] - 10))
    assert low.off_first_screen and not low.clean
    strip = judge(view, laid_out([], first_plot=200, plot_height=39))  # image maps side by side on a phone
    assert strip.off_first_screen and strip.first_shown == 39
    assert not judge(view, laid_out([], first_plot=200, plot_height=128)).off_first_screen
