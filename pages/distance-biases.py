"""Distance biases side by side: RoPE's expected score, xPos, ALiBi per head, T5 buckets and NoPE against
distance, their logit matrices, and a table of what depends on m - n only and what happens past L."""

import streamlit as st

import explorer as ui
from explorer.pure.figures import concept_color, distance_chart, heatmap_panels
from explorer.app.layout import knob_row, say, table
from explorer.pure.views import distance_biases as view

ui.enter()
PAGE = "distance_biases"
profiles = ui.cached(view.profiles)
t5_buckets = ui.cached(view.t5_buckets)
logit_matrices = ui.cached(view.logit_matrices)
past_the_longest = ui.cached(view.past_the_longest)


@ui.figure
def expected_figure(max_r: int, dim: int, base: float, heads: int, scale_base: int, seed: int):
    curves = profiles(max_r, dim, base, heads, scale_base, seed)
    names = {"rope": ui.t("distance_biases.rope_series"), "xpos": ui.t("distance_biases.xpos_series", s=scale_base),
             "nope": ui.t("distance_biases.nope_series")}
    return distance_chart(curves["distances"], {names[name]: curves[name] for name in names},
                          marks={ui.t("distance_biases.longest_mark"): max_r},
                          title=ui.t("distance_biases.expected_title", dim=dim, samples=view.SAMPLES),
                          x_title=ui.t("distance_biases.distance_axis"), y_title=ui.t("distance_biases.expected_axis"),
                          dashed=(names["nope"],), colors={names[name]: concept_color(name) for name in names})


@ui.figure
def alibi_figure(max_r: int, dim: int, base: float, heads: int, scale_base: int, seed: int):
    curves = profiles(max_r, dim, base, heads, scale_base, seed)
    series = {ui.t("distance_biases.head_series", h=h + 1, slope=float(slope)): curves["alibi"][h]
              for h, slope in enumerate(curves["slopes"])}
    return distance_chart(
        curves["steps"],
        series,
        marks={ui.t("distance_biases.longest_mark"): max_r},
        title=ui.t("distance_biases.alibi_title", heads=heads),
        x_title=ui.t("distance_biases.distance_axis"),
        y_title=ui.t("distance_biases.bias_axis"),
    )


@ui.figure
def t5_figure(which: str, max_r: int, num_buckets: int, max_distance: int, bidirectional: bool, seed: int):
    """which: "buckets" (the bucket of each offset) or "bias" (the random table's value)."""
    t5 = t5_buckets(max_r, num_buckets, max_distance, bidirectional, seed)
    marks = {say(name): at for name, at in view.t5_marks(max_r, max_distance, bidirectional)}
    if which == "buckets":
        return distance_chart(
            t5["offsets"],
            {ui.t("distance_biases.bucket_series"): t5["buckets"]},
            marks=marks,
            title=ui.t("distance_biases.buckets_title", n=num_buckets),
            x_title=ui.t("distance_biases.offset_axis"),
            y_title=ui.t("distance_biases.bucket_axis"),
            line_shape="hv",
        )
    return distance_chart(t5["offsets"], {ui.t("distance_biases.t5_series"): t5["bias"]}, marks=marks,
                          title=ui.t("distance_biases.t5_bias_title"), x_title=ui.t("distance_biases.offset_axis"),
                          y_title=ui.t("distance_biases.bias_axis"), line_shape="hv")


@ui.figure
def matrices_figure(dim: int, base: float, heads: int, num_buckets: int, max_distance: int, bidirectional: bool,
                    scale_base: int, seed: int):
    matrices = logit_matrices(dim, base, heads, num_buckets, max_distance, bidirectional, scale_base, seed)
    return heatmap_panels({ui.t(f"distance_biases.name_{name}"): matrices[name] for name in view.ENCODINGS},
                          x=matrices["kept"], y=matrices["kept"],
                          title=ui.t("distance_biases.matrices_title", seq=view.MATRIX_SEQ),
                          x_title=ui.t("common.key_position"), y_title=ui.t("common.query_position"))


ui.page_header(PAGE)
max_r, dim, base, seed = knob_row(PAGE, "max_r", "dim", "base", "seed")

st.subheader(ui.t("distance_biases.curves_header"))
left, right = st.columns(2)
left_chart, right_chart = left.container(), right.container()  # each chart above its own knob
with left:
    scale_base = ui.knob(PAGE, "scale_base")
with right:
    heads = ui.knob(PAGE, "heads")
with st.spinner(ui.t("distance_biases.computing")):
    profiles(max_r, dim, base, heads, scale_base, seed)  # the slow part, under the spinner
with left_chart:
    ui.chart(expected_figure(max_r, dim, base, heads, scale_base, seed), key="expected")
    st.caption(ui.t("distance_biases.expected_caption"))
with right_chart:
    ui.chart(alibi_figure(max_r, dim, base, heads, scale_base, seed), key="alibi")
    st.caption(ui.t("distance_biases.alibi_caption"))
# the five scores written out, under the curves that compare them
st.latex(r"\text{RoPE: } (\mathcal{R}_m q)^\top(\mathcal{R}_n k) = q^\top \mathcal{R}_{n-m} k\qquad"
         r"\text{xPos: } \sum_i \zeta_i^{(m-n)/s}\,(\ldots)_i")
st.latex(r"\text{ALiBi: } q^\top k - s_h\,(m-n)\qquad"
         r"\text{T5: } q^\top k + b_h[\mathrm{bucket}(n-m)]\qquad"
         r"\text{NoPE: } q^\top k")

num_buckets, max_distance, bidirectional = knob_row(PAGE, "num_buckets", "max_distance", "bidirectional")
t5_knobs = (max_r, num_buckets, max_distance, bidirectional, seed)
ui.charts_side_by_side(t5_figure("buckets", *t5_knobs), "t5_buckets", t5_figure("bias", *t5_knobs), "t5_bias")
t5 = t5_buckets(*t5_knobs)
st.markdown(say(view.t5_reading(t5, seed, num_buckets, max_r)))

st.subheader(ui.t("distance_biases.matrices_header"))
st.markdown(ui.t("distance_biases.matrices_text", seq=view.MATRIX_SEQ))
with st.spinner(ui.t("distance_biases.computing")):
    matrices = logit_matrices(dim, base, heads, num_buckets, max_distance, bidirectional, scale_base, seed)
    past = past_the_longest(max_r, dim, base, heads, scale_base)
ui.chart(matrices_figure(dim, base, heads, num_buckets, max_distance, bidirectional, scale_base, seed), key="matrices")

table(view.summary_table(matrices, past, t5, max_r), index="distance_biases.col_encoding")
st.caption(ui.t("distance_biases.table_caption", seq=view.MATRIX_SEQ))
st.markdown(ui.t("distance_biases.closing"))

ui.questions(PAGE, heads=heads)
