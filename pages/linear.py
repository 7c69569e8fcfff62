"""Linear attention with RoPE in the numerator, against softmax attention on the same tokens."""

import numpy as np
import streamlit as st
import torch

import ui
from rope_viz import (
    attention_costs,
    linear_attention,
    random_tokens,
    run_with_cpu_fallback,
    softmax_attention,
    time_call,
    to_numpy,
)
from rope_viz.device import describe
from rope_viz.figures import heatmap, line_chart
from rope_viz.sampling import downsample
from ui import blocks, controls

PAGE = "linear"
HEATMAP_ROWS = 256  # two heatmaps side by side: keep each small
SHIFT = 1000  # positions added to every token to show the output depends on offsets only
COST_LENGTHS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
TIMED_LENGTHS = (256, 1024, 4096)


def qkv(seq: int, dim: int, seed: int, dtype=torch.float64, device=None):
    """Queries, keys and values: three (seq, dim) slices of one reproducible random draw."""
    return random_tokens(seq, 3 * dim, seed=seed, dtype=dtype, device=device).split(dim, dim=-1)


@ui.cached
def attention_outputs(seq: int, dim: int, base: float, phi: str, seed: int) -> dict:
    """Both outputs, both denominators and the shift check, in float64; arrays come back as float32."""
    q, k, v = qkv(seq, dim, seed)
    _, soft = softmax_attention(q, k, v, base=base)
    lin, den = linear_attention(q, k, v, base=base, feature_map=phi)
    _, den_rot = linear_attention(q, k, v, base=base, feature_map=phi, rotate_denominator=True)
    shifted, _ = linear_attention(q, k, v, range(SHIFT, SHIFT + seq), base=base, feature_map=phi)
    lin64, soft64, den64, den_rot64 = lin.numpy(), soft.numpy(), den.numpy(), den_rot.numpy()
    defined = den64 > 0  # relu can zero every feature of a query: its output is 0/0
    any_defined = bool(defined.any())
    return {
        "softmax": to_numpy(soft), "linear": to_numpy(lin), "den": to_numpy(den), "den_rot": to_numpy(den_rot),
        "zero_queries": int((~defined).sum()),
        "min_den": float(den64.min()), "min_den_rot": float(den_rot64.min()),
        "nonpositive": int((den_rot64 <= 0).sum()),
        "worst_ratio": float((den_rot64[defined] / den64[defined]).min()) if any_defined else float("nan"),
        "shift_change": float(np.abs(lin64 - shifted.numpy())[defined].max()) if any_defined else float("nan"),
        "correlation": float(np.corrcoef(lin64[defined].ravel(), soft64[defined].ravel())[0, 1])
        if defined.sum() * dim > 1 else float("nan"),
        "soft_std": float(soft64.std()), "lin_std": float(lin64[defined].std()) if any_defined else float("nan"),
    }


@ui.cached
def output_heatmaps(seq: int, dim: int, base: float, phi: str, seed: int, lang: str):
    out = attention_outputs(seq, dim, base, phi, seed)
    figures = []
    for name in ("softmax", "linear"):
        z, rows, cols = downsample(out[name], HEATMAP_ROWS, same_stride=False)
        figures.append(heatmap(z, x=cols, y=rows, title=ui.t(f"linear.{name}_title"),
                               x_title=ui.t("linear.channel_axis"), y_title=ui.t("linear.query_axis"),
                               colorbar_title=ui.t("linear.output_axis")))
    return figures, int(rows[1] - rows[0]) if len(rows) > 1 else 1


@ui.cached
def channel_figure(seq: int, dim: int, base: float, phi: str, seed: int, channel: int, lang: str):
    out = attention_outputs(seq, dim, base, phi, seed)
    return line_chart(np.arange(seq, dtype=np.float32),
                      {ui.t("linear.softmax_series"): np.ascontiguousarray(out["softmax"][:, channel]),
                       ui.t("linear.linear_series"): np.ascontiguousarray(out["linear"][:, channel])},
                      title=ui.t("linear.channel_title", c=channel), x_title=ui.t("linear.query_axis"),
                      y_title=ui.t("linear.output_axis"))


@ui.cached
def denominator_figure(seq: int, dim: int, base: float, phi: str, seed: int, lang: str):
    out = attention_outputs(seq, dim, base, phi, seed)
    return line_chart(np.arange(seq, dtype=np.float32),
                      {ui.t("linear.unrotated_series"): out["den"], ui.t("linear.rotated_series"): out["den_rot"],
                       ui.t("linear.zero_series"): np.zeros(seq, dtype=np.float32)},
                      title=ui.t("linear.denominator_title"), x_title=ui.t("linear.query_axis"),
                      y_title=ui.t("linear.denominator_axis"), dashed=(ui.t("linear.zero_series"),))


@ui.cached
def cost_figure(dim: int, lang: str):
    costs = attention_costs(COST_LENGTHS, dim)
    return line_chart(np.array(COST_LENGTHS, dtype=np.float32),
                      {ui.t("linear.softmax_series"): to_numpy(costs["softmax"]),
                       ui.t("linear.linear_series"): to_numpy(costs["linear"])},
                      title=ui.t("linear.cost_title", dim=dim), x_title=ui.t("linear.length_axis"),
                      y_title=ui.t("linear.cost_axis"), log_x=True, log_y=True, markers=True)


@ui.cached
def measured_times(dim: int, phi: str, base: float, device_name: str):
    """Median seconds per call of both attentions at TIMED_LENGTHS, float32 on the device."""
    def measure(device):
        soft, lin = [], []
        for seq in TIMED_LENGTHS:
            q, k, v = qkv(seq, dim, 0, dtype=torch.float32, device=device)
            soft.append(time_call(lambda: softmax_attention(q, k, v, base=base), device=device, repeat=3,
                                  min_time=0.02))
            lin.append(time_call(lambda: linear_attention(q, k, v, base=base, feature_map=phi), device=device,
                                 repeat=3, min_time=0.02))
        return np.array(soft, dtype=np.float32), np.array(lin, dtype=np.float32), describe(device)
    return run_with_cpu_fallback(measure, device=torch.device(device_name))


@ui.cached
def timing_figure(dim: int, phi: str, base: float, device_name: str, lang: str):
    """The measured times as a chart, and whether the GPU failed and the CPU measured instead."""
    (soft_s, lin_s, measured_on), fell_back = measured_times(dim, phi, base, device_name)
    fig = line_chart(np.array(TIMED_LENGTHS, dtype=np.float32),
                     {ui.t("linear.softmax_series"): soft_s * 1000, ui.t("linear.linear_series"): lin_s * 1000},
                     title=ui.t("linear.timing_title", device=measured_on, dim=dim), x_title=ui.t("linear.length_axis"),
                     y_title=ui.t("linear.time_axis"), log_x=True, log_y=True, markers=True)
    return fig, fell_back


ui.page_header(PAGE)
st.markdown(ui.t("linear.formula_text"))
st.latex(r"\mathrm{Attention}_i = \frac{\sum_{j=1}^{n} \phi(q_i)^\top \varphi(k_j)\, v_j}"
         r"{\sum_{j=1}^{n} \phi(q_i)^\top \varphi(k_j)}"
         r"= \frac{\phi(q_i)^\top \big(\sum_{j} \varphi(k_j)\, v_j^\top\big)}{\phi(q_i)^\top \sum_{j} \varphi(k_j)}")
st.markdown(ui.t("linear.rope_text"))
st.latex(r"\mathrm{Attention}_i = \frac{\sum_{j=1}^{n} \big[\mathcal{R}_i \phi(q_i)\big]^\top "
         r"\big[\mathcal{R}_j \varphi(k_j)\big]\, v_j}{\sum_{j=1}^{n} \phi(q_i)^\top \varphi(k_j)},\qquad "
         r"\mathcal{R}_i^\top \mathcal{R}_j = \mathcal{R}_{j-i}")

cols = st.columns(5)
seq = ui.knob(PAGE, ui.IntKnob("seq", 256, 16, 2048, 16), ui.t("linear.seq"), help=ui.t("linear.seq_help"),
              where=cols[0])
dim = controls.head_dim(PAGE, where=cols[1])
base = controls.base(PAGE, where=cols[2])
phi = ui.knob(PAGE, ui.ChoiceKnob("phi", "elu", ("elu", "relu")), ui.t("linear.phi"), help=ui.t("linear.phi_help"),
              where=cols[3], format_func=lambda v: ui.t(f"linear.phi_{v}"))
seed = controls.seed(PAGE, where=cols[4])
out = attention_outputs(seq, dim, base, phi, seed)

st.subheader(ui.t("linear.outputs_header"))
(soft_fig, lin_fig), step = output_heatmaps(seq, dim, base, phi, seed, ui.lang())
blocks.charts_side_by_side(soft_fig, "softmax_output", lin_fig, "linear_output")
st.caption(ui.t("linear.heatmap_caption", soft_std=out["soft_std"], lin_std=out["lin_std"]))
if step > 1:
    st.caption(ui.t("linear.heatmap_thinned", step=step))
if out["zero_queries"]:
    st.info(ui.t("linear.zero_queries", count=out["zero_queries"], seq=seq))

left, right = st.columns([3, 1])
with right:
    channel = ui.knob(PAGE, ui.IntKnob("channel", 0, 0, dim - 1, 1), ui.t("linear.channel"),
                      help=ui.t("linear.channel_help"))
    st.metric(ui.t("linear.correlation"), f"{out['correlation']:.3f}", help=ui.t("linear.correlation_help"))
    st.metric(ui.t("linear.shift", shift=SHIFT), f"{out['shift_change']:.1e}",
              help=ui.t("linear.shift_help", shift=SHIFT))
with left:
    ui.chart(channel_figure(seq, dim, base, phi, seed, channel, ui.lang()), key="channel")

st.subheader(ui.t("linear.denominator_header"))
st.markdown(ui.t("linear.denominator_text"))
with blocks.chart_beside(denominator_figure(seq, dim, base, phi, seed, ui.lang()), key="denominators",
                         widths=(3, 1)):
    st.metric(ui.t("linear.min_unrotated"), f"{out['min_den']:.4g}")
    st.metric(ui.t("linear.min_rotated"), f"{out['min_den_rot']:.4g}")
    st.metric(ui.t("linear.nonpositive"), ui.t("linear.nonpositive_value", count=out["nonpositive"], seq=seq))
st.markdown(ui.t("linear.denominator_result", ratio=out["worst_ratio"], count=out["nonpositive"], seq=seq) + " "
            + ui.t("linear.denominator_broken" if out["nonpositive"] else "linear.denominator_safe_here"))

st.subheader(ui.t("linear.cost_header"))
st.markdown(ui.t("linear.cost_text"))
st.latex(ui.t("linear.cost_latex"))
ui.chart(cost_figure(dim, ui.lang()), key="costs")
now = attention_costs([seq], dim)
soft_now, lin_now = float(now["softmax"][0]), float(now["linear"][0])
st.markdown(ui.t("linear.cost_now", seq=seq, dim=dim, soft=soft_now, lin=lin_now, ratio=soft_now / lin_now))
if ui.knob(PAGE, ui.BoolKnob("timing", False), ui.t("linear.timing"), help=ui.t("linear.timing_help")):
    timings, fell_back = timing_figure(dim, phi, base, str(ui.device()), ui.lang())
    if fell_back:
        ui.notice(ui.t("common.gpu_fallback"))
    ui.chart(timings, key="timings")
    st.caption(ui.t("linear.timing_caption"))
