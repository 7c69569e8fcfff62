"""The trained-models page's view: accuracy against evaluation length from results documents (the shipped
grid or a live run), and the attention maps of the shipped weights at 1x and past the training length.

Pure functions of plain values (a results folder as a string and its file's modification time, so that a
regenerated grid is read again); no Streamlit and no text: what the page says comes back as Phrases (text
keys and their arguments), the claims with the thresholds that decide them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from rope_viz import toy

from explorer.pure.views.phrases import Metric, Phrase, counted, metric, phrase
from explorer.pure.views.sampling import downsample
from explorer.pure.questions import Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("accuracy", "map_short", "map_long", "locked")

GRID_FILE = "grid.json"
MAP_SIDE = 256     # heatmaps are drawn at most this many positions per side
MAP_SEED = 0       # the sequence the attention maps are computed on (make_batch's seed)
ENCODING_ORDER = toy.ENCODINGS
SCALING_ORDER = toy.SCALINGS


def grid_path(folder: str) -> Path:
    return Path(folder) / GRID_FILE


def grid_stamp(folder: str) -> float | None:
    """Modification time of the folder's grid.json (a cache key), None when there is none."""
    try:
        return grid_path(folder).stat().st_mtime
    except OSError:
        return None


@dataclass(frozen=True)
class Curve:
    """One (encoding, scaling)'s accuracy against evaluation length over seeds (arrays float32, one value per
    evaluation factor): the seed mean, standard deviation, smallest and largest."""
    encoding: str
    scaling: str
    seeds: tuple[int, ...]
    factors: np.ndarray
    lengths: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class Curves:
    """A grid's curves of one task, with its training length and steps (None when it has no run of it)."""
    train_len: int | None
    steps: int | None
    curves: tuple[Curve, ...]


NO_CURVES = Curves(train_len=None, steps=None, curves=())


@dataclass(frozen=True)
class Band:
    """One curve's seed mean, smallest and largest value and standard deviation at one evaluation factor."""
    mean: float
    low: float
    high: float
    std: float


def curves_from_doc(doc: dict, task: str, order: tuple = toy.POSITION_SCHEMES) -> Curves:
    """Accuracy against evaluation length for `task`, one curve per (encoding, scaling), from a validated
    results document: the mean over seeds and the band from the smallest to the largest seed. `order`: the
    encodings drawn, in order (every scheme, the two-layer grid's first; toy.SCHEMES for the four-layer grid).
    A document with runs of several training lengths keeps the first one's."""
    runs = [r for r in doc["runs"] if r["config"]["task"] == task]
    if not runs:
        return NO_CURVES
    train_len = runs[0]["config"]["train_len"]
    runs = [r for r in runs if r["config"]["train_len"] == train_len]
    rows = toy.summarize(runs)
    curves = []
    for encoding in order:
        for scaling in SCALING_ORDER:
            mine = sorted((r for r in rows if r["encoding"] == encoding and r["scaling"] == scaling),
                          key=lambda r: r["factor"])
            if not mine:
                continue
            pick = lambda key, mine=mine: np.array([r[key] for r in mine], dtype=np.float32)  # noqa: E731
            curves.append(Curve(encoding=encoding, scaling=scaling, seeds=tuple(mine[0]["seeds"]),
                                factors=pick("factor"), lengths=pick("length"), mean=pick("accuracy_mean"),
                                std=pick("accuracy_std"), low=pick("accuracy_min"), high=pick("accuracy_max")))
    return Curves(train_len=int(train_len), steps=int(runs[0]["config"]["steps"]), curves=tuple(curves))


@dataclass(frozen=True)
class ShippedGrid:
    """The shipped grid's facts: the command that made it, when, where, how long, its runs and tasks."""
    command: str
    created: str
    device: str
    torch: str
    wall_seconds: float
    runs: int
    tasks: tuple[str, ...]
    train_seconds: float


@dataclass(frozen=True)
class Unreadable:
    """A grid file that is there but cannot be read: why."""
    error: str


def shipped(folder: str, stamp: float | None) -> ShippedGrid | Unreadable | None:
    """The shipped grid's facts, Unreadable when it is malformed, None when it is missing.
    `stamp`: grid_stamp(folder), part of the cache key only."""
    path = grid_path(folder)
    if stamp is None:
        return None
    try:
        doc = toy.load_results(path)
    except ValueError as err:
        return Unreadable(str(err))
    return ShippedGrid(command=doc["command"], created=doc["created"], device=doc["device"], torch=doc["torch"],
                       wall_seconds=float(doc["wall_seconds"]), runs=len(doc["runs"]),
                       tasks=tuple(sorted({r["config"]["task"] for r in doc["runs"]})),
                       train_seconds=float(sum(r["train_seconds"] for r in doc["runs"])))


def shipped_curves(folder: str, stamp: float | None, task: str) -> Curves:
    """curves_from_doc of the shipped grid for `task` (no curves when the grid is missing)."""
    if stamp is None:
        return NO_CURVES
    try:
        doc = toy.load_results(grid_path(folder))
    except ValueError:
        return NO_CURVES
    return curves_from_doc(doc, task)


def at_factor(curves: tuple[Curve, ...], factor: float) -> dict[tuple[str, str], Band]:
    """Each curve's Band at one evaluation factor, keyed by (encoding, scaling) (curves lacking it left out)."""
    out = {}
    for c in curves:
        hit = np.flatnonzero(np.isclose(c.factors, factor))
        if hit.size:
            i = int(hit[0])
            out[(c.encoding, c.scaling)] = Band(mean=float(c.mean[i]), low=float(c.low[i]), high=float(c.high[i]),
                                                std=float(c.std[i]))
    return out


def compare(a: Band, b: Band) -> str:
    """"higher" / "lower" when a's whole seed band lies above / below b's, else "overlap"."""
    if a.low > b.high:
        return "higher"
    if a.high < b.low:
        return "lower"
    return "overlap"


def _weights(folder: str, task: str, encoding: str) -> Path | None:
    doc = toy.load_results(grid_path(folder))
    for run in doc["runs"]:
        c = run["config"]
        if c["task"] == task and c["encoding"] == encoding and run["weights"]:
            return grid_path(folder).parent / run["weights"]
    return None


@dataclass(frozen=True)
class OffsetStats:
    """Where one head's attention goes: its most common top offset ("dominant"), the share of queries whose
    top key sits there (all of them, within and past the training length), and the mean attended distance
    within and past it."""
    dominant: int
    share: float
    share_within: float
    share_past: float
    distance_within: float
    distance_past: float


def _offset_stats(weights: np.ndarray, train_len: int, dominant: int | None = None) -> OffsetStats:
    """Where one head's attention goes (weights: seq x seq, rows = queries): for each query its top key's
    offset q - k and its mean attended distance sum_k w[q, k] (q - k). `dominant`: the offset to look for
    (default: the most common top offset here). Shares are over queries 1.. (query 0 sees only itself)."""
    seq = weights.shape[0]
    queries = np.arange(seq)
    top = queries - weights.argmax(axis=1)
    distance = (weights * (queries[:, None] - queries[None, :]).clip(min=0)).sum(axis=1)
    asked = queries >= 1
    if dominant is None:
        dominant = int(np.bincount(top[asked]).argmax()) if asked.any() else 0
    past = queries >= train_len
    share = lambda where: float((top[where] == dominant).mean()) if where.any() else float("nan")  # noqa: E731
    mean = lambda where: float(distance[where].mean()) if where.any() else float("nan")  # noqa: E731
    return OffsetStats(dominant=dominant, share=share(asked), share_within=share(asked & ~past),
                       share_past=share(past), distance_within=mean(asked & ~past), distance_past=mean(past))


class _Maps(NamedTuple):
    maps: np.ndarray   # layers x heads x seq x seq
    train_len: int


def _maps(folder: str, task: str, encoding: str, length: int, scaling: str) -> _Maps:
    model, config = toy.load_model(_weights(folder, task, encoding))
    freqs = None
    if encoding == "rope":
        freqs = toy.rope_frequencies(model.config, scaling, length / config.train_len, config.train_len)
    tokens = toy.make_batch(task, 1, length, seed=MAP_SEED)[0][0]
    return _Maps(toy.attention_maps(model, tokens, rope_freqs=freqs), config.train_len)


def has_weights(folder: str, stamp: float | None, task: str, encoding: str) -> bool:
    if stamp is None:
        return False
    try:
        path = _weights(folder, task, encoding)
    except ValueError:
        return False
    return path is not None and path.is_file()


@dataclass(frozen=True)
class AttentionMaps:
    """One head's attention maps at the training length ("short") and past it ("long"), drawn thinned (the
    positions kept: "short_kept", "long_kept"), and the statistics of the full maps."""
    train_len: int
    long_len: int
    layer: int
    head: int
    short_stats: OffsetStats
    long_stats: OffsetStats
    short: np.ndarray
    short_kept: np.ndarray
    long: np.ndarray
    long_kept: np.ndarray


def attention_view(folder: str, stamp: float | None, task: str, encoding: str, layer: int, head: int,
                   factor: float, scaling: str) -> AttentionMaps | None:
    """One head of the shipped seed-0 model at the training length and at `factor` times it (RoPE with the
    inference-time `scaling` there), on the sequence make_batch(task, 1, length, seed=MAP_SEED); None when
    the grid has no weights for it.

    Maps are drawn thinned to MAP_SIDE per side; the statistics use the full maps: the head's most common top
    offset at 1x and how often queries keep it within / past the training length at `factor`x, and the mean
    attended distance."""
    if not has_weights(folder, stamp, task, encoding):
        return None
    short, train_len = _maps(folder, task, encoding, _length(folder, task, 1.0), "none")
    long = _maps(folder, task, encoding, _length(folder, task, factor), scaling).maps
    layer = min(int(layer), short.shape[0] - 1)
    head = min(int(head), short.shape[1] - 1)
    at_short = _offset_stats(short[layer, head], train_len)
    at_long = _offset_stats(long[layer, head], train_len, dominant=at_short.dominant)
    short_drawn, short_kept, _ = downsample(short[layer, head], MAP_SIDE)
    long_drawn, long_kept, _ = downsample(long[layer, head], MAP_SIDE)
    return AttentionMaps(train_len=train_len, long_len=long.shape[-1], layer=layer, head=head,
                         short_stats=at_short, long_stats=at_long, short=short_drawn, short_kept=short_kept,
                         long=long_drawn, long_kept=long_kept)


def _length(folder: str, task: str, factor: float) -> int:
    doc = toy.load_results(grid_path(folder))
    run = next(r for r in doc["runs"] if r["config"]["task"] == task)
    return int(round(factor * run["config"]["train_len"]))


@dataclass(frozen=True)
class LockedHeads:
    """Per encoding with shipped weights (in ENCODING_ORDER): its most position-locked head (layer, head, its
    most common top offset) and that offset's share of queries at 1x and past the training length (float32)."""
    encodings: tuple[str, ...]
    layer: tuple[int, ...]
    head: tuple[int, ...]
    dominant: tuple[int, ...]
    share_1x: np.ndarray
    share_past: np.ndarray


def locked_heads(folder: str, stamp: float | None, task: str, factor: float, scaling: str) -> LockedHeads:
    """For every encoding with shipped weights: its most position-locked head (the largest share of queries
    whose top key sits at the head's most common offset, at 1x) and that share past the training length at
    `factor`x."""
    found: list[tuple[str, int, int, OffsetStats, OffsetStats]] = []
    for encoding in ENCODING_ORDER:
        if not has_weights(folder, stamp, task, encoding):
            continue
        short, train_len = _maps(folder, task, encoding, _length(folder, task, 1.0), "none")
        long = _maps(folder, task, encoding, _length(folder, task, factor),
                     scaling if encoding == "rope" else "none").maps
        best: tuple[int, int, OffsetStats] | None = None
        for layer in range(short.shape[0]):
            for head in range(short.shape[1]):
                s = _offset_stats(short[layer, head], train_len)
                if best is None or s.share > best[2].share:
                    best = (layer, head, s)
        assert best is not None  # a model has at least one head
        layer, head, s = best
        found.append((encoding, layer, head, s, _offset_stats(long[layer, head], train_len, dominant=s.dominant)))
    return LockedHeads(encodings=tuple(f[0] for f in found), layer=tuple(f[1] for f in found),
                       head=tuple(f[2] for f in found), dominant=tuple(f[3].dominant for f in found),
                       share_1x=np.array([f[3].share for f in found], dtype=np.float32),
                       share_past=np.array([f[4].share_past for f in found], dtype=np.float32))


# --- what the page says about them ---------------------------------------------------------------------------
UNLEARNED = 0.5           # below this mean accuracy at 1x, an encoding never learned the task
KEPT, WEAKENED = 0.8, 0.4  # a head's share past the length over its share at 1x: kept from 0.8, weakened from 0.4
YOUR_WIDTH, OTHER_WIDTH = 3.5, 2  # a live run's line: the visitor's own drawn wider than another visitor's


def pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def _enc(name: str) -> Phrase:
    return phrase(f"trained_models.enc_{name}")


def _scal(name: str) -> Phrase:
    return phrase(f"trained_models.scaling_{name}")


class Mark(NamedTuple):
    """A dotted line across a chart: its label and where it stands on the length axis."""
    name: Phrase
    at: int


@dataclass(frozen=True)
class AccuracyChart:
    """The accuracy chart's band_lines series (entries named by Phrases), its marks and the lengths labelled."""
    series: list[dict]
    marks: list[Mark]
    x_ticks: list[float]


def accuracy_chart(data: Curves, runs: list[dict], task: str, owner: str, show_scalings: bool) -> AccuracyChart:
    """The accuracy chart of `task`: the shipped curves (`data`, from shipped_curves; stretched RoPE only with
    `show_scalings`) as band_lines series named by Phrases, each in its concept's colour (its encoding's, or
    a stretched one's scaling's), then the finished live `runs` of the task, dotted in the same colours (the
    ones `owner` started drawn wider); marks at the grid's training length and at each live run's other one;
    x_ticks at every length drawn."""
    series: list[dict] = []
    marks: list[Mark] = []
    for curve in data.curves:
        plain = curve.scaling == "none"
        if plain or show_scalings:
            series.append({"name": _enc(curve.encoding) if plain
                           else phrase("trained_models.rope_scaled", scaling=_scal(curve.scaling)),
                           "x": curve.lengths, "y": curve.mean, "low": curve.low, "high": curve.high,
                           "dash": "solid" if plain else "dash",
                           "concept": curve.encoding if plain else curve.scaling})
    if data.train_len:
        marks.append(Mark(phrase("trained_models.train_len_mark", n=data.train_len), data.train_len))
    for run in runs:
        if run["doc"] is None or run["task"] != task:
            continue
        mine = run["owner"] == owner
        label = phrase(
            "trained_models.your_run" if mine else "trained_models.other_run",
            encoding=_enc(run["encoding"]),
            n=run["train_len"],
            seed=run["seed"],
        )
        for curve in curves_from_doc(run["doc"], task).curves:
            if curve.scaling == "none" or show_scalings:
                name = label if curve.scaling == "none" else phrase("trained_models.live_scaled", run=label,
                                                                    scaling=_scal(curve.scaling))
                series.append({"name": name, "x": curve.lengths, "y": curve.mean, "dash": "dot",
                               "width": YOUR_WIDTH if mine else OTHER_WIDTH, "group": f"live{run['id']}",
                               "concept": curve.encoding if curve.scaling == "none" else curve.scaling})
        mark = Mark(phrase("trained_models.live_len_mark", n=run["train_len"]), run["train_len"])
        if run["train_len"] != data.train_len and mark not in marks:
            marks.append(mark)
    ticks = sorted({float(v) for s in series for v in s["x"]} | {float(mark.at) for mark in marks})
    return AccuracyChart(series=series, marks=marks, x_ticks=ticks)


@dataclass(frozen=True)
class GridLines:
    """What the page says about the shipped grid: a notice when it is missing or cannot be read, else the
    source of its numbers (the other one None)."""
    notice: Phrase | None
    source: Phrase | None


def grid_lines(facts: ShippedGrid | Unreadable | None, folder: str) -> GridLines:
    """What the page says about the shipped grid (shipped's answer)."""
    if facts is None:
        return GridLines(notice=phrase("trained_models.missing", folder=folder), source=None)
    if isinstance(facts, Unreadable):
        return GridLines(notice=phrase("trained_models.malformed", error=facts.error), source=None)
    return GridLines(notice=None, source=phrase("trained_models.source", runs=facts.runs, created=facts.created,
                                                device=facts.device, minutes=facts.wall_seconds / 60,
                                                torch=facts.torch))


def _mean_of(encoding: str, at: dict[tuple[str, str], Band]) -> Phrase:
    """An encoding and its mean accuracy (at_factor's entry without a stretch)."""
    return phrase("trained_models.value_item", encoding=_enc(encoding), value=pct(at[(encoding, "none")].mean))


@dataclass(frozen=True)
class Findings:
    """What a task's shipped curves say: the bands' caption, paragraphs of numbers, and the claims."""
    caption: Phrase
    paragraphs: list[Phrase]
    claims: list[Phrase]


def findings(data: Curves, factor: float) -> Findings | None:
    """What the shipped curves of a task (shipped_curves) say at `factor` times the training length, None when
    there are none: the bands' caption, paragraphs (the plain encodings' mean accuracy there and at 1x; those
    below UNLEARNED even at 1x) and claims: ALiBi, the best and the worst stretch of RoPE and NoPE each against
    plain RoPE, judged by whether their seed bands overlap (compare); an encoding below UNLEARNED at 1x gets
    no verdict, only its numbers and why they say little."""
    curves = data.curves
    if not curves or data.train_len is None:
        return None
    seeds = curves[0].seeds
    caption = phrase("trained_models.band_caption", count=len(seeds), seeds=", ".join(str(s) for s in seeds),
                     steps=data.steps)
    here, base = at_factor(curves, factor), at_factor(curves, 1.0)
    plain = [e for e in ENCODING_ORDER if (e, "none") in here]
    paragraphs = [phrase("trained_models.summary", factor=factor, length=int(round(factor * data.train_len)),
                         values=tuple(_mean_of(e, here) for e in plain),
                         base_values=tuple(_mean_of(e, base) for e in plain if (e, "none") in base))]
    unlearned = tuple(_enc(e) for e in plain if (e, "none") in base and base[(e, "none")].mean < UNLEARNED)
    if unlearned:
        paragraphs.append(counted("trained_models.unlearned", len(unlearned), encodings=unlearned))
    rope = here.get(("rope", "none"))
    if not rope:
        return Findings(caption=caption, paragraphs=paragraphs, claims=[])

    def against_rope(encoding: str) -> list[Phrase]:
        if (encoding, "none") not in here:
            return []
        other = here[(encoding, "none")]
        if (encoding, "none") in base and base[(encoding, "none")].mean < UNLEARNED:  # numbers that mean little
            return [
                phrase(
                    "trained_models.claim_unlearned",
                    factor=factor,
                    encoding=_enc(encoding),
                    value=pct(other.mean),
                    rope=pct(rope.mean),
                    base=pct(base[(encoding, "none")].mean),
                )
            ]
        return [phrase(f"trained_models.claim_{encoding}_{compare(other, rope)}", factor=factor,
                       **{encoding: pct(other.mean)}, rope=pct(rope.mean))]

    claims = against_rope("alibi")
    scaled = {s: here[("rope", s)] for s in SCALING_ORDER if s != "none" and ("rope", s) in here}
    if scaled:
        best = max(scaled, key=lambda s: scaled[s].mean)
        claims.append(phrase(f"trained_models.claim_scaling_{compare(scaled[best], rope)}", factor=factor,
                             scaling=_scal(best), best=pct(scaled[best].mean), rope=pct(rope.mean)))
        worst = min(scaled, key=lambda s: scaled[s].mean)
        if worst != best:  # the stretch that does worst, and its values at the lengths between 1x and here
            shorter = [(f, at_factor(curves, f).get(("rope", worst))) for f in sorted(
                {float(f) for c in curves for f in c.factors}) if 1 < f < factor]
            early = tuple(phrase("trained_models.worst_at", factor=f, value=pct(at.mean)) for f, at in shorter if at)
            claims.append(phrase(f"trained_models.claim_worst_{compare(scaled[worst], rope)}", factor=factor,
                                 scaling=_scal(worst), worst=pct(scaled[worst].mean), rope=pct(rope.mean),
                                 early=phrase("trained_models.worst_early", values=early) if early else "",
                                 why=phrase("trained_models.pi_why") if worst == "pi" else ""))
    claims += against_rope("nope")
    return Findings(caption=caption, paragraphs=paragraphs, claims=claims)


def alibi_across(here: Curves, there: Curves, factor: float, key: str) -> Phrase | None:
    """ALiBi against RoPE at `factor` (and at 1x) in this page's grid (`here`) and the other page's (`there`),
    both curves_from_doc of the same task: the text `key`_same or `key`_opposite, by whether ALiBi's mean lies
    on the same side of RoPE's in both. None when either grid lacks one of them at 1x or at `factor`."""
    values = {}
    for name, data in (("here", here), ("there", there)):
        for f, suffix in ((factor, ""), (1.0, "_1x")):
            found = at_factor(data.curves, f)
            for encoding in ("alibi", "rope"):
                if (encoding, "none") not in found:
                    return None
                values[f"{encoding}_{name}{suffix}"] = found[(encoding, "none")].mean
    above = [values[f"alibi_{name}"] > values[f"rope_{name}"] for name in ("here", "there")]
    lengths = phrase("trained_models.train_len_same" if here.train_len == there.train_len else
                     "trained_models.train_len_differ", n=here.train_len, n_there=there.train_len)
    return phrase(f"{key}_{'same' if above[0] == above[1] else 'opposite'}", factor=factor, lengths=lengths,
                  **{k: pct(v) for k, v in values.items()})


@dataclass(frozen=True)
class MapReading:
    """How one head's maps are shown: the two titles, a caption when the long map is thinned, its metrics, and
    the verdict on its pattern past the training length."""
    titles: tuple[Phrase, Phrase]
    thinned: Phrase | None
    metrics: list[Metric]
    verdict: Phrase


def map_reading(maps: AttentionMaps, encoding: str, layer: int, head: int, factor: float,
                scaling: str) -> MapReading:
    """How to show one head's maps (attention_view's): the verdict says whether the head keeps its 1x pattern
    past the training length (its share there over its share at 1x, against KEPT and WEAKENED)."""
    n, long_n = maps.train_len, maps.long_len
    used = _scal(scaling if encoding == "rope" else "none")
    short_title, long_title = (phrase(f"trained_models.map_{name}_title", encoding=_enc(encoding), layer=layer,
                                      head=head, n=size, factor=factor, scaling=used)
                               for name, size in (("short", n), ("long", long_n)))
    thinned = (phrase("trained_models.map_thinned", step=int(maps.long_kept[1] - maps.long_kept[0]), n=long_n)
               if long_n > MAP_SIDE else None)
    short, past = maps.short_stats, maps.long_stats
    metrics = [
        metric("trained_models.dominant", str(short.dominant), help=phrase("trained_models.dominant_help")),
        metric("trained_models.share_1x", pct(short.share)),
        metric("trained_models.share_past", pct(past.share_past), factor=factor),
        metric(
            "trained_models.distance_past",
            f"{past.distance_past:.1f}",
            help=phrase("trained_models.distance_help"),
            factor=factor,
        ),
    ]
    kept = past.share_past / short.share if short.share > 0 else 0.0
    verdict = "kept" if kept >= KEPT else ("weakened" if kept >= WEAKENED else "lost")
    return MapReading(titles=(short_title, long_title), thinned=thinned, metrics=metrics,
                      verdict=phrase(f"trained_models.map_{verdict}", encoding=_enc(encoding), layer=layer,
                                     head=head, offset=short.dominant, share=pct(short.share), factor=factor,
                                     past=pct(past.share_past), n=n, within=f"{past.distance_within:.1f}",
                                     distance=f"{past.distance_past:.1f}"))


@dataclass(frozen=True)
class LockedReading:
    """The locked-heads chart's bar names and one line per encoding."""
    names: list[Phrase]
    lines: list[Phrase]


def locked_reading(locked: LockedHeads, factor: float) -> LockedReading:
    """The bar names (Phrases) and one line per encoding of locked_heads."""
    names = [_enc(e) for e in locked.encodings]
    lines = [
        phrase(
            "trained_models.locked_row",
            encoding=name,
            layer=lay,
            head=hd,
            offset=off,
            share=pct(a),
            factor=factor,
            past=pct(b),
        )
        for name, lay, hd, off, a, b in zip(
            names, locked.layer, locked.head, locked.dominant, locked.share_1x, locked.share_past
        )
    ]
    return LockedReading(names=names, lines=lines)


def live_intro(data: Curves, steps: int, keep: int) -> Phrase:
    """What a live run is, beside the shipped models it is drawn with: `steps` steps against the grid's
    (data: shipped_curves; the grid's default when no grid is there), the last `keep` runs kept."""
    return phrase("trained_models.live_text", steps=steps, keep=keep, grid_steps=data.steps or toy.GRID_STEPS,
                  times=(data.steps or toy.GRID_STEPS) / steps)


def seconds_left(expected_end: float | None, now: float) -> int:
    """Whole seconds until a run's expected end (0 when unknown or past)."""
    return max(0, round((expected_end if expected_end is not None else now) - now))


def _run_facts(snap: dict) -> dict:
    """A live run's snapshot as the arguments of the text that describes it."""
    return {"encoding": _enc(snap["encoding"]), "task": phrase(f"trained_models.task_{snap['task']}"),
            "n": snap["train_len"], "seed": snap["seed"], "step": snap["step"], "steps": snap["steps"]}


def refusal(snap: dict, now: float, owner: str | None = None) -> Phrase:
    """Why a new run cannot start (`live_budget.start`'s answer): this session's runs of the hour, or the
    server's, are spent, and when the next may start; or the run in progress (its snapshot: the visitor's own
    when `owner` started it) and when it should end."""
    if snap.get("refused") in ("hourly", "session"):
        wait = seconds_left(snap["next_slot"], now)
        return phrase(f"trained_models.refused_{snap['refused']}", runs=snap["runs"], minutes=wait // 60,
                      seconds=wait % 60)
    key = "trained_models.refused_mine" if owner is not None and snap["owner"] == owner else "trained_models.refused"
    return phrase(key, seconds=seconds_left(snap["expected_end"], now), **_run_facts(snap))


@dataclass(frozen=True)
class Progress:
    """The run in progress: the text of its progress bar and a note under it (None when there is none)."""
    text: Phrase
    note: Phrase | None


def progress(snap: dict, owner: str, now: float) -> Progress:
    """The run in progress: its progress bar's text (yours or another visitor's) and a note (evaluating, or when
    training should end; None when unknown)."""
    text = phrase("trained_models.progress_mine" if snap["owner"] == owner else "trained_models.progress_other",
                  **_run_facts(snap))
    if snap["state"] == "evaluating":
        note = phrase("trained_models.evaluating")
    elif snap.get("stopping"):
        note = phrase("trained_models.stopping")
    elif snap["expected_end"] is not None:
        note = phrase("trained_models.expected_end", seconds=seconds_left(snap["expected_end"], now), loss=snap["loss"])
    else:
        note = None
    return Progress(text=text, note=note)


def run_line(run: dict, owner: str, factor: float) -> Phrase:
    """One finished live run: why it failed, or its steps, time and accuracy at 1x and at `factor`."""
    facts = _run_facts(run)
    if run["doc"] is None:
        return phrase("trained_models.failed", error=run["error"], **facts)
    curves = curves_from_doc(run["doc"], run["task"]).curves
    plain = next(c for c in curves if c.scaling == "none")
    first = at_factor((plain,), 1.0).get((plain.encoding, "none"))
    there = at_factor((plain,), factor).get((plain.encoding, "none"))
    r = run["doc"]["runs"][0]
    return phrase("trained_models.run_line_mine" if run["owner"] == owner else "trained_models.run_line_other",
                  seconds=r["wall_seconds"], done=r["stopped_at"] if r["stopped_at"] is not None else run["steps"],
                  first=pct(first.mean) if first else "–", factor=factor,
                  there=pct(there.mean) if there else "–", **facts)


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("inference_scaling"), Question("nope_order"))
