"""What a trained model does with RoPE's pairs, measured in a real model on one text (rope_viz.real.decoder):

- the size of each query, key and value coordinate (its L2 norm over the text's tokens), per layer and head, the
  massive ones by the criterion of Jin et al. (ICML 2025, arXiv 2502.01563) as a 2026 replication states it (per
  head and dim, the norm over tokens above MASSIVE times the head's mean), and the pair each coordinate belongs to;
- the predicted boundary pair (Jonasson, arXiv 2503.01832): the first pair whose wavelength 2*pi*base^(2i/d) is
  longer than the positions the layer was trained to see (the model's context, or a sliding layer's window);
- the attention sink (Xiao et al. 2023): each head's mean weight on the first token, and the first token's
  residual-stream norm after every layer beside the other tokens';
- interventions, each a float32 pass of the text, of a copying task (a passage twice: the loss on its second
  copy) and of a recall task (short factual prompts): the massive coordinates replaced by their mean over the text,
  the same count of random coordinates (the control), the pairs slower than the high-norm band made position-free,
  and the first token's MLP output removed in the layer where its norm jumps;
- the sink past the trained length ("Frayed RoPE", Wertheimer et al., ICLR 2026, arXiv 2603.18017): the text read
  with its first token just inside the trained length behind the others and then twice as far, every other offset
  its own (shifting every position alike changes nothing: RoPE sees only offsets).

`measure` takes one pass (every layer captured, no logits); `intervene` takes four passes of each input, run
together, and two passes of the text (no logits) per trained length.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from ..frequencies import pair_indices, wavelengths
from .decoder import Edit, RealModel, Variant
from .measure import head_roles, pair_shares

MASSIVE = 5.0  # a coordinate is massive when its norm over tokens exceeds this many times its head's mean
SINK = 0.3  # a sink head gives the first token at least this mean weight
COPY_TOKENS = 48  # the copying task's passage: at most this many tokens of the text, read twice
SEED = 0  # the control's random coordinates
RECALL = (("The capital of France is", " Paris"), ("The capital of Japan is", " Tokyo"),
          ("Water is made of hydrogen and", " oxygen"), ("The largest planet in the Solar System is", " Jupiter"),
          ("Romeo and Juliet was written by William", " Shakespeare"), ("A week has seven", " days"),
          ("The opposite of hot is", " cold"), ("The sun rises in the", " east"))
"""The recall task: prompts whose answer is a fact the model stores, not something the prompt holds."""
INTERVENTIONS = ("none", "massive", "random", "nope_below", "sink_mlp")
FAR = 2  # "past the trained length": the first token up to FAR times the trained length behind the last token


def boundary_pair(rotary_dim: int, base: float, trained: int) -> int:
    """The first pair i whose wavelength 2*pi*base^(2i/rotary_dim) exceeds `trained` positions (rotary_dim / 2 when
    every pair turns a full cycle within them)."""
    if isinstance(trained, bool) or not isinstance(trained, int) or trained < 1:
        raise ValueError(f"trained must be a whole number of positions >= 1, got {trained!r}")
    longer = (wavelengths(rotary_dim, base) > trained).nonzero()
    return int(longer[0, 0]) if longer.numel() else rotary_dim // 2


def trained_length(lm: RealModel, layer: int) -> int:
    """The positions layer `layer` saw in training: its sliding window, or the model's context."""
    x = lm.rope.layers[layer]
    return int(x.window) if x.attention == "sliding_attention" and x.window else lm.context


def dim_pairs(head_dim: int, rotary_dim: int, layout: str, rotated_from: int = 0) -> torch.Tensor:
    """(head_dim,) int64: the rotary pair each coordinate of a head belongs to (-1 for coordinates that never turn)."""
    found = torch.full((head_dim,), -1, dtype=torch.int64)
    if rotary_dim:
        first, second = pair_indices(rotary_dim, layout)
        pairs = torch.arange(rotary_dim // 2)
        found[first + rotated_from], found[second + rotated_from] = pairs, pairs
    return found


def massive(norms: torch.Tensor) -> torch.Tensor:
    """Bool, the shape of norms (..., head_dim): a coordinate's norm over tokens above MASSIVE times its head's
    mean."""
    return norms > MASSIVE * norms.mean(-1, keepdim=True)


def pair_norms(norms: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
    """(..., rotary pairs): each pair's norm over tokens, sqrt(|a|^2 + |b|^2) of its two coordinates' norms (the
    rotation leaves it unchanged)."""
    count = int(pairs.max()) + 1
    squared = torch.zeros(*norms.shape[:-1], count, dtype=norms.dtype)
    rotary = pairs >= 0
    squared.index_add_(-1, pairs[rotary], norms[..., rotary] ** 2)
    return squared.sqrt()


@dataclass(frozen=True)
class Pairs:
    """One float32 pass of a text, every layer captured. Per layer (a leading layers axis): queries / keys / values,
    (heads or kv_heads, head_dim) float64 norm of each coordinate over the tokens (queries and keys before the
    rotation, after Gemma's per-head norm); query_means / key_means, their means over the tokens (float32);
    first / previous, (layers, heads) mean attention weight on the first and on the previous token; shares,
    (layers, heads, pairs) each pair's share of |q.k|; first_norm / other_norm, (layers + 1,) the first token's
    residual-stream norm and the other tokens' mean, after the embedding and after each layer; pairs, (head_dim,)
    each coordinate's pair; boundaries, (layers,) the predicted boundary pair; kinds, each layer's attention."""

    queries: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    query_means: torch.Tensor
    key_means: torch.Tensor
    first: torch.Tensor
    previous: torch.Tensor
    shares: torch.Tensor
    first_norm: torch.Tensor
    other_norm: torch.Tensor
    pairs: torch.Tensor
    boundaries: tuple[int, ...]
    kinds: tuple[str, ...]

    @property
    def spike_layer(self) -> int:
        """The layer that multiplies the first token's norm by the largest factor."""
        return int((self.first_norm[1:] / self.first_norm[:-1]).argmax())

    def sink_shares(self) -> torch.Tensor:
        """(layers,) float64: the share of each layer's heads whose mean weight on the first token is >= SINK."""
        return (self.first >= SINK).double().mean(-1)


def _checked_ids(lm: RealModel, ids) -> torch.Tensor:
    ids = torch.as_tensor(ids)
    if ids.dim() != 1 or ids.numel() < 2:
        raise ValueError(f"ids must be a 1-D tensor of at least 2 tokens, got shape {tuple(ids.shape)}")
    return ids


def measure(lm: RealModel, ids) -> Pairs:
    """One float32 pass of ids, every layer captured, no logits."""
    ids = _checked_ids(lm, ids)
    layers = lm.rope.layers
    count = len(layers)
    run = lm.forward(ids, capture=range(count), stop_after=count - 1)
    previous, first = head_roles(run.attention, count)

    def norms(found: dict) -> torch.Tensor:
        return torch.stack([found[i].double().norm(dim=1) for i in range(count)])

    residual = torch.stack([lm.embedding_output(ids)] + [run.residual[i] for i in range(count)]).double().norm(dim=-1)
    x = layers[0]
    return Pairs(norms(run.raw_queries), norms(run.raw_keys), norms(run.values),
                 torch.stack([run.raw_queries[i].mean(1) for i in range(count)]),
                 torch.stack([run.raw_keys[i].mean(1) for i in range(count)]), first, previous,
                 torch.stack([pair_shares(run.queries[i], run.keys[i], layers[i].layout, layers[i].rotary_dim)
                              for i in range(count)]),
                 residual[:, 0], residual[:, 1:].mean(-1),
                 dim_pairs(x.head_dim, x.rotary_dim, x.layout, x.rotated_from),
                 tuple(boundary_pair(y.rotary_dim, y.base, trained_length(lm, y.index)) for y in layers),
                 tuple(y.attention for y in layers))


def band(p: Pairs, kind: str) -> tuple[int, int] | None:
    """(first, last) pair holding a massive key coordinate in the layers of attention `kind`, or None."""
    rows = [i for i, k in enumerate(p.kinds) if k == kind]
    found = massive(p.keys[rows]) & (p.pairs >= 0)
    held = p.pairs[found.nonzero()[:, -1]]
    return (int(held.min()), int(held.max())) if held.numel() else None


def below_band(p: Pairs, kind: str) -> tuple[int, ...]:
    """The pairs slower than the high-norm band of `kind` layers (past its last pair; past the predicted boundary
    when no key coordinate is massive)."""
    pairs = int(p.pairs.max()) + 1
    found = band(p, kind)
    start = found[1] + 1 if found else p.boundaries[p.kinds.index(kind)]
    return tuple(range(start, pairs))


def _fills(found: torch.Tensor, means: torch.Tensor) -> dict:
    return {i: (found[i], means[i]) for i in range(found.shape[0]) if bool(found[i].any())}


def _random_like(found: torch.Tensor, seed: int) -> torch.Tensor:
    """As many coordinates per layer and head as `found` marks, drawn at random among the unmarked ones."""
    generator = torch.Generator().manual_seed(seed)
    chosen = torch.zeros_like(found)
    for index in found.sum(-1).nonzero():
        row = tuple(index.tolist())
        free = (~found[row]).nonzero()[:, 0]
        count = int(found[row].sum())
        chosen[row + (free[torch.randperm(free.numel(), generator=generator)[:count]],)] = True
    return chosen


def edits(lm: RealModel, p: Pairs, seed: int = SEED) -> dict[str, Variant]:
    """The interventions as passes, named as INTERVENTIONS."""
    q, k = massive(p.queries), massive(p.keys)
    rq, rk = _random_like(q, seed), _random_like(k, seed + 1)
    means_q, means_k = p.query_means.float(), p.key_means.float()
    below = {kind: below_band(p, kind) for kind in set(p.kinds)}
    nope = tuple(replace(x, stopped_pairs=below[x.attention]) if x.rotary else x for x in lm.rope.layers)
    return {"none": Variant(),
            "massive": Variant(edit=Edit(_fills(q, means_q), _fills(k, means_k))),
            "random": Variant(edit=Edit(_fills(rq, means_q), _fills(rk, means_k))),
            "nope_below": Variant(layers=nope),
            "sink_mlp": Variant(edit=Edit(mlp_off={p.spike_layer: (0,)}))}


def first_back(seq: int, back: int) -> torch.Tensor:
    """(seq,) int64 positions: the first token at 0, the others moved on together so that the last lies back - 1
    positions after it (the text's own positions when back <= seq); every offset between the others stays."""
    if isinstance(back, bool) or not isinstance(back, int) or back < 1:
        raise ValueError(f"back must be a whole number of positions >= 1, got {back!r}")
    return torch.cat((torch.zeros(1, dtype=torch.int64), torch.arange(1, seq) + max(back - seq, 0)))


def first_key_cosines(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """(heads,) float64: each head's mean over its queries m >= 1 of cos(q_m, k_0), the first token's key (queries
    (heads, seq, head_dim) and keys (kv_heads, seq, head_dim) after the rotation; a query head reads key head
    h // (heads / kv_heads))."""
    heads = queries.shape[0]
    first = keys[:, 0].double().repeat_interleave(heads // keys.shape[0], 0)
    return torch.nn.functional.cosine_similarity(queries[:, 1:].double(), first[:, None], dim=-1).mean(-1)


def frayed(lm: RealModel, ids, p: Pairs) -> dict:
    """{attention kind: {"trained": T, "own": the share of its heads that are sinks at the text's own positions,
    "inside" / "past": {"back": T / FAR * T, "share": that share, "cosine": the mean first_key_cosines of the heads
    that are sinks at the text's own positions (all the kind's heads when none is)}} with the text read at
    first_back(seq, back): one pass per distinct back (every layer captured, no logits)."""
    ids = _checked_ids(lm, ids)
    count = len(lm.rope.layers)
    rows = {kind: [i for i, k in enumerate(p.kinds) if k == kind] for kind in sorted(set(p.kinds))}
    trained = {kind: trained_length(lm, found[0]) for kind, found in rows.items()}
    seen = {}
    for back in sorted({b for t in trained.values() for b in (t, FAR * t)}):
        run = lm.forward(ids, first_back(ids.numel(), back), capture=range(count), stop_after=count - 1)
        seen[back] = (head_roles(run.attention, count)[1],
                      torch.stack([first_key_cosines(run.queries[i], run.keys[i]) for i in range(count)]))
    found = {}
    for kind, layers in rows.items():
        sinks = p.first[layers] >= SINK
        heads = sinks if bool(sinks.any()) else torch.ones_like(sinks)
        at = {where: {"back": back, "share": float((seen[back][0][layers] >= SINK).double().mean()),
                      "cosine": float(seen[back][1][layers][heads].mean())}
              for where, back in (("inside", trained[kind]), ("past", FAR * trained[kind]))}
        found[kind] = {"trained": trained[kind], "own": float(sinks.double().mean())} | at
    return found


@dataclass(frozen=True)
class Effects:
    """Mean next-token losses (nats) of each intervention (INTERVENTIONS), float32: text, on the text; copy, on the
    second copy of a passage read twice; recall, on the answers of RECALL. counts: the massive / random coordinates
    changed (queries and keys together), the pairs made position-free per attention kind, the spike layer; frayed,
    the sinks inside and past the trained length (frayed)."""

    text: dict
    copy: dict
    recall: dict
    changed: int
    below: dict
    spike_layer: int
    frayed: dict


def copy_ids(lm: RealModel, ids) -> tuple[torch.Tensor, int]:
    """(ids of a passage read twice, the index of the second copy's first token): the passage is the text's first
    COPY_TOKENS tokens (after a BOS the tokenizer adds, which is kept once, first)."""
    ids = torch.as_tensor(ids)
    bos = lm.config.get("bos_token_id")
    lead = ids[:1] if bos is not None and int(ids[0]) == bos else ids[:0]
    passage = ids[lead.numel():lead.numel() + COPY_TOKENS]
    return torch.cat((lead, passage, passage)), lead.numel() + passage.numel()


def recall_ids(lm: RealModel) -> list[tuple[torch.Tensor, int]]:
    """Each RECALL prompt with its answer, as (ids, the index of the answer's first token)."""
    found = []
    for prompt, answer in RECALL:
        start = lm.encode(prompt).numel()
        found.append((lm.encode(prompt + answer), start))
    return found


def intervene(lm: RealModel, ids, p: Pairs, seed: int = SEED) -> Effects:
    """Every intervention on the text, the copying task and the recall task: four passes of each input, run
    together (float32); and the sinks past the trained length (frayed)."""
    ids = _checked_ids(lm, ids)
    variants = edits(lm, p, seed)
    names = list(variants)

    def losses(tokens: torch.Tensor) -> torch.Tensor:
        return lm.variant_losses(tokens, list(variants.values()), precision="float32")

    text = losses(ids).mean(-1)
    doubled, second = copy_ids(lm, ids)
    copy = losses(doubled)[:, second:].mean(-1)  # the loss of token i + 1 sits at i: the second copy after its first
    recall = torch.stack([losses(tokens)[:, start - 1:].mean(-1) for tokens, start in recall_ids(lm)]).mean(0)
    changed = int(massive(p.queries).sum() + massive(p.keys).sum())
    text_, copy_, recall_ = ({n: float(v) for n, v in zip(names, row)} for row in (text, copy, recall))
    return Effects(text_, copy_, recall_, changed, {kind: len(below_band(p, kind)) for kind in sorted(set(p.kinds))},
                   p.spike_layer, frayed(lm, ids, p))
