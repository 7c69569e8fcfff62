"""Plotly figure builders: numpy arrays and translated strings in, go.Figure out.

They draw and never compute RoPE math; every chart shares the look in `style`. Grouped by the kind of
chart: `lines`, `bars`, `heatmaps` (with the click layer of score maps), `planes` (points and arrows in the plane) and
`animation` (played in the browser).
"""

from explorer.pure.figures.animation import animation_controls, clock_animation, pair_turn_animation
from explorer.pure.figures.bars import bar_chart, grouped_bars, pair_sections, series_bars
from .heatmaps import (PICK_LAYER, PICK_SIDE, heatmap, heatmap_grid, heatmap_panels, layer_strip, mark_cell,
                       matrix_panels, patch_map, pick_layer, token_map)
from .lines import (band_lines, block_rows, distance_chart, line_chart, marked_lines, position_id_rows, profile_band,
                    shaded_lines)
from explorer.pure.figures.planes import plane_diagram, scatter_chart
from explorer.pure.figures.style import PALETTE, color, concept_color, styled

__all__ = [
    "PALETTE", "PICK_LAYER", "PICK_SIDE", "animation_controls", "band_lines", "bar_chart", "block_rows",
    "clock_animation", "color", "concept_color", "distance_chart", "grouped_bars", "heatmap", "heatmap_grid",
    "heatmap_panels", "layer_strip", "line_chart", "mark_cell", "marked_lines", "matrix_panels", "pair_sections",
    "pair_turn_animation", "patch_map", "pick_layer", "plane_diagram", "position_id_rows", "profile_band",
    "scatter_chart", "series_bars", "shaded_lines", "styled", "token_map",
]
