"""The designs page's figures: every scheme's accuracy against length, the pairs' norms per head of the
trained RoPE and p-RoPE models, and the RoPE model's accuracy by position with its own and the other layout."""

from __future__ import annotations

from explorer.app.cache import cached, figure
from explorer.app.panels import trained_models as trained_panels
from explorer.pure.figures import heatmap_grid, line_chart
from explorer.app.place import named, say
from explorer.app.session import t
from explorer.pure.views import rope_designs as view

grid_curves = cached(view.grid_curves, max_entries=8)
two_layer_curves = trained_panels.shipped_curves  # the Trained models page's grid
frequency_use = cached(view.frequency_use, max_entries=8)
removal = cached(view.removal, max_entries=16)
layout_mixup = cached(view.layout_mixup, max_entries=16)
task_name = named("rope_designs.task_")


@figure
def accuracy(folder: str, stamp: float | None, task: str):
    return trained_panels.accuracy(view.accuracy_series(grid_curves(folder, stamp, task)), "rope_designs", task)


@figure
def norms(folder: str, stamp: float | None, task: str):
    use = frequency_use(folder, stamp, task)
    panels = {say(view.scheme_phrase(scheme)): found.size for scheme, found in use.models.items()}
    return heatmap_grid(  # one colour scale with its bar: the maps are compared value for value
        panels,
        x=use.pairs,
        y=use.rows,
        columns=1,
        colorscale="Viridis",
        zmid=None,
        zmin=0.0,
        colorbar_title=t("rope_designs.norm_bar"),
        title=t("rope_designs.frequency_title", task=task_name(task)),
        x_title=t("rope_designs.pair_axis"),
        y_title=t("rope_designs.head_axis"),
    )


@figure
def mixup(folder: str, stamp: float | None, task: str, factor: float):
    found = layout_mixup(folder, stamp, task, factor)
    own = t("rope_designs.mixup_own", layout=t(f"common.layout_{found.own_layout}"))
    other = t("rope_designs.mixup_other", layout=t(f"common.layout_{found.other_layout}"))
    return line_chart(found.positions, {own: found.own.pooled, other: found.swapped.pooled},
                      title=t("rope_designs.mixup_title", length=found.length, width=found.width),
                      x_title=t(f"rope_designs.position_axis_{task}"),
                      y_title=t("rope_designs.accuracy_axis"), dashed=(other,))
