"""The linear-attention page's view: both attentions on the same tokens, their denominators, the shift
check, counted costs and measured times."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import torch

from explorer.pure.timing import time_call
from rope_viz.analysis import attention_costs, linear_attention, random_tokens, softmax_attention
from rope_viz.device import describe, to_numpy

from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.views.sampling import downsample
from explorer.pure.questions import Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("denominators", "softmax_output", "linear_output", "channel", "costs")

HEATMAP_ROWS = 256  # two heatmaps side by side: keep each small
SHIFT = 1000  # positions added to every token to show the output depends on offsets only
COST_LENGTHS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
# timed up to 2,048: the softmax's (4,096)^2 scores and their softmax took +240 MiB of server memory at d = 256
TIMED_LENGTHS = (256, 512, 1024, 2048)
# three timed runs per length: at d = 256 both attentions' calls at 1,024 and 2,048 took 0.45 CPU-s together here, and
# the whole timing stays within a message's 2 CPU-s
TIMED_REPEAT = 3


def qkv(seq: int, dim: int, seed: int, dtype=torch.float64, device=None):
    """Queries, keys and values: three (seq, dim) slices of one reproducible random draw."""
    return random_tokens(seq, 3 * dim, seed=seed, dtype=dtype, device=device).split(dim, dim=-1)


@dataclass(frozen=True)
class AttentionOutputs:
    """Both outputs, both denominators and the shift check (computed in float64; arrays as float32)."""

    softmax: np.ndarray  # (seq, dim) outputs
    linear: np.ndarray
    den: np.ndarray  # (seq,) the denominators, unrotated and rotated
    den_rot: np.ndarray
    zero_queries: int  # queries whose unrotated denominator is 0 (relu can zero every feature): 0/0
    min_den: float
    min_den_rot: float
    nonpositive: int  # rotated denominators <= 0
    worst_ratio: float  # the smallest rotated / unrotated denominator (nan when none is defined)
    shift_change: float  # the largest change of the linear output when every position moves by SHIFT
    correlation: float  # of the linear and softmax outputs
    soft_std: float
    lin_std: float
    drawn: dict[str, np.ndarray]  # "softmax", "linear" -> the output thinned for drawing
    rows: np.ndarray  # the rows and columns kept in `drawn`
    cols: np.ndarray
    row_step: int
    positions: np.ndarray  # the query positions, and a zero line to draw the denominators against
    zero: np.ndarray


def attention_outputs(seq: int, dim: int, base: float, phi: str, seed: int) -> AttentionOutputs:
    """The AttentionOutputs of the page's tokens, in float64 on the CPU."""
    q, k, v = qkv(seq, dim, seed)
    _, soft = softmax_attention(q, k, v, base=base)
    lin, den = linear_attention(q, k, v, base=base, feature_map=phi)
    _, den_rot = linear_attention(q, k, v, base=base, feature_map=phi, rotate_denominator=True)
    shifted, _ = linear_attention(q, k, v, range(SHIFT, SHIFT + seq), base=base, feature_map=phi)
    lin64, soft64, den64, den_rot64 = lin.numpy(), soft.numpy(), den.numpy(), den_rot.numpy()
    defined = den64 > 0  # relu can zero every feature of a query: its output is 0/0
    any_defined = bool(defined.any())
    outputs = {"softmax": to_numpy(soft), "linear": to_numpy(lin)}
    drawn = {}
    for name, values in outputs.items():
        drawn[name], rows, cols = downsample(values, HEATMAP_ROWS, same_stride=False)
    return AttentionOutputs(
        softmax=outputs["softmax"], linear=outputs["linear"], den=to_numpy(den), den_rot=to_numpy(den_rot),
        zero_queries=int((~defined).sum()),
        min_den=float(den64.min()), min_den_rot=float(den_rot64.min()),
        nonpositive=int((den_rot64 <= 0).sum()),
        worst_ratio=float((den_rot64[defined] / den64[defined]).min()) if any_defined else float("nan"),
        shift_change=float(np.abs(lin64 - shifted.numpy())[defined].max()) if any_defined else float("nan"),
        correlation=float(np.corrcoef(lin64[defined].ravel(), soft64[defined].ravel())[0, 1])
        if defined.sum() * dim > 1 else float("nan"),
        soft_std=float(soft64.std()), lin_std=float(lin64[defined].std()) if any_defined else float("nan"),
        drawn=drawn, rows=rows, cols=cols, row_step=int(rows[1] - rows[0]) if len(rows) > 1 else 1,
        positions=np.arange(seq, dtype=np.float32), zero=np.zeros(seq, dtype=np.float32))


@dataclass(frozen=True)
class ByLength:
    """A measure of both attentions at some sequence lengths (float32 arrays)."""

    lengths: np.ndarray
    softmax: np.ndarray
    linear: np.ndarray


@dataclass(frozen=True)
class Timings(ByLength):
    """Median seconds per call, and the device they were measured on."""

    device: str


def costs(dim: int) -> ByLength:
    """Counted multiply-adds of both attentions at COST_LENGTHS."""
    counted = attention_costs(COST_LENGTHS, dim)
    return ByLength(lengths=np.array(COST_LENGTHS, dtype=np.float32), softmax=to_numpy(counted["softmax"]),
                    linear=to_numpy(counted["linear"]))


def cost_at(seq: int, dim: int) -> tuple[float, float]:
    """Multiply-adds of (softmax, linear) attention at one length."""
    counted = attention_costs([seq], dim)
    return float(counted["softmax"][0]), float(counted["linear"][0])


def measured_times(dim: int, phi: str, base: float, device: str) -> Timings:
    """Median seconds per call of both attentions at TIMED_LENGTHS (TIMED_REPEAT timed runs each), float32 on the
    device. Only the shortest length is warmed up: its first calls warm the code paths of the longer ones, whose
    calls each outlast the fixed overheads a warm-up removes."""
    where = torch.device(device)
    soft, lin = [], []
    for seq in TIMED_LENGTHS:
        q, k, v = qkv(seq, dim, 0, dtype=torch.float32, device=where)
        timed = functools.partial(time_call, device=where, repeat=TIMED_REPEAT, warmup=int(seq == TIMED_LENGTHS[0]),
                                  min_time=0.005)
        soft.append(timed(lambda q=q, k=k, v=v: softmax_attention(q, k, v, base=base)))
        lin.append(timed(lambda q=q, k=k, v=v: linear_attention(q, k, v, base=base, feature_map=phi)))
    return Timings(lengths=np.array(TIMED_LENGTHS, dtype=np.float32), softmax=np.array(soft, dtype=np.float32),
                   linear=np.array(lin, dtype=np.float32), device=describe(where))


# What the page writes, from the values above.
@dataclass(frozen=True)
class DenominatorReading:
    """The denominators' metrics, and the lines saying whether the rotated one broke."""

    metrics: list[Metric]
    lines: list[Phrase]


def denominator_reading(out: AttentionOutputs, seq: int) -> DenominatorReading:
    return DenominatorReading(
        metrics=[
            metric("linear_attention.min_unrotated", f"{out.min_den:.4g}"),
            metric("linear_attention.min_rotated", f"{out.min_den_rot:.4g}"),
            Metric(phrase("linear_attention.nonpositive"),
                   phrase("linear_attention.nonpositive_value", count=out.nonpositive, seq=seq)),
        ],
        lines=[
            phrase("linear_attention.denominator_result", ratio=out.worst_ratio, count=out.nonpositive, seq=seq),
            phrase(
                "linear_attention.denominator_broken"
                if out.nonpositive
                else "linear_attention.denominator_safe_here"
            ),
        ],
    )


@dataclass(frozen=True)
class OutputNotes:
    """Under the two output maps: a caption when they are thinned, and a note on queries with no output."""

    thinned: Phrase | None
    zero: Phrase | None


def output_notes(out: AttentionOutputs, seq: int) -> OutputNotes:
    return OutputNotes(
        thinned=phrase("linear_attention.heatmap_thinned", step=out.row_step) if out.row_step > 1 else None,
        zero=phrase("linear_attention.zero_queries", count=out.zero_queries, seq=seq) if out.zero_queries else None,
    )


@dataclass(frozen=True)
class Channel:
    """One output channel of both attentions against the query position, and how alike the outputs are."""

    index: int
    softmax: np.ndarray
    linear: np.ndarray
    metrics: list[Metric]


def channel(out: AttentionOutputs, channel: int) -> Channel:
    return Channel(index=channel, softmax=np.ascontiguousarray(out.softmax[:, channel]),
                   linear=np.ascontiguousarray(out.linear[:, channel]),
                   metrics=[metric("linear_attention.correlation", f"{out.correlation:.3f}",
                                   help=phrase("linear_attention.correlation_help")),
                            metric("linear_attention.shift", f"{out.shift_change:.1e}",
                                   help=phrase("linear_attention.shift_help", shift=SHIFT), shift=SHIFT)])


def cost_now(seq: int, dim: int) -> Phrase:
    """Both attentions' multiply-adds at this length (cost_at) and their ratio."""
    soft, lin = cost_at(seq, dim)
    return phrase("linear_attention.cost_now", seq=seq, dim=dim, soft=soft, lin=lin, ratio=soft / lin)


def timed_ms(times: Timings) -> ByLength:
    """measured_times in milliseconds."""
    return ByLength(lengths=times.lengths, softmax=times.softmax * 1000, linear=times.linear * 1000)


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("denominator"), Question("cost"))
