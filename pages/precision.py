"""Where RoPE's rotations break in bfloat16, float16 and float32, measured against the exact angle m * theta_i."""

import streamlit as st

import explorer as ui
from explorer.figures import bar_chart, color, heatmap, heatmap_grid, line_chart, marked_lines
from explorer.layout import knob_row, metric_row, metric_stack, paragraphs, say, section
from explorer.views import precision as view

ui.enter()
PAGE = "precision"
error_curves = ui.cached(view.error_curves, max_entries=8)
staircase = ui.cached(view.staircase)
scores = ui.cached(view.scores)
angle_fix_times = ui.cached(view.angle_fix_times, max_entries=8)
limits = ui.cached(view.limits)


def named(series: dict) -> dict:
    """Lines keyed by series (a recipe, "true", "exact", "rounding") keyed by their legend names instead."""
    return {ui.t(view.series_key(key)): values for key, values in series.items()}


def colors() -> dict:  # one colour per series in every chart
    return named({key: color(index) for key, index in view.SERIES_COLORS.items()})


def error_lines(curves: dict, series: dict, title: str, **extra):
    """Angle errors over the position grid, context lengths marked, each series in its colour."""
    return marked_lines(curves["positions"], named(series), marks=view.CONTEXTS, title=title, colors=colors(),
                        x_title=ui.t("precision.position_axis"), y_title=ui.t("precision.error_axis"), log_x=True,
                        log_y=True, **extra)


@ui.figure
def error_figure(dim: int, base: float, pair: int, title_key: str):
    curves = error_curves(dim, base)
    return error_lines(curves, view.pair_errors(curves, pair), ui.t(title_key, pair=pair))


@ui.figure
def staircase_figures(start: int, dim: int, base: float, pair: int):
    """The position each of the window's positions is rotated by, and one pair's angle there."""
    stairs = staircase(start, dim, base, pair)
    lines = view.staircase_series(stairs)
    axes = dict(x_title=ui.t("precision.true_axis"), markers=True)
    positions_fig = line_chart(stairs["positions"], named(lines["positions"]), y_title=ui.t("precision.used_axis"),
                               title=ui.t("precision.staircase_title", start=start, stop=start + view.STRIP - 1),
                               dashed=(ui.t(view.series_key("true")),), **axes)
    angles_fig = line_chart(stairs["positions"], named(lines["angles"]), title=ui.t("precision.angle_title", pair=pair),
                            y_title=ui.t("precision.angle_axis"), **axes)
    return positions_fig, angles_fig


@ui.figure
def score_figures(far: int, recipe: str, dim: int, base: float, seed: int):
    """The exact and the recipe's scores on one colour scale, and their difference."""
    scored = scores(far, recipe, dim, base, seed)
    name = ui.t(view.series_key(recipe))
    axes = dict(x=scored["positions"], y=scored["positions"], x_title=ui.t("precision.key_axis"),
                y_title=ui.t("precision.query_axis"), colorbar_title=ui.t("precision.score_unit"))
    both = heatmap_grid({ui.t("precision.exact_panel"): scored["exact"],
                         ui.t("precision.recipe_panel", recipe=name): scored["scores"]},
                        title=ui.t("precision.scores_title", far=far), **axes)
    return both, heatmap(scored["difference"], title=ui.t("precision.difference_title", recipe=name), **axes)


@ui.figure
def fix_figure(dim: int, base: float):
    """The worst error of the bug, what models do, the fix and float64, beside the bfloat16 rounding level."""
    curves = error_curves(dim, base)
    start = curves["float64_from"]
    return error_lines(curves, view.fix_series(curves), ui.t("precision.fix_title", dim=dim),
                       dashed=(ui.t(view.series_key("rounding")),),
                       thresholds={} if start is None else {ui.t("precision.float64_mark", position=start): start})


ui.page_header(PAGE)

st.subheader(ui.t("precision.error_header"))
dim, base, pair = knob_row(PAGE, "dim", "base", "pair", pair=lambda chosen: view.pair_knob(chosen["dim"]))
with st.spinner(ui.t("precision.computing")):
    curves = error_curves(dim, base)
ui.charts_side_by_side(error_figure(dim, base, view.FASTEST, "precision.fastest_title"), "fastest_pair",
                       error_figure(dim, base, pair, "precision.chosen_title"), "chosen_pair")
st.caption(ui.t("precision.error_caption", window=view.WINDOW, points=len(curves["positions"]),
                floor=view.FLOOR, overflow=curves["overflow_from"]))
# what the curves measure, and the recipes they name, under the charts (the charts come on the first screen)
st.latex(r"\theta_i = b^{-2i/d},\qquad \varepsilon_{m,i} = \big|\,\mathrm{wrap}_{(-\pi,\pi]}"
         r"\big(\tilde\varphi_{m,i} - m\,\theta_i\big)\big|")
st.markdown(ui.t("precision.recipes_text"))
st.markdown(ui.t("precision.pair0_text"))
metric_row(view.limit_metrics(limits()))

section("precision.staircase")
start = ui.knob(PAGE, "start")
positions_fig, angles_fig = staircase_figures(start, dim, base, pair)
ui.charts_side_by_side(positions_fig, "staircase", angles_fig, "staircase_angle")
metric_row(view.staircase_metrics(staircase(start, dim, base, pair)))

st.subheader(ui.t("precision.scores_header"))
st.markdown(ui.t("precision.scores_text", window=view.SCORE_WINDOW))
far, recipe, seed = knob_row(PAGE, "far", "recipe", "seed", widths=[2, 4, 1], far={"format_func": ui.format_base},
                             recipe={"format_func": lambda r: ui.t(view.series_key(r))})
scored = scores(int(far), recipe, dim, base, seed)
both, difference = score_figures(int(far), recipe, dim, base, seed)
ui.chart(both, key="scores")
with ui.chart_beside(difference, key="difference"):
    metric_stack(view.score_metrics(scored))
metric_row(view.relative_metrics(scored))
if (note := view.collapsed_note(scored)) is not None:
    st.info(say(note))
paragraphs([view.scores_result(scored, recipe, far)])

section("precision.fix")
with ui.chart_beside(fix_figure(dim, base), key="fix"):
    metric_stack(view.fix_metrics(curves))
st.caption(ui.t("precision.fix_caption", window=view.WINDOW, short=view.SHORT))
paragraphs([view.fix_result(curves)])
st.markdown(ui.t("precision.cost_text"))
if ui.knob(PAGE, "timing"):
    with st.spinner(ui.t("precision.timing_spinner")):
        timed = angle_fix_times(dim, base, str(ui.device()))
    timing_fig = bar_chart([ui.t(f"precision.way_{way}") for way in timed["ways"]], timed["ms"],
                           title=ui.t("precision.timing_title", dim=dim, device=timed["device"],
                                      length=timed["length"]),
                           x_title=ui.t("precision.way_axis"), y_title=ui.t("precision.time_axis"),
                           text=timed["labels"])
    with ui.chart_beside(timing_fig, key="timing"):
        metric_stack(view.timing_metrics(timed))
    st.caption(say(view.timing_caption(timed)))

ui.questions(PAGE, start=start)
