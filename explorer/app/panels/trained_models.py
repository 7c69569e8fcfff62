"""The trained-models page's data and figures: the shipped grid's curves and attention maps (cached), the
accuracy chart with the live runs, one head's maps at 1x and past the training length, and the most
position-locked head of every encoding."""

from __future__ import annotations

from explorer.app.cache import cached, figure
from explorer.app.place import named, position_axes, say
from explorer.app.session import t
from explorer.pure.figures import band_lines, grouped_bars, heatmap
from explorer.pure.views import trained_models as view

shipped = cached(view.shipped, max_entries=4)
shipped_curves = cached(view.shipped_curves, max_entries=8)
attention_view = cached(view.attention_view, max_entries=32)
locked_heads = cached(view.locked_heads, max_entries=16)
enc, scal, task_name = named("trained_models.enc_"), named("trained_models.scaling_"), named("trained_models.task_")


def accuracy(drawn: view.AccuracyChart, page: str, task: str):
    """An accuracy chart against evaluation length, worded by `page`'s text (this page's, or the designs
    page's): not cached as a figure here, as the live runs drawn on it come and go."""
    return band_lines(
        [{**s, "name": say(s["name"])} for s in drawn.series],
        marks={say(name): at for name, at in drawn.marks},
        title=t(f"{page}.accuracy_title", task=t(f"{page}.task_{task}")),
        x_title=t(f"{page}.length_axis"),
        y_title=t(f"{page}.accuracy_axis"),
        log_x=True,
        y_range=(0, 1.03),
        height=480,
        x_ticks=drawn.x_ticks,
    )


def maps(found: view.AttentionMaps, reading: view.MapReading):
    """One head's maps at the training length and past it, each titled by the page's reading of them."""
    return tuple(heatmap(z, **position_axes(kept), colorscale="Viridis", zmid=None,
                         colorbar_title=t("trained_models.weight_axis"), title=say(title))
                 for z, kept, title in ((found.short, found.short_kept, reading.titles[0]),
                                        (found.long, found.long_kept, reading.titles[1])))


@figure
def locked(folder: str, stamp: float | None, task: str, factor: float, scaling: str):
    """Every encoding's most position-locked head: its share of queries at its offset, at 1x and past."""
    heads = locked_heads(folder, stamp, task, factor, scaling)
    return grouped_bars(
        [say(name) for name in view.locked_reading(heads, factor).names],
        {t("trained_models.share_1x"): heads.share_1x,
         t("trained_models.share_past", factor=factor): heads.share_past},
        title=t("trained_models.locked_title", factor=factor),
        x_title=t("trained_models.encoding_axis"),
        y_title=t("trained_models.share_axis"),
        y_range=(0, 1.03),
    )
