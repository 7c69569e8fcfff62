"""Images and video: 2-D RoPE on a grid of patches against 1-D RoPE in raster order and M-RoPE, the 2-D
shift test, and a text-image-text-video-text sequence with its three position-id rows."""

import streamlit as st

import explorer as ui
from explorer.app import latex as tex
from explorer.pure.figures import heatmap, pair_sections, patch_maps, position_id_rows
from explorer.pure.figures.style import DIVERGING
from explorer.app.layout import caption, knob_row, metric_row, metric_stack, named, paragraphs, say, section
from explorer.pure.views import images_and_video as view

ui.enter()
PAGE = "images_and_video"
patch_scores = ui.cached(view.patch_scores, max_entries=32)
mrope_close_up = ui.cached(view.mrope_close_up, max_entries=32)
shift_test = ui.cached(view.shift_test)
multimodal = ui.cached(view.multimodal)


@ui.figure
def maps_figure(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str, seed: int):
    maps = patch_scores(height, width, row, col, dim, base, frequencies, seed)
    panels = {
        ui.t("images_and_video.panel_axial"): maps["axial"],
        ui.t("images_and_video.panel_raster"): maps["raster"],
        ui.t("images_and_video.panel_mrope"): maps["mrope"],
    }
    return patch_maps(
        panels,
        query=(row, col),
        title=ui.t("images_and_video.maps_title", row=row, col=col),
        x_title=ui.t("images_and_video.col_axis"),
        y_title=ui.t("images_and_video.row_axis"),
        query_name=ui.t("images_and_video.query_name"),
        colorbar_title=ui.t("images_and_video.score_axis"),
    )


@ui.figure
def close_up_figure(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str, seed: int):
    """The M-RoPE map minus its mean, on a scale of its own centred on zero."""
    close = mrope_close_up(height, width, row, col, dim, base, frequencies, seed)
    return patch_maps(
        {ui.t("images_and_video.panel_close"): close["offset"]},
        query=(row, col),
        colorscale=DIVERGING,
        zrange=(-close["limit"], close["limit"]),
        title=ui.t("images_and_video.close_title", row=row, col=col),
        x_title=ui.t("images_and_video.col_axis"),
        y_title=ui.t("images_and_video.row_axis"),
        query_name=ui.t("images_and_video.query_name"),
        colorbar_title=ui.t("images_and_video.close_axis"),
    )


@ui.figure
def sequence_figure(which: str, text: int, img_h: int, img_w: int, frames: int, resume: str, dim: int, base: float,
                    seed: int):
    """which: "ids" (the three position-id rows), "sections" (the pairs by axis) or "scores"."""
    seq = multimodal(text, img_h, img_w, frames, resume, dim, base, seed)
    if which == "ids":
        spans = [
            (start, stop, ui.t(f"images_and_video.segment_{kind}"), kind != "text")
            for start, stop, kind in seq["spans"]
        ]
        rows = {ui.t("images_and_video.id_time"): seq["ids"][0], ui.t("images_and_video.id_height"): seq["ids"][1],
                ui.t("images_and_video.id_width"): seq["ids"][2]}
        return position_id_rows(seq["positions"], rows, spans,
                                title=ui.t("images_and_video.ids_title", tokens=seq["tokens"]),
                                x_title=ui.t("images_and_video.token_axis"), y_title=ui.t("images_and_video.id_axis"))
    if which == "sections":
        sections = {say(name): band for name, band in view.section_bands(seq["section"], dim)}
        return pair_sections(seq["speeds"], sections, title=ui.t("images_and_video.sections_title", dim=dim),
                             x_title=ui.t("images_and_video.pair_axis"), y_title=ui.t("images_and_video.speed_axis"))
    return heatmap(seq["scores"], x=seq["kept"], y=seq["kept"], title=ui.t("images_and_video.scores_title"),
                   x_title=ui.t("images_and_video.key_token_axis"), y_title=ui.t("images_and_video.query_token_axis"),
                   colorbar_title=ui.t("images_and_video.score_axis"))


ui.page_header(PAGE)

st.subheader(ui.t("images_and_video.grid_header"))
height, width, row, col = knob_row(PAGE, "height", "width", "row", "col", row=lambda v: {"hi": v["height"] - 1},
                                   col=lambda v: {"hi": v["width"] - 1})  # narrowed to the image
maps_slot = st.container()  # the maps first; the vectors' knobs under them
dim, base, frequencies, seed = knob_row(PAGE, "dim", "base", "frequencies", "seed",
                                        frequencies={"format_func": named("images_and_video.frequencies_")})

with maps_slot:
    with st.spinner(ui.t("images_and_video.computing")):
        maps = patch_scores(height, width, row, col, dim, base, frequencies, seed)
    ui.chart(maps_figure(height, width, row, col, dim, base, frequencies, seed), key="maps")
    st.caption(ui.t("images_and_video.maps_caption", norm=maps["norm"]))
# how the maps are made, under them (the maps come on the first screen)
st.markdown(ui.t("images_and_video.grid_text"))
pair = tex.label("images_and_video.latex_pair") + r"\ "
st.latex(pair + r"p < d/4:\ \alpha_p = r\,\phi_p,\qquad " + pair + r"p \ge d/4:\ \alpha_p = c\,\psi_{p-d/4},"
         r"\qquad (\mathcal{R}_{r_1,c_1} q)^\top(\mathcal{R}_{r_2,c_2} k) = "
         r"q^\top \mathcal{R}_{r_2-r_1,\,c_2-c_1}\, k")

st.markdown(ui.t("images_and_video.raster_text", width=width))
neighbours = view.raster_neighbours(maps, height, width)
if neighbours:
    for (header, metrics), where in zip(neighbours, st.columns(len(neighbours))):
        where.markdown(say(header))
        metric_stack(metrics, where=where)
else:
    st.info(ui.t("images_and_video.one_row"))
time_pairs, height_pairs, width_pairs = maps["section"]
st.markdown(ui.t("images_and_video.mrope_text", t=time_pairs, h=height_pairs, w=width_pairs))
close = mrope_close_up(height, width, row, col, dim, base, frequencies, seed)
paragraphs([close["reading"]])
with ui.chart_beside(close_up_figure(height, width, row, col, dim, base, frequencies, seed), key="mrope"):
    metric_stack(view.mrope_metrics(close))

st.subheader(ui.t("images_and_video.shift_header"))
shift_rows, shift_cols = knob_row(PAGE, "shift_rows", "shift_cols")
shifted = shift_test(height, width, row, col, dim, base, frequencies, seed, shift_rows, shift_cols)
st.markdown(
    ui.t(
        "images_and_video.shift_text",
        row=row,
        col=col,
        key_row=shifted["key_row"],
        key_col=shifted["key_col"],
        a=shift_rows,
        b=shift_cols,
    )
)
metric_row(view.shift_metrics(shifted, shift_rows, shift_cols, height * width))

section("images_and_video.multimodal")
text, img_h, img_w, frames, resume = knob_row(PAGE, "text", "img_h", "img_w", "frames", "resume",
                                              resume={"format_func": named("images_and_video.resume_")})
with st.spinner(ui.t("images_and_video.computing")):
    seq = multimodal(text, img_h, img_w, frames, resume, dim, base, seed)

mm = (text, img_h, img_w, frames, resume, dim, base, seed)
ui.chart(sequence_figure("ids", *mm), key="position_ids")
st.markdown(ui.t("images_and_video.resume_text"))
paragraphs(view.resume_reading(seq, frames, resume))

ui.charts_side_by_side(sequence_figure("sections", *mm), "sections", sequence_figure("scores", *mm), "scores")
st.markdown(ui.t("images_and_video.sections_text"))
caption(view.thinned_scores(seq))

ui.questions(PAGE, width=width, height=height)
