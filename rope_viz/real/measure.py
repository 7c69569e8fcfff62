"""What the app measures inside a real model, on one text (token ids): each function runs the model's own forward
pass (rope_viz.real.decoder) and returns plain numbers.

- predictions: each position's most likely next tokens and the loss of the token that came;
- relativity: every position shifted by k leaves the log-probabilities equal up to float rounding, while a broken
  position rule (positions doubled) changes them;
- head_roles / offset_profile: where the heads look (weight on the previous token and on the first token, mean
  weight against the offset m - n);
- pair_shares: how much of each head's q.k each rotated pair carries (Barbero et al. 2025, "Round and round we
  go! What makes rotary positional encodings useful?");
- interventions: the loss when the fastest or the slowest quarter of the pairs stops turning, and when the rotation
  goes wrong in the ways engines get it wrong (the traps).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import torch

from ..frequencies import pair_indices
from .decoder import OnlineSoftmax, RealModel, Variant
from .speed import interventions_precision as interventions_choice


@dataclass(frozen=True)
class Predictions:
    """top_ids / top_probs: (seq,) the most likely next token after each position and its probability;
    losses: (seq - 1,) nats of the token that actually came next; loss: their mean."""

    top_ids: torch.Tensor
    top_probs: torch.Tensor
    losses: torch.Tensor
    loss: float


def predictions(lm: RealModel, ids: torch.Tensor) -> Predictions:
    """One float32 pass, its logits reduced a block of the vocabulary at a time: the most likely next token after
    each position, its probability, and the loss of the token that came."""
    seen = OnlineSoftmax(torch.cat((ids[1:], ids[:1])))  # the last position has no next token: its loss is dropped
    for start, logits in lm.head_blocks(lm.hidden_states(ids)):
        seen.update(start, logits)
    losses = seen.losses()[:-1]
    return Predictions(seen.top_id, seen.top_prob(), losses, float(losses.mean()) if losses.numel() else 0.0)


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
    """(the plain pass's mean loss, each pass at `others` positions against it). Every pass's hidden states go through
    the output head together, a block of the vocabulary at a time. log p' - log p = (z' - z) - (lse' - lse), so
    its largest size over the vocabulary is at the largest or the smallest z' - z (exact in float32 where z' and z
    are close)."""
    seq, passes = ids.numel(), len(others) + 1
    hidden = lm.variant_hidden_states(ids, [Variant()] + [Variant(positions) for positions in others])
    hidden = hidden.reshape(-1, hidden.shape[-1])
    targets = torch.cat((ids[1:], ids[:1]))  # the last position has no next token: its loss is dropped
    seen = [OnlineSoftmax(targets) for _ in range(passes)]
    high = torch.full((passes - 1, seq), float("-inf"))
    low = torch.full((passes - 1, seq), float("inf"))
    for start, logits in lm.head_blocks(hidden):
        rows = logits.view(passes, seq, -1)
        for i in range(passes):
            seen[i].update(start, rows[i])
        gaps = rows[1:] - rows[:1]
        high, low = torch.maximum(high, gaps.amax(-1)), torch.minimum(low, gaps.amin(-1))
    plain_lse = seen[0].lse()
    found = []
    for i in range(1, passes):
        shift = seen[i].lse() - plain_lse
        residual = torch.maximum((high[i - 1].double() - shift).abs(), (low[i - 1].double() - shift).abs()).max()
        found.append(_Against(float(residual), float(seen[i].losses()[:-1].mean()),
                              float((seen[i].top_id == seen[0].top_id).double().mean())))
    return float(seen[0].losses()[:-1].mean()), found


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


PAIR_BLOCK = 16  # pairs scored at a time
QUERY_ROWS = 32  # queries scored at a time, against the keys up to the last of them: (heads, 16, 32, seq) float32


def pair_shares(queries: torch.Tensor, keys: torch.Tensor, layout: str, rotary_dim: int) -> torch.Tensor:
    """(heads, rotary_dim / 2) float64: the share of each rotated pair in the head's attention scores, the mean over
    causal (m >= n) query-key pairs of |q_m^(i) . k_n^(i)| (the pair's own 2-D dot product) divided by the sum over
    pairs. queries (heads, seq, head_dim) and keys (kv_heads, seq, head_dim) after the rotation (a query head reads
    key head h // (heads / kv_heads)); pair i is (i, i + d/2) in the "half" layout, (2i, 2i + 1) interleaved.
    Queries go QUERY_ROWS at a time against only the keys at or before the last of them (the causal half)."""
    heads = queries.shape[0]
    keys = keys.repeat_interleave(heads // keys.shape[0], 0)
    first, second = pair_indices(rotary_dim, layout)
    # (heads, pairs, seq, 2)
    q = torch.stack((queries[..., first], queries[..., second]), -1).float().transpose(1, 2).contiguous()
    k = torch.stack((keys[..., first], keys[..., second]), -1).float().transpose(1, 2).contiguous()
    seq, pairs = q.shape[2], q.shape[1]
    later = torch.ones(QUERY_ROWS, QUERY_ROWS, dtype=torch.bool).triu(1)  # n > m inside a diagonal block
    sums = torch.zeros(heads, pairs, dtype=torch.float64)
    for a in range(0, seq, QUERY_ROWS):
        b = min(a + QUERY_ROWS, seq)
        for i in range(0, pairs, PAIR_BLOCK):
            # |q.k| in float32 (each a 2-term dot product), a block's sums in float32, added up in float64
            cells = (q[:, i:i + PAIR_BLOCK, a:b] @ k[:, i:i + PAIR_BLOCK, :b].transpose(-1, -2)).abs_()
            cells[..., a:b].masked_fill_(later[:b - a, :b - a], 0.0)
            sums[:, i:i + PAIR_BLOCK] += cells.sum((-2, -1))
    return sums / sums.sum(-1, keepdim=True)


@dataclass(frozen=True)
class Stopped:
    """Mean next-token losses (nats) with every rotary pair turning (loss), with the fastest quarter of each layer's
    pairs held still (fastest: the highest frequencies, pairs 0 .. P/4 - 1) and with the slowest quarter held still."""

    loss: float
    fastest: float
    slowest: float


def interventions_precision(lm: RealModel) -> str:
    """The precision of the matmuls in the interventions' forward passes (stopped quarters, traps: see
    rope_viz.real.decoder) on this host: bfloat16 where timing the model's own shapes finds it clearly faster,
    else float32 (rope_viz.real.speed). Their losses move by tenths of a nat to nats, far above bfloat16's rounding
    (the loss with no intervention, computed the same way, is the baseline each is set against)."""
    return interventions_choice(lm).precision


def mean_losses(lm: RealModel, ids: torch.Tensor, variants: dict[str, Variant]) -> dict[str, float]:
    """{name: mean next-token loss in nats} of each named pass, at the interventions' precision, all run together."""
    losses = lm.variant_losses(ids, list(variants.values()), precision=interventions_precision(lm))
    return {name: float(row.mean()) for name, row in zip(variants, losses)}


def plain_loss(lm: RealModel, ids: torch.Tensor) -> float:
    """The mean next-token loss with no intervention, at the interventions' precision: their baseline."""
    return mean_losses(lm, ids, {"none": Variant()})["none"]


def stopped_layers(lm: RealModel, which: str) -> tuple:
    """The model's layers with the fastest or the slowest quarter of each rotary layer's pairs held still."""
    layers = []
    for layer in lm.rope.layers:
        pairs = layer.rotary_dim // 2
        quarter = range(pairs // 4) if which == "fastest" else range(pairs - pairs // 4, pairs)
        layers.append(replace(layer, stopped_pairs=tuple(quarter)) if layer.rotary else layer)
    return tuple(layers)


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


def trap_variant(lm: RealModel, ids: torch.Tensor, trap: str, layer: int = 0) -> Variant:
    """The pass with one trap planted. layer: the layer no_rope_layer takes RoPE from. The precision traps run at
    positions PRECISION_START + i."""
    positions = torch.arange(ids.numel()) + PRECISION_START if trap.endswith("_angles") else None
    return Variant(positions, trap_layers(lm, trap, layer), int(trap == "query_ahead"))


def trap_loss(lm: RealModel, ids: torch.Tensor, trap: str, layer: int = 0) -> float:
    """The mean next-token loss (nats) with one trap planted, at the interventions' precision."""
    return mean_losses(lm, ids, {trap: trap_variant(lm, ids, trap, layer)})[trap]


def interventions(lm: RealModel, ids: torch.Tensor, layer: int = 0) -> tuple[Stopped, dict[str, float]]:
    """(the stopped quarters, {trap: mean next-token loss in nats} for every trap that applies to the model, plus
    "none": no trap), every pass run together. layer: the layer no_rope_layer takes RoPE from."""
    variants = {"none": Variant(), "fastest": Variant(layers=stopped_layers(lm, "fastest")),
                "slowest": Variant(layers=stopped_layers(lm, "slowest"))}
    variants.update((trap, trap_variant(lm, ids, trap, layer)) for trap in TRAPS if applies(lm, trap))
    found = mean_losses(lm, ids, variants)
    stopped = Stopped(found.pop("none"), found.pop("fastest"), found.pop("slowest"))
    return stopped, {"none": stopped.loss, **found}
