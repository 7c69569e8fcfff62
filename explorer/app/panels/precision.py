"""The precision page's figures: the angle error of each dtype recipe over positions, the bfloat16
staircase, exact against rounded scores, the fix beside the rounding level, and the timed cost of the fix."""

from __future__ import annotations

import functools

from explorer.app import heavy
from explorer.app.cache import cached, figure
from explorer.pure.figures import bar_chart, color, heatmap, heatmap_grid, line_chart, marked_lines
from explorer.app.session import t
from explorer.pure.timing import TimedOn
from explorer.pure.views import precision as view

error_curves = cached(view.error_curves, max_entries=8)
staircase = cached(view.staircase)
scores = cached(view.scores)
limits = cached(view.limits)


def named(series: dict) -> dict:
    """Lines keyed by series (a recipe, "true", "exact", "rounding") keyed by their legend names instead."""
    return {t(view.series_key(key)): values for key, values in series.items()}


def colors() -> dict:  # one colour per series in every chart
    return named({key: color(index) for key, index in view.SERIES_COLORS.items()})


def error_lines(curves: view.ErrorCurves, series: dict, title: str, **extra):
    """Angle errors over the position grid, context lengths marked, each series in its colour."""
    return marked_lines(curves.positions, named(series), marks=view.CONTEXTS, title=title, colors=colors(),
                        x_title=t("precision.position_axis"), y_title=t("precision.error_axis"), log_x=True,
                        log_y=True, **extra)


@figure
def errors(dim: int, base: float, pair: int, title_key: str):
    curves = error_curves(dim, base)
    return error_lines(curves, view.pair_errors(curves, pair), t(title_key, pair=pair))


@figure
def stairs(start: int, dim: int, base: float, pair: int):
    """The position each of the window's positions is rotated by, and one pair's angle there."""
    stairs = staircase(start, dim, base, pair)
    lines = view.staircase_series(stairs)
    axes = dict(x_title=t("precision.true_axis"), markers=True)
    positions_fig = line_chart(stairs.positions, named(lines.positions), y_title=t("precision.used_axis"),
                               title=t("precision.staircase_title", start=start, stop=start + view.STRIP - 1),
                               dashed=(t(view.series_key("true")),), **axes)
    angles_fig = line_chart(stairs.positions, named(lines.angles), title=t("precision.angle_title", pair=pair),
                            y_title=t("precision.angle_axis"), **axes)
    return positions_fig, angles_fig


@figure
def score_maps(far: int, recipe: str, dim: int, base: float, seed: int):
    """The exact and the recipe's scores on one colour scale, and their difference."""
    scored = scores(far, recipe, dim, base, seed)
    name = t(view.series_key(recipe))
    axes = dict(x=scored.positions, y=scored.positions, x_title=t("precision.key_axis"),
                y_title=t("precision.query_axis"), colorbar_title=t("precision.score_unit"))
    both = heatmap_grid({t("precision.exact_panel"): scored.exact,
                         t("precision.recipe_panel", recipe=name): scored.scores},
                        title=t("precision.scores_title", far=far), **axes)
    return both, heatmap(scored.difference, title=t("precision.difference_title", recipe=name), **axes)


@figure
def fix(dim: int, base: float):
    """The worst error of the bug, what models do, the fix and float64, beside the bfloat16 rounding level."""
    curves = error_curves(dim, base)
    start = curves.float64_from
    return error_lines(curves, view.fix_series(curves), t("precision.fix_title", dim=dim),
                       dashed=(t(view.series_key("rounding")),),
                       thresholds={} if start is None else {t("precision.float64_mark", position=start): start})


def timing(timed: view.AngleFixTimes, dim: int):
    """The cost of the fix, timed live on this device (not cached as a figure: its numbers are fresh)."""
    return bar_chart([t(f"precision.way_{way}") for way in timed.ways], timed.ms,
                     title=t("precision.timing_title", dim=dim, device=timed.device,
                             length=timed.length),
                     x_title=t("precision.way_axis"), y_title=t("precision.time_axis"), text=timed.labels)


def angle_fix_times(dim: int, base: float, device: str) -> tuple[view.AngleFixTimes, TimedOn]:
    """The three ways of building the tables timed, as a job of the server's one queue, and where."""
    return heavy.timing(("precision", dim, base, device), functools.partial(view.angle_fix_times, dim, base, device),
                        device=device, what=t("precision.section_timing"))
