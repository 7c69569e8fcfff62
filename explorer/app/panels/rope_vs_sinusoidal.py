"""The RoPE-versus-sinusoidal page's figures: the sinusoidal table beside its dot products by offset, the four
terms of the additive logits, the shift test of both encodings and the tokens' lengths."""

from __future__ import annotations

from explorer.app.cache import cached, figure
from explorer.app.place import labelled, offset_band, position_axes
from explorer.app.session import t
from explorer.pure.figures import concept_color, heatmap, heatmap_grid, line_chart
from explorer.pure.views import rope_vs_sinusoidal as view

encoding_table = cached(view.table)
terms = cached(view.terms)
residuals = cached(view.residuals)
norms = cached(view.norms)
cost_per_token = cached(view.cost_per_token)


@figure
def table(seq: int, dim: int, base: float, device: str):
    """The encoding table, and the dot products of its rows by offset."""
    pe = encoding_table(seq, dim, base, device)
    table_fig = heatmap(pe.drawn, x=pe.cols, y=pe.rows, title=t("rope_vs_sinusoidal.pe_title"),
                        x_title=t("rope_vs_sinusoidal.dim_axis"), y_title=t("common.position"),
                        colorbar_title=t("rope_vs_sinusoidal.pe_bar"))
    band_fig = offset_band(pe.profile, title=t("rope_vs_sinusoidal.pe_dot_title"),
                           y_title=t("rope_vs_sinusoidal.pe_dot_axis"), mean_name=t("rope_vs_sinusoidal.mean"),
                           band_name=t("rope_vs_sinusoidal.band"))
    return table_fig, band_fig


@figure
def term_maps(seq: int, dim: int, base: float, seed: int, device: str):
    split = terms(seq, dim, base, seed, device)
    panels = dict(labelled(view.term_panels(split)))
    content = list(panels)[view.TERMS.index("content_content")]  # one constant: no position enters it
    return heatmap_grid(panels, title=t("rope_vs_sinusoidal.terms_title"),
                        colorbar_title=t("rope_vs_sinusoidal.logit_bar"), **position_axes(split.kept),
                        notes={content: t("rope_vs_sinusoidal.content_flat")})


@figure
def shift_maps(seq: int, dim: int, base: float, seed: int, shift: int, device: str):
    moved = residuals(seq, dim, base, seed, shift, device)
    return heatmap_grid({t(f"rope_vs_sinusoidal.{enc}_panel"): moved.drawn[enc] for enc in view.ENCODINGS},
                        title=t("rope_vs_sinusoidal.shift_title", k=shift),
                        colorbar_title=t("rope_vs_sinusoidal.residual_bar"), colorscale="Viridis", zmid=None,
                        zmin=0.0, **position_axes(moved.kept),  # RoPE's: rounding only, by design
                        notes={t("rope_vs_sinusoidal.rope_panel"): t("rope_vs_sinusoidal.rope_flat")})


@figure
def norm_lines(seq: int, dim: int, base: float, seed: int, device: str):
    lengths = norms(seq, dim, base, seed, device)
    names = {enc: t(f"rope_vs_sinusoidal.norm_{enc}") for enc in lengths.lengths}
    return line_chart(list(range(seq)), {names[enc]: lengths.lengths[enc] for enc in view.NORM_CONCEPTS},
                      title=t("rope_vs_sinusoidal.norm_title"), x_title=t("common.position"),
                      y_title=t("rope_vs_sinusoidal.norm_axis"), dashed=(names["none"],),
                      colors={names[enc]: concept_color(c) for enc, c in view.NORM_CONCEPTS.items()})
