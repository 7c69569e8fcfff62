"""Tiny transformers trained here with RoPE, sinusoidal, ALiBi or no position encoding, tested past their
training length: accuracy against evaluation length, their attention maps, and a short run of your own."""

import time
import uuid

import streamlit as st

import explorer as ui
from explorer import training
from explorer.views import trained as view
from explorer.figures import band_lines, grouped_bars, heatmap

ui.enter()
PAGE = "trained"
OWNER = "trained.owner"  # this session's token: the live run it started is "your run"
shipped = ui.cached(view.shipped, max_entries=4)
shipped_curves = ui.cached(view.shipped_curves, max_entries=8)
attention_view = ui.cached(view.attention_view, max_entries=32)
locked_heads = ui.cached(view.locked_heads, max_entries=16)


def enc(name: str) -> str:
    return ui.t(f"trained.enc_{name}")


def scal(name: str) -> str:
    return ui.t(f"trained.scaling_{name}")


def task_name(name: str) -> str:
    return ui.t(f"trained.task_{name}")


def pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def joined(items) -> str:
    return ui.t("trained.list_sep").join(items)


owner = st.session_state.setdefault(OWNER, uuid.uuid4().hex)
ui.page_header(PAGE)
folder = str(training.results_dir())
stamp = view.grid_stamp(folder)
facts = shipped(folder, stamp)
if facts is None:
    st.info(ui.t("trained.missing", folder=folder))
elif facts["error"]:
    st.info(ui.t("trained.malformed", error=facts["error"]))

# --- accuracy against evaluation length ---------------------------------------------------------------------
st.subheader(ui.t("trained.accuracy_header"))
chart_slot = st.container()  # the chart first, its knobs under it
cols = st.columns(3)
task = ui.knob(PAGE, "task", where=cols[0], format_func=task_name)
factor = ui.knob(PAGE, "factor", where=cols[1], format_func=lambda v: f"{v:g}×")
show_scalings = ui.knob(PAGE, "scalings", where=cols[2])
data = shipped_curves(folder, stamp, task)
series, marks = [], {}
for curve in data["curves"]:
    plain = curve["scaling"] == "none"
    if not plain and not show_scalings:
        continue
    series.append({"name": enc(curve["encoding"]) if plain else ui.t("trained.rope_scaled", scaling=scal(curve["scaling"])),
                   "x": curve["lengths"], "y": curve["mean"], "low": curve["low"], "high": curve["high"],
                   "dash": "solid" if plain else "dash",
                   "color": view.ENCODING_ORDER.index(curve["encoding"]) if plain
                   else 3 + view.SCALING_ORDER.index(curve["scaling"])})
if data["train_len"]:
    marks[ui.t("trained.train_len_mark", n=data["train_len"])] = data["train_len"]
live_runs = training.finished()
for run in live_runs:
    if run["doc"] is None or run["task"] != task:
        continue
    mine = run["owner"] == owner
    label = ui.t("trained.your_run" if mine else "trained.other_run", encoding=enc(run["encoding"]),
                 n=run["train_len"], seed=run["seed"])
    for curve in view.curves_from_doc(run["doc"], task)["curves"]:
        if curve["scaling"] != "none" and not show_scalings:
            continue
        name = label if curve["scaling"] == "none" else f"{label} · {scal(curve['scaling'])}"
        series.append({"name": name, "x": curve["lengths"], "y": curve["mean"], "dash": "dot", "width": 3,
                       "color": 7 if mine else 6, "group": f"live{run['id']}"})
    if run["train_len"] != data["train_len"]:
        marks[ui.t("trained.live_len_mark", n=run["train_len"])] = run["train_len"]
with chart_slot:
    if series:
        ui.chart(band_lines(series, marks=marks, title=ui.t("trained.accuracy_title", task=task_name(task)),
                            x_title=ui.t("trained.length_axis"), y_title=ui.t("trained.accuracy_axis"), log_x=True,
                            y_range=(0, 1.03), height=480,
                            x_ticks=sorted({float(v) for s in series for v in s["x"]} | set(marks.values()))),
                 key="accuracy")
# the two tasks and where the results come from, under their chart (which comes on the first screen)
st.markdown(ui.t("trained.accuracy_text"))
if facts is not None and not facts["error"]:
    st.caption(ui.t("trained.source", runs=facts["runs"], created=facts["created"], device=facts["device"],
                    minutes=facts["wall_seconds"] / 60, torch=facts["torch"]))
if data["curves"]:
    seeds = data["curves"][0]["seeds"]
    st.caption(ui.t("trained.band_caption", count=len(seeds), seeds=", ".join(str(s) for s in seeds),
                    steps=data["steps"]))
    here = view.at_factor(data["curves"], factor)
    base = view.at_factor(data["curves"], 1.0)
    plain = [e for e in view.ENCODING_ORDER if (e, "none") in here]
    length = int(round(factor * data["train_len"]))
    st.markdown(ui.t("trained.summary", factor=factor, length=length,
                     values=joined(f"{enc(e)} {pct(here[(e, 'none')]['mean'])}" for e in plain),
                     base_values=joined(f"{enc(e)} {pct(base[(e, 'none')]['mean'])}" for e in plain if (e, "none") in base)))
    unlearned = [e for e in plain if (e, "none") in base and base[(e, "none")]["mean"] < 0.5]
    if unlearned:
        st.markdown(ui.t("trained.unlearned", encodings=joined(enc(e) for e in unlearned)))
    claims = []
    rope = here.get(("rope", "none"))
    if rope and ("alibi", "none") in here:
        alibi = here[("alibi", "none")]
        claims.append(ui.t(f"trained.claim_alibi_{view.compare(alibi, rope)}", factor=factor,
                           alibi=pct(alibi["mean"]), rope=pct(rope["mean"])))
    scaled = {s: here[("rope", s)] for s in view.SCALING_ORDER if s != "none" and ("rope", s) in here}
    if rope and scaled:
        best = max(scaled, key=lambda s: scaled[s]["mean"])
        claims.append(ui.t(f"trained.claim_scaling_{view.compare(scaled[best], rope)}", factor=factor,
                           scaling=scal(best), best=pct(scaled[best]["mean"]), rope=pct(rope["mean"])))
    if rope and ("nope", "none") in here:
        nope = here[("nope", "none")]
        claims.append(ui.t(f"trained.claim_nope_{view.compare(nope, rope)}", factor=factor,
                           nope=pct(nope["mean"]), rope=pct(rope["mean"])))
    if claims:
        st.markdown("\n".join(f"- {c}" for c in claims))
elif facts is not None and not facts["error"]:
    st.info(ui.t("trained.no_task", task=task_name(task)))

# --- attention maps of the shipped weights -------------------------------------------------------------------
st.subheader(ui.t("trained.maps_header"))
st.markdown(ui.t("trained.maps_text"))
cols = st.columns(4)
encoding = ui.knob(PAGE, "encoding", where=cols[0], format_func=enc)
layer = ui.knob(PAGE, "layer", where=cols[1])
head = ui.knob(PAGE, "head", where=cols[2])
scaling = ui.knob(PAGE, "scaling", where=cols[3], format_func=scal)
with st.spinner(ui.t("trained.computing")):
    maps = attention_view(folder, stamp, task, encoding, layer, head, factor, scaling)
if not maps["available"]:
    st.info(ui.t("trained.no_weights", encoding=enc(encoding), task=task_name(task)))
else:
    n, long_n = maps["train_len"], maps["long_len"]
    used = scal(scaling) if encoding == "rope" else scal("none")
    short_fig, long_fig = (
        heatmap(maps[name], **ui.position_axes(maps[f"{name}_kept"]), colorscale="Viridis", zmid=None,
                colorbar_title=ui.t("trained.weight_axis"),
                title=ui.t(f"trained.map_{name}_title", encoding=enc(encoding), layer=layer, head=head, n=size,
                           factor=factor, scaling=used))
        for name, size in (("short", n), ("long", long_n)))
    ui.charts_side_by_side(short_fig, "map_short", long_fig, "map_long")
    if long_n > view.MAP_SIDE:
        st.caption(ui.t("trained.map_thinned", step=int(maps["long_kept"][1] - maps["long_kept"][0]), n=long_n))
    s, l = maps["short_stats"], maps["long_stats"]
    cols = st.columns(4)
    cols[0].metric(ui.t("trained.dominant"), s["dominant"], help=ui.t("trained.dominant_help"))
    cols[1].metric(ui.t("trained.share_1x"), pct(s["share"]))
    cols[2].metric(ui.t("trained.share_past", factor=factor), pct(l["share_past"]))
    cols[3].metric(ui.t("trained.distance_past", factor=factor), f"{l['distance_past']:.1f}",
                   help=ui.t("trained.distance_help"))
    kept = l["share_past"] / s["share"] if s["share"] > 0 else 0.0
    verdict = "kept" if kept >= 0.8 else ("weakened" if kept >= 0.4 else "lost")
    st.markdown(ui.t(f"trained.map_{verdict}", encoding=enc(encoding), layer=layer, head=head, offset=s["dominant"],
                     share=pct(s["share"]), factor=factor, past=pct(l["share_past"]), n=n,
                     within=f"{l['distance_within']:.1f}", distance=f"{l['distance_past']:.1f}"))
    locked = locked_heads(folder, stamp, task, factor, scaling)
    if locked["encodings"]:
        names = [enc(e) for e in locked["encodings"]]
        bars = grouped_bars(names, {ui.t("trained.share_1x"): locked["share_1x"],
                                    ui.t("trained.share_past", factor=factor): locked["share_past"]},
                            title=ui.t("trained.locked_title", factor=factor), x_title=ui.t("trained.encoding_axis"),
                            y_title=ui.t("trained.share_axis"), y_range=(0, 1.03))
        with ui.chart_beside(bars, key="locked"):
            st.markdown(ui.t("trained.locked_text"))
            st.markdown("\n".join(
                "- " + ui.t("trained.locked_row", encoding=name, layer=lay, head=hd, offset=off, share=pct(a),
                            factor=factor, past=pct(b))
                for name, lay, hd, off, a, b in zip(names, locked["layer"], locked["head"], locked["dominant"],
                                                     locked["share_1x"], locked["share_past"])))

# --- train it yourself ---------------------------------------------------------------------------------------
st.subheader(ui.t("trained.live_header"))
st.markdown(ui.t("trained.live_text", steps=training.LIVE_STEPS, keep=training.KEEP))
cols = st.columns(4)
t_encoding = ui.knob(PAGE, "train_encoding", where=cols[0], format_func=enc)
t_task = ui.knob(PAGE, "train_task", where=cols[1], format_func=task_name)
t_len = ui.knob(PAGE, "train_len", where=cols[2])
t_seed = ui.knob(PAGE, "train_seed", where=cols[3])


def describe_run(snap: dict) -> dict:
    return {"encoding": enc(snap["encoding"]), "task": task_name(snap["task"]), "n": snap["train_len"],
            "seed": snap["seed"], "step": snap["step"], "steps": snap["steps"]}


if st.button(ui.t("trained.start"), type="primary", key="trained.start_button", icon=":material/play_arrow:"):
    started, snap = training.start(training.live_config(t_task, t_encoding, t_len, t_seed), owner)
    if not started:
        left = max(0, round((snap["expected_end"] or time.time()) - time.time()))
        st.warning(ui.t("trained.refused", seconds=left, **describe_run(snap)), icon="⏳")


@st.fragment(run_every=1.0 if training.current() else None)
def live_status() -> None:
    """The run in progress (anyone's), redrawn every second; when it ends, the whole page reruns once so
    that its results join the chart."""
    snap = training.current()
    if snap is None:
        if st.session_state.pop("trained.watching", False):
            st.rerun(scope="app")
        return
    st.session_state["trained.watching"] = True
    mine = snap["owner"] == owner
    text = ui.t("trained.progress_mine" if mine else "trained.progress_other", **describe_run(snap))
    st.progress(snap["progress"], text=text)
    if snap["state"] == "evaluating":
        st.caption(ui.t("trained.evaluating"))
    elif snap["expected_end"] is not None:
        st.caption(ui.t("trained.expected_end", seconds=max(0, round(snap["expected_end"] - time.time())),
                        loss=snap["loss"]))
    if mine and st.button(ui.t("trained.stop"), key="trained.stop_button", icon=":material/stop:"):
        training.stop(owner)


live_status()
for run in live_runs:
    facts_run = describe_run(run)
    if run["doc"] is None:
        st.caption(ui.t("trained.failed", error=run["error"], **facts_run))
        continue
    curves = view.curves_from_doc(run["doc"], run["task"])["curves"]
    plain = next(c for c in curves if c["scaling"] == "none")
    first = view.at_factor([plain], 1.0).get((plain["encoding"], "none"))
    there = view.at_factor([plain], factor).get((plain["encoding"], "none"))
    r = run["doc"]["runs"][0]
    st.caption(ui.t("trained.run_line_mine" if run["owner"] == owner else "trained.run_line_other",
                    seconds=r["wall_seconds"], done=r["stopped_at"] if r["stopped_at"] is not None else run["steps"],
                    first=pct(first["mean"]) if first else "–", factor=factor,
                    there=pct(there["mean"]) if there else "–", **facts_run))

ui.questions(PAGE)
