"""The frequency clocks: each pair turns by theta_i per position, animated in the browser."""

import numpy as np
import streamlit as st
import torch

import ui
from rope_viz import apply_rope, random_tokens, to_numpy, wavelengths, wrapped_angles
from rope_viz.figures import clock_animation, heatmap, line_chart, plane_vectors
from rope_viz.frequencies import cos_sin, inv_freq
from ui import controls

PAGE = "rotations"


@ui.cached
def clock_figure(dim: int, base: float, max_pos: int, pairs: tuple, lang: str):
    positions = range(max_pos + 1)
    cos, sin = cos_sin(positions, dim, base, torch.float32, "cpu")
    waves = to_numpy(wavelengths(dim, base))
    return clock_animation(
        list(positions), to_numpy(cos[:, list(pairs)]), to_numpy(sin[:, list(pairs)]),
        [ui.t("rotations.clock_short", i=i, wave=float(waves[i])) for i in pairs],
        title=ui.t("rotations.clocks_title"), play=ui.t("rotations.play"), pause=ui.t("rotations.pause"),
        position_label=ui.t("common.position"),
    )


@ui.cached
def angle_table(dim: int, base: float, max_pos: int):
    return to_numpy(wrapped_angles(range(max_pos + 1), dim, base))


@ui.cached
def rotated_vector(dim: int, base: float, m: int, seed: int):
    x = random_tokens(1, dim, seed=seed, dtype=torch.float64)
    return x[0].numpy(), apply_rope(x, [m], base=base)[0].numpy()


ui.page_header(PAGE)
st.latex(r"\theta_i = \mathrm{base}^{-2i/d},\qquad "
         r"\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = "
         r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
         r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}")

cols = st.columns(4)
dim = controls.head_dim(PAGE, where=cols[0])
base = controls.base(PAGE, where=cols[1])
max_pos = ui.knob(PAGE, ui.IntKnob("max_pos", 64, 8, 512, 8), ui.t("rotations.max_pos"),
                  help=ui.t("rotations.max_pos_help"), where=cols[2])
half = dim // 2
default_pairs = tuple(sorted({0, 1, 2, half // 4, half // 2, half - 1}))
pairs = ui.knob(PAGE, ui.IntSetKnob("pairs", default_pairs, 0, half - 1, 8), ui.t("rotations.pairs"),
                help=ui.t("rotations.pairs_help"), where=cols[3], format_func=lambda i: ui.t("common.pair", i=i))

ui.chart(clock_figure(dim, base, max_pos, tuple(pairs), ui.lang()), key="clocks")
thetas = to_numpy(inv_freq(dim, base))
waves = to_numpy(wavelengths(dim, base))
st.caption(" · ".join(ui.t("rotations.clock_caption", i=i, theta=float(thetas[i]), wave=float(waves[i]))
                      for i in pairs))

left, right = st.columns(2)
with left:
    ui.chart(heatmap(angle_table(dim, base, max_pos), title=ui.t("rotations.angles_title"),
                     x_title=ui.t("rotations.pair_axis"), y_title=ui.t("common.position"),
                     colorscale="Phase", zmid=None, colorbar_title=ui.t("rotations.angle_axis")),
             key="angles")
with right:
    pair_ids = list(range(half))
    ui.chart(line_chart(pair_ids, {ui.t("rotations.wave_series"): waves,
                                   ui.t("rotations.context_series"): [max_pos] * half},
                        title=ui.t("rotations.wave_title"), x_title=ui.t("rotations.pair_axis"),
                        y_title=ui.t("rotations.wave_axis"), log_y=True, markers=True,
                        dashed=(ui.t("rotations.context_series"),)),
             key="wavelengths")
    fast = int((waves <= max_pos).sum())
    st.markdown(ui.t("rotations.fast_slow", fast=fast, slow=half - fast, total=half))

st.subheader(ui.t("rotations.vector_header"))
st.markdown(ui.t("rotations.vector_text"))
cols = st.columns(3)
m = ui.knob(PAGE, ui.IntKnob("m", min(10, max_pos), 0, max_pos, 1), ui.t("rotations.position_m"), where=cols[0])
pair = ui.knob(PAGE, ui.IntKnob("pair", 0, 0, half - 1, 1), ui.t("rotations.pair_pick"), where=cols[1])
seed = controls.seed(PAGE, where=cols[2])
before, after = rotated_vector(dim, base, m, seed)
b, a = before[2 * pair: 2 * pair + 2], after[2 * pair: 2 * pair + 2]
left, right = st.columns([3, 2])
with left:
    ui.chart(plane_vectors([(ui.t("rotations.before"), float(b[0]), float(b[1])),
                            (ui.t("rotations.after", m=m), float(a[0]), float(a[1]))],
                           title=ui.t("rotations.vector_title", i=pair, m=m), x_title=ui.t("rotations.x_axis"),
                           y_title=ui.t("rotations.y_axis")),
             key="vector")
with right:
    st.metric(ui.t("rotations.norm_pair"), f"{np.linalg.norm(b):.6f} → {np.linalg.norm(a):.6f}")
    st.metric(ui.t("rotations.norm_all"),
              f"{np.linalg.norm(before):.6f} → {np.linalg.norm(after):.6f}")
    st.metric(ui.t("rotations.turned"), f"{m} × {float(thetas[pair]):.4g} = {m * float(thetas[pair]):.4g} rad")
