"""The implementation page's figures: the worked rotation on the plane, the three forms' cost, which
coordinates each layout pairs, partial rotary's untouched coordinates, and the values rotated or not."""

from __future__ import annotations

import functools

import numpy as np

from explorer.app import heavy
from explorer.app.cache import cached
from explorer.pure.figures import bar_chart, heatmap, line_chart, plane_diagram, series_bars
from explorer.app.place import named
from explorer.app.session import t
from explorer.pure.timing import TimedOn
from explorer.pure.views import implementation_forms as view

method_gaps = cached(view.affordable_method_gaps)
layout_gaps = cached(view.batch_layout_gaps)
pair_map = cached(view.pair_map)
partial_split = cached(view.partial_split)
value_lines = cached(view.value_lines)
method_name = named("implementation_forms.method_")


def worked(rot: view.WorkedRotation, m: int):
    """The query's pair before and after the turn (dashed), in the query's colour."""
    after = t("implementation_forms.worked_after", m=m)
    return plane_diagram([(t("implementation_forms.worked_before"), *rot.q, "query"), (after, *rot.result, "query")],
                         dashes={after: "dash"}, title=t("implementation_forms.worked_plot_title", angle=rot.angle),
                         x_title=t("implementation_forms.first_coord"), y_title=t("implementation_forms.second_coord"))


def costs(methods, micro, seq: int, dim: int):
    return bar_chart([method_name(method) for method in methods], micro,
                     title=t("implementation_forms.cost_title", seq=seq, dim=dim),
                     x_title=t("implementation_forms.method_axis"), y_title=t("implementation_forms.time_axis"),
                     log_y=True, text=[f"{v:,.1f} µs" for v in micro])


def pairs(dim: int):
    owners = pair_map(dim)
    return heatmap(owners.owners, x=owners.coordinates, y=[t(f"common.layout_{lay}") for lay in view.LAYOUTS],
                   title=t("implementation_forms.pairs_title"), x_title=t("implementation_forms.coordinate_axis"),
                   y_title=t("implementation_forms.layout_axis"), colorscale="Viridis", zmid=None,
                   colorbar_title=t("implementation_forms.pair_colorbar"), height=260)


def partial(dim: int, seed: int, position: int, rotary_dim: int):
    split = partial_split(dim, seed, position, rotary_dim)
    return series_bars({t("implementation_forms.rotated_series", r=rotary_dim): split.rotated,
                        t("implementation_forms.passed_series"): split.passed},
                       title=t("implementation_forms.partial_title", r=rotary_dim, d=dim, m=position),
                       x_title=t("implementation_forms.coordinate_axis"), y_title=t("implementation_forms.change_axis"))


def values(found: view.ValueLines, shift: int):
    return line_chart(
        found.queries,
        {t(f"implementation_forms.value_{name}"): found.gaps[name] for name in view.VALUE_VARIANTS},
        title=t("implementation_forms.value_title", shift=shift),
        x_title=t("implementation_forms.query_axis"),
        y_title=t("implementation_forms.output_gap_axis"),
        dashed=(t("implementation_forms.value_rotated_back"),),
    )


def method_microseconds(seq: int, dim: int, device: str, methods: tuple) -> tuple[np.ndarray, TimedOn]:
    """Each method timed, as a job of the server's one queue, and where."""
    return heavy.timing(("implementation_forms", seq, dim, device, methods),
                        functools.partial(view.batch_method_microseconds, seq, dim, device, methods), device=device,
                        what=t("implementation_forms.section_timing"))
