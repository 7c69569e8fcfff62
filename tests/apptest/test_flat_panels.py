"""A panel that is flat by design says so on itself: the note lies on the panel whose values barely vary on its
colour scale, and on no other (NoPE among the distance biases, the content-content term of the additive logits,
RoPE's logits moved by a shift, M-RoPE with t fixed among the image maps), in both languages."""

import re

import numpy as np
import pytest

from explorer.pure import text
from support.apptest import chart, opened, spec_array

FLAT_SHARE = 0.1  # a panel is flat when its values span at most this share of the colours it is drawn with
# the page, the charts drawn together (panels of one chart, or charts side by side), the note's text
NOTES = {"distance_biases": ("distance_biases", ("matrices",), "distance_biases.nope_flat"),
         "rope_vs_sinusoidal": ("rope_vs_sinusoidal", ("terms",), "rope_vs_sinusoidal.content_flat"),
         "rope_vs_sinusoidal-shift": ("rope_vs_sinusoidal", ("shift",), "rope_vs_sinusoidal.rope_flat"),
         "images_and_video": ("images_and_video", ("maps_axial", "maps_raster", "maps_mrope"),
                              "images_and_video.mrope_note")}


def flat_axes(spec: dict) -> set[str]:
    """The x axes ("x", "x2", ...) of the heatmaps whose values span at most FLAT_SHARE of their colour scale:
    the chart's shared scale (its coloraxis: cmin..cmax when set, else all its heatmaps' values), or the
    heatmap's own (then only a constant one is flat)."""
    maps = [(trace.get("xaxis", "x"), spec_array(trace["z"]), bool(trace.get("coloraxis")))
            for trace in spec["data"] if trace["type"] == "heatmap"]
    shared = [z for _, z, on_shared in maps if on_shared]
    scale = spec["layout"].get("coloraxis", {})
    low = scale.get("cmin", min((float(z.min()) for z in shared), default=0.0))
    high = scale.get("cmax", max((float(z.max()) for z in shared), default=0.0))
    flat = set()
    for axis, z, on_shared in maps:
        spread = float(z.max() - z.min())
        if spread <= FLAT_SHARE * (high - low if on_shared else 0.0) or spread <= 1e-6 * max(float(np.abs(z).max()), 1):
            flat.add(axis)
    return flat


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", sorted(NOTES))
def test_the_flat_panel_says_so_on_itself(case, lang):
    page, keys, note = NOTES[case]
    at = opened(page, lang=lang)
    said = re.sub(r"<br>|\s", "", text.text(note, lang))  # the note as written, its lines however broken
    written, flat = set(), set()
    for key in keys:
        spec = chart(at, key)
        for found in spec["layout"].get("annotations", []):
            if re.sub(r"<br>|\s", "", found["text"]) == said:
                assert found["xref"].endswith(" domain") and (found["x"], found["y"]) == (0.5, 0.5)  # a panel's middle
                written.add((key, found["xref"].split()[0]))
        flat |= {(key, axis) for axis in flat_axes(spec)}
    assert len(written) == 1 and written == flat, (written, flat)
