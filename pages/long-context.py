"""Long context: what PI, NTK, dynamic NTK, YaRN, Llama 3 and LongRoPE do to a real model's RoPE."""

import numpy as np
import streamlit as st

import explorer as ui
from explorer.knobs import LONG_CONTEXT_PRESETS
from explorer.views import long_context as view
from explorer.figures import line_chart, shaded_lines

ui.enter()
PAGE = "long_context"
resolve_model = ui.cached(view.resolve_model, max_entries=32)
scaling_curves = ui.cached(view.scaling_curves, max_entries=32)
expected_scores = ui.cached(view.expected_scores)
softmax_row = ui.cached(view.softmax_row)
dynamic_trap = ui.cached(view.dynamic_trap)


def length(n) -> str:
    return f"{int(n):,}"


def _named(setting: tuple, focus: str):
    """The curves of a setting, the methods' legend names, and the names drawn dashed (not in focus)."""
    curves = scaling_curves(*setting)
    names = {name: ui.t(f"long_context.method_{name}") for name in curves["methods"]}
    return curves, names, tuple(label for name, label in names.items() if name != focus)


@ui.figure
def factors_figure(setting: tuple, focus: str):
    curves, names, others = _named(setting, focus)
    return line_chart(curves["pairs"], {label: curves["methods"][name]["factors"] for name, label in names.items()},
                      title=ui.t("long_context.factors_title", factor=curves["factor"]),
                      x_title=ui.t("long_context.pair_axis"), y_title=ui.t("long_context.factor_axis"), log_y=True,
                      dashed=others)


@ui.figure
def wavelength_figure(setting: tuple, focus: str):
    curves, names, others = _named(setting, focus)
    half = len(curves["pairs"])
    series = {ui.t("long_context.plain_series"): curves["plain_wavelength"]}
    series.update({label: curves["methods"][name]["wavelength"] for name, label in names.items()})
    original_name = ui.t("long_context.original_line", n=curves["original"])
    target_name = ui.t("long_context.target_line", n=curves["target"])
    series[original_name] = np.full(half, curves["original"], dtype=np.float32)
    series[target_name] = np.full(half, curves["target"], dtype=np.float32)
    return line_chart(curves["pairs"], series, title=ui.t("long_context.wavelength_title"),
                      x_title=ui.t("long_context.pair_axis"), y_title=ui.t("long_context.wavelength_axis"),
                      log_y=True, dashed=others + (original_name, target_name))


@ui.figure
def angles_figure(setting: tuple, focus: str):
    curves, names, others = _named(setting, focus)
    series = {ui.t("long_context.trained_series", n=curves["original"]): curves["trained_angle"],
              ui.t("long_context.plain_at_target", n=curves["target"]): curves["plain_angle"]}
    series.update({label: curves["methods"][name]["angle"] for name, label in names.items()})
    return line_chart(curves["pairs"], series, title=ui.t("long_context.angles_title", target=curves["target"]),
                      x_title=ui.t("long_context.pair_axis"), y_title=ui.t("long_context.angle_axis"), log_y=True,
                      dashed=others)


@ui.figure
def score_figures(setting: tuple, focus: str, samples: int, seed: int):
    curves, names, others = _named(setting, focus)
    model, target, original = setting[0], curves["target"], curves["original"]
    scores = expected_scores(model["rotary_dim"], model["base"],
                             {name: curves["methods"][name]["inv_freq"] for name in names}, target, samples, seed)
    score_names = {"plain": ui.t("long_context.plain_series"), **names}
    return tuple(shaded_lines(scores["distances"], {label: scores[kind][name] for name, label in score_names.items()},
                              band=(0, min(original, target)), band_name=ui.t("long_context.trained_band"),
                              title=ui.t(f"long_context.{kind}_title"), x_title=ui.t("long_context.distance_axis"),
                              y_title=ui.t("long_context.score_axis"), dashed=others)
                 for kind in ("free", "tied"))


@ui.figure
def row_figure(dim: int, inv_freq: list, attention_factor: float, target: int, seed: int):
    row = softmax_row(dim, inv_freq, attention_factor, target, seed)
    without, with_factor = ui.t("long_context.without_factor"), ui.t("long_context.with_factor", a=attention_factor)
    return line_chart(row["distances"], {without: row["weights_without"], with_factor: row["weights_with"]},
                      title=ui.t("long_context.row_title", n=row["keys"]), x_title=ui.t("long_context.distance_axis"),
                      y_title=ui.t("long_context.weight_axis"), log_y=True)


@ui.figure
def trap_figure(trap_args: tuple):
    trap = dynamic_trap(*trap_args)
    prompt, target = trap_args[4], trap_args[5]
    return line_chart(trap["distances"], {ui.t("long_context.trap_consistent"): trap["consistent"],
                                          ui.t("long_context.trap_cached", prompt=prompt): trap["cached"]},
                      title=ui.t("long_context.trap_title", prompt=prompt, target=target),
                      x_title=ui.t("long_context.distance_axis"), y_title=ui.t("long_context.score_axis"))


ui.page_header(PAGE)
top = st.columns(3)
# the knobs that refine a setting wait in an expander, so that the first chart is on the first screen
more = st.expander(ui.t("long_context.more_knobs"), icon=":material/tune:")
with more:
    config_text = ui.knob(PAGE, "config")
# while a pasted config is valid, the menu names it: every preset is replaced by it
probe = resolve_model(LONG_CONTEXT_PRESETS[0], config_text)
preset_name = ui.knob(PAGE, "preset", where=top[0], format_func=(lambda v: ui.t(
    "long_context.preset_replaced", preset=v, model_type=probe["model_type"] or "?")) if probe["pasted"] else None)
target = int(ui.knob(PAGE, "target", where=top[1], format_func=length))
model = resolve_model(preset_name, config_text)
if model["refused"] is not None:  # answered next to the box
    reason, detail = model["refused"]
    more.warning(ui.t("long_context.config_too_large", rotary_dim=detail[0], limit=detail[1],
                      samples=view.MAX_SAMPLES, points=view.DECAY_POINTS, preset=preset_name)
                 if reason == "too_large" else ui.t(f"long_context.config_{reason}", detail=detail, preset=preset_name))
methods_named = {name: ui.t(f"long_context.method_{name}") for name in (*view.METHODS, "model")}
focus_choice = ui.knob(PAGE, "focus", where=top[2], format_func=lambda v: ui.t(
    "long_context.focus_model", rope_type=model["rope_type"]) if v == "model" else methods_named[v])
model_line = ui.t("long_context.model_line", name=model["name"], head_dim=model["head_dim"],
                  rotary_dim=model["rotary_dim"], base=ui.format_base(model["base"]), rope_type=model["rope_type"],
                  original=model["original"], source=ui.t("long_context.source_pasted" if model["pasted"]
                                                           else "long_context.source_preset"))

with more:
    cols = st.columns(3)
    original_choice = ui.knob(PAGE, "original", where=cols[0], format_func=lambda v: ui.t(
        "long_context.original_model", n=model["original"]) if v == "model" else length(v))
    original = model["original"] if original_choice == "model" else int(original_choice)
    factor_knob = ui.knob(PAGE, "factor", where=cols[1])
    factor = factor_knob or target / original
    with cols[2]:
        beta_fast = ui.knob(PAGE, "beta_fast")
        beta_slow = ui.knob(PAGE, "beta_slow", hi=min(32.0, beta_fast))
    cols = st.columns(3)
    low_freq = ui.knob(PAGE, "low_freq", where=cols[0])
    high_freq = ui.knob(PAGE, "high_freq", where=cols[1], lo=low_freq + 0.5)
if target <= original:
    st.info(ui.t("long_context.within_training", target=target, original=original))

with st.spinner(ui.t("long_context.computing")):
    setting = (model, target, original, factor, beta_fast, beta_slow, low_freq, high_freq)
    curves = scaling_curves(*setting)
methods = curves["methods"]
for name, reason in curves["skipped"].items():
    st.info(ui.t("long_context.skipped", method=methods_named[name], reason=reason[:200]))
focus = focus_choice if focus_choice != "model" else "model" if "model" in methods else model["rope_type"]
if focus not in methods and focus != "default":
    st.info(ui.t("long_context.focus_missing", method=methods_named.get(focus, focus)))
    focus = "yarn" if "yarn" in methods else next(iter(methods), "default")
names = {name: methods_named[name] for name in methods}
pairs = curves["pairs"]

st.subheader(ui.t("long_context.factors_header"))
ui.chart(factors_figure(setting, focus), key="factors")
# the setting in words, under its first chart (which comes on the first screen)
st.caption(model_line)
st.markdown(ui.t("long_context.setting", original=original, target=target, factor=factor))
st.markdown(ui.t("long_context.factors_text"))
st.latex(r"\theta_i = \mathrm{base}^{-2i/d},\qquad \theta_i' = \theta_i / f_i,\qquad "
         r"f_i = \theta_i / \theta_i' \in [1, s],\qquad s = T / L")


def band_text(indices: list) -> str:
    if not indices:
        return ui.t("long_context.band_none")
    return ui.t("long_context.band_range", count=len(indices), first=indices[0], last=indices[-1])


rows = [ui.t("long_context.band_table_head")]
for name, label in names.items():
    bands = methods[name]["bands"]
    rows.append(f"| {label} | {band_text(bands['kept'])} | {band_text(bands['interpolated'])} | "
                f"{band_text(bands['blended'])} | {methods[name]['attention_factor']:.4f} |")
st.markdown("\n".join(rows))
st.caption(ui.t("long_context.band_caption"))

st.subheader(ui.t("long_context.wavelength_header"))
st.markdown(ui.t("long_context.wavelength_text"))
half = len(pairs)
ui.chart(wavelength_figure(setting, focus), key="wavelengths")
longer = int((curves["plain_wavelength"] > original).sum())
st.markdown(ui.t("long_context.wavelength_result", longer=longer, pairs=half, original=original))

st.subheader(ui.t("long_context.angles_header"))
st.markdown(ui.t("long_context.angles_text"))
with ui.chart_beside(angles_figure(setting, focus), key="angles", widths=(3, 1)):
    st.metric(ui.t("long_context.unseen_plain"), ui.t("long_context.unseen_value", count=curves["plain_unseen"],
                                                      pairs=half))
    for name, label in names.items():
        st.metric(ui.t("long_context.unseen_method", method=label),
                  ui.t("long_context.unseen_value", count=methods[name]["unseen"], pairs=half))

st.subheader(ui.t("long_context.scores_header"))
st.markdown(ui.t("long_context.scores_text"))
knob_cols = st.columns(4)
samples = ui.knob(PAGE, "samples", where=knob_cols[0])
seed = ui.knob(PAGE, "seed", where=knob_cols[1])
with st.spinner(ui.t("long_context.computing")):
    free_fig, tied_fig = score_figures(setting, focus, samples, seed)
ui.charts_side_by_side(free_fig, "scores_free", tied_fig, "scores_tied")
st.caption(ui.t("long_context.scores_caption", points=min(target + 1, view.DECAY_POINTS), samples=samples))

st.subheader(ui.t("long_context.entropy_header"))
st.markdown(ui.t("long_context.entropy_text"))
st.latex(r"\mathrm{softmax}\Big(\frac{a^2\,(\mathcal{R}_m q)^\top \mathcal{R}_n k}{\sqrt{d}}\Big),\qquad "
         r"a = 0.1 \ln s + 1,\qquad H = -\sum_n p_n \ln p_n")
if "yarn" in methods:
    yarn = methods["yarn"]
    row = softmax_row(model["rotary_dim"], yarn["inv_freq"], yarn["attention_factor"], target, seed)
    with ui.chart_beside(row_figure(model["rotary_dim"], yarn["inv_freq"], yarn["attention_factor"], target, seed),
                         key="softmax_row", widths=(3, 1)):
        st.metric(ui.t("long_context.entropy_without"), f"{row['entropy_without']:.3f}")
        st.metric(ui.t("long_context.entropy_with"), f"{row['entropy_with']:.3f}")
        st.metric(ui.t("long_context.entropy_flat"), f"{row['log_n']:.3f}")
    st.markdown(ui.t("long_context.entropy_result", a=row["attention_factor"], a2=row["attention_factor"] ** 2,
                     without=row["entropy_without"], with_=row["entropy_with"], n=row["keys"]))

st.subheader(ui.t("long_context.trap_header"))
st.markdown(ui.t("long_context.trap_text"))
st.latex(r"\mathrm{base}'(n) = \mathrm{base}\cdot\Big(\frac{s\,n}{L} - (s - 1)\Big)^{d/(d-2)},\qquad "
         r"(\mathcal{R}_m^{(T)} q)^\top \mathcal{R}_n^{(P)} k \ne (\mathcal{R}_m^{(T)} q)^\top \mathcal{R}_n^{(T)} k")
prompt = int(ui.knob(PAGE, "prompt", where=knob_cols[2], format_func=length))
if "dynamic" in methods and prompt < target:
    trap = dynamic_trap(model["rotary_dim"], model["base"], original, factor, prompt, target, samples, seed)
    trap_args = (model["rotary_dim"], model["base"], original, factor, prompt, target, samples, seed)
    with ui.chart_beside(trap_figure(trap_args), key="dynamic_trap", widths=(3, 1)):
        st.metric(ui.t("long_context.trap_shift"), f"{trap['max_shift']:.3g}")
        st.metric(ui.t("long_context.trap_relative"), f"{trap['relative']:.1%}")
    st.markdown(ui.t("long_context.trap_same" if trap["same_frequencies"] else "long_context.trap_result",
                     prompt=prompt, target=target, original=original, shift=trap["max_shift"],
                     relative=trap["relative"], distance=trap["worst_distance"]))
else:
    st.info(ui.t("long_context.trap_needs", target=target))

ui.questions(PAGE)
