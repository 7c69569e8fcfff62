"""Images and video: 2-D RoPE on a grid of patches against 1-D RoPE in raster order and M-RoPE, the 2-D
shift test, and a text-image-text-video-text sequence with its three position-id rows."""

import streamlit as st

import explorer as ui
from explorer.app import latex as tex
from explorer.app.place import caption, knob_row, metric_row, metric_stack, named, paragraphs, say, section
from explorer.app.panels import images_and_video as panel
from explorer.pure.views import images_and_video as view

PAGE = "images_and_video"

ui.page_header(PAGE)

st.subheader(ui.t("images_and_video.grid_header"))
height, width, row, col = knob_row(PAGE, "height", "width", "row", "col", row=lambda v: {"hi": v["height"] - 1},
                                   col=lambda v: {"hi": v["width"] - 1})  # narrowed to the image
maps_slot = st.container()  # the maps first; the vectors' knobs under them
dim, base, frequencies, seed = knob_row(PAGE, "dim", "base", "frequencies", "seed",
                                        frequencies={"format_func": named("images_and_video.frequencies_")})

with maps_slot:
    with st.spinner(ui.t("images_and_video.computing")):
        maps = panel.patch_scores(height, width, row, col, dim, base, frequencies, seed)
    st.markdown(ui.t("images_and_video.maps_title", row=row, col=col))
    figures = panel.maps(height, width, row, col, dim, base, frequencies, seed)
    for (name, fig), where in zip(figures.items(), st.columns(len(figures))):
        with where:  # side by side; a phone stacks the columns, each map at its full width
            ui.chart(fig, key=f"maps_{name}")
    st.caption(ui.t("images_and_video.maps_caption", norm=maps.norm))
# how the maps are made, under them (the maps come on the first screen)
st.markdown(ui.t("images_and_video.grid_text"))
pair = tex.label("images_and_video.latex_pair") + r"\ "
st.latex(pair + r"p < d/4:\ \alpha_p = r\,\phi_p,\qquad " + pair + r"p \ge d/4:\ \alpha_p = c\,\psi_{p-d/4},"
         r"\qquad (\mathcal{R}_{r_1,c_1} q)^\top(\mathcal{R}_{r_2,c_2} k) = "
         r"q^\top \mathcal{R}_{r_2-r_1,\,c_2-c_1}\, k")

st.markdown(ui.t("images_and_video.raster_text", width=width))
neighbours = view.raster_neighbours(maps, width)
if neighbours:
    for (header, metrics), where in zip(neighbours, st.columns(len(neighbours))):
        where.markdown(say(header))
        metric_stack(metrics, where=where)
else:
    st.info(ui.t("images_and_video.one_row"))
time_pairs, height_pairs, width_pairs = maps.section
st.markdown(ui.t("images_and_video.mrope_text", t=time_pairs, h=height_pairs, w=width_pairs))
close = panel.mrope_close_up(height, width, row, col, dim, base, frequencies, seed)
paragraphs([close.reading])
with ui.chart_beside(panel.close_up(height, width, row, col, dim, base, frequencies, seed), key="mrope"):
    metric_stack(view.mrope_metrics(close))

st.subheader(ui.t("images_and_video.shift_header"))
shift_rows, shift_cols = knob_row(PAGE, "shift_rows", "shift_cols")
shifted = panel.shift_test(height, width, row, col, dim, base, frequencies, seed, shift_rows, shift_cols)
st.markdown(
    ui.t(
        "images_and_video.shift_text",
        row=row,
        col=col,
        key_row=shifted.key_row,
        key_col=shifted.key_col,
        a=shift_rows,
        b=shift_cols,
    )
)
metric_row(view.shift_metrics(shifted, shift_rows, shift_cols, height * width))

section("images_and_video.multimodal")
text, img_h, img_w, frames, resume = knob_row(PAGE, "text", "img_h", "img_w", "frames", "resume",
                                              resume={"format_func": named("images_and_video.resume_")})
with st.spinner(ui.t("images_and_video.computing")):
    seq = panel.multimodal(text, img_h, img_w, frames, resume, dim, base, seed)

mm = (text, img_h, img_w, frames, resume, dim, base, seed)
ui.chart(panel.position_ids(*mm), key="position_ids")
st.markdown(ui.t("images_and_video.resume_text"))
paragraphs(view.resume_reading(seq, resume))

ui.charts_side_by_side(panel.sections(*mm), "sections", panel.scores(*mm), "scores")
st.markdown(ui.t("images_and_video.sections_text"))
caption(view.thinned_scores(seq))

ui.questions(PAGE, width=width, height=height)
