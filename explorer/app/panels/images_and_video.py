"""The images-and-video page's figures: the query patch's scores under 2-D RoPE, 1-D RoPE and M-RoPE, the
M-RoPE map close up, and the multimodal sequence's position ids, pair sections and scores."""

from __future__ import annotations

from explorer.app.cache import cached, figure
from explorer.app.place import say
from explorer.app.session import t
from explorer.pure.figures import heatmap, pair_sections, patch_map, position_id_rows
from explorer.pure.figures.heatmaps import THIRD_MAP
from explorer.pure.figures.style import DIVERGING
from explorer.pure.views import images_and_video as view

patch_scores = cached(view.patch_scores, max_entries=32)
mrope_close_up = cached(view.mrope_close_up, max_entries=32)
shift_test = cached(view.shift_test)
multimodal = cached(view.multimodal)


def image_map(z, row: int, col: int, *, title: str, colorbar_title: str, **extra):
    """A map over the image's patches, the query patch (row, col) marked."""
    return patch_map(z, query=(row, col), title=title, x_title=t("images_and_video.col_axis"),
                     y_title=t("images_and_video.row_axis"), query_name=t("images_and_video.query_name"),
                     colorbar_title=colorbar_title, **extra)


@figure
def maps(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str, seed: int):
    """{name: figure} of the scores under 2-D RoPE ("axial"), 1-D RoPE ("raster") and M-RoPE ("mrope"): three maps
    on one colour scale, each for a column of its own (side by side on a wide screen, one under the other on a
    phone), the scale under each."""
    found = patch_scores(height, width, row, col, dim, base, frequencies, seed)
    drawn = {"axial": found.axial, "raster": found.raster, "mrope": found.mrope}
    notes = {"mrope": t("images_and_video.mrope_note")}
    return {name: image_map(z, row, col, title=t(f"images_and_video.panel_{name}"),
                            colorbar_title=t("images_and_video.score_axis"), zrange=found.shared_scale,
                            bar_below=True, note=notes.get(name), narrow=THIRD_MAP) for name, z in drawn.items()}


@figure
def close_up(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str, seed: int):
    """The M-RoPE map minus its mean, on a scale of its own centred on zero."""
    close = mrope_close_up(height, width, row, col, dim, base, frequencies, seed)
    return image_map(close.offset, row, col, colorscale=DIVERGING, zrange=(-close.limit, close.limit),
                     title=t("images_and_video.close_title", row=row, col=col),
                     colorbar_title=t("images_and_video.close_axis"))


@figure
def position_ids(text: int, img_h: int, img_w: int, frames: int, resume: str, dim: int, base: float, seed: int):
    """The sequence's three position-id rows, its segments marked."""
    seq = multimodal(text, img_h, img_w, frames, resume, dim, base, seed)
    spans = [(span.start, span.stop, t(f"images_and_video.segment_{span.kind}"), span.kind != "text")
             for span in seq.spans]
    rows = {t("images_and_video.id_time"): seq.ids[0], t("images_and_video.id_height"): seq.ids[1],
            t("images_and_video.id_width"): seq.ids[2]}
    return position_id_rows(seq.positions, rows, spans, title=t("images_and_video.ids_title", tokens=seq.tokens),
                            x_title=t("images_and_video.token_axis"), y_title=t("images_and_video.id_axis"))


@figure
def sections(text: int, img_h: int, img_w: int, frames: int, resume: str, dim: int, base: float, seed: int):
    """The pairs' speeds, in bands by the axis that turns them."""
    seq = multimodal(text, img_h, img_w, frames, resume, dim, base, seed)
    bands = {say(band.name): band.pairs for band in view.section_bands(seq.section, dim)}
    return pair_sections(seq.speeds, bands, title=t("images_and_video.sections_title", dim=dim),
                         x_title=t("images_and_video.pair_axis"), y_title=t("images_and_video.speed_axis"))


@figure
def scores(text: int, img_h: int, img_w: int, frames: int, resume: str, dim: int, base: float, seed: int):
    seq = multimodal(text, img_h, img_w, frames, resume, dim, base, seed)
    return heatmap(seq.scores, x=seq.kept, y=seq.kept, title=t("images_and_video.scores_title"),
                   x_title=t("images_and_video.key_token_axis"), y_title=t("images_and_video.query_token_axis"),
                   colorbar_title=t("images_and_video.score_axis"))
