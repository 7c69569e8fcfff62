"""The relative-attention page's figures: the score map (its cells pickable, the chosen one marked) beside
its profile along m - n, the residual after a shift, and the softmax weights."""

from __future__ import annotations

from explorer.app.cache import cached
from explorer.app.place import offset_band, position_axes, say
from explorer.app.session import t
from explorer.pure.figures import heatmap, heatmap_grid, mark_cell, pick_layer
from explorer.pure.views import relative_attention as view

scores = cached(view.scores)
residual = cached(view.residual)
weights = cached(view.weights)
cell = cached(view.cell)


def score_figures(scored: view.ScoreMap, seq: int, m: int, n: int, score: float):
    """The score map (a click picks a cell) and the profile of its diagonals, cell (m, n) marked on both."""
    scores_fig = heatmap(
        scored.drawn,
        title=t("relative_attention.scores_title"),
        colorbar_title=t("relative_attention.score_bar"),
        **position_axes(scored.kept),
    )
    pick_layer(scores_fig, scored.kept, scored.drawn, t("relative_attention.pick_hover"))
    profile_fig = offset_band(
        scored.profile,
        title=t("relative_attention.profile_title"),
        y_title=t("common.score"),
        mean_name=t("relative_attention.profile_mean"),
        band_name=t("relative_attention.profile_band"),
    )
    mark_cell(scores_fig, profile_fig, m, n, seq, score, t("relative_attention.cell_name"))
    return scores_fig, profile_fig


def residual_figure(moved: view.Residual, shift: int):
    """How much each score changed when the whole sequence moved by `shift`."""
    return heatmap(
        moved.drawn,
        title=t("relative_attention.residual_title", s=shift),
        colorscale="Viridis",
        zmid=None,
        colorbar_title=t("relative_attention.residual_bar"),
        **position_axes(moved.kept),
    )


def weights_figure(weighed: view.Weights, causal: bool):
    """The softmax weights, their colour scale topped at a high quantile."""
    return heatmap_grid({"": weighed.drawn}, columns=1, title=say(view.weights_title(causal)),
                        colorscale="Viridis", zmid=None, zmin=0.0, zmax=weighed.top,
                        colorbar_title=t("relative_attention.weight_bar"), height=440,
                        **position_axes(weighed.kept))
