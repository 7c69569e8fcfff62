"""The long-context page's figures: each method's per-pair factors, wavelengths and largest angles,
the expected scores past the trained length, YaRN's softmax row and the dynamic-NTK cache trap."""

from __future__ import annotations

import numpy as np

from explorer.app.cache import cached, figure
from explorer.pure.figures import concept_color, line_chart, shaded_lines
from explorer.pure.figures.style import MARK, REFERENCE
from explorer.app.place import named
from explorer.app.session import t
from explorer.pure.views import long_context as view

resolve_model = cached(view.resolve_model, max_entries=32)
scaling_curves = cached(view.scaling_curves, max_entries=32)
expected_scores = cached(view.expected_scores)
softmax_row = cached(view.softmax_row)
dynamic_trap = cached(view.dynamic_trap)
method_name = named("long_context.method_")  # a method's name in legends and notices ("model": the config's own)


def _named(setting: view.Setting, focus: str):
    """The curves of a setting, the methods' legend names, the names drawn faint (not in focus) and each
    method's colour by its legend name (plain RoPE's too)."""
    curves = scaling_curves(*setting)
    names = {name: method_name(name) for name in curves.methods}
    colors = {label: concept_color(name) for name, label in names.items()}
    colors[t("long_context.plain_series")] = concept_color("rope")
    return curves, names, tuple(label for name, label in names.items() if name != focus), colors


@figure
def factors(setting: view.Setting, focus: str):
    curves, names, others, colors = _named(setting, focus)
    return line_chart(curves.pairs, {label: curves.methods[name].factors for name, label in names.items()},
                      title=t("long_context.factors_title", factor=curves.factor),
                      x_title=t("long_context.pair_axis"), y_title=t("long_context.factor_axis"), log_y=True,
                      faint=others, colors=colors)


@figure
def wavelengths(setting: view.Setting, focus: str):
    curves, names, others, colors = _named(setting, focus)
    half = len(curves.pairs)
    series = {t("long_context.plain_series"): curves.plain_wavelength}
    series.update({label: curves.methods[name].wavelength for name, label in names.items()})
    original_name = t("long_context.original_line", n=curves.original)
    target_name = t("long_context.target_line", n=curves.target)
    series[original_name] = np.full(half, curves.original, dtype=np.float32)
    series[target_name] = np.full(half, curves.target, dtype=np.float32)
    return line_chart(curves.pairs, series, title=t("long_context.wavelength_title"),
                      x_title=t("long_context.pair_axis"), y_title=t("long_context.wavelength_axis"),
                      log_y=True, faint=others, dashed=(original_name, target_name),
                      colors={**colors, original_name: MARK, target_name: REFERENCE})


@figure
def angles(setting: view.Setting, focus: str):
    curves, names, others, colors = _named(setting, focus)
    trained, plain = (t("long_context.trained_series", n=curves.original),
                      t("long_context.plain_at_target", n=curves.target))
    series = {trained: curves.trained_angle, plain: curves.plain_angle}
    series.update({label: curves.methods[name].angle for name, label in names.items()})
    return line_chart(curves.pairs, series, title=t("long_context.angles_title", target=curves.target),
                      x_title=t("long_context.pair_axis"), y_title=t("long_context.angle_axis"), log_y=True,
                      faint=others, colors={**colors, trained: MARK, plain: concept_color("rope")})


@figure
def scores(setting: view.Setting, focus: str, samples: int, seed: int):
    """The expected scores against distance, entries free and tied (q = k): two figures."""
    curves, names, others, colors = _named(setting, focus)
    model, target, original = setting.model, curves.target, curves.original
    found = expected_scores(model.rotary_dim, model.base,
                            {name: curves.methods[name].inv_freq for name in names}, target, samples, seed)
    score_names = {"plain": t("long_context.plain_series"), **names}
    return tuple(shaded_lines(found.distances, {label: curve[name] for name, label in score_names.items()},
                              band=(0, min(original, target)), band_name=t("long_context.trained_band"),
                              title=t(f"long_context.{kind}_title"), x_title=t("long_context.distance_log_axis"),
                              y_title=t("long_context.score_axis"), faint=others, colors=colors, log_x=True)
                 for kind, curve in (("free", found.free), ("tied", found.tied)))


@figure
def softmax(dim: int, inv_freq: np.ndarray, attention_factor: float, target: int, seed: int):
    """The share of the row's softmax weight held by its k largest weights, without and with YaRN's factor,
    beside a flat row's: the sharper the softmax, the faster the curve climbs."""
    row = softmax_row(dim, inv_freq, attention_factor, target, seed)
    without, with_factor = t("long_context.without_factor"), t("long_context.with_factor", a=attention_factor)
    flat = t("long_context.flat_share")
    return line_chart(row.ranks, {without: row.share_without, with_factor: row.share_with,
                                     flat: row.share_flat},
                      title=t("long_context.row_title", n=row.keys), x_title=t("long_context.rank_axis"),
                      y_title=t("long_context.share_axis"), log_x=True, dashed=(flat,),
                      colors={with_factor: concept_color("yarn"), without: MARK, flat: REFERENCE})


@figure
def trap(setting: view.TrapSetting):
    found = dynamic_trap(*setting)
    return line_chart(found.distances, {t("long_context.trap_consistent"): found.consistent,
                                        t("long_context.trap_cached", prompt=setting.prompt): found.cached},
                      title=t("long_context.trap_title", prompt=setting.prompt, target=setting.target),
                      x_title=t("long_context.distance_axis"), y_title=t("long_context.score_axis"))
