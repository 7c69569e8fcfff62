"""Images and video: 2-D RoPE on a grid of patches against 1-D RoPE in raster order and M-RoPE, the 2-D
shift test, and a text-image-text-video-text sequence with its three position-id rows."""

import numpy as np
import streamlit as st

import explorer as ui
from explorer import latex as tex
from explorer.knobs import PAGE_KNOBS
from explorer.views import images as view
from explorer.figures import heatmap, pair_sections, patch_maps, position_id_rows

ui.enter()
PAGE = "images"
patch_scores = ui.cached(view.patch_scores, max_entries=32)
shift_test = ui.cached(view.shift_test)
multimodal = ui.cached(view.multimodal)


@ui.figure
def maps_figure(height: int, width: int, row: int, col: int, dim: int, base: float, frequencies: str, seed: int):
    maps = patch_scores(height, width, row, col, dim, base, frequencies, seed)
    panels = {ui.t("images.panel_axial"): maps["axial"], ui.t("images.panel_raster"): maps["raster"],
              ui.t("images.panel_mrope"): maps["mrope"]}
    return patch_maps(panels, query=(row, col), title=ui.t("images.maps_title", row=row, col=col),
                      x_title=ui.t("images.col_axis"), y_title=ui.t("images.row_axis"),
                      query_name=ui.t("images.query_name"), colorbar_title=ui.t("images.score_axis"))


@ui.figure
def sequence_figure(which: str, text: int, img_h: int, img_w: int, frames: int, resume: str, dim: int, base: float,
                    seed: int):
    """which: "ids" (the three position-id rows), "sections" (the pairs by axis) or "scores"."""
    seq = multimodal(text, img_h, img_w, frames, resume, dim, base, seed)
    if which == "ids":
        spans = [(start, stop, ui.t(f"images.segment_{kind}"), kind != "text") for start, stop, kind in seq["spans"]]
        rows = {ui.t("images.id_time"): seq["ids"][0], ui.t("images.id_height"): seq["ids"][1],
                ui.t("images.id_width"): seq["ids"][2]}
        return position_id_rows(np.arange(seq["tokens"], dtype=np.float32), rows, spans,
                                title=ui.t("images.ids_title", tokens=seq["tokens"]),
                                x_title=ui.t("images.token_axis"), y_title=ui.t("images.id_axis"))
    if which == "sections":
        time_pairs, height_pairs, width_pairs = seq["section"]
        sections = {ui.t("images.section_time", n=time_pairs): (0, time_pairs),
                    ui.t("images.section_height", n=height_pairs): (time_pairs, time_pairs + height_pairs),
                    ui.t("images.section_width", n=width_pairs): (time_pairs + height_pairs, dim // 2)}
        return pair_sections(seq["speeds"], sections, title=ui.t("images.sections_title", dim=dim),
                             x_title=ui.t("images.pair_axis"), y_title=ui.t("images.speed_axis"))
    return heatmap(seq["scores"], x=seq["kept"], y=seq["kept"], title=ui.t("images.scores_title"),
                   x_title=ui.t("images.key_token_axis"), y_title=ui.t("images.query_token_axis"),
                   colorbar_title=ui.t("images.score_axis"))


ui.page_header(PAGE)

st.subheader(ui.t("images.grid_header"))
cols = st.columns(4)
height = ui.knob(PAGE, "height", where=cols[0])
width = ui.knob(PAGE, "width", where=cols[1])
# narrowed to the image, default included (a repaired link falls back to a default that fits)
row = ui.knob(PAGE, "row", where=cols[2], hi=height - 1, default=min(PAGE_KNOBS[PAGE]["row"].default, height - 1))
col = ui.knob(PAGE, "col", where=cols[3], hi=width - 1, default=min(PAGE_KNOBS[PAGE]["col"].default, width - 1))
maps_slot = st.container()  # the maps first; the vectors' knobs under them
cols = st.columns(4)
dim = ui.knob(PAGE, "dim", where=cols[0])
base = ui.knob(PAGE, "base", where=cols[1], format_func=ui.format_base)
frequencies = ui.knob(PAGE, "frequencies", where=cols[2], format_func=lambda v: ui.t(f"images.frequencies_{v}"))
seed = ui.knob(PAGE, "seed", where=cols[3])

with maps_slot:
    with st.spinner(ui.t("images.computing")):
        maps = patch_scores(height, width, row, col, dim, base, frequencies, seed)
    ui.chart(maps_figure(height, width, row, col, dim, base, frequencies, seed), key="maps")
    st.caption(ui.t("images.maps_caption", norm=maps["norm"]))
# how the maps are made, under them (the maps come on the first screen)
st.markdown(ui.t("images.grid_text"))
pair = tex.label("images.latex_pair") + r"\ "
st.latex(pair + r"p < d/4:\ \alpha_p = r\,\phi_p,\qquad " + pair + r"p \ge d/4:\ \alpha_p = c\,\psi_{p-d/4},"
         r"\qquad (\mathcal{R}_{r_1,c_1} q)^\top(\mathcal{R}_{r_2,c_2} k) = "
         r"q^\top \mathcal{R}_{r_2-r_1,\,c_2-c_1}\, k")

st.markdown(ui.t("images.raster_text", width=width))
if height > 1:
    left, right = st.columns(2)
    with left:
        st.markdown(ui.t("images.below_header", width=width))
        st.metric(ui.t("images.score_2d"), f"{maps['below_axial']:.3f}")
        st.metric(ui.t("images.score_1d"), f"{maps['below_raster']:.3f}")
    with right:
        st.markdown(ui.t("images.wrap_header", last=width - 1, width=width))
        st.metric(ui.t("images.score_2d_wrap"), f"{maps['wrap_axial']:.3f}")
        st.metric(ui.t("images.score_1d_wrap"), f"{maps['wrap_raster']:.3f}")
else:
    st.info(ui.t("images.one_row"))
time_pairs, height_pairs, width_pairs = maps["section"]
st.markdown(ui.t("images.mrope_text", t=time_pairs, h=height_pairs, w=width_pairs))

st.subheader(ui.t("images.shift_header"))
cols = st.columns(2)
shift_rows = ui.knob(PAGE, "shift_rows", where=cols[0])
shift_cols = ui.knob(PAGE, "shift_cols", where=cols[1])
shifted = shift_test(height, width, row, col, dim, base, frequencies, seed, shift_rows, shift_cols)
st.markdown(ui.t("images.shift_text", row=row, col=col, key_row=shifted["key_row"], key_col=shifted["key_col"],
                 a=shift_rows, b=shift_cols))
cols = st.columns(4)
cols[0].metric(ui.t("images.shift_before"), f"{shifted['before']:.6f}")
cols[1].metric(ui.t("images.shift_after", a=shift_rows, b=shift_cols), f"{shifted['after']:.6f}")
cols[2].metric(ui.t("images.shift_pair_change"), f"{shifted['pair_change']:.1e}")
cols[3].metric(ui.t("images.shift_largest_change"), f"{shifted['largest_change']:.1e}",
               help=ui.t("images.shift_largest_help", n=height * width, largest=shifted["largest_score"]))

st.subheader(ui.t("images.multimodal_header"))
st.markdown(ui.t("images.multimodal_text"))
cols = st.columns(5)
text = ui.knob(PAGE, "text", where=cols[0])
img_h = ui.knob(PAGE, "img_h", where=cols[1])
img_w = ui.knob(PAGE, "img_w", where=cols[2])
frames = ui.knob(PAGE, "frames", where=cols[3])
resume = ui.knob(PAGE, "resume", where=cols[4], format_func=lambda v: ui.t(f"images.resume_{v}"))
with st.spinner(ui.t("images.computing")):
    seq = multimodal(text, img_h, img_w, frames, resume, dim, base, seed)

mm = (text, img_h, img_w, frames, resume, dim, base, seed)
ui.chart(sequence_figure("ids", *mm), key="position_ids")
st.markdown(ui.t("images.resume_text"))
if frames:
    st.markdown(ui.t("images.resume_numbers", first=seq["video_first"], last=seq["video_last"],
                     spatial=seq["resume_spatial"], largest=seq["resume_largest"]))
    st.markdown(ui.t("images.resume_overlap", overlap=seq["overlap"], overlap_frames=seq["overlap_frames"])
                if seq["overlap"] else ui.t("images.resume_agree"))
else:
    st.markdown(ui.t("images.resume_no_video"))
st.markdown(ui.t("images.resume_followed", rule=ui.t(f"images.resume_{resume}")))

ui.charts_side_by_side(sequence_figure("sections", *mm), "sections", sequence_figure("scores", *mm), "scores")
st.markdown(ui.t("images.sections_text"))
if len(seq["kept"]) < seq["tokens"]:
    st.caption(ui.t("images.scores_thinned", step=int(seq["kept"][1] - seq["kept"][0]), tokens=seq["tokens"]))

ui.questions(PAGE, width=width, height=height)
