"""The images-and-video page through AppTest: score maps, row-break metrics, the shift test and the
multimodal sequence against sums of cosines and position ids written out here, and hostile links
(opening in Chinese and at the extremes: test_every_page)."""

import numpy as np
import pytest
import torch

from rope_viz.analysis import random_tokens
from support.apptest import chart, metrics, opened, page_text, spec_array


def pair_weights(dim, seed):
    """|x_p|^2 of each interleaved pair (2p, 2p+1) of the page's repeated content vector."""
    x = random_tokens(1, dim, seed=seed, dtype=torch.float64).numpy()[0]
    return x[0::2] ** 2 + x[1::2] ** 2


def axial_score(w, base, a, b):
    """x_rot(a) . x_rot(b) for patches a = (r, c), b under shared-speed axial RoPE: the first quarter of
    the pairs turns with the row at base^(-4p/d), the second with the column."""
    quarter = len(w) // 2
    speeds = base ** (-4.0 * np.arange(quarter) / (2 * len(w)))
    return float((w[:quarter] * np.cos((b[0] - a[0]) * speeds)).sum()
                 + (w[quarter:] * np.cos((b[1] - a[1]) * speeds)).sum())


def rope_score(w, base, m, n):
    speeds = base ** (-2.0 * np.arange(len(w)) / (2 * len(w)))
    return float((w * np.cos((n - m) * speeds)).sum())


def mrope_score(w, base, section, ids_a, ids_b):
    """Pairs 0..t-1 turn with the time id, the next h with the height id, the rest with the width id,
    each at the ordinary speed base^(-2j/d)."""
    speeds = base ** (-2.0 * np.arange(len(w)) / (2 * len(w)))
    axis = np.repeat([0, 1, 2], section)
    delta = np.array([ids_b[axis[j]] - ids_a[axis[j]] for j in range(len(w))])
    return float((w * np.cos(delta * speeds)).sum())


def hand_ids(text, h, w, frames, rule):
    """(time, height, width) ids of text, image (h x w), text, video (frames x h x w), text."""
    ids, start = [], 0
    def add_text():
        nonlocal start
        ids.extend((start + i,) * 3 for i in range(text))
        start += text
    def add_grid(t):
        nonlocal start
        ids.extend((start + f, start + r, start + c) for f in range(t) for r in range(h) for c in range(w))
        start += max(h, w) if rule == "spatial" else max(t, h, w)
    add_text()
    add_grid(1)
    add_text()
    if frames:
        add_grid(frames)
        add_text()
    return np.array(ids, dtype=np.float64).T


def test_defaults_draw_three_maps_that_match_the_sums_of_cosines():
    at = opened("images_and_video")
    w = pair_weights(64, 0)
    axial = np.array([[axial_score(w, 1e4, (3, 5), (r, c)) for c in range(12)] for r in range(8)])
    raster = np.array([[rope_score(w, 1e4, 3 * 12 + 5, r * 12 + c) for c in range(12)] for r in range(8)])
    mrope = np.array([[mrope_score(w, 1e4, (8, 12, 12), (0, 3, 5), (0, r, c)) for c in range(12)] for r in range(8)])
    for name, expected in zip(("axial", "raster", "mrope"), (axial, raster, mrope)):
        drawn = chart(at, f"maps_{name}")
        np.testing.assert_allclose(spec_array(drawn["data"][0]["z"]), expected, rtol=1e-5, atol=1e-4)
        assert drawn["data"][1]["x"] == [5] and drawn["data"][1]["y"] == [3]  # the query is marked
        scale = drawn["layout"]["coloraxis"]  # one colour scale for all three
        everything = np.concatenate([axial.ravel(), raster.ravel(), mrope.ravel()])
        assert (scale["cmin"], scale["cmax"]) == pytest.approx((everything.min(), everything.max()), abs=1e-3)
    # the M-RoPE map again, minus its mean, on a scale of its own from -max|offset| to +max|offset|
    close = spec_array(chart(at, "mrope")["data"][0]["z"])
    np.testing.assert_allclose(close, mrope - mrope.mean(), atol=1e-5)
    scale = chart(at, "mrope")["layout"]["coloraxis"]
    assert scale["cmin"] == pytest.approx(-np.abs(mrope - mrope.mean()).max()) and scale["cmax"] == -scale["cmin"]
    shown = metrics(at)
    assert shown["Between its row means"] == f"{np.ptp(mrope.mean(axis=1)):.3g}"
    assert shown["Between its column means"] == f"{np.ptp(mrope.mean(axis=0)):.3g}"
    assert "the bands run across the image" in page_text(at)  # rows 0.172 apart, columns 0.000911
    vertical = axial_score(w, 1e4, (0, 0), (1, 0))
    assert float(shown["2-D score, vertical neighbours"]) == pytest.approx(vertical, abs=1e-3)
    assert float(shown["1-D score, vertical neighbours"]) == pytest.approx(rope_score(w, 1e4, 0, 12), abs=1e-3)
    assert float(shown["2-D score, across the break"]) == pytest.approx(axial_score(w, 1e4, (0, 11), (1, 0)), abs=1e-3)
    assert float(shown["1-D score, across the break"]) == pytest.approx(rope_score(w, 1e4, 11, 12), abs=1e-3)
    # the row-wrap artefact: in 1-D the far pair across the break outscores the vertical neighbours
    assert rope_score(w, 1e4, 11, 12) > rope_score(w, 1e4, 0, 12)
    assert shown["Score before"] == shown["Score after shifting by (5, 7)"]
    assert float(shown["Largest |difference|, all pairs"]) < 1e-9
    assert dict(at.query_params)["resume"] == "spatial_extent" and dict(at.query_params)["row"] == "3"


def test_the_pattern_moves_with_the_query():
    at = opened("images_and_video", {"row": 1, "col": 2})
    w = pair_weights(64, 0)
    drawn = spec_array(chart(at, "maps_axial")["data"][0]["z"])
    np.testing.assert_allclose(drawn, [[axial_score(w, 1e4, (1, 2), (r, c)) for c in range(12)] for r in range(8)],
                               rtol=1e-5, atol=1e-4)
    assert drawn.argmax() == 1 * 12 + 2


@pytest.mark.parametrize("rule,page_rule", [("spatial", "spatial_extent"), ("largest", "largest_id")])
def test_multimodal_ids_and_scores(rule, page_rule):
    at = opened("images_and_video", {"resume": page_rule})
    ids = hand_ids(4, 3, 4, 6, rule)
    rows = chart(at, "position_ids")["data"]
    for axis in range(3):
        np.testing.assert_array_equal(spec_array(rows[axis]["y"]), ids[axis])
    w = pair_weights(64, 0)
    scores = np.array([[mrope_score(w, 1e4, (8, 12, 12), ids[:, a], ids[:, b]) for b in range(96)] for a in range(96)])
    np.testing.assert_allclose(spec_array(chart(at, "scores")["data"][0]["z"]), scores, rtol=1e-5, atol=1e-4)
    bars = chart(at, "sections")["data"]
    assert [len(spec_array(bar["y"])) for bar in bars] == [8, 12, 12]
    text = page_text(at)
    # the video's frames are 12..17; the following text resumes at 12 + max(3, 4) = 16 or at 17 + 1 = 18
    assert "run from 12 to 17" in text and "**16** under transformers' rule and at **18**" in text
    assert "the time ids of the last 2 frames (24 video tokens)" in text
    assert ids[0, 92] == (16 if rule == "spatial" else 18)


def test_rules_agree_without_overlap():
    at = opened("images_and_video", {"frames": 2})
    assert "No video token reaches" in page_text(at)
    at = opened("images_and_video", {"frames": 0})
    assert "There is no video" in page_text(at)
    assert len(spec_array(chart(at, "position_ids")["data"][0]["y"])) == 4 + 12 + 4
