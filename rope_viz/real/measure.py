"""What the app measures inside a real model, on one text (token ids): each function runs the model's own forward
pass (rope_viz.real.decoder) and returns plain numbers.

- predictions: each position's most likely next tokens and the loss of the token that came;
- relativity: every position shifted by k leaves the log-probabilities equal up to float rounding, while a broken
  position rule (positions doubled) changes them;
- head_roles / offset_profile: where the heads look (weight on the previous token and on the first token, mean
  weight against the offset m - n);
- pair_shares: how much of each head's q.k each rotated pair carries (Barbero et al. 2025, "Round and round we
  go! What makes rotary positional encodings useful?");
- stopped_quarters: the loss when the fastest or the slowest quarter of the pairs stops turning;
- traps: the loss when the rotation goes wrong in the ways engines get it wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import torch

from ..frequencies import pair_indices
from .decoder import RealModel, log_sum_exp, next_token_losses


@dataclass(frozen=True)
class Predictions:
    """top_ids / top_probs: (seq, k) the k most likely next tokens after each position and their probabilities;
    losses: (seq - 1,) nats of the token that actually came next; loss: their mean."""

    top_ids: torch.Tensor
    top_probs: torch.Tensor
    losses: torch.Tensor
    loss: float


def predictions(lm: RealModel, ids: torch.Tensor, k: int = 3) -> Predictions:
    """One float32 pass, its logits reduced a block of rows at a time."""
    tops, top_ids, losses = [], [], []
    for rows, logits in lm.logit_blocks(ids):
        probs, found = torch.softmax(logits, dim=-1).topk(k, dim=-1)
        tops.append(probs.double())
        top_ids.append(found)
        targets = ids[1:][rows]
        losses.append(next_token_losses(logits[:targets.numel()], targets))
    loss = torch.cat(losses)
    return Predictions(torch.cat(top_ids), torch.cat(tops), loss, float(loss.mean()) if loss.numel() else 0.0)


@dataclass(frozen=True)
class Relativity:
    """shift: k; residual_shift / residual_doubled: the largest |log p| difference (over every position and every
    token of the vocabulary) from the plain run when every position is shifted by k / doubled; loss, loss_shift,
    loss_doubled: mean next-token losses (nats); top1_shift / top1_doubled: the share of positions whose most likely
    next token stays the same."""

    shift: int
    residual_shift: float
    residual_doubled: float
    loss: float
    loss_shift: float
    loss_doubled: float
    top1_shift: float
    top1_doubled: float


class _Against(NamedTuple):
    """A pass set against the plain one: the largest |log p| difference, the mean loss, the share of equal top-1."""
    residual: float
    loss: float
    top1: float


def _against(lm: RealModel, ids: torch.Tensor, others: list[torch.Tensor]) -> tuple[float, list[_Against]]:
    """(the plain pass's mean loss, each pass at `others` positions against it): every pass's logits a block of
    rows at a time, their log-softmax in float64."""
    residual, same = [0.0] * len(others), [0] * len(others)
    losses: list[list[torch.Tensor]] = [[] for _ in range(len(others) + 1)]
    for blocks in zip(lm.logit_blocks(ids), *(lm.logit_blocks(ids, positions) for positions in others)):
        rows, plain = blocks[0]
        targets = ids[1:][rows]
        plain_lse = log_sum_exp(plain)
        for i, (_, logits) in enumerate(blocks):
            losses[i].append(next_token_losses(logits[:targets.numel()], targets))
            if i:  # log p' - log p = (z' - z) - (lse' - lse): z' - z is exact in float32 where they are close
                gap = (logits - plain).double() - (log_sum_exp(logits) - plain_lse)[:, None]
                residual[i - 1] = max(residual[i - 1], float(gap.abs().max()))
                same[i - 1] += int((logits.argmax(-1) == plain.argmax(-1)).sum())
    means = [float(torch.cat(found).mean()) for found in losses]
    return means[0], [_Against(residual[i], means[i + 1], same[i] / ids.numel()) for i in range(len(others))]


def relativity(lm: RealModel, ids: torch.Tensor, shift: int, doubled_from: Relativity | None = None) -> Relativity:
    """Float32 passes: plain, shifted and doubled; doubled_from: a Relativity of the same ids (another shift) whose
    doubled figures are kept, which saves the doubled pass."""
    seq = ids.numel()
    others = [torch.arange(seq) + shift] + ([] if doubled_from is not None else [torch.arange(seq) * 2])
    loss, found = _against(lm, ids, others)
    shifted = found[0]
    doubled = found[1] if doubled_from is None else _Against(doubled_from.residual_doubled,
                                                              doubled_from.loss_doubled, doubled_from.top1_doubled)
    return Relativity(shift, shifted.residual, doubled.residual, loss, shifted.loss, doubled.loss, shifted.top1,
                      doubled.top1)


def head_roles(attention: dict, layers: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(previous, first), each (layers, heads) float64: the mean weight a query at m >= 1 gives the key at m - 1,
    and the key at 0 (the first token, often an attention sink). attention: {layer: (heads, seq, seq)} for every
    layer, as RealModel.forward(capture=range(layers)) gives it."""
    previous, first = [], []
    for layer in range(layers):
        weights = attention[layer].double()
        seq = weights.shape[-1]
        rows = torch.arange(1, seq)
        previous.append(weights[:, rows, rows - 1].mean(-1))
        first.append(weights[:, 1:, 0].mean(-1))
    return torch.stack(previous), torch.stack(first)


def offset_profile(weights: torch.Tensor, max_offset: int) -> torch.Tensor:
    """(heads, max_offset + 1) float64: the mean attention weight at each offset r = m - n, over the queries m that
    have a key r steps back (weights: one layer's (heads, seq, seq))."""
    seq = weights.shape[-1]
    reach = min(max_offset, seq - 1)
    rows = [weights[:, torch.arange(r, seq), torch.arange(0, seq - r)].double().mean(-1) for r in range(reach + 1)]
    profile = torch.stack(rows, dim=-1)
    return torch.nn.functional.pad(profile, (0, max_offset - reach), value=float("nan"))


PAIR_BLOCK = 16  # pairs scored at a time: (heads, 16, seq, seq) float32, 17 MB for Gemma 3 at 256 tokens


def pair_shares(queries: torch.Tensor, keys: torch.Tensor, layout: str, rotary_dim: int) -> torch.Tensor:
    """(heads, rotary_dim / 2) float64: the share of each rotated pair in the head's attention scores, the mean over
    causal (m >= n) query-key pairs of |q_m^(i) . k_n^(i)| (the pair's own 2-D dot product) divided by the sum over
    pairs. queries (heads, seq, head_dim) and keys (kv_heads, seq, head_dim) after the rotation (a query head reads
    key head h // (heads / kv_heads)); pair i is (i, i + d/2) in the "half" layout, (2i, 2i + 1) interleaved."""
    heads = queries.shape[0]
    keys = keys.repeat_interleave(heads // keys.shape[0], 0)
    first, second = pair_indices(rotary_dim, layout)
    q = torch.stack((queries[..., first], queries[..., second]), -1).float().transpose(1, 2)  # (heads, pairs, seq, 2)
    k = torch.stack((keys[..., first], keys[..., second]), -1).float().transpose(1, 2)
    # |q.k| in float32 (each a 2-term dot product), summed over m >= n in float64
    sums = torch.cat([(q[:, i:i + PAIR_BLOCK] @ k[:, i:i + PAIR_BLOCK].transpose(-1, -2)).abs().tril()
                      .sum((-2, -1), dtype=torch.float64) for i in range(0, q.shape[1], PAIR_BLOCK)], dim=1)
    return sums / sums.sum(-1, keepdim=True)


@dataclass(frozen=True)
class Stopped:
    """Mean next-token losses (nats) with every rotary pair turning (loss), with the fastest quarter of each layer's
    pairs held still (fastest: the highest frequencies, pairs 0 .. P/4 - 1) and with the slowest quarter held still."""

    loss: float
    fastest: float
    slowest: float


INTERVENTIONS = "bfloat16"
"""The precision of the matmuls in the interventions' forward passes (stopped quarters, traps: see
rope_viz.real.decoder): their losses move by tenths of a nat to nats, far above bfloat16's rounding (the loss with
no intervention, computed the same way, is the baseline each is set against)."""


def plain_loss(lm: RealModel, ids: torch.Tensor) -> float:
    """The mean next-token loss with no intervention, at the interventions' precision: their baseline."""
    return float(lm.next_token_losses(ids, precision=INTERVENTIONS).mean())


def stopped_quarters(lm: RealModel, ids: torch.Tensor, plain: float | None = None) -> Stopped:
    """plain: plain_loss(lm, ids) when already known."""
    def stopped(which: str):
        layers = []
        for layer in lm.rope.layers:
            pairs = layer.rotary_dim // 2
            quarter = range(pairs // 4) if which == "fastest" else range(pairs - pairs // 4, pairs)
            layers.append(replace(layer, stopped_pairs=tuple(quarter)) if layer.rotary else layer)
        return float(lm.next_token_losses(ids, layers=layers, precision=INTERVENTIONS).mean())

    return Stopped(plain_loss(lm, ids) if plain is None else plain, stopped("fastest"), stopped("slowest"))


TRAPS = ("layout", "local_base", "no_rope_layer", "no_rope_all", "bf16_angles", "fp16_angles", "query_ahead")
"""The traps measured: pairs read with the other layout; the local (sliding) layers given the global base (Gemma);
RoPE removed from one layer; from all; angles from positions rounded to bfloat16 / float16; queries turned one step
ahead of their keys (a cache off by one)."""


def trap_layers(lm: RealModel, trap: str, layer: int = 0) -> tuple:
    """The model's layers with one trap planted (query_ahead changes no layer: see traps)."""
    own = lm.rope.layers
    if trap == "layout":
        return tuple(replace(x, layout="interleaved" if x.layout == "half" else "half") for x in own)
    if trap == "local_base":
        full = next(x.base for x in own if x.rotary and x.attention == "full_attention")
        return tuple(replace(x, base=full) if x.attention == "sliding_attention" else x for x in own)
    if trap == "no_rope_layer":
        return tuple(replace(x, rotary=False) if x.index == layer else x for x in own)
    if trap == "no_rope_all":
        return tuple(replace(x, rotary=False) for x in own)
    if trap in ("bf16_angles", "fp16_angles"):
        return tuple(replace(x, recipe=f"{trap[:4]}-positions") if x.rotary else x for x in own)
    if trap == "query_ahead":
        return own
    raise ValueError(f"trap must be one of {TRAPS}, got {trap!r}")


def applies(lm: RealModel, trap: str) -> bool:
    """Whether a trap means something for this model (local_base needs sliding and global layers)."""
    if trap != "local_base":
        return True
    kinds = {layer.attention for layer in lm.rope.layers}
    return {"sliding_attention", "full_attention"} <= kinds


PRECISION_START = 4096
"""Where the precision traps place the text: a float16 position is exact only up to 2,048 and a bfloat16 one up to
256, so a short text at positions 0.. would not show them; from 4,096 on float16 positions fall on steps of 4 and
bfloat16 ones on steps of 32. Exact angles give the same losses there as at 0 (relativity)."""


def trap_loss(lm: RealModel, ids: torch.Tensor, trap: str, layer: int = 0) -> float:
    """The mean next-token loss (nats) with one trap planted, at the interventions' precision. layer: the layer
    no_rope_layer takes RoPE from. The precision traps run at positions PRECISION_START + i."""
    positions = torch.arange(ids.numel()) + PRECISION_START if trap.endswith("_angles") else None
    return float(lm.next_token_losses(ids, positions, layers=trap_layers(lm, trap, layer),
                                      query_shift=int(trap == "query_ahead"), precision=INTERVENTIONS).mean())


def traps(lm: RealModel, ids: torch.Tensor, layer: int = 0, plain: float | None = None) -> dict[str, float]:
    """{trap: mean next-token loss in nats} for every trap that applies to the model, plus "none" (no trap:
    plain_loss, or `plain` when already known)."""
    found = {"none": plain_loss(lm, ids) if plain is None else plain}
    found.update((trap, trap_loss(lm, ids, trap, layer)) for trap in TRAPS if applies(lm, trap))
    return found
