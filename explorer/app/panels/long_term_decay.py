"""The long-term-decay page's figures: RoFormer's bound against distance for the chosen base and a sweep of
others, and the mean scores of random vectors measured over a grid of distances."""

from __future__ import annotations

from explorer.app.cache import cached
from explorer.app.place import labelled, say
from explorer.app.session import t
from explorer.pure.figures import line_chart
from explorer.pure.knobs import format_base
from explorer.pure.views import long_term_decay as view

bound_curve = cached(view.bound_curve, max_entries=32)
sampled_means = cached(view.sampled_means)


def bound_figure(dim: int, base: float, max_r: int, exponents: tuple, log_x: bool):
    """The bound of the chosen base, the sweep's other bases dashed."""
    lines = view.sweep_lines(dim, base, max_r, exponents, curve=bound_curve)
    return line_chart(
        bound_curve(dim, base, max_r).distances,
        dict(labelled(lines.series)),
        title=t("long_term_decay.bound_title", dim=dim),
        x_title=t("long_term_decay.distance_axis"),
        y_title=t("long_term_decay.bound_axis"),
        log_x=log_x,
        dashed=tuple(say(name) for name in lines.dashed),
    )


def means_figure(means: view.SampledMeans, samples: int, base: float, log_x: bool):
    """The measured mean scores, q and k drawn independently and tied (q = k)."""
    return line_chart(
        means.distances,
        {t("long_term_decay.free_series"): means.free, t("long_term_decay.tied_series"): means.tied},
        title=t("long_term_decay.empirical_title", samples=samples, base=format_base(base)),
        x_title=t("long_term_decay.distance_axis"),
        y_title=t("long_term_decay.score_axis"),
        log_x=log_x,
    )
