"""RoPE in real models: the measurements, section by section (each keyed by the model's name, the section and the
token ids, never by a model object: the models are process-wide, rope_viz.real.real_model), and the labelled figures
drawn from them.

A shipped example's sections come from its record (results/real/examples.json) at once. A visitor's own text is
measured through the server's one queue (explorer.app.heavy), a section at a time, in the page's order: each is
drawn as soon as its numbers exist, and the same section asked by many sessions is measured once and kept."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from explorer.app import heavy
from explorer.app.cache import cached, figure
from explorer.app.job_queue import QUEUE
from explorer.app.place import chart, paragraphs, say
from explorer.pure.figures import bar_chart, heatmap, heatmap_grid, layer_strip, line_chart, marked_lines, token_map
from explorer.pure.knobs import format_base
from explorer.app.session import t
from explorer.pure.views import real_models as view
from rope_viz import real_model
from rope_viz.real import SOURCES, checkpoints, loaded
from rope_viz.real.measure import interventions_precision

# the shipped record, read once per process and shared as it is (frozen values): st.cache_data would unpickle all
# eight examples at every one of a run's dozen look-ups
recorded = functools.lru_cache(maxsize=1)(view.shipped)
_reading = cached(view.read, max_entries=32)
layer_facts = cached(view.layer_facts, max_entries=2)
head_count = cached(view.head_count, max_entries=2)
long_context = cached(view.long_context, max_entries=1)
SECTIONS: dict[str, Callable[[str, tuple[int, ...]], Any]] = {
    "said": view.said, "looks": view.looks, "interventions": view.interventions,
    "relativity": functools.partial(view.relativity_at, shift=view.SHIFT)}


VIEW = "real_models.view"  # the view (model, text, example) this session's page last drew


def body(name: str, own: str, example: str):
    """The container of the page below its model and text knobs, keyed by the view (model, own text, example).

    The browser keeps the elements a container held in the last run, greyed until the new run reaches them, when the
    new run's block in that place is of the same kind; a run of the same view (a knob moved) keeps them so. The first
    run of another view puts a block of another kind there first (an empty grid), so the last view's results (another
    model's name, its numbers) vanish at once. Not an empty element: Streamlit's message queue would merge it with the
    container sent to the same place, and the browser would see the container alone."""
    drawn = hashlib.sha256(repr((name, own, example)).encode()).hexdigest()[:16]
    fresh = st.session_state.get(VIEW) != drawn
    st.session_state[VIEW] = drawn
    if not fresh:
        return st.container(key=f"real_models_view_{drawn}")
    slot = st.empty()
    slot.grid(1)
    return slot.container(key=f"real_models_view_{drawn}")


def record(name: str, text: str) -> view.Measured | None:
    """The recorded measurement of a shipped example, or None."""
    example = next((k for k, v in view.EXAMPLES.items() if v == text), None)
    return recorded().get((name, example)) if example else None


def available(name: str, text: str) -> bool:
    """Whether the numbers of `text` can be shown without the model (a recorded example)."""
    return record(name, text) is not None


def prepare(name: str) -> None:
    """The model loaded, through the queue as a step of its own (its first use on a server converts its weights:
    from about 15 s to minutes, with no estimate, so the line says how long it has taken so far)."""
    if not loaded(name):
        heavy.run(f"{name}:load", (name, "load"), functools.partial(real_model, name), what=SOURCES[name].label,
                  lines="real_models.prepare")


def reading(name: str, text: str) -> view.Reading:
    prepare(name)
    return _reading(name, text)


def _queued(key: Hashable, fn: Callable[[], Any], what: str, *, wait: bool) -> Any:
    """fn's result through the queue (this session waits, seeing its place), or, with wait=False (inside a cached
    figure, after the page has waited for it), the kept result, computed here only if it has been dropped since."""
    if wait:  # key: (model, section, ids, ...): the text's later sections keep this session's place
        prepare(key[0])
        request = key[0], key[2]  # the view (model, text): a job left running for another one is stopped
        hit, value = heavy.cached(key, request)
        if hit:
            return value
        layer = key[3] if what == "map" else 0
        guess = view.expected_s(key[0], key[1] if key[1] in ("no_rope", "spaced") else what, len(key[2]), layer)
        return heavy.run(f"{key[0]}:{key[1]}", key, functools.partial(stoppable, fn),
                         what=t(f"real_models.section_{what}"), request=request, guess_s=guess, group=key[0])
    hit, value = QUEUE.cached(key)
    return value if hit else fn()


def stoppable(fn: Callable[[], Any]) -> Any:
    """fn's result, computed with the queue's checkpoint between the model's layers: a job its visitor left (another
    model or text) stops there."""
    with checkpoints(QUEUE.checkpoint):
        return fn()


def section(kind: str, name: str, text: str, *, wait: bool = True) -> Any:
    """One of SECTIONS for `text`: recorded, or measured in the queue."""
    found = record(name, text)
    if found is not None:
        return getattr(found, kind)
    ids = reading(name, text).ids
    return _queued((name, kind, ids), functools.partial(SECTIONS[kind], name, ids), kind, wait=wait)


def traps_on_demand(name: str, text: str) -> bool:
    """Whether an own text's traps wait for the visitor to ask for them: where this host runs their ten passes in
    float32 (its CPU runs bfloat16 no faster), they are most of the page's cost; unless they are measured already."""
    ids = reading(name, text).ids
    slow = interventions_precision(real_model(name)) == "float32"
    return slow and not QUEUE.cached((name, "interventions", ids))[0]


def skipped_line(name: str, text: str, cores: float) -> str:
    """Why the sections from the traps on are not measured for an own text: too few cores, or not asked for yet (with
    their expected cost on this host)."""
    if cores < view.MIN_CORES:
        return t("real_models.few_cores", cores=f"{cores:.2f}", least=view.MIN_CORES)
    ids = reading(name, text).ids
    wait = QUEUE.expected(f"{name}:interventions", view.expected_s(name, "interventions", len(ids)), name) or 0.0
    return t("real_models.traps_asked", wait=f"{max(1, round(wait)):,}")


def facts(name: str, text: str) -> tuple[view.LayerFacts, ...]:
    found = record(name, text)
    return found.layers if found is not None else layer_facts(name)


def heads(name: str, text: str) -> int:
    found = record(name, text)
    return len(found.looks.previous[0]) if found is not None else head_count(name)


def attention_map(name: str, ids: tuple[int, ...], layer: int, *, wait: bool = True) -> view.AttentionMap:
    return _queued((name, "map", ids, layer), functools.partial(view.attention_map, name, ids, layer), "map",
                   wait=wait)


def relativity_at(name: str, text: str, shift: int) -> view.Relativity:
    default = section("relativity", name, text)
    if shift == view.SHIFT:
        return default
    ids = reading(name, text).ids
    return _queued((name, "relativity", ids, shift),
                   functools.partial(view.relativity_at, name, ids, shift, default), "relativity", wait=True)


def without_rope_in(name: str, ids: tuple[int, ...], layer: int) -> float:
    return _queued((name, "no_rope", ids, layer), functools.partial(view.without_rope_in, name, ids, layer),
                   "interventions", wait=True)


def spaced_losses(name: str, ids: tuple[int, ...], spacing: int) -> dict[str, float]:
    return _queued((name, "spaced", ids, spacing), functools.partial(view.spaced_losses, name, ids, spacing),
                   "spaced", wait=True)


def predictions_table(name: str, text: str) -> pd.DataFrame:
    """Each token, the model's most likely next token after it, its probability, and the loss of the token that
    came (plain text cells: a table shows them as they are)."""
    m = section("said", name, text, wait=False)
    losses = [f"{loss:.2f}" for loss in m.losses] + [""]
    return pd.DataFrame({t("real_models.col_token"): [view.token_label(x, 24) for x in m.tokens],
                         t("real_models.col_guess"): [view.token_label(x, 24) for x in m.guesses],
                         t("real_models.col_prob"): [f"{p:.0%}" for p in m.guess_probs],
                         t("real_models.col_loss"): losses})


@figure
def strip(name: str, text: str):
    layers = facts(name, text)
    found = view.strip(layers)
    kinds = {kind: t(f"model_anatomy.kind_{kind}") for kind in ("full_attention", "sliding_attention")}
    scales = {t("model_anatomy.strip_base"): (found.bases, {v: format_base(v) for v in np.unique(found.bases)}),
              t("model_anatomy.strip_dims"): (found.dims, {float(v): str(int(v)) for v in np.unique(found.dims)})}
    return layer_strip(found.kinds, kinds, scales, kind_title=t("model_anatomy.strip_attention"),
                       nothing=t("model_anatomy.strip_no_rope"), x=np.arange(len(layers)),
                       y=[t("real_models.strip_row")],
                       title=t("real_models.strip_title"), x_title=t("model_anatomy.layer_axis"))


@figure
def attention(name: str, text: str, layer: int, head: int):
    m = section("said", name, text, wait=False)
    found = attention_map(name, reading(name, text).ids, layer, wait=False)
    tokens = [view.token_label(m.tokens[i]) for i in found.kept]
    weights = found.weights[head]
    beyond_first = float(weights[:, 1:].max()) if weights.shape[1] > 1 else 1.0  # a sink's column saturates
    return token_map(weights, found.kept, tokens, colorbar_title=t("real_models.weight"), zmax=beyond_first or 1.0,
                     title=t("real_models.map_title", layer=layer, head=head),
                     x_title=t("real_models.key_axis"), y_title=t("real_models.query_axis"))


@figure
def roles(name: str, text: str):
    m = section("looks", name, text, wait=False)
    panels = {t("real_models.previous_panel"): np.array(m.previous, np.float32),
              t("real_models.first_panel"): np.array(m.first, np.float32)}
    heads = np.arange(len(m.previous[0]))
    return heatmap_grid(panels, x=heads, y=np.arange(len(m.previous)), title=t("real_models.roles_title"),
                        x_title=t("real_models.head_axis"), y_title=t("real_models.layer_axis"), colorscale="Viridis",
                        zmid=None, zmin=0.0, zmax=1.0, colorbar_title=t("real_models.weight"),
                        height=max(420, 16 * len(m.previous) + 200))


@figure
def offsets(name: str, text: str, layer: int):
    found = view.profile(section("looks", name, text, wait=False), facts(name, text), layer)
    series = {t("real_models.head_line", head=h): found.heads[h] for h in range(len(found.heads))}
    bound = t("real_models.bound_line")
    return line_chart(found.offsets, {**series, bound: found.bound}, dashed=(bound,),
                      title=t("real_models.profile_title", layer=layer), x_title=t("real_models.offset_axis"),
                      y_title=t("real_models.scaled_axis"))


@figure
def shares(name: str, text: str, layer: int):
    found = np.array(section("looks", name, text, wait=False).shares[layer], np.float32)
    return heatmap(found, x=np.arange(found.shape[1]), y=np.arange(found.shape[0]), colorscale="Viridis", zmid=None,
                   title=t("real_models.shares_title", layer=layer), x_title=t("real_models.pair_axis"),
                   y_title=t("real_models.head_axis"), colorbar_title=t("real_models.share"))


@figure
def kinds(name: str, text: str):
    layers = facts(name, text)
    bases = {x.attention: x.base for x in layers}
    series = {t(f"real_models.kind_{kind}", base=format_base(bases[kind])): values.mean(0).astype(np.float32)
              for kind, values in view.by_kind(section("looks", name, text, wait=False), layers).items()}
    pairs = np.arange(len(next(iter(series.values()))))
    return line_chart(pairs, series, title=t("real_models.kinds_title"), x_title=t("real_models.pair_axis"),
                      y_title=t("real_models.share"))


@figure
def traps(name: str, text: str, trap_layer: int, no_rope_loss: float | None):
    found = view.traps(section("interventions", name, text, wait=False), no_rope_loss)
    labels = [t(f"real_models.trap_{x.trap}", layer=trap_layer) for x in found]
    return bar_chart(labels, np.array([x.loss for x in found], np.float32), text=[f"{x.loss:.2f}" for x in found],
                     title=t("real_models.traps_title"), x_title=t("real_models.trap_axis"),
                     y_title=t("real_models.loss_axis"))


@figure
def long_losses():
    found = long_context()
    series = {t(f"real_models.method_{method}"): values for method, values in found.losses.items()}
    title = t("real_models.long_title", tokens=f"{found.tokens:,}", bucket=f"{found.bucket:,}",
              factor=f"{found.factor:g}")
    return marked_lines(found.starts, series, marks={t("real_models.trained_mark", context=f"{found.context:,}"):
                                                     found.context},
                        markers=True, title=title, x_title=t("real_models.bucket_axis"),
                        y_title=t("real_models.loss_axis"))


def passkey_cell(cell: view.PasskeyCell) -> str:
    """✓ and the key, or ✗, what the model answered (as text) and the key asked for; the key's mean
    log-probability."""
    if cell.correct:
        return t("real_models.passkey_right", asked=cell.key, logprob=f"{cell.logprob:.2f}")
    return t("real_models.passkey_wrong", answer=cell.greedy.strip() or t("real_models.passkey_nothing"),
             asked=cell.key, logprob=f"{cell.logprob:.2f}")


def passkey_table() -> pd.DataFrame:
    """Methods down, (length, depth) prompts across: each method's answer to each prompt (passkey_cell)."""
    found = long_context()
    cells = {t("real_models.col_method"): [t(f"real_models.method_{m}") for m in found.passkeys]}
    for i, prompt in enumerate(found.columns):
        cells[t("real_models.col_prompt", length=f"{prompt.length:,}", depth=f"{prompt.depth:.0%}")] = [
            passkey_cell(row[i]) for row in found.passkeys.values()]
    return pd.DataFrame(cells)


def past_the_context(name: str) -> None:
    """The recorded long-context grid (nothing when absent): a notice when it was measured in another model than
    `name`, the chart, its sentence, the passkey table (st.table: its text grows in the presenter view) and its
    sentences."""
    grid = long_context()
    if grid is None:
        return
    if grid.name != name:
        st.info(t("real_models.long_other_model", model=grid.label, chosen=SOURCES[name].label),
                icon=":material/info:")
    chart(long_losses(), key="long")
    st.markdown(say(view.long_context_line(grid)))
    st.caption(t("real_models.passkey_caption", context=f"{grid.context:,}"))
    st.table(passkey_table(), hide_index=True)
    paragraphs(view.passkey_lines(grid))
