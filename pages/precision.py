"""Where RoPE's rotations break in bfloat16, float16 and float32, measured against the exact angle m * theta_i."""

import streamlit as st

import explorer as ui
from explorer.knobs import PAGE_KNOBS
from explorer.views import precision as view
from explorer.figures import bar_chart, color, heatmap, heatmap_grid, line_chart, marked_lines

ui.enter()
PAGE = "precision"
error_curves = ui.cached(view.error_curves, max_entries=8)
staircase = ui.cached(view.staircase)
scores = ui.cached(view.scores)
angle_fix_times = ui.cached(view.angle_fix_times, max_entries=8)
limits = ui.cached(view.limits)


# one colour per recipe in every chart, and the float32 and float64 lines drawn last, on top of the others
RECIPE_COLORS = {"bf16-positions": 2, "fp16-positions": 5, "bf16-tables": 4, "fp16-tables": 1, "fp64": 3, "fp32": 0}
ROUNDING_COLOR = 6


def recipe_name(recipe: str) -> str:
    return ui.t(f"precision.recipe_{recipe.replace('-', '_')}")


def recipe_colors() -> dict:
    return {recipe_name(recipe): color(index) for recipe, index in RECIPE_COLORS.items()}


@ui.figure
def error_figure(dim: int, base: float, pair: int, title_key: str):
    """One pair's angle error against position, a line per recipe, context lengths marked."""
    curves = error_curves(dim, base)
    per_recipe = view.pair_errors(curves, pair)
    return marked_lines(curves["positions"], {recipe_name(r): per_recipe[r] for r in RECIPE_COLORS},
                        marks=view.CONTEXTS, title=ui.t(title_key, pair=pair), x_title=ui.t("precision.position_axis"),
                        y_title=ui.t("precision.error_axis"), log_x=True, log_y=True, colors=recipe_colors())


@ui.figure
def staircase_figures(start: int, dim: int, base: float, pair: int):
    """The position each of the window's positions is rotated by, and one pair's angle there."""
    stairs = staircase(start, dim, base, pair)
    true_name = ui.t("precision.true_series")
    positions_fig = line_chart(stairs["positions"], {true_name: stairs["positions"],
                                                     recipe_name("bf16-positions"): stairs["bf16_position"],
                                                     recipe_name("fp16-positions"): stairs["fp16_position"]},
                               title=ui.t("precision.staircase_title", start=start, stop=start + view.STRIP - 1),
                               x_title=ui.t("precision.true_axis"), y_title=ui.t("precision.used_axis"),
                               markers=True, dashed=(true_name,))
    angles_fig = line_chart(stairs["positions"], {ui.t("precision.exact_series"): stairs["exact_angle"],
                                                  recipe_name("bf16-positions"): stairs["bf16_angle"]},
                            title=ui.t("precision.angle_title", pair=pair), x_title=ui.t("precision.true_axis"),
                            y_title=ui.t("precision.angle_axis"), markers=True)
    return positions_fig, angles_fig


@ui.figure
def score_figures(far: int, recipe: str, dim: int, base: float, seed: int):
    """The exact and the recipe's scores on one colour scale, and their difference."""
    scored = scores(far, recipe, dim, base, seed)
    axes = dict(x=scored["positions"], y=scored["positions"], x_title=ui.t("precision.key_axis"),
                y_title=ui.t("precision.query_axis"))
    both = heatmap_grid({ui.t("precision.exact_panel"): scored["exact"],
                         ui.t("precision.recipe_panel", recipe=recipe_name(recipe)): scored["scores"]},
                        title=ui.t("precision.scores_title", far=far), colorbar_title=ui.t("precision.score_unit"),
                        **axes)
    difference = heatmap(scored["difference"], title=ui.t("precision.difference_title", recipe=recipe_name(recipe)),
                         colorbar_title=ui.t("precision.score_unit"), **axes)
    return both, difference


@ui.figure
def fix_figure(dim: int, base: float):
    """The worst error over all pairs for the bug, what models do, the fix and float64, with the bfloat16
    rounding level and where float64 angles start to pay."""
    curves = error_curves(dim, base)
    rounding_name = ui.t("precision.rounding_series")
    series = {rounding_name: view.constant_like(curves["positions"], curves["bf16_rounding"]),  # drawn beneath
              **{recipe_name(r): curves["worst"][r] for r in view.FIX_RECIPES}}
    start = curves["float64_from"]
    thresholds = {} if start is None else {ui.t("precision.float64_mark", position=start): start}
    return marked_lines(curves["positions"], series, marks=view.CONTEXTS, thresholds=thresholds,
                        title=ui.t("precision.fix_title", dim=dim), x_title=ui.t("precision.position_axis"),
                        y_title=ui.t("precision.error_axis"), log_x=True, log_y=True, dashed=(rounding_name,),
                        colors={**recipe_colors(), rounding_name: color(ROUNDING_COLOR)})


@ui.figure
def timing_figure(dim: int, base: float, device: str):
    """Milliseconds of the three ways to build the cos/sin tables, measured on `device`."""
    timed = angle_fix_times(dim, base, device)
    return bar_chart([ui.t(f"precision.way_{way}") for way in timed["ways"]], timed["ms"],
                     title=ui.t("precision.timing_title", device=timed["device"], length=timed["length"], dim=dim),
                     x_title=ui.t("precision.way_axis"), y_title=ui.t("precision.time_axis"),
                     text=[f"{ms:.3g}" for ms in timed["ms"]])


ui.page_header(PAGE)

# --------------------------------------------------------------------------- the angle error
st.subheader(ui.t("precision.error_header"))
cols = st.columns(3)
dim = ui.knob(PAGE, "dim", where=cols[0])
base = ui.knob(PAGE, "base", where=cols[1], format_func=ui.format_base)
# narrowed with its default: a link whose pair cannot be read falls back to a pair this head has
last_pair = dim // 2 - 1
pair = ui.knob(PAGE, "pair", where=cols[2], hi=last_pair, default=min(PAGE_KNOBS[PAGE]["pair"].default, last_pair))
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
cells = st.columns(4)
known = limits()
cells[0].metric(ui.t("precision.exact_bf16"), f"{known['bfloat16']['exact_up_to']:,}")
cells[1].metric(ui.t("precision.exact_fp16"), f"{known['float16']['exact_up_to']:,}")
cells[2].metric(ui.t("precision.overflow_fp16"), f"{known['float16']['overflow_from']:,}")
cells[3].metric(ui.t("precision.exact_fp32"), f"{known['float32']['exact_up_to']:,}")

# --------------------------------------------------------------------------- the staircase
st.subheader(ui.t("precision.staircase_header"))
st.markdown(ui.t("precision.staircase_text"))
start = ui.knob(PAGE, "start")
stairs = staircase(start, dim, base, pair)
positions_fig, angles_fig = staircase_figures(start, dim, base, pair)
ui.charts_side_by_side(positions_fig, "staircase", angles_fig, "staircase_angle")
cells = st.columns(4)
cells[0].metric(ui.t("precision.steps", count=view.STRIP), f"{stairs['steps']}")
cells[1].metric(ui.t("precision.widest"), f"{stairs['widest']}")
cells[2].metric(ui.t("precision.largest_shift"), f"{stairs['largest_shift']:,.0f}")
cells[3].metric(ui.t("precision.gap"), f"{stairs['gap']:,.0f}")

# --------------------------------------------------------------------------- attention scores
st.subheader(ui.t("precision.scores_header"))
st.markdown(ui.t("precision.scores_text", window=view.SCORE_WINDOW))
cols = st.columns([2, 4, 1])
far = ui.knob(PAGE, "far", where=cols[0], format_func=lambda v: f"{v:,.0f}")
recipe = ui.knob(PAGE, "recipe", where=cols[1], format_func=recipe_name)
seed = ui.knob(PAGE, "seed", where=cols[2])
scored = scores(int(far), recipe, dim, base, seed)
both, difference = score_figures(int(far), recipe, dim, base, seed)
ui.chart(both, key="scores")
with ui.chart_beside(difference, key="difference"):
    st.metric(ui.t("precision.max_abs_error"), f"{scored['max_abs_error']:.3g}")
    st.metric(ui.t("precision.relative_error"), f"{scored['relative_error']:.2%}")
    st.metric(ui.t("precision.distinct"), f"{scored['distinct']} / {view.SCORE_WINDOW}")
cells = st.columns(4)
cells[0].metric(ui.t("precision.shift_before"), f"{scored['shift_before']:.1e}", help=ui.t("precision.shift_help"))
cells[1].metric(ui.t("precision.shift_after"), f"{scored['shift_after']:.1e}", help=ui.t("precision.shift_help"))
cells[2].metric(ui.t("precision.toeplitz_before"), f"{scored['toeplitz_before']:.1e}",
                help=ui.t("precision.toeplitz_help"))
cells[3].metric(ui.t("precision.toeplitz_after"), f"{scored['toeplitz_after']:.1e}",
                help=ui.t("precision.toeplitz_help"))
if scored["distinct"] == 1:
    st.info(ui.t("precision.collapsed", window=view.SCORE_WINDOW))
st.markdown(ui.t("precision.scores_result", recipe=recipe_name(recipe), far=int(far),
                 shift=scored["shift_after"], relative=scored["relative_error"]))

# --------------------------------------------------------------------------- the fix
st.subheader(ui.t("precision.fix_header"))
st.markdown(ui.t("precision.fix_text"))
with ui.chart_beside(fix_figure(dim, base), key="fix"):
    at = curves["at_contexts"]["fp32"]
    st.metric(ui.t("precision.fp32_at", context="128k"), f"{at['128k']:.2e}")
    st.metric(ui.t("precision.fp32_at", context="1M"), f"{at['1M']:.2e}")
    st.metric(ui.t("precision.rounding"), f"{curves['bf16_rounding']:.2e}")
    st.metric(ui.t("precision.float64_from"), "—" if curves["float64_from"] is None
              else f"{curves['float64_from']:,}")
st.caption(ui.t("precision.fix_caption", window=view.WINDOW, short=view.SHORT))
if curves["float64_from"] is None:
    st.markdown(ui.t("precision.fix_never"))
else:
    st.markdown(ui.t("precision.fix_result", position=curves["float64_from"], rounding=curves["bf16_rounding"]))

st.markdown(ui.t("precision.cost_text"))
if ui.knob(PAGE, "timing"):
    with st.spinner(ui.t("precision.timing_spinner")):
        timed = angle_fix_times(dim, base, str(ui.device()))
    with ui.chart_beside(timing_figure(dim, base, str(ui.device())), key="timing"):
        st.metric(ui.t("precision.ratio"), f"{timed['ratio']:.2f}×")
        st.metric(ui.t("precision.ratio_reduced"), f"{timed['ratio_reduced']:.2f}×")
    st.caption(ui.t("precision.timing_caption" if timed["finite"] else "precision.timing_no_float64"))

ui.questions(PAGE, start=start)
