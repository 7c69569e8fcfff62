"""The distance-biases view: curve shapes, T5 bucket counts past L, Toeplitz verdicts and the past-L numbers."""

import dataclasses
import math

import numpy as np
import pytest

from explorer.pure.views import distance_biases as view
from explorer.pure.views.phrases import phrase


def test_profiles_shapes_and_alibi_lines():
    out = view.profiles(64, 16, 1e4, 3, 512, 0)
    assert out.distances[-1] == 128 and len(out.distances) == 129
    assert out.alibi.shape == (3, 129)
    np.testing.assert_allclose(out.alibi[:, -1], -out.slopes * 128, rtol=1e-6)
    assert out.expected["xpos"][0] == pytest.approx(out.expected["rope"][0])  # at distance 0 every xPos weight is 1


def test_t5_past_max_distance_shares_one_bucket():
    out = view.t5_buckets(256, 32, 128, True, 0)
    assert out.buckets_past == 1 and out.new_past == 0
    assert out.bias_at_max == out.bias_at_twice
    short = view.t5_buckets(32, 32, 128, True, 0)  # L below max_distance: new buckets appear past L
    assert short.new_past > 0


def test_only_the_absolute_encoding_fails_the_toeplitz_check():
    out = view.logit_matrices(16, 1e4, 4, 16, 64, False, 256, 2)
    for name in ("rope", "xpos", "alibi", "t5", "nope"):
        assert out.toeplitz[name], name
        assert out.deviation[name] <= 1e-9 * out.largest[name]
    assert not out.toeplitz["sinusoidal"] and out.deviation["sinusoidal"] > 0.1
    assert out.drawn["rope"].shape == (view.MATRIX_SIDE, view.MATRIX_SIDE)


def test_past_the_longest_numbers():
    out = view.past_the_longest(100, 8, 10.0, 2, 50)
    assert out.new_angle_pairs == sum(2 * math.pi * 10 ** (2 * i / 8) > 100 for i in range(4))
    assert (out.alibi_at_max, out.alibi_at_twice) == pytest.approx((-100 / 16, -200 / 16))
    zeta = (2 * 3 / 8 + 0.4) / 1.4
    assert out.xpos_factor_at_max == pytest.approx(zeta ** 2)
    assert out.xpos_factor_at_twice == pytest.approx(zeta ** 4)


def test_t5_marks_inside_the_drawn_offsets_only():
    assert view.t5_marks(64, 200, True) == [(phrase("distance_biases.longest_mark_t5"), -64)]  # 200 > 2L: off the chart
    assert view.t5_marks(64, 128, False) == [(phrase("distance_biases.longest_mark_t5"), -64),
                                             (phrase("distance_biases.max_distance_mark"), -128)]
    assert [at for _, at in view.t5_marks(64, 100, True)] == [-64, -100, 100]


def test_summary_table_rows_follow_the_numbers():
    matrices = view.LogitMatrices(kept=np.arange(2), drawn={},
                                  deviation={name: 0.0 for name in view.ENCODINGS} | {"sinusoidal": 0.25},
                                  toeplitz={name: True for name in view.ENCODINGS} | {"sinusoidal": False},
                                  largest={name: 2.5 for name in view.ENCODINGS})
    past = view.PastTheLongest(new_angle_pairs=3, pairs=8, alibi_at_max=-1.0, alibi_at_twice=-2.0,
                               xpos_factor_at_max=0.9, xpos_factor_at_twice=0.8)
    unused = np.zeros(1)
    t5 = view.T5Buckets(offsets=unused, buckets=unused, bias=unused, buckets_seen=5, buckets_past=2, new_past=1,
                        bias_at_max=0.5, bias_at_twice=0.25)
    rows = view.summary_table(matrices, past, t5, 64)
    assert all(len(cells) == len(view.ENCODINGS) for cells in rows.values())
    assert (
        rows["distance_biases.col_deviation"][0] == "0 / 2.5"
        and rows["distance_biases.col_deviation"][-1] == "0.25 / 2.5"
    )
    assert [c.key for c in rows["distance_biases.col_toeplitz"]] == ["common.yes"] * 5 + ["common.no"]
    said = dict(zip(view.ENCODINGS, rows["distance_biases.col_past"]))
    assert said["rope"] == phrase("distance_biases.past_rope", new=3, pairs=8, max_r=64)
    assert said["xpos"].args["at_twice"] == 0.8 and said["alibi"].args["at_max"] == -1.0
    assert said["t5"] == phrase("distance_biases.past_t5", past=2, new=1, max_r=64)
    one_bucket = dataclasses.replace(t5, buckets_past=1, new_past=0)
    one = view.summary_table(matrices, past, one_bucket, 64)["distance_biases.col_past"]
    assert dict(zip(view.ENCODINGS, one))["t5"].key == "distance_biases.past_t5_one"  # "one bucket", not "1 bucket(s)"
    reading = view.t5_reading(t5, 7, 32, 64)
    assert reading.args["twice"] == 128 and reading.args["seed"] == 7 and reading.args["n"] == 32
