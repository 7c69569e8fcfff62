"""RoPE versus the additive sinusoidal encoding: the table, the four-term split, the shift test,
token lengths and a table of measured differences."""

import streamlit as st
import torch

import ui
from rope_viz import (
    additive_decomposition,
    apply_rope,
    depends_only_on_offset,
    describe,
    diagonal_profile,
    encoded_norms,
    encoded_scores,
    random_attention_inputs,
    random_tokens,
    shift_residual,
    sinusoidal_encoding,
    time_call,
    to_numpy,
    toeplitz_deviation,
)
from rope_viz.figures import heatmap, heatmap_grid, line_chart
from rope_viz.sampling import downsample
from ui import blocks, controls

PAGE = "versus"
TABLE_SIDE = 256  # rows of the encoding table drawn (its columns are never thinned: d <= 256)
GRID_SIDE = 128  # rows and columns drawn per panel of the multi-panel heatmaps
TERMS = ("content_content", "content_position", "position_content", "position_position")
FORMULAS = {  # the four terms, written for a chart title (W = W_q W_k^T)
    "content_content": "x W x<sup>T</sup>",
    "content_position": "x W p<sub>n</sub><sup>T</sup>",
    "position_content": "p<sub>m</sub> W x<sup>T</sup>",
    "position_position": "p<sub>m</sub> W p<sub>n</sub><sup>T</sup>",
}
ENCODINGS = ("rope", "sinusoidal")
COST_TOKENS = 4096


@ui.cached
def table_view(seq: int, dim: int, base: float):
    """The encoding table thinned for drawing, and the profile of PE(m)·PE(n) along m - n."""
    pe = sinusoidal_encoding(seq, dim, base, device=ui.device())
    # no content and identity projections: the logits are the table's own dot products PE(m)·PE(n)
    bare = encoded_scores(torch.zeros_like(pe), torch.eye(dim, device=pe.device), torch.eye(dim, device=pe.device),
                          encoding="sinusoidal", base=base)
    profile = {name: to_numpy(values) for name, values in diagonal_profile(bare).items()}
    return downsample(pe, TABLE_SIDE, same_stride=False), profile, toeplitz_deviation(bare), float(bare.max())


@ui.cached
def terms_view(seq: int, dim: int, base: float, seed: int):
    """The four terms (thinned) for one token repeated, with the Toeplitz deviation of each term and
    of the full RoPE and sinusoidal logits."""
    x, w_q, w_k = random_attention_inputs(seq, dim, same=True, seed=seed, device=ui.device())
    terms = additive_decomposition(x, sinusoidal_encoding(seq, dim, base, device=x.device), w_q, w_k)
    kept = downsample(terms["content_content"], GRID_SIDE)[1]
    logits = {enc: encoded_scores(x, w_q, w_k, encoding=enc, base=base) for enc in ENCODINGS}
    return (kept, {name: downsample(t, GRID_SIDE)[0] for name, t in terms.items()},
            {name: toeplitz_deviation(t) for name, t in terms.items()},
            {enc: toeplitz_deviation(s) for enc, s in logits.items()},
            {enc: depends_only_on_offset(s) for enc, s in logits.items()},
            float(logits["sinusoidal"].abs().max()))


@ui.cached
def shift_view(seq: int, dim: int, base: float, seed: int, shift: int):
    """|A(m, n) - A(m + k, n + k)| for random tokens under both encodings: thinned, and its maximum."""
    x, w_q, w_k = random_attention_inputs(seq, dim, seed=seed, device=ui.device())
    residuals = {enc: shift_residual(x, w_q, w_k, shift, encoding=enc, base=base) for enc in ENCODINGS}
    kept = downsample(residuals["rope"], GRID_SIDE)[1]
    return (kept, {enc: downsample(r, GRID_SIDE)[0] for enc, r in residuals.items()},
            {enc: float(r.max()) for enc, r in residuals.items()})


@ui.cached
def norm_view(seq: int, dim: int, base: float, seed: int):
    """Lengths of one repeated token under each encoding, and the largest change from |x|."""
    norms = encoded_norms(random_tokens(seq, dim, same=True, seed=seed, device=ui.device()), base=base)
    change = {enc: float((norms[enc] - norms["none"]).abs().max()) for enc in ENCODINGS}
    return {enc: to_numpy(n) for enc, n in norms.items()}, change


@ui.cached
def cost_per_token(dim: int, base: float, device: str):
    """Nanoseconds per token to apply RoPE and to add the (precomputed) sinusoidal table."""
    where = torch.device(device)
    x = random_tokens(COST_TOKENS, dim, device=where)
    pe = sinusoidal_encoding(COST_TOKENS, dim, base, device=where)
    seconds = {"rope": time_call(lambda: apply_rope(x, base=base), device=where, min_time=0.01),
               "sinusoidal": time_call(lambda: x + pe, device=where, min_time=0.01)}
    return {enc: s * 1e9 / COST_TOKENS for enc, s in seconds.items()}


@ui.cached
def table_figures(seq: int, dim: int, base: float, lang: str):
    (pe, rows, cols), profile, _, _ = table_view(seq, dim, base)
    table = heatmap(pe, x=cols, y=rows, title=ui.t("versus.pe_title"), x_title=ui.t("versus.dim_axis"),
                    y_title=ui.t("common.position"), colorbar_title=ui.t("versus.pe_bar"))
    band = blocks.offset_band(profile, title=ui.t("versus.pe_dot_title"), y_title=ui.t("versus.pe_dot_axis"),
                              mean_name=ui.t("versus.mean"), band_name=ui.t("versus.band"))
    return table, band


@ui.cached
def terms_figure(seq: int, dim: int, base: float, seed: int, lang: str):
    kept, terms = terms_view(seq, dim, base, seed)[:2]
    panels = {ui.t("versus.panel", term=ui.t(f"versus.term_{name}"), formula=FORMULAS[name]): terms[name]
              for name in TERMS}
    return heatmap_grid(panels, title=ui.t("versus.terms_title"), colorbar_title=ui.t("versus.logit_bar"),
                        **blocks.position_axes(kept))


@ui.cached
def shift_figure(seq: int, dim: int, base: float, seed: int, shift: int, lang: str):
    kept, residuals, _ = shift_view(seq, dim, base, seed, shift)
    return heatmap_grid({ui.t(f"versus.{enc}_panel"): residuals[enc] for enc in ENCODINGS},
                        title=ui.t("versus.shift_title", k=shift), colorbar_title=ui.t("versus.residual_bar"),
                        colorscale="Viridis", zmid=None, zmin=0.0, **blocks.position_axes(kept))


@ui.cached
def norm_figure(seq: int, dim: int, base: float, seed: int, lang: str):
    norms, _ = norm_view(seq, dim, base, seed)
    names = {enc: ui.t(f"versus.norm_{enc}") for enc in norms}
    return line_chart(list(range(seq)), {names[enc]: norms[enc] for enc in ("sinusoidal", "rope", "none")},
                      title=ui.t("versus.norm_title"), x_title=ui.t("common.position"),
                      y_title=ui.t("versus.norm_axis"), dashed=(names["none"],))


ui.page_header(PAGE)
st.latex(r"\text{RoPE: } (R_m q_m)^\top (R_n k_n) = q_m^\top R_{n-m}\, k_n \qquad "
         r"\text{sinusoidal: } (x_m + p_m)\, W_q W_k^\top (x_n + p_n)^\top")

cols = st.columns(4)
seq = ui.knob(PAGE, ui.IntKnob("seq", 64, 8, 1024, 8), ui.t("versus.seq"), help=ui.t("versus.seq_help"),
              where=cols[0])
dim = ui.knob(PAGE, ui.IntKnob("dim", 64, 2, 256, 2), ui.t("versus.dim"), help=ui.t("versus.dim_help"),
              where=cols[1])
base = controls.base(PAGE, where=cols[2])
seed = controls.seed(PAGE, where=cols[3])

st.subheader(ui.t("versus.table_header"))
st.markdown(ui.t("versus.table_text"))
st.latex(r"p_m = \big(\sin m\theta_0,\ \cos m\theta_0,\ \dots\big),\qquad "
         r"p_m \cdot p_n = \sum_t \cos\big((m-n)\,\theta_t\big)")
_, _, pe_deviation, pe_largest = table_view(seq, dim, base)
table_fig, band_fig = table_figures(seq, dim, base, ui.lang())
blocks.charts_side_by_side(table_fig, "table", band_fig, "pe_dot")
cols = st.columns(2)
cols[0].metric(ui.t("versus.pe_deviation"), f"{pe_deviation:.2e}")
cols[1].metric(ui.t("versus.pe_largest"), f"{pe_largest:.4g}")

st.subheader(ui.t("versus.terms_header"))
st.markdown(ui.t("versus.terms_text"))
st.latex(r"(x_m + p_m) W_q W_k^\top (x_n + p_n)^\top = "
         r"\underbrace{x_m W x_n^\top}_{\text{content-content}} + \underbrace{x_m W p_n^\top}_{\text{content-position}}"
         r" + \underbrace{p_m W x_n^\top}_{\text{position-content}} + \underbrace{p_m W p_n^\top}_{"
         r"\text{position-position}},\quad W = W_q W_k^\top")
ui.chart(terms_figure(seq, dim, base, seed, ui.lang()), key="terms")
_, _, term_deviation, logit_deviation, relative_only, largest_logit = terms_view(seq, dim, base, seed)
cols = st.columns(4)
for col, name in zip(cols, TERMS):
    col.metric(ui.t(f"versus.term_{name}"), f"{term_deviation[name]:.3g}", help=ui.t("versus.term_deviation"))
st.caption(ui.t("versus.deviation_caption", largest=largest_logit))

st.subheader(ui.t("versus.shift_header"))
st.markdown(ui.t("versus.shift_text"))
cols = st.columns([2, 1, 1])
shift = ui.knob(PAGE, ui.IntKnob("shift", 100, 0, 4096, 1), ui.t("versus.shift"), help=ui.t("versus.shift_help"),
                where=cols[0])
max_residual = shift_view(seq, dim, base, seed, shift)[2]
for col, enc in zip(cols[1:], ENCODINGS):
    col.metric(ui.t("versus.residual_metric", name=ui.t(f"versus.{enc}_panel")), f"{max_residual[enc]:.3g}")
ui.chart(shift_figure(seq, dim, base, seed, shift, ui.lang()), key="shift")

st.subheader(ui.t("versus.norm_header"))
st.markdown(ui.t("versus.norm_text"))
ui.chart(norm_figure(seq, dim, base, seed, ui.lang()), key="norms")
norm_change = norm_view(seq, dim, base, seed)[1]

st.subheader(ui.t("versus.compare_header"))
device = ui.device()
st.markdown(ui.t("versus.compare_text", device=describe(device)))
with st.spinner(ui.t("versus.measuring")):
    cost = cost_per_token(dim, base, str(device))
rows = [
    (ui.t("versus.row_shift", k=shift), {enc: f"{max_residual[enc]:.3g}" for enc in ENCODINGS}),
    (ui.t("versus.row_deviation"), {enc: f"{logit_deviation[enc]:.3g}" for enc in ENCODINGS}),
    (ui.t("versus.row_relative"), {enc: ui.t("common.yes" if relative_only[enc] else "common.no")
                                   for enc in ENCODINGS}),
    (ui.t("versus.row_norm"), {enc: f"{norm_change[enc]:.3g}" for enc in ENCODINGS}),
    (ui.t("versus.row_cost", d=dim, tokens=COST_TOKENS), {enc: ui.t("versus.ns", value=cost[enc])
                                                          for enc in ENCODINGS}),
]
st.table([{ui.t("versus.col_measure"): label, ui.t("versus.col_rope"): cells["rope"],
           ui.t("versus.col_sinusoidal"): cells["sinusoidal"]} for label, cells in rows])
