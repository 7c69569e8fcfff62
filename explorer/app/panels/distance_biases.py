"""The distance-biases page's figures: RoPE's and xPos's expected score and NoPE against distance, ALiBi's bias
per head, T5's buckets and bias by offset, and every encoding's logit matrix."""

from __future__ import annotations

from explorer.app.cache import cached, figure
from explorer.app.place import say
from explorer.app.session import t
from explorer.pure.figures import concept_color, distance_chart, heatmap_panels
from explorer.pure.views import distance_biases as view

profiles = cached(view.profiles)
t5_buckets = cached(view.t5_buckets)
logit_matrices = cached(view.logit_matrices)
past_the_longest = cached(view.past_the_longest)


@figure
def expected(max_r: int, dim: int, base: float, heads: int, scale_base: int, seed: int):
    curves = profiles(max_r, dim, base, heads, scale_base, seed)
    names = {"rope": t("distance_biases.rope_series"), "xpos": t("distance_biases.xpos_series", s=scale_base),
             "nope": t("distance_biases.nope_series")}
    return distance_chart(curves.distances, {names[name]: curves.expected[name] for name in names},
                          marks={t("distance_biases.longest_mark"): max_r},
                          title=t("distance_biases.expected_title", dim=dim, samples=view.SAMPLES),
                          x_title=t("distance_biases.distance_axis"), y_title=t("distance_biases.expected_axis"),
                          dashed=(names["nope"],), colors={names[name]: concept_color(name) for name in names})


@figure
def alibi(max_r: int, dim: int, base: float, heads: int, scale_base: int, seed: int):
    curves = profiles(max_r, dim, base, heads, scale_base, seed)
    series = {t("distance_biases.head_series", h=h + 1, slope=float(slope)): curves.alibi[h]
              for h, slope in enumerate(curves.slopes)}
    return distance_chart(curves.steps, series, marks={t("distance_biases.longest_mark"): max_r},
                          title=t("distance_biases.alibi_title", heads=heads),
                          x_title=t("distance_biases.distance_axis"), y_title=t("distance_biases.bias_axis"))


@figure
def t5(max_r: int, num_buckets: int, max_distance: int, bidirectional: bool, seed: int):
    """The bucket of each offset, and the random table's value there."""
    found = t5_buckets(max_r, num_buckets, max_distance, bidirectional, seed)
    marks = {say(mark.name): mark.at for mark in view.t5_marks(max_r, max_distance, bidirectional)}
    axes = dict(marks=marks, x_title=t("distance_biases.offset_axis"), line_shape="hv")
    buckets = distance_chart(found.offsets, {t("distance_biases.bucket_series"): found.buckets},
                             title=t("distance_biases.buckets_title", n=num_buckets),
                             y_title=t("distance_biases.bucket_axis"), **axes)
    bias = distance_chart(found.offsets, {t("distance_biases.t5_series"): found.bias},
                          title=t("distance_biases.t5_bias_title"), y_title=t("distance_biases.bias_axis"), **axes)
    return buckets, bias


@figure
def matrices(dim: int, base: float, heads: int, num_buckets: int, max_distance: int, bidirectional: bool,
             scale_base: int, seed: int):
    found = logit_matrices(dim, base, heads, num_buckets, max_distance, bidirectional, scale_base, seed)
    return heatmap_panels({t(f"distance_biases.name_{name}"): found.drawn[name] for name in view.ENCODINGS},
                          x=found.kept, y=found.kept, title=t("distance_biases.matrices_title", seq=view.MATRIX_SEQ),
                          x_title=t("common.key_position"), y_title=t("common.query_position"),
                          notes={t("distance_biases.name_nope"): t("distance_biases.nope_flat")})
