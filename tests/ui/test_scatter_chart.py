"""The points builder: each series' points drawn where they are, in its own colour, in the house style."""

import numpy as np

from explorer.pure.figures import PALETTE, scatter_chart
from support.apptest import spec_array


def test_each_series_is_its_points_in_its_own_colour():
    t = np.linspace(0, 2 * np.pi, 9, dtype=np.float32)
    fig = scatter_chart({"circle": (np.cos(t), np.sin(t)), "line": (t, 2 * t)}, title="points", x_title="x",
                        y_title="y", equal_axes=True, colors={"line": PALETTE[3]})
    spec = fig.to_plotly_json()
    circle, line = spec["data"]
    assert (circle["name"], circle["mode"], line["mode"]) == ("circle", "markers", "markers")
    np.testing.assert_allclose(np.hypot(spec_array(circle["x"]), spec_array(circle["y"])), 1.0, atol=1e-6)
    np.testing.assert_allclose(spec_array(line["y"]), 2 * spec_array(line["x"]))
    assert (circle["marker"]["color"], line["marker"]["color"]) == (PALETTE[0], PALETTE[3])
    assert spec["layout"]["yaxis"]["scaleanchor"] == "x"  # one unit as long on both axes
    assert spec["layout"]["xaxis"]["title"]["text"] == "x" and spec["layout"]["title"]["text"] == "points"


def test_joined_points_draw_a_path():
    fig = scatter_chart({"path": ([0, 1, 2], [0, 1, 0])}, title="p", x_title="x", y_title="y", joined=True)
    assert fig.data[0].mode == "lines+markers"
    assert "scaleanchor" not in fig.to_plotly_json()["layout"].get("yaxis", {})
