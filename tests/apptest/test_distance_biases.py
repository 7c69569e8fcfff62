"""The distance-biases page through AppTest: expected scores, ALiBi lines and T5 buckets against formulas
written out here, the comparison table's Toeplitz verdicts and numbers
(opening in Chinese and at the extremes: test_every_page)."""

import math

import numpy as np
import torch

from support.apptest import chart, opened, page_text, spec_array
from support.rope_reference import hand_mean_scores


def t5_bucket(offset, bidirectional=True, num_buckets=32, max_distance=128):
    """Mesh TensorFlow's rule, one offset (key - query) at a time."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if offset > 0 else 0
        n = abs(offset)
    else:
        n = max(-offset, 0)
    exact = num_buckets // 2
    if n < exact:
        return bucket + n
    large = exact + int(np.float32(math.log(n / exact) / math.log(max_distance / exact)) * (num_buckets - exact))
    return bucket + min(large, num_buckets - 1)


def test_defaults_draw_the_curves_against_hand_formulas():
    at = opened("distance_biases")
    expected = chart(at, "expected")["data"]
    r = spec_array(expected[0]["x"])
    assert r[0] == 0 and r[-1] == 512 and len(r) <= 256
    picks = [0, 1, 50, len(r) - 1]
    rope = hand_mean_scores(64, 1e4, r[picks], 64, 0)
    np.testing.assert_allclose(spec_array(expected[0]["y"])[picks], rope, rtol=1e-5)
    zeta = lambda i, dist: ((2 * i / 64 + 0.4) / 1.4) ** (dist / 512)  # noqa: E731
    xpos = hand_mean_scores(64, 1e4, r[picks], 64, 0, weights=zeta)
    np.testing.assert_allclose(spec_array(expected[1]["y"])[picks], xpos, rtol=1e-5)
    assert np.all(spec_array(expected[2]["y"]) == 0)
    alibi = chart(at, "alibi")["data"]
    assert len(alibi) == 8
    steps = spec_array(alibi[0]["x"])
    for h, trace in enumerate(alibi):
        np.testing.assert_allclose(spec_array(trace["y"]), -(2.0 ** (-(h + 1))) * steps, rtol=1e-6)
    buckets = chart(at, "t5_buckets")["data"][0]
    offsets = spec_array(buckets["x"])
    assert offsets[0] == -512 and offsets[-1] == 512
    np.testing.assert_array_equal(spec_array(buckets["y"]), [t5_bucket(int(o)) for o in offsets])
    table = torch.randn(32, generator=torch.Generator().manual_seed(1), dtype=torch.float64).numpy()
    np.testing.assert_allclose(spec_array(chart(at, "t5_bias")["data"][0]["y"]),
                               table[[t5_bucket(int(o)) for o in offsets]], rtol=1e-6)
    assert "table is **random**" in page_text(at)


def test_the_table_says_which_depend_on_the_offset_only():
    at = opened("distance_biases")
    table = at.table[0].value
    verdicts = dict(zip(table.index, table["Depends on m − n only"]))
    assert verdicts == {"RoPE": "yes", "xPos": "yes", "ALiBi (head 1)": "yes", "T5 (random table)": "yes",
                        "NoPE": "yes", "sinusoidal (absolute)": "no"}
    deviation = dict(zip(table.index, table["Toeplitz deviation / largest |logit|"]))
    assert float(deviation["RoPE"].split(" / ")[0]) < 1e-9
    assert float(deviation["sinusoidal (absolute)"].split(" / ")[0]) > 1
    past = dict(zip(table.index, table["Past the longest distance seen, L"]))
    assert "adds -128 at L = 256 and -256 at 2L" in past["ALiBi (head 1)"]
    # pairs whose wavelength 2 pi base^(2i/d) is longer than L = 256 never finish a turn within it
    slow = sum(2 * math.pi * 1e4 ** (2 * i / 64) > 256 for i in range(32))
    assert past["RoPE"].startswith(f"{slow} of 32 pairs")
    assert "all share one bucket (0 of 1 unseen within L)" in past["T5 (random table)"]
    enters = dict(zip(table.index, table["How it enters attention"]))
    assert "rotates q and k" in enters["RoPE"] and "adds" in enters["ALiBi (head 1)"]
    assert "logit" in enters["T5 (random table)"]


def test_t5_decoder_buckets_and_a_short_l():
    at = opened("distance_biases", {"bidirectional": 0, "max_r": 32, "num_buckets": 16, "max_distance": 40})
    offsets = spec_array(chart(at, "t5_buckets")["data"][0]["x"])
    buckets = [t5_bucket(int(o), bidirectional=False, num_buckets=16, max_distance=40) for o in offsets]
    np.testing.assert_array_equal(spec_array(chart(at, "t5_buckets")["data"][0]["y"]), buckets)
    assert all(b == 0 for o, b in zip(offsets, buckets) if o > 0)
