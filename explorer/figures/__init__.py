"""Plotly figure builders: numpy arrays and translated strings in, go.Figure out.

They draw and never compute RoPE math; every chart shares the style in `style`.
"""

from .animation import animation_controls
from .attention import PICK_LAYER, heatmap_grid, mark_cell, pick_layer, profile_band
from .basic import bar_chart, heatmap, line_chart, plane_vectors
from .biases import distance_chart, heatmap_panels
from .clocks import clock_animation
from .images import pair_sections, patch_maps, position_id_rows
from .implementation import series_bars
from .long_context import shaded_lines
from .planes import matrix_panels, pair_turn_animation, plane_diagram
from .precision import marked_lines
from .style import PALETTE, color, styled
from .trained import band_lines, grouped_bars

__all__ = ["PALETTE", "PICK_LAYER", "mark_cell", "pick_layer", "animation_controls", "bar_chart", "clock_animation", "color", "heatmap", "heatmap_grid",
           "line_chart", "matrix_panels", "pair_turn_animation", "plane_diagram", "plane_vectors", "profile_band",
           "series_bars", "styled", "distance_chart", "heatmap_panels", "pair_sections", "patch_maps",
           "position_id_rows", "marked_lines", "shaded_lines", "band_lines", "grouped_bars"]
