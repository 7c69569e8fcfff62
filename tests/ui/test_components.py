"""The drag component: what a released value may set, and the frame's files (no HTML from text, no network)."""

import math
import re

import pytest

from explorer.app.components import FOLDER, released_knobs

NAMES = ("a", "b", "w_mod", "w_angle")


def test_released_knobs_keeps_the_named_finite_numbers():
    value = {"knobs": {"a": -1.25, "b": 2, "w_mod": 0.5}, "release": 17}
    assert released_knobs(value, NAMES) == {"a": -1.25, "b": 2, "w_mod": 0.5}


@pytest.mark.parametrize("value", [None, 3, "a=1", [], {}, {"knobs": None}, {"knobs": [1, 2]},
                                   {"knobs": "a"}, {"release": 1}])
def test_released_knobs_ignores_values_of_the_wrong_shape(value):
    assert released_knobs(value, NAMES) == {}


def test_released_knobs_drops_unknown_names_and_non_numbers():
    value = {"knobs": {"a": math.inf, "b": math.nan, "w_mod": True, "w_angle": "60", "theta": 10, "dim": 4,
                      "__class__": 1, "seed": [1]}}
    assert released_knobs(value, NAMES) == {}
    assert released_knobs({"knobs": {"m": 3, "n": 4, "a": 1}}, ("m", "n")) == {"m": 3, "n": 4}


def test_the_frame_writes_text_only_and_loads_nothing_from_outside():
    script = (FOLDER / "drag.js").read_text(encoding="utf-8")
    page = (FOLDER / "index.html").read_text(encoding="utf-8")
    for unsafe in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert unsafe not in script, unsafe
    assert re.findall(r"""(?:src|href)=["']([^"']+)""", page) == ["drag.js"]  # its own script, nothing else
    assert "http://" not in page and "https://" not in page
    assert "fetch(" not in script and "XMLHttpRequest" not in script and "WebSocket" not in script
    # the value goes out only at the end of a move: one setComponentValue call, in sendKnobs
    assert script.count('post("streamlit:setComponentValue"') == 1
