"""The linear-attention page's figures: both denominators, both outputs, one output channel, the counted cost
of both attentions and their measured times."""

from __future__ import annotations

import functools

from explorer.app import heavy
from explorer.app.cache import cached, figure
from explorer.app.session import t
from explorer.pure.figures import heatmap, line_chart
from explorer.pure.timing import TimedOn
from explorer.pure.views import linear_attention as view

attention_outputs = cached(view.attention_outputs)
costs = cached(view.costs)


def measured_times(dim: int, phi: str, base: float, device: str) -> tuple[view.Timings, TimedOn]:
    """Both attentions timed, as a job of the server's one queue (explorer.app.heavy.timing), and where."""
    return heavy.timing(("linear_attention", dim, phi, base, device),
                        functools.partial(view.measured_times, dim, phi, base, device), device=device,
                        what=t("linear_attention.section_timing"))


@figure
def denominators(seq: int, dim: int, base: float, phi: str, seed: int):
    out = attention_outputs(seq, dim, base, phi, seed)
    zero = t("linear_attention.zero_series")
    return line_chart(out.positions, {t("linear_attention.unrotated_series"): out.den,
                                      t("linear_attention.rotated_series"): out.den_rot, zero: out.zero},
                      title=t("linear_attention.denominator_title"), x_title=t("linear_attention.query_axis"),
                      y_title=t("linear_attention.denominator_axis"), dashed=(zero,))


@figure
def outputs(seq: int, dim: int, base: float, phi: str, seed: int):
    """The softmax and the linear outputs, each as a heatmap of query by channel."""
    out = attention_outputs(seq, dim, base, phi, seed)
    return tuple(heatmap(out.drawn[name], x=out.cols, y=out.rows, title=t(f"linear_attention.{name}_title"),
                         x_title=t("linear_attention.channel_axis"), y_title=t("linear_attention.query_axis"),
                         colorbar_title=t("linear_attention.output_axis"))
                 for name in ("softmax", "linear"))


def channel(out: view.AttentionOutputs, picked: view.Channel):
    return line_chart(out.positions, {t("linear_attention.softmax_series"): picked.softmax,
                                      t("linear_attention.linear_series"): picked.linear},
                      title=t("linear_attention.channel_title", c=picked.index),
                      x_title=t("linear_attention.query_axis"), y_title=t("linear_attention.output_axis"))


def by_length(measured: view.ByLength, *, title: str, y_title: str):
    """Both attentions against the sequence length, on log axes."""
    return line_chart(measured.lengths, {t("linear_attention.softmax_series"): measured.softmax,
                                         t("linear_attention.linear_series"): measured.linear},
                      title=title, x_title=t("linear_attention.length_axis"), y_title=y_title, log_x=True,
                      log_y=True, markers=True)


@figure
def cost(dim: int):
    return by_length(costs(dim), title=t("linear_attention.cost_title", dim=dim),
                     y_title=t("linear_attention.cost_axis"))


def timings(times: view.Timings, dim: int):
    """The measured times in milliseconds (not cached as a figure: its numbers are fresh)."""
    return by_length(view.timed_ms(times), title=t("linear_attention.timing_title", device=times.device, dim=dim),
                     y_title=t("linear_attention.time_axis"))
