"""The phase-cancellation page's figures: the score as both tokens slide against the key alone, the four 2x2
matrices of step 2, the pair's query and key turning together (and its GIF), and R_Θ,m in d dimensions."""

from __future__ import annotations

from explorer.app.cache import cached, figure
from explorer.app.place import say
from explorer.app.session import lang, t
from explorer.pure.animation_export import phase_file
from explorer.pure.figures import concept_color, heatmap, line_chart, matrix_panels, pair_turn_animation
from explorer.pure.views import phase_cancellation as view

pair_rotations = cached(view.pair_rotations)
slide = cached(view.slide)
all_pairs = cached(view.all_pairs)


def shift_figure(dims: view.AllPairs):
    """The score of both tokens sliding together (flat) against the key alone sliding (moving)."""
    scores = {t("phase_cancellation.both_series"): dims.both, t("phase_cancellation.key_series"): dims.key_only}
    return line_chart(
        dims.shifts,
        scores,
        title=t("phase_cancellation.shift_title"),
        x_title=t("phase_cancellation.shift_axis"),
        y_title=t("phase_cancellation.score_axis"),
        height=360,  # the kept offset's colour, the moved key's
        colors=dict(zip(scores, (concept_color("offset"), concept_color("key")))),
    )


def matrices_figure(check: view.PairRotations, m: int, n: int):
    """R_m, R_n, their product and R_(n-m), side by side."""
    return matrix_panels(
        check.matrices,
        [say(title) for title in view.panel_titles(m, n)],
        title=t("phase_cancellation.matrices_title"),
        x_title=t("phase_cancellation.column"),
        y_title=t("phase_cancellation.row"),
    )


@figure
def slide_figure(m: int, n: int, dim: int, base: float, pair: int, seed: int):
    """The animation of both vectors turning together (61 frames: built once per language)."""
    path = slide(m, n, dim, base, pair, seed)
    steps = path.shifts
    titles = [t("phase_cancellation.frame_title", s=s, qm=m + s, kn=n + s, dot=dot) for s, dot in zip(steps, path.dots)]
    return pair_turn_animation(
        [str(s) for s in steps],
        path.query,
        path.key,
        titles,
        names=(t("phase_cancellation.query_name"), t("phase_cancellation.key_name")),
        x_title=t("phase_cancellation.first"),
        y_title=t("phase_cancellation.second"),
        play=t("phase_cancellation.play"),
        pause=t("phase_cancellation.pause"),
        slider_prefix=t("phase_cancellation.shift_prefix"),
    )


def slide_gif(m: int, n: int, dim: int, base: float, pair: int, seed: int) -> bytes:
    """The slide as an animated GIF in the visitor's language (made when asked for)."""
    return phase_file(slide(m, n, dim, base, pair, seed), m, n, lang())


def block_figure(dims: view.AllPairs, m: int, dim: int):
    """R_Θ,m: the block-diagonal rotation of all d dimensions at position m."""
    return heatmap(
        dims.block,
        title=t("phase_cancellation.block_title", m=m, d=dim),
        x_title=t("phase_cancellation.column"),
        y_title=t("phase_cancellation.row"),
        colorbar_title=t("phase_cancellation.entry"),
    )
