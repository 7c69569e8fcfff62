"""The frequency-clocks page's figures: the clocks animation (and its GIF), every pair's wrapped angle by
position, the wavelengths beside the context, and one vector before and after its turn at position m."""

from __future__ import annotations

from explorer.app.cache import cached, figure
from explorer.app.session import lang, t
from explorer.pure.animation_export import clocks_file
from explorer.pure.figures import clock_animation, heatmap, line_chart, plane_diagram
from explorer.pure.views import frequency_clocks as view

clocks = cached(view.clocks)
frequencies = cached(view.frequencies)
turned_vector = cached(view.turned_vector)


@figure
def clock_figure(dim: int, base: float, max_pos: int, pairs: tuple, m: int,
                 title: str = "frequency_clocks.clocks_title"):
    """The clocks animation (one frame per position: built once per language), opened at position m, under
    the title with text key `title` (the home page shows the same clocks under its own)."""
    hands = clocks(dim, base, max_pos, pairs)
    return clock_animation(
        hands.positions,
        hands.cos,
        hands.sin,
        [t("frequency_clocks.clock_short", i=i, wave=wave) for i, wave in zip(pairs, hands.waves)],
        title=t(title),
        play=t("frequency_clocks.play"),
        pause=t("frequency_clocks.pause"),
        position_label=t("common.position"),
        start=m,
    )


def clocks_gif(dim: int, base: float, max_pos: int, pairs: tuple) -> bytes:
    """The clocks as an animated GIF in the visitor's language (made when asked for)."""
    return clocks_file(clocks(dim, base, max_pos, pairs), pairs, lang())


# Labelled figures built once per language and knob values (a shared link costs no Plotly work after
# its first visit): each takes plain arguments and reads its data from the cached views.
@figure
def angles_figure(dim: int, base: float, max_pos: int):
    return heatmap(frequencies(dim, base, max_pos).angles, title=t("frequency_clocks.angles_title"),
                   x_title=t("frequency_clocks.pair_axis"), y_title=t("common.position"),
                   colorscale="Phase", zmid=None, colorbar_title=t("frequency_clocks.angle_axis"))


@figure
def wavelengths_figure(dim: int, base: float, max_pos: int):
    freqs = frequencies(dim, base, max_pos)
    return line_chart(freqs.pairs, {t("frequency_clocks.wave_series"): freqs.waves,
                                    t("frequency_clocks.context_series"): freqs.context},
                      title=t("frequency_clocks.wave_title"), x_title=t("frequency_clocks.pair_axis"),
                      y_title=t("frequency_clocks.wave_axis"), log_y=True, markers=True,
                      dashed=(t("frequency_clocks.context_series"),))


@figure
def vector_figure(dim: int, base: float, m: int, seed: int, pair: int):
    vector = turned_vector(dim, base, m, seed, pair)
    after = t("frequency_clocks.after", m=m)
    return plane_diagram(
        [(t("frequency_clocks.before"), *vector.before, "query"), (after, *vector.after, "query")],
        dashes={after: "dash"},
        title=t("frequency_clocks.vector_title", i=pair, m=m),
        x_title=t("frequency_clocks.x_axis"),
        y_title=t("frequency_clocks.y_axis"),
    )
