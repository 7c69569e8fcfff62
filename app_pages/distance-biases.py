"""Distance biases side by side: RoPE's expected score, xPos, ALiBi per head, T5 buckets and NoPE against
distance, their logit matrices, and a table of what depends on m - n only and what happens past L."""

import streamlit as st

import explorer as ui
from explorer.app.place import knob_row, say, table
from explorer.app.panels import distance_biases as panel
from explorer.pure.views import distance_biases as view

PAGE = "distance_biases"

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
    panel.profiles(max_r, dim, base, heads, scale_base, seed)  # the slow part, under the spinner
with left_chart:
    ui.chart(panel.expected(max_r, dim, base, heads, scale_base, seed), key="expected")
    st.caption(ui.t("distance_biases.expected_caption"))
with right_chart:
    ui.chart(panel.alibi(max_r, dim, base, heads, scale_base, seed), key="alibi")
    st.caption(ui.t("distance_biases.alibi_caption"))
# the five scores written out, under the curves that compare them
st.latex(r"\text{RoPE: } (\mathcal{R}_m q)^\top(\mathcal{R}_n k) = q^\top \mathcal{R}_{n-m} k\qquad"
         r"\text{xPos: } \sum_i \zeta_i^{(m-n)/s}\,(\ldots)_i")
st.latex(r"\text{ALiBi: } q^\top k - s_h\,(m-n)\qquad"
         r"\text{T5: } q^\top k + b_h[\mathrm{bucket}(n-m)]\qquad"
         r"\text{NoPE: } q^\top k")

num_buckets, max_distance, bidirectional = knob_row(PAGE, "num_buckets", "max_distance", "bidirectional")
t5_knobs = (max_r, num_buckets, max_distance, bidirectional, seed)
buckets_fig, bias_fig = panel.t5(*t5_knobs)
ui.charts_side_by_side(buckets_fig, "t5_buckets", bias_fig, "t5_bias")
t5 = panel.t5_buckets(*t5_knobs)
st.markdown(say(view.t5_reading(t5, seed, num_buckets, max_r)))

st.subheader(ui.t("distance_biases.matrices_header"))
st.markdown(ui.t("distance_biases.matrices_text", seq=view.MATRIX_SEQ))
with st.spinner(ui.t("distance_biases.computing")):
    matrices = panel.logit_matrices(dim, base, heads, num_buckets, max_distance, bidirectional, scale_base, seed)
    past = panel.past_the_longest(max_r, dim, base, heads, scale_base)
ui.chart(panel.matrices(dim, base, heads, num_buckets, max_distance, bidirectional, scale_base, seed), key="matrices")

table(view.summary_table(matrices, past, t5, max_r), index="distance_biases.col_encoding")
st.caption(ui.t("distance_biases.table_caption", seq=view.MATRIX_SEQ))
st.markdown(ui.t("distance_biases.closing"))

ui.questions(PAGE, heads=heads)
