"""The home page: RoPE in motion at once (four clocks, opening at position 10), in both languages."""

import math

import numpy as np
import pytest

from support.apptest import chart, chart_keys, check_clean, has_cjk, opened, spec_array


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_home_shows_the_clocks_in_motion(lang):
    at = opened("home", lang=lang)
    check_clean(at)
    assert chart_keys(at) == ["motion"]
    spec = chart(at, "motion")
    assert len(spec["frames"]) == 65  # positions 0..64, played in the browser
    assert (has_cjk(spec["layout"]["title"]["text"])) == (lang == "zh")
    # the hands open at position 10: hand i at the angle 10 * 10000^(-2i/64), written out here
    hands = []
    for trace in spec["data"]:
        x, y = spec_array(trace.get("x", [])), spec_array(trace.get("y", []))
        if len(x) == 2 and x[0] == 0 and y[0] == 0:  # a hand from the centre to its tip
            hands.append(math.atan2(y[1], x[1]))
    expected = [math.remainder(10 * 10000.0 ** (-2 * i / 64), 2 * math.pi) for i in (0, 2, 8, 16)]
    assert len(hands) == 4
    np.testing.assert_allclose(hands, expected, atol=1e-5)
