"""Plotly figure builders: numpy arrays and translated strings in, go.Figure out.

They draw and never compute RoPE math; every chart shares the style in `style`.
"""

from .animation import animation_controls
from .attention import heatmap_grid, profile_band
from .basic import bar_chart, heatmap, line_chart, plane_vectors
from .clocks import clock_animation
from .implementation import series_bars
from .planes import matrix_panels, pair_turn_animation, plane_diagram
from .style import PALETTE, color, styled

__all__ = ["PALETTE", "animation_controls", "bar_chart", "clock_animation", "color", "heatmap", "heatmap_grid",
           "line_chart", "matrix_panels", "pair_turn_animation", "plane_diagram", "plane_vectors", "profile_band",
           "series_bars", "styled"]
