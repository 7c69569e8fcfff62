"""The real-models page's view: RoPE measured inside Gemma 3 270M and SmolLM2-135M-Instruct (rope_viz.real) on one
text, as plain numbers and the sentences they make.

The shipped examples' measurements are recorded in results/real/examples.json (`python -m
explorer.pure.views.real_models` writes it), so a first visit runs at most one forward pass (the attention map of the
chosen layer); a visitor's own text is measured live. Token texts are the tokenizer's own strings: the page shows
them as text, never as markup."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch

from rope_viz.analysis import decay_bound
from rope_viz import real_model
from rope_viz.real import NAMES
from rope_viz.real.long_context import scaled_layers
from rope_viz.real.decoder import Variant
from rope_viz.real.measure import (TRAPS, Relativity, Stopped, applies, head_roles, interventions_precision,
                                   mean_losses, offset_profile, pair_shares, predictions, relativity, trap_loss)
from rope_viz.real.speed import cpu_kind, forward_s
from rope_viz.real.measure import interventions as measure_interventions

from explorer.pure.views.phrases import Phrase, counted, phrase
from explorer.pure.questions import Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("attention", "strip", "roles", "offsets", "shares", "traps", "long")

DEFAULT_MODEL = "smollm2-135m"
MAX_CHARS = 2000  # the visitor's text is cut here, then to MAX_TOKENS tokens
MAX_TOKENS = 256
MIN_TOKENS = 2  # a text the model can predict something in: one token and the next
FIRST_GUESSES = 2  # tokens guessed from one or two tokens before them: left out of the hardest one
SHIFT = 5000  # the default shift of every position, recorded for the examples
TRAP_LAYER = 0  # the default layer RoPE is taken from, recorded for the examples
MAX_OFFSET = 32  # the offset profile's reach
MAP_SIDE = 128  # the attention map's largest side (every s-th token past it)
NEEDS_GB = {"gemma-3-270m": 1.0, "smollm2-135m": 0.65}  # resident memory a model adds once it has run (README)
MIN_CORES = 0.5  # below this, a visitor's own text skips the ten-pass sections (traps, stopped quarters, spread)
SHIPPED = Path(__file__).resolve().parents[3] / "results" / "real" / "examples.json"
EXAMPLES = {
    "prose": "The lighthouse keeper climbed the spiral stairs an hour before dusk, as he had every evening for thirty "
             "years. He wiped salt from the great lens, trimmed the wick, and checked the clockwork that turned the "
             "light once every twenty seconds. Ships far out at sea counted those flashes to know which coast they "
             "were passing. One winter the mechanism jammed during a storm, and he turned the lens by hand until "
             "morning, counting the seconds aloud so that the rhythm never broke. When the inspectors asked him later "
             "how he had kept the timing so steady, he said he had simply hummed the same old song, slowly, over and "
             "over, all through the night.",
    "chinese": "清晨六点，老街上的早点铺已经开门了。师傅把面团揉好，切成一条条，放进滚烫的油锅里，油条很快就鼓了起来，"
               "变成金黄色。隔壁的豆浆刚磨好，冒着热气。上学的孩子背着书包跑过来，买一根油条、一碗豆浆，边走边吃。"
               "等太阳升高，铺子前的队伍才慢慢散去。",
    "code": 'def moving_average(values, window):\n'
            '    """Return the mean of each run of `window` consecutive values."""\n'
            '    if window <= 0:\n        raise ValueError("window must be positive")\n    averages = []\n'
            "    total = sum(values[:window])\n    averages.append(total / window)\n"
            "    for i in range(window, len(values)):\n        total += values[i] - values[i - window]\n"
            "        averages.append(total / window)\n    return averages\n\n\n"
            "print(moving_average([3, 5, 7, 9, 11, 13], 3))\n",
    "list": "Packing list for a three-day hiking trip:\n1. Tent, poles and pegs\n2. Sleeping bag rated to minus five "
            "degrees\n3. Stove, a small gas canister and a lighter\n4. Two litres of water and purifying tablets\n"
            "5. Rain jacket and warm gloves\n6. Map, compass and a charged phone\n7. First-aid kit with blister "
            "plasters\n8. Oats, rice, dried fruit and chocolate\n9. Head torch with spare batteries\n10. Sun cream, "
            "hat and sunglasses",
}


@dataclass(frozen=True)
class Reading:
    """What the model reads of a text: ids (at most MAX_TOKENS), the characters given and kept, the tokens the kept
    characters make (before the token cap)."""

    ids: tuple[int, ...]
    chars: int
    kept_chars: int
    tokens: int

    @property
    def cut(self) -> bool:
        return self.kept_chars < self.chars or len(self.ids) < self.tokens


def read(name: str, text: str) -> Reading:
    lm = real_model(name)
    kept = text[:MAX_CHARS]
    ids = lm.encode(kept).tolist()
    return Reading(tuple(ids[:MAX_TOKENS]), len(text), len(kept), len(ids))


class LayerFacts(NamedTuple):
    """One layer as the page draws it: its attention kind, window (0: none), RoPE base and rotated dims."""
    attention: str
    window: int
    base: float
    rotary_dim: int


@dataclass(frozen=True)
class Said:
    """What the model predicts on the text (one float32 pass): tokens, each token's text; guesses / guess_probs, the
    most likely next token after each position and its probability; losses, nats of each actual next token (one
    fewer); loss, their mean; top1, the share of positions whose most likely next token came."""

    tokens: tuple[str, ...]
    guesses: tuple[str, ...]
    guess_probs: tuple[float, ...]
    losses: tuple[float, ...]
    loss: float
    top1: float


@dataclass(frozen=True)
class Looks:
    """Where the heads look and which pairs they use (one float32 pass keeping every layer's attention): previous /
    first, (layers, heads) mean weight on the previous and on the first token; profiles, (layers, heads,
    MAX_OFFSET + 1) mean weight by offset; shares, (layers, heads, pairs) each pair's share of |q.k|; tokens, how
    many the text has."""

    tokens: int
    previous: tuple
    first: tuple
    profiles: tuple
    shares: tuple


@dataclass(frozen=True)
class Interventions:
    """The interventions' losses: stopped quarters, and traps as (trap, mean loss) with "none" first and
    no_rope_layer taken from layer TRAP_LAYER; precision: their matmuls' ("float32" or "bfloat16", chosen by timing
    the host: rope_viz.real.measure.interventions_precision)."""

    stopped: Stopped
    traps: tuple[tuple[str, float], ...]
    precision: str


@dataclass(frozen=True)
class Measured:
    """Everything measured on one text in one model, section by section (plain values; tuples nest as layers x
    heads x ...): label, the model's name to show; layers, each layer's LayerFacts, so that the recorded numbers are
    drawn without the model; relativity at SHIFT."""

    name: str
    label: str
    layers: tuple[LayerFacts, ...]
    reading: Reading
    said: Said
    looks: Looks
    relativity: Relativity
    interventions: Interventions


def _nested(values: list | tuple) -> tuple:
    """Nested lists as nested tuples of floats."""
    return tuple(_nested(v) if isinstance(v, list | tuple) else float(v) for v in values)


def _tensor_tuple(tensor: torch.Tensor) -> tuple:
    return _nested(tensor.double().tolist())


def layer_facts(name: str) -> tuple[LayerFacts, ...]:
    return tuple(LayerFacts(x.attention, int(x.window or 0), float(x.base), int(x.rotary_dim))
                 for x in real_model(name).rope.layers)


def head_count(name: str) -> int:
    return int(real_model(name).heads)


def said(name: str, ids: tuple[int, ...]) -> Said:
    """One float32 pass: the predictions (the page's first measured section)."""
    lm, tensor = real_model(name), torch.tensor(ids)
    found = predictions(lm, tensor)
    top1 = float((found.top_ids[:-1] == tensor[1:]).double().mean()) if len(ids) > 1 else 0.0
    return Said(tuple(lm.token_texts(tensor)), tuple(lm.next_token_texts(tensor, found.top_ids)),
                _nested(found.top_probs.tolist()), _nested(found.losses.tolist()), found.loss, top1)


def looks(name: str, ids: tuple[int, ...]) -> Looks:
    """One float32 pass keeping every layer's attention, queries and keys (no logits)."""
    lm, tensor = real_model(name), torch.tensor(ids)
    layers = range(len(lm.rope.layers))
    run = lm.forward(tensor, capture=layers, stop_after=layers[-1])
    previous, first = head_roles(run.attention, len(layers))
    rotary = lm.rope.layers
    shares = [pair_shares(run.queries[i], run.keys[i], rotary[i].layout, rotary[i].rotary_dim) for i in layers]
    return Looks(len(ids), _tensor_tuple(previous), _tensor_tuple(first),
                 tuple(_tensor_tuple(offset_profile(run.attention[i], MAX_OFFSET)) for i in layers),
                 tuple(_tensor_tuple(s) for s in shares))


def interventions(name: str, ids: tuple[int, ...]) -> Interventions:
    """The stopped quarters and the traps: about ten passes at the host's precision, one baseline shared."""
    lm, tensor = real_model(name), torch.tensor(ids)
    stopped, found = measure_interventions(lm, tensor, TRAP_LAYER)
    return Interventions(stopped, tuple(found.items()), interventions_precision(lm))


def compute(name: str, text: str) -> Measured:
    """Measure `text` (cut as `read` cuts it) in model `name`, every section."""
    reading = read(name, text)
    return Measured(name, real_model(name).label, layer_facts(name), reading, said(name, reading.ids),
                    looks(name, reading.ids), relativity_at(name, reading.ids, SHIFT),
                    interventions(name, reading.ids))


def _from_json(entry: dict) -> Measured:
    said_, looks_, done = entry["said"], entry["looks"], entry["interventions"]
    return Measured(
        entry["name"], entry["label"],
        tuple(LayerFacts(kind, int(window), float(base), int(dims)) for kind, window, base, dims in entry["layers"]),
        Reading(tuple(entry["reading"]["ids"]), *(entry["reading"][k] for k in ("chars", "kept_chars", "tokens"))),
        Said(tuple(said_["tokens"]), tuple(said_["guesses"]), _nested(said_["guess_probs"]), _nested(said_["losses"]),
             float(said_["loss"]), float(said_["top1"])),
        Looks(int(looks_["tokens"]), *(_nested(looks_[key]) for key in ("previous", "first", "profiles", "shares"))),
        Relativity(**entry["relativity"]),
        Interventions(Stopped(**done["stopped"]), tuple((trap, float(loss)) for trap, loss in done["traps"]),
                      done["precision"]))


def shipped() -> dict[tuple[str, str], Measured]:
    """{(model name, example name): Measured} as recorded in results/real/examples.json ({} when absent)."""
    if not SHIPPED.exists():
        return {}
    found = json.loads(SHIPPED.read_text(encoding="utf-8"))
    return {(e["name"], key): _from_json(e["measured"]) for e in found["entries"] for key in [e["example"]]
            if EXAMPLES.get(key) == e["text"]}


def recorded(name: str, text: str) -> Measured | None:
    """The recorded measurement when `text` is a shipped example, else None."""
    example = next((key for key, value in EXAMPLES.items() if value == text), None)
    return shipped().get((name, example)) if example else None


def _rounded(value):
    """Floats to 6 significant digits (the recorded file's precision), containers kept."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return float(f"{value:.6g}") if isinstance(value, float) else value


def write_examples(path: Path = SHIPPED) -> None:
    entries = [{"name": name, "example": key, "text": text, "measured": _rounded(asdict(compute(name, text)))}
               for name in NAMES for key, text in EXAMPLES.items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    precisions = sorted({e["measured"]["interventions"]["precision"] for e in entries})
    path.write_text(json.dumps({"command": "python -m explorer.pure.views.real_models", "cpu": cpu_kind(),
                                "interventions_precision": precisions, "entries": entries},
                               ensure_ascii=False) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------- live, per knob
@dataclass(frozen=True)
class AttentionMap:
    """weights: (heads, k, k) float32, every s-th query and key (s = 1 up to MAP_SIDE tokens); kept: their
    indices."""

    weights: np.ndarray
    kept: np.ndarray


def attention_map(name: str, ids: tuple[int, ...], layer: int) -> AttentionMap:
    """The layers up to `layer` only, no logits: a fraction of a pass."""
    lm = real_model(name)
    weights = lm.forward(torch.tensor(ids), capture=[layer], stop_after=layer).attention[layer]
    step = max(1, math.ceil(len(ids) / MAP_SIDE))
    kept = np.arange(0, len(ids), step)
    return AttentionMap(weights[:, kept][:, :, kept].numpy().astype(np.float32), kept.astype(np.int32))


def relativity_at(name: str, ids: tuple[int, ...], shift: int, doubled_from: Relativity | None = None) -> Relativity:
    """Every position shifted by `shift`, and doubled (or the doubled figures of `doubled_from`, the same text)."""
    return relativity(real_model(name), torch.tensor(ids), shift, doubled_from)


def without_rope_in(name: str, ids: tuple[int, ...], layer: int) -> float:
    """Mean next-token loss with RoPE taken from one layer (at the interventions' precision)."""
    return trap_loss(real_model(name), torch.tensor(ids), "no_rope_layer", layer)


def expected_s(name: str, section: str, tokens: int, layer: int = 0) -> float:
    """The seconds a section of a text of `tokens` tokens is expected to take on this host before it has run here:
    its forward passes (all layers and the head unless said) at their precision, from speed.forward_s."""
    lm = real_model(name)
    if section in ("map", "looks"):  # no head; the map only the layers up to its own
        return forward_s(lm, tokens, layers=layer + 1 if section == "map" else None, head=False)
    precision = interventions_precision(lm) if section in ("interventions", "no_rope", "spaced") else "float32"
    passes = {"said": 1, "relativity": 3, "no_rope": 1, "spaced": len(SPACED_METHODS),
              "interventions": 3 + sum(applies(lm, trap) for trap in TRAPS)}[section]
    return passes * forward_s(lm, tokens, precision=precision)


# ---------------------------------------------------------------------------------------------- what it says
def signed(change: float) -> str:
    """A change of loss with its sign, to 3 decimals ("+0.000" for one that rounds to nothing)."""
    return f"{change:+.3f}" if round(change, 3) else "+0.000"


def loss_words(before: float, after: float) -> str:
    """The direction of a change of loss, as a text key suffix: "up", "down" or "same" (within 0.005 nats)."""
    return "same" if abs(after - before) < 0.005 else ("up" if after > before else "down")


def loss_text(loss: float) -> str:
    """A mean loss in nats as the page writes it everywhere: 3 decimals."""
    return f"{loss:.3f}"


def summary(m: Said) -> Phrase:
    """The reading in one sentence; its hardest token is chosen past the first FIRST_GUESSES tokens, which the
    model guesses from one or two tokens (SmolLM2 reads no beginning-of-text token: its second token is a guess
    from a single word), unless the text has no others."""
    skipped = FIRST_GUESSES if len(m.losses) > FIRST_GUESSES else 0
    later = m.losses[skipped:]
    hardest = skipped + int(np.argmax(later)) + 1
    return phrase("real_models.summary" if skipped else "real_models.summary_short", tokens=len(m.tokens),
                  loss=loss_text(m.loss), perplexity=f"{math.exp(m.loss):,.1f}", top1=f"{m.top1:.0%}",
                  hardest=token_label(m.tokens[hardest], 24), hardest_loss=f"{max(later):.1f}", skipped=skipped)


def anatomy_lines(layers: tuple[LayerFacts, ...]) -> tuple[Phrase, ...]:
    """One sentence per kind of layer: how many, their window, base and rotated dims."""
    kinds = Counter(layers).items()
    return tuple(counted(f"real_models.anatomy_{kind}", count, number=count, layers=len(layers), window=f"{window:,}",
                        base=f"{base:,.0f}", dims=dims) for (kind, window, base, dims), count in kinds)


def relativity_lines(r: Relativity) -> tuple[Phrase, Phrase]:
    return (phrase("real_models.shift_line", shift=f"{r.shift:,}", residual=f"{r.residual_shift:.1e}",
                   loss=loss_text(r.loss), loss_shift=loss_text(r.loss_shift), top1=f"{r.top1_shift:.0%}"),
            phrase(f"real_models.doubled_line_{loss_words(r.loss, r.loss_doubled)}",
                   residual=f"{r.residual_doubled:.2f}", loss=loss_text(r.loss), loss_doubled=loss_text(r.loss_doubled),
                   top1=f"{r.top1_doubled:.0%}"))


def roles_line(m: Looks) -> Phrase:
    previous, first = np.array(m.previous), np.array(m.first)
    layer, head = np.unravel_index(int(previous.argmax()), previous.shape)
    sinks = int((first > 0.5).sum())
    return phrase("real_models.roles_line", layer=int(layer), head=int(head), weight=f"{previous.max():.0%}",
                  sinks=sinks, heads=first.size, mean_first=f"{first.mean():.0%}")


@dataclass(frozen=True)
class Profile:
    """One layer's mean weight by offset (heads, MAX_OFFSET + 1), each head divided by its largest value, beside
    RoFormer's decay bound divided by its value at offset 0; near: each head's share of weight on offsets 0-2
    among offsets 0..reach (the largest offset the text has, at most MAX_OFFSET)."""

    offsets: np.ndarray
    heads: np.ndarray
    bound: np.ndarray
    near: np.ndarray
    reach: int


def profile(m: Looks, layers: tuple[LayerFacts, ...], layer: int) -> Profile:
    base, rotary_dim = layers[layer].base, layers[layer].rotary_dim
    weights = np.array(m.profiles[layer], dtype=np.float64)
    offsets = np.arange(MAX_OFFSET + 1)
    bound = decay_bound(rotary_dim, base, torch.tensor(offsets, dtype=torch.float64)).numpy()
    scaled = weights / np.nanmax(weights, axis=-1, keepdims=True)
    near = np.nansum(weights[:, :3], -1) / np.nansum(weights, -1)
    reach = min(MAX_OFFSET, m.tokens - 1)
    return Profile(offsets, scaled.astype(np.float32), (bound / bound[0]).astype(np.float32), near, reach)


def profile_line(m: Looks, layers: tuple[LayerFacts, ...], layer: int) -> Phrase:
    found = profile(m, layers, layer)
    head = int(found.near.argmax())
    return phrase("real_models.profile_line", layer=layer, head=head, near=f"{found.near[head]:.0%}",
                  far=f"{found.near.min():.0%}", reach=found.reach, bound=f"{found.bound[found.reach]:.0%}")


def quarter_shares(shares: np.ndarray) -> tuple[float, float]:
    """(fastest, slowest): the mean share of the first and of the last quarter of the pairs (shares: (..., pairs))."""
    quarter = shares.shape[-1] // 4
    return float(shares[..., :quarter].sum(-1).mean()), float(shares[..., -quarter:].sum(-1).mean())


def shares_lines(m: Looks, layers: tuple[LayerFacts, ...], layer: int) -> tuple[Phrase, ...]:
    fast, slow = quarter_shares(np.array(m.shares[layer]))
    lines = [phrase("real_models.shares_line", layer=layer, fast=f"{fast:.0%}", slow=f"{slow:.0%}")]
    kinds = by_kind(m, layers)
    if len(kinds) == 2:
        (local_fast, local_slow), (global_fast, global_slow) = (quarter_shares(v) for v in kinds.values())
        lines.append(phrase("real_models.kinds_line", local_slow=f"{local_slow:.0%}", global_slow=f"{global_slow:.0%}",
                            local_fast=f"{local_fast:.0%}", global_fast=f"{global_fast:.0%}"))
    return tuple(lines)


def by_kind(m: Looks, layers: tuple[LayerFacts, ...]) -> dict[str, np.ndarray]:
    """{attention kind: (layers of that kind x heads, pairs) shares}, sliding layers first."""
    shares = np.array(m.shares)
    kinds = sorted({x.attention for x in layers}, key=lambda k: k != "sliding_attention")
    return {kind: shares[[i for i, x in enumerate(layers) if x.attention == kind]].reshape(-1, shares.shape[-1])
            for kind in kinds}


def stopped_lines(s: Stopped) -> tuple[Phrase, Phrase]:
    def line(which: str, value: float) -> Phrase:
        return phrase(f"real_models.stopped_{which}_{loss_words(s.loss, value)}", loss=f"{s.loss:.3f}",
                      stopped=f"{value:.3f}", change=signed(value - s.loss))
    return line("fastest", s.fastest), line("slowest", s.slowest)


@dataclass(frozen=True)
class Trap:
    trap: str
    loss: float
    rise: float


def traps(m: Interventions, no_rope_loss: float | None = None) -> tuple[Trap, ...]:
    """"none" and every trap that applies, with its rise over no trap; no_rope_loss replaces the recorded one-layer loss
    (another layer than TRAP_LAYER)."""
    found = dict(m.traps)
    if no_rope_loss is not None:
        found["no_rope_layer"] = no_rope_loss
    return tuple(Trap(trap, found[trap], found[trap] - found["none"]) for trap in ("none", *TRAPS) if trap in found)


def trap_line(trap: Trap, layer: int) -> Phrase:
    return phrase(f"real_models.trap_{loss_words(0.0, trap.rise)}", trap=phrase(f"real_models.trap_{trap.trap}",
                  layer=layer), loss=f"{trap.loss:.3f}", rise=signed(trap.rise))


@dataclass(frozen=True)
class Strip:
    """The model's layers as Model anatomy's layer strip draws them: (1, layers) kind names, bases and rotary
    dims."""

    kinds: np.ndarray
    bases: np.ndarray
    dims: np.ndarray


def strip(layers: tuple[LayerFacts, ...]) -> Strip:
    return Strip(np.array([[x.attention for x in layers]], dtype=object),
                 np.array([[x.base for x in layers]], dtype=np.float64),
                 np.array([[x.rotary_dim for x in layers]], dtype=np.float64))


def token_label(token: str, width: int = 12) -> str:
    """A token's text on a chart or in a table: spaces, line breaks and tabs made visible, cut to `width`."""
    shown = token.replace(" ", "\u2423").replace("\n", "\u21b5").replace("\t", "\u21e5")
    return shown if len(shown) <= width else shown[:width - 1] + "\u2026"


# ---------------------------------------------------------------------------------------------- past the context
LONG_CONTEXT = SHIPPED.parent / "long_context.json"  # `python -m rope_viz.real long-context`
SPACED_METHODS = ("none", "linear", "ntk", "yarn")


class Prompt(NamedTuple):
    """A passkey prompt: its length in tokens and the depth the key is hidden at (a share of the length)."""
    length: int
    depth: float


class PasskeyCell(NamedTuple):
    """One method on one prompt: whether its greedy answer was the key, the answer, the mean log-probability of
    the key's tokens, and the key asked for."""
    correct: bool
    greedy: str
    logprob: float
    key: int


@dataclass(frozen=True)
class LongContext:
    """The recorded grid: the model's name and label, trained context, factor, tokens scored and positions per
    bucket, bucket starts, {method: mean loss per bucket}; the passkey prompts as columns and {method: a
    PasskeyCell per column}."""

    name: str
    label: str
    context: int
    factor: float
    tokens: int
    bucket: int
    starts: np.ndarray
    losses: dict[str, np.ndarray]
    columns: tuple[Prompt, ...]
    passkeys: dict[str, tuple[PasskeyCell, ...]]


def long_context() -> LongContext | None:
    if not LONG_CONTEXT.exists():
        return None
    grid = json.loads(LONG_CONTEXT.read_text(encoding="utf-8"))
    methods = grid["methods"]
    starts = np.array([b["start"] for b in grid["loss"][methods[0]]["buckets"]])
    losses = {m: np.array([b["mean_nats"] for b in grid["loss"][m]["buckets"]], np.float32) for m in methods}
    columns = tuple(Prompt(int(length), float(depth)) for length in grid["grid"]["lengths"]
                    for depth in grid["grid"]["depths_by_length"][str(length)])
    passkeys = {m: tuple(PasskeyCell(cell["correct"], cell["greedy"], cell["mean_logprob"], int(cell["key"]))
                         for cell in (grid["passkey"][m][str(length)][str(depth)] for length, depth in columns))
                for m in methods}
    model = grid["model"]
    return LongContext(model["name"], model["label"], model["context"], grid["factor"], grid["grid"]["loss_length"],
                       grid["grid"]["bucket"], starts, losses, columns, passkeys)


def long_context_line(found: LongContext) -> Phrase:
    """The losses in the last bucket (past the trained context) against the first, best method named."""
    last = {method: float(values[-1]) for method, values in found.losses.items()}
    best, second = sorted(last, key=last.__getitem__)[:2]
    named = second if best == "none" else best  # the model's own RoPE lowest: the runner-up is named
    start = int(found.starts[-1])
    return phrase("real_models.long_line_own" if best == "none" else "real_models.long_line", model=found.label,
                  context=f"{found.context:,}", start=f"{start:,}", stop=f"{min(start + found.bucket, found.tokens):,}",
                  times=f"{(start + found.bucket) / found.context:.1f}", none=f"{last['none']:.3f}",
                  best=phrase(f"real_models.method_{named}"), best_loss=f"{last[named]:.3f}",
                  factor=f"{found.factor:g}")


def passkey_lines(found: LongContext) -> list[Phrase]:
    """For each prompt length: how many methods found the key at every depth, and which ones missed."""
    lines = []
    for length in dict.fromkeys(prompt.length for prompt in found.columns):
        index = [i for i, prompt in enumerate(found.columns) if prompt.length == length]
        missed = [m for m, cells in found.passkeys.items() if not all(cells[i].correct for i in index)]
        where = "inside" if length <= found.context else "past"
        key = f"real_models.passkey_{where}" + ("_all" if not missed else "")
        lines.append(phrase(key, length=f"{length:,}", context=f"{found.context:,}", depths=len(index),
                            found=len(found.passkeys) - len(missed), methods=len(found.passkeys),
                            missed=tuple(phrase(f"real_models.method_{m}") for m in missed)))
    return lines


def spaced_losses(name: str, ids: tuple[int, ...], spacing: int) -> dict[str, float]:
    """{method: mean next-token loss} of the text with its tokens `spacing` positions apart (positions 0, s,
    2s, ...), read with the model's own RoPE ("none") and with each scaling of SPACED_METHODS at factor `spacing`
    (methods that do not apply to the model's layers are left out)."""
    lm = real_model(name)
    positions = torch.arange(len(ids)) * spacing
    variants = {}
    for method in SPACED_METHODS:
        try:
            variants[method] = Variant(positions, scaled_layers(lm, method, float(spacing)))
        except ValueError:
            continue
    return mean_losses(lm, torch.tensor(ids), variants)


if __name__ == "__main__":
    write_examples()


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("shift"), Question("precision_start"))
