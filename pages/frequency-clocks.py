"""The frequency clocks: each pair turns by theta_i per position, animated in the browser."""

import streamlit as st

import explorer as ui
from explorer.pure.animation_export import clocks_file
from explorer.pure.figures import clock_animation, heatmap, line_chart, plane_diagram
from explorer.app.glossary import glossary
from explorer.app.layout import knob_row, metric_stack, say, section
from explorer.app.tryit import try_buttons
from explorer.pure.views import frequency_clocks as view

ui.enter()
PAGE = "frequency_clocks"
clocks = ui.cached(view.clocks)
frequencies = ui.cached(view.frequencies)
turned_vector = ui.cached(view.turned_vector)

ui.page_header(PAGE)

# one position for the whole page: the clocks open at m, the turned vector below is turned by m
dim, base, max_pos, m, pairs = knob_row(
    PAGE, "dim", "base", "max_pos", "m", "pairs", widths=[1, 1, 1, 1, 2], m=lambda v: {"hi": v["max_pos"]},
    pairs=lambda v: {"hi": v["dim"] // 2 - 1, "default": view.default_pairs(v["dim"]),
                     "format_func": lambda i: ui.t("common.pair", i=i)})
try_buttons(PAGE, {"big": {"base": 500000.0}, "far": {"max_pos": 512, "m": 500}, "start": {"m": 0}})


@ui.figure
def clock_figure(dim: int, base: float, max_pos: int, pairs: tuple, m: int):
    """The clocks animation (one frame per position: built once per language), opened at position m."""
    hands = clocks(dim, base, max_pos, pairs)
    return clock_animation(
        hands["positions"],
        hands["cos"],
        hands["sin"],
        [ui.t("frequency_clocks.clock_short", i=i, wave=wave) for i, wave in zip(pairs, hands["waves"])],
        title=ui.t("frequency_clocks.clocks_title"),
        play=ui.t("frequency_clocks.play"),
        pause=ui.t("frequency_clocks.pause"),
        position_label=ui.t("common.position"),
        start=m,
    )


hands = clocks(dim, base, max_pos, tuple(pairs))
ui.chart(clock_figure(dim, base, max_pos, tuple(pairs), m), key="clocks",
         gif=lambda: clocks_file(hands, tuple(pairs), ui.lang()))
freqs = frequencies(dim, base, max_pos)
st.caption(" · ".join(say(line) for line in view.clock_lines(freqs, pairs)))
# the rule the clocks follow, under them: the clocks come on the first screen of a projector
st.latex(r"\theta_i = \mathrm{base}^{-2i/d},\qquad "
         r"\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = "
         r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
         r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}")


# Labelled figures built once per language and knob values (a shared link costs no Plotly work after
# its first visit): each takes plain arguments and reads its data from the cached views.
@ui.figure
def angles_figure(dim: int, base: float, max_pos: int):
    return heatmap(frequencies(dim, base, max_pos)["angles"], title=ui.t("frequency_clocks.angles_title"),
                   x_title=ui.t("frequency_clocks.pair_axis"), y_title=ui.t("common.position"),
                   colorscale="Phase", zmid=None, colorbar_title=ui.t("frequency_clocks.angle_axis"))


@ui.figure
def wavelengths_figure(dim: int, base: float, max_pos: int):
    freqs = frequencies(dim, base, max_pos)
    return line_chart(freqs["pairs"], {ui.t("frequency_clocks.wave_series"): freqs["waves"],
                                       ui.t("frequency_clocks.context_series"): freqs["context"]},
                      title=ui.t("frequency_clocks.wave_title"), x_title=ui.t("frequency_clocks.pair_axis"),
                      y_title=ui.t("frequency_clocks.wave_axis"), log_y=True, markers=True,
                      dashed=(ui.t("frequency_clocks.context_series"),))


left, right = st.columns(2)
with left:
    ui.chart(angles_figure(dim, base, max_pos), key="angles")
with right:
    ui.chart(wavelengths_figure(dim, base, max_pos), key="wavelengths")
    st.markdown(ui.t("frequency_clocks.fast_slow", fast=freqs["fast"], slow=freqs["slow"], total=dim // 2))

section("frequency_clocks.vector")
pair, seed = knob_row(PAGE, "pair", "seed", widths=[1, 1, 1], pair={"hi": dim // 2 - 1})


@ui.figure
def vector_figure(dim: int, base: float, m: int, seed: int, pair: int):
    vector = turned_vector(dim, base, m, seed, pair)
    after = ui.t("frequency_clocks.after", m=m)
    return plane_diagram(
        [(ui.t("frequency_clocks.before"), *vector["before"], "query"), (after, *vector["after"], "query")],
        dashes={after: "dash"},
        title=ui.t("frequency_clocks.vector_title", i=pair, m=m),
        x_title=ui.t("frequency_clocks.x_axis"),
        y_title=ui.t("frequency_clocks.y_axis"),
    )


with ui.chart_beside(vector_figure(dim, base, m, seed, pair), key="vector"):
    metric_stack(view.vector_metrics(turned_vector(dim, base, m, seed, pair), m))

glossary("pair", "wavelength")
ui.questions(PAGE, dim=dim, base=base)
