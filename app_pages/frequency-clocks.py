"""The frequency clocks: each pair turns by theta_i per position, animated in the browser."""

import streamlit as st

import explorer as ui
from explorer.app.glossary import glossary
from explorer.app.place import knob_row, metric_stack, say, section
from explorer.app.panels import frequency_clocks as panel
from explorer.app.tryit import try_buttons
from explorer.pure.views import frequency_clocks as view

PAGE = "frequency_clocks"

ui.page_header(PAGE)

# one position for the whole page: the clocks open at m, the turned vector below is turned by m
dim, base, max_pos, m, pairs = knob_row(
    PAGE, "dim", "base", "max_pos", "m", "pairs", widths=[1, 1, 1, 1, 2], m=lambda v: {"hi": v["max_pos"]},
    pairs=lambda v: {"hi": v["dim"] // 2 - 1, "default": view.default_pairs(v["dim"]),
                     "format_func": lambda i: ui.t("common.pair", i=i)})
try_buttons(PAGE, {"big": {"base": 500000.0}, "far": {"max_pos": 512, "m": 500}, "start": {"m": 0}})

ui.chart(panel.clock_figure(dim, base, max_pos, tuple(pairs), m), key="clocks",
         gif=lambda: panel.clocks_gif(dim, base, max_pos, tuple(pairs)))
freqs = panel.frequencies(dim, base, max_pos)
st.caption(" · ".join(say(line) for line in view.clock_lines(freqs, pairs)))
# the rule the clocks follow, under them: the clocks come on the first screen of a projector
st.latex(r"\theta_i = \mathrm{base}^{-2i/d},\qquad "
         r"\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = "
         r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
         r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}")

left, right = st.columns(2)
with left:
    ui.chart(panel.angles_figure(dim, base, max_pos), key="angles")
with right:
    ui.chart(panel.wavelengths_figure(dim, base, max_pos), key="wavelengths")
    st.markdown(ui.t("frequency_clocks.fast_slow", fast=freqs.fast, slow=freqs.slow, total=dim // 2))

section("frequency_clocks.vector")
pair, seed = knob_row(PAGE, "pair", "seed", widths=[1, 1, 1], pair={"hi": dim // 2 - 1})
with ui.chart_beside(panel.vector_figure(dim, base, m, seed, pair), key="vector"):
    metric_stack(view.vector_metrics(panel.turned_vector(dim, base, m, seed, pair), m))

glossary("pair", "wavelength")
ui.questions(PAGE, dim=dim, base=base)
