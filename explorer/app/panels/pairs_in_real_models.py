"""What trained models do with RoPE's pairs: the measurement and the interventions of a text (each keyed by the model's
name, the section and the token ids), and the labelled figures drawn from them.

A shipped example's numbers come from its record (results/real/pairs.json) at once. A visitor's own text is measured
through the server's one queue (explorer.app.heavy), as the real-models page measures it: first the one-pass
measurement, then the interventions, which reuse it (kept by the queue) rather than measure again."""

from __future__ import annotations

import functools
from collections.abc import Hashable

import numpy as np

from explorer.app import heavy
from explorer.app.cache import cached, figure
from explorer.app.job_queue import QUEUE
from explorer.app.panels.real_models import reading
from explorer.app.session import t
from explorer.pure.figures import grouped_bars, heatmap_grid, line_chart, marked_lines
from explorer.pure.knobs import format_base
from explorer.pure.views import pairs_in_real_models as view
from explorer.pure.views.real_models import EXAMPLES

P = "pairs_in_real_models"
recorded = functools.lru_cache(maxsize=1)(view.shipped)  # frozen values, read once per process
layer_facts = cached(view.layer_facts, max_entries=2)


def record(name: str, text: str) -> view.Found | None:
    example = next((k for k, v in EXAMPLES.items() if v == text), None)
    return recorded().get((name, example)) if example else None


def _queued(key: Hashable, fn, what: str, *, wait: bool):
    if wait:
        return heavy.run(f"{key[0]}:{key[1]}", key, fn, what=t(f"{P}.section_{what}"), request=(key[0], key[2]))
    hit, value = QUEUE.cached(key)
    return value if hit else fn()


def measured(name: str, text: str, *, wait: bool = True):
    """The text's rope_viz.real.pairs.Pairs: recorded, or one pass in the queue."""
    found = record(name, text)
    if found is not None:
        return found.pairs
    ids = reading(name, text).ids
    return _queued((name, "pairs", ids), functools.partial(view.measured, name, ids), "pairs", wait=wait)


def effects(name: str, text: str, *, wait: bool = True):
    """The interventions' losses: recorded, or measured in the queue from the kept measurement."""
    found = record(name, text)
    if found is not None:
        return found.effects
    ids = reading(name, text).ids
    pairs = measured(name, text, wait=wait)
    return _queued((name, "pair_effects", ids), functools.partial(view.effects, name, ids, pairs), "effects",
                   wait=wait)


def found(name: str, text: str) -> view.Found:
    """Everything the claims read (after measured and effects have been waited for)."""
    kept = record(name, text)
    if kept is not None:
        return kept
    bases, trained = layer_facts(name)
    return view.Found(name, name, reading(name, text), bases, trained, measured(name, text, wait=False),
                      effects(name, text, wait=False))


def _kind(kind: str) -> str:
    return t(f"{P}.kind_{kind}")


@figure
def layer_norms(name: str, text: str, layer: int):
    p = measured(name, text, wait=False)
    panels = {t(f"{P}.panel_{kind}"): z for kind, z in view.layer_panels(p, layer).items()}
    pairs = next(iter(panels.values())).shape[-1]
    b = p.boundaries[layer]
    return heatmap_grid(panels, x=np.arange(pairs), y=np.arange(max(z.shape[0] for z in panels.values())),
                        title=t(f"{P}.layer_title", layer=layer, kind=_kind(p.kinds[layer]), boundary=b),
                        x_title=t(f"{P}.pair_axis"), y_title=t(f"{P}.head_axis"), columns=3, colorscale="Viridis",
                        zmid=None, zmin=0.0, colorbar_title=t(f"{P}.ratio"),
                        notes={t(f"{P}.panel_keys"): t(f"{P}.boundary_note", boundary=b)})


@figure
def where(name: str, text: str):
    p = measured(name, text, wait=False)
    kinds = view.kinds(p)
    series = {t(f"{P}.where_series", what=t(f"{P}.panel_{what}"), kind=_kind(kind)):
              view.massive_by_pair(p, what, kind) for kind in kinds for what in ("keys", "queries", "values")}
    marks = {t(f"{P}.boundary_mark", kind=_kind(kind), boundary=view.boundary(p, kind)): view.boundary(p, kind)
             for kind in kinds}
    pairs = len(next(iter(series.values())))
    return marked_lines(np.arange(pairs), series, marks=marks, markers=True, title=t(f"{P}.where_title"),
                        x_title=t(f"{P}.pair_axis"), y_title=t(f"{P}.massive_axis"))


@figure
def sinks(name: str, text: str):
    p = measured(name, text, wait=False)
    layers = np.arange(len(p.kinds))
    return line_chart(layers, {t(f"{P}.sink_series", threshold=f"{view.core.SINK:g}"):
                               p.sink_shares().numpy().astype(np.float32),
                               t(f"{P}.mean_first_series"): p.first.mean(-1).numpy().astype(np.float32)},
                      markers=True, title=t(f"{P}.sink_title"), x_title=t(f"{P}.layer_axis"),
                      y_title=t(f"{P}.share_axis"))


@figure
def first_norm(name: str, text: str):
    p = measured(name, text, wait=False)
    steps = np.arange(len(p.kinds) + 1)
    series = {t(f"{P}.first_series"): p.first_norm.numpy().astype(np.float32),
              t(f"{P}.other_series"): p.other_norm.numpy().astype(np.float32)}
    return marked_lines(steps, series, marks={t(f"{P}.spike_mark", layer=p.spike_layer): p.spike_layer + 1},
                        log_y=True, markers=True, title=t(f"{P}.norm_title"), x_title=t(f"{P}.step_axis"),
                        y_title=t(f"{P}.norm_axis"))


@figure
def effects_chart(name: str, text: str):
    e = effects(name, text, wait=False)
    names = [n for n in view.core.INTERVENTIONS if n != "none"]
    groups = {t(f"{P}.task_{task}", loss=f"{getattr(e, task)['none']:.2f}"):
              np.array([getattr(e, task)[n] - getattr(e, task)["none"] for n in names], np.float32)
              for task in ("text", "copy", "recall")}
    return grouped_bars([t(f"{P}.intervention_{n}") for n in names], groups, title=t(f"{P}.effects_title"),
                        x_title=t(f"{P}.intervention_axis"), y_title=t(f"{P}.rise_axis"))


def bases_line(name: str, text: str) -> str:
    f = found(name, text)
    kinds = {k: i for i, k in enumerate(f.pairs.kinds)}
    return "; ".join(t(f"{P}.kind_line", kind=_kind(k), base=format_base(f.bases[i]), trained=f"{f.trained[i]:,}",
                       boundary=f.pairs.boundaries[i]) for k, i in sorted(kinds.items(), key=lambda x: x[1]))
