"""The pairs-in-real-models page's view: what SmolLM2-135M and Gemma 3 270M do with RoPE's pairs on one text
(rope_viz.real.pairs), as plain numbers, and each published claim checked against them in one sentence.

The shipped examples' numbers are recorded in results/real/pairs.json (`python -m
explorer.pure.views.pairs_in_real_models`, which writes it); a visitor's own text is measured live, in two steps:
the measurement (one float32 pass) and the interventions (four passes of the text, the copying task and each
recall prompt, run together). Every verdict is computed from the numbers, never written in."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from rope_viz import real_model
from rope_viz.real import NAMES
from rope_viz.real import pairs as core
from explorer.pure.questions import Question
from explorer.pure.views.phrases import Phrase, counted, phrase
from explorer.pure.views.real_models import EXAMPLES, SHIPPED as REAL_SHIPPED, Reading, read, signed

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("layer", "where", "sinks", "first_norm", "effects")

SHIPPED = REAL_SHIPPED.parent / "pairs.json"
COMMAND = "python -m explorer.pure.views.pairs_in_real_models"
POSITIONAL = 0.5  # a previous-token head gives the previous token at least this mean weight
NEAR = 8  # "just past" the boundary: within an eighth of the pairs after it
SMALL_RISE = 0.05  # nats: a loss that moves less has "little loss"
SINK_SHARE = 0.5  # "most heads" are sinks
PERPLEXITY_JUMP = 2.0  # removing the first token's MLP output "multiplies" the perplexity at least this much
FRAY = 0.9  # past the trained length a sink measure "falls" when it ends below this share of its value inside
VERDICTS = ("holds", "partly", "not")
P = "pairs_in_real_models"


@dataclass(frozen=True)
class Found:
    """Everything measured on one text in one model: the model's name and label, what it read, its layers' attention
    kinds, bases and trained lengths, the measurement (core.Pairs) and the interventions' losses (core.Effects)."""

    name: str
    label: str
    reading: Reading
    bases: tuple[float, ...]
    trained: tuple[int, ...]
    pairs: core.Pairs
    effects: core.Effects


def measured(name: str, ids: tuple[int, ...]) -> core.Pairs:
    """One float32 pass (the page's first section)."""
    return core.measure(real_model(name), torch.tensor(ids))


def effects(name: str, ids: tuple[int, ...], found: core.Pairs) -> core.Effects:
    """The interventions, float32 (the page's second section)."""
    return core.intervene(real_model(name), torch.tensor(ids), found)


def layer_facts(name: str) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """(each layer's base, each layer's trained length)."""
    lm = real_model(name)
    return (tuple(float(x.base) for x in lm.rope.layers),
            tuple(core.trained_length(lm, x.index) for x in lm.rope.layers))


def compute(name: str, text: str) -> Found:
    reading = read(name, text)
    found = measured(name, reading.ids)
    return Found(name, real_model(name).label, reading, *layer_facts(name), found,
                 effects(name, reading.ids, found))


# ---------------------------------------------------------------------------------------------- the record
KEPT = ("queries", "keys", "values", "first", "previous", "shares", "first_norm", "other_norm", "pairs")


def _rounded(value):
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return float(f"{value:.5g}") if isinstance(value, float) else value


def to_json(f: Found) -> dict:
    p = f.pairs
    return {"name": f.name, "label": f.label, "reading": asdict(f.reading), "bases": f.bases, "trained": f.trained,
            "pairs": {key: _rounded(getattr(p, key).tolist()) for key in KEPT} |
            {"boundaries": p.boundaries, "kinds": p.kinds},
            "effects": {key: _rounded(value) if isinstance(value, float) else value
                        for key, value in asdict(f.effects).items()}}


def from_json(entry: dict) -> Found:
    p, e = entry["pairs"], entry["effects"]
    tensors = {key: torch.tensor(p[key], dtype=torch.int64 if key == "pairs" else torch.float64) for key in KEPT}
    empty = torch.empty(0)
    found = core.Pairs(query_means=empty, key_means=empty, boundaries=tuple(p["boundaries"]),
                       kinds=tuple(p["kinds"]), **tensors)
    r = entry["reading"]
    return Found(entry["name"], entry["label"], Reading(tuple(r["ids"]), r["chars"], r["kept_chars"], r["tokens"]),
                 tuple(entry["bases"]), tuple(entry["trained"]), found, core.Effects(**e))


def shipped(path: Path = SHIPPED) -> dict[tuple[str, str], Found]:
    """{(model name, example name): Found} as recorded ({} when absent); an entry whose text is no longer the
    example's is left out."""
    if not path.exists():
        return {}
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {(e["name"], e["example"]): from_json(e["found"]) for e in doc["entries"]
            if EXAMPLES.get(e["example"]) == e["text"]}


def write_examples(examples=tuple(EXAMPLES), names=NAMES, path: Path = SHIPPED) -> None:
    """Measure each example in each model and write the record, keeping recorded entries not measured again."""
    kept = json.loads(path.read_text(encoding="utf-8"))["entries"] if path.exists() else []
    done = {(e["name"], e["example"]): e for e in kept}
    for name in names:
        for key in examples:
            done[(name, key)] = {"name": name, "example": key, "text": EXAMPLES[key],
                                 "found": to_json(compute(name, EXAMPLES[key]))}
            path.write_text(json.dumps({"command": COMMAND, "entries": list(done.values())}, ensure_ascii=False)
                            + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------- what is drawn
def ratios(norms: torch.Tensor) -> np.ndarray:
    """Each coordinate's norm over its head's mean (the massive criterion's ratio), float32."""
    return (norms / norms.mean(-1, keepdim=True)).numpy().astype(np.float32)


def by_pair(ratio: np.ndarray, pairs: torch.Tensor) -> np.ndarray:
    """(..., pairs): the larger ratio of each pair's two coordinates (coordinates that never turn left out)."""
    count = int(pairs.max()) + 1
    out = np.zeros((*ratio.shape[:-1], count), np.float32)
    for dim, pair in enumerate(pairs.tolist()):
        if pair >= 0:
            out[..., pair] = np.maximum(out[..., pair], ratio[..., dim])
    return out


def layer_panels(p: core.Pairs, layer: int) -> dict[str, np.ndarray]:
    """{"queries" | "keys" | "values": (heads, pairs) the larger coordinate ratio of each pair} in one layer (values:
    their coordinates grouped as the keys' are, for the contrast)."""
    return {kind: by_pair(ratios(getattr(p, kind)[layer]), p.pairs) for kind in ("queries", "keys", "values")}


def kinds(p: core.Pairs) -> list[str]:
    """The attention kinds present, sliding layers first."""
    return sorted(set(p.kinds), key=lambda k: k != "sliding_attention")


def massive_by_pair(p: core.Pairs, what: str, kind: str) -> np.ndarray:
    """(pairs,) float32: how many heads (over the layers of `kind`) have a massive coordinate of `what` in each
    pair."""
    rows = [i for i, k in enumerate(p.kinds) if k == kind]
    found = core.massive(getattr(p, what)[rows])
    count = int(p.pairs.max()) + 1
    out = np.zeros(count, np.float32)
    for dim, pair in enumerate(p.pairs.tolist()):
        if pair >= 0:
            out[pair] += float(found[..., dim].sum())
    return out


def boundary(p: core.Pairs, kind: str) -> int:
    return p.boundaries[p.kinds.index(kind)]


def ppl_ratio(before: float, after: float) -> float:
    return float(np.exp(after - before))


# ---------------------------------------------------------------------------------------------- the claims
def verdict(checks: list[bool]) -> str:
    """holds (every check), partly (some), not (none)."""
    return "holds" if all(checks) else "partly" if any(checks) else "not"


@dataclass(frozen=True)
class Claim:
    """A claim checked: its name (the text key), the verdict, the checks it rests on, and its sentence."""

    name: str
    verdict: str
    checks: tuple[bool, ...]
    sentence: Phrase


def _rise(e: core.Effects, task: str, what: str) -> float:
    found = getattr(e, task)
    return found[what] - found["none"]


def _said(name: str, checks: list[bool], **args) -> Claim:
    v = verdict(checks)
    return Claim(name, v, tuple(checks), phrase(f"{P}.claim_{name}", verdict=phrase(f"{P}.verdict_{v}"), **args))


def claim_massive(f: Found) -> Claim:
    """Jin et al.: queries and keys, not values, carry massive coordinates, in the slower pairs; disrupting them
    hurts reading the context more than recalling stored facts."""
    p, e = f.pairs, f.effects
    mq, mk, mv = (core.massive(getattr(p, k)) for k in ("queries", "keys", "values"))
    qk, total_qk = int(mq.sum() + mk.sum()), mq.numel() + mk.numel()
    v = int(mv.sum())
    rate_qk, rate_v = qk / total_qk, v / mv.numel()
    pairs = int(p.pairs.max()) + 1
    slow = (p.pairs >= pairs // 2) & (p.pairs >= 0)
    in_slow = int(mq[..., slow].sum() + mk[..., slow].sum())
    copy, recall = _rise(e, "copy", "massive"), _rise(e, "recall", "massive")
    copy_r, recall_r = _rise(e, "copy", "random"), _rise(e, "recall", "random")
    checks = [rate_qk > 2 * rate_v, qk > 0 and in_slow > qk / 2, copy > recall and copy > copy_r]
    return _said("massive", checks, qk=f"{qk:,}", total_qk=f"{total_qk:,}", rate_qk=f"{rate_qk:.2%}", v=f"{v:,}",
                 total_v=f"{mv.numel():,}", rate_v=f"{rate_v:.2%}", slow=f"{in_slow / max(qk, 1):.0%}",
                 copy=f"{copy:+.2f}", recall=f"{recall:+.2f}", copy_random=f"{copy_r:+.2f}",
                 recall_random=f"{recall_r:+.2f}")


def peak_pair(p: core.Pairs, kind: str) -> int | None:
    counts = massive_by_pair(p, "keys", kind)
    return int(counts.argmax()) if counts.any() else None


def claim_where(f: Found) -> Claim:
    """Jonasson: the massive key pairs sit just past the first pair that never turns a full cycle in training."""
    p = f.pairs
    pairs = int(p.pairs.max()) + 1
    checks, parts = [], []
    for kind in kinds(p):
        b, peak = boundary(p, kind), peak_pair(p, kind)
        checks.append(peak is not None and b <= peak < b + max(1, pairs // NEAR))
        layer = p.kinds.index(kind)
        parts.append(phrase(f"{P}.where_part" if peak is not None else f"{P}.where_part_none",
                            kind=phrase(f"{P}.kind_{kind}"), peak=peak if peak is not None else "",
                            boundary=b, base=f"{f.bases[layer]:,.0f}", trained=f"{f.trained[layer]:,}"))
    return _said("where", checks, parts=tuple(parts), near=max(1, pairs // NEAR))


def claim_band(f: Found) -> Claim:
    """Oka et al.: a high-norm band; the pairs below it can be made position-free with little loss."""
    p, e = f.pairs, f.effects
    bands = [core.band(p, kind) for kind in kinds(p)]
    rise = _rise(e, "text", "nope_below")
    parts = tuple(counted(f"{P}.band_part" if b else f"{P}.band_part_none", e.below.get(kind, 0),
                          kind=phrase(f"{P}.kind_{kind}"), first=b[0] if b else "", last=b[1] if b else "",
                          below=e.below.get(kind, 0))
                  for kind, b in zip(kinds(p), bands))
    below = sum(e.below.values())
    checks = [all(b is not None for b in bands), below > 0 and abs(rise) < SMALL_RISE]
    return _said("band" if below else "band_nothing", checks, parts=parts, rise=signed(rise),
                 copy=signed(_rise(e, "copy", "nope_below")),
                 small=SMALL_RISE)


def quarters(shares: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(fastest, slowest) quarter's share of |q.k| per (layer, head)."""
    quarter = shares.shape[-1] // 4
    return shares[..., :quarter].sum(-1), shares[..., -quarter:].sum(-1)


def claim_positional(f: Found) -> Claim:
    """Barbero et al.: positional heads are built from the fastest pairs; meaning rides on the slowest."""
    p = f.pairs
    fast, slow = quarters(p.shares)
    positional = p.previous >= POSITIONAL
    count = int(positional.sum())
    pos_fast = float(fast[positional].mean()) if count else float("nan")
    other_fast = float(fast[~positional].mean())
    checks = [count > 0 and pos_fast > other_fast, float(slow.mean()) > float(fast.mean())]
    return _said("positional" if count else "positional_none", checks, count=count, heads=positional.numel(),
                 weight=f"{POSITIONAL:.0%}", pos_fast=f"{pos_fast:.0%}" if count else "",
                 other_fast=f"{other_fast:.0%}", slow=f"{float(slow.mean()):.0%}", fast=f"{float(fast.mean()):.0%}")


def claim_sink(f: Found) -> Claim:
    """Xiao et al.: most heads attend to the first token; removing the first token's MLP output where its norm
    spikes wrecks the model."""
    p, e = f.pairs, f.effects
    share = float((p.first >= core.SINK).double().mean())
    spike = p.spike_layer
    ratio = ppl_ratio(e.text["none"], e.text["sink_mlp"])
    checks = [share >= SINK_SHARE, ratio >= PERPLEXITY_JUMP]
    return _said("sink", checks, share=f"{share:.0%}", threshold=core.SINK, spike=spike,
                 before=f"{float(p.first_norm[spike]):,.0f}", after=f"{float(p.first_norm[spike + 1]):,.0f}",
                 others=f"{float(p.other_norm[spike + 1]):,.0f}", ratio=f"{ratio:,.1f}",
                 recall=f"{ppl_ratio(e.recall['none'], e.recall['sink_mlp']):,.1f}")


def claim_frayed(f: Found) -> Claim:
    """Wertheimer et al. ("Frayed RoPE"): past the trained length RoPE breaks the query/key clustering that makes
    attention sinks work: each kind's sink share and its sink heads' query-to-first-key cosine fall from just inside
    the trained length to twice as far."""
    checks, parts = [], []
    for kind in kinds(f.pairs):
        x = f.effects.frayed[kind]
        inside, past = x["inside"], x["past"]
        checks += [past["share"] < FRAY * inside["share"], past["cosine"] < FRAY * inside["cosine"]]
        parts.append(phrase(f"{P}.frayed_part", kind=phrase(f"{P}.kind_{kind}"), trained=f"{x['trained']:,}",
                            own=f"{x['own']:.0%}", inside_back=f"{inside['back'] - 1:,}",
                            inside=f"{inside['share']:.0%}", cos_inside=f"{inside['cosine']:.2f}",
                            past_back=f"{past['back'] - 1:,}", past=f"{past['share']:.0%}",
                            cos_past=f"{past['cosine']:.2f}"))
    return _said("frayed", checks, parts=tuple(parts), threshold=core.SINK, fray=f"{1 - FRAY:.0%}")


def claims(f: Found) -> tuple[Claim, ...]:
    return claim_massive(f), claim_where(f), claim_band(f), claim_positional(f), claim_sink(f), claim_frayed(f)


if __name__ == "__main__":
    chosen = sys.argv[1:] or list(EXAMPLES)
    write_examples(tuple(chosen))


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("boundary"), Question("control"))
