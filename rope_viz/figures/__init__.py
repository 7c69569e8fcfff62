"""Plotly figure builders: numpy arrays and translated strings in, go.Figure out.

They draw and never compute RoPE math; every chart shares the style in `style`.
"""

from .attention import heatmap_grid, profile_band
from .basic import bar_chart, heatmap, line_chart, plane_vectors
from .clocks import clock_animation
from .implementation import series_bars
from .planes import animation_controls, matrix_panels, pair_turn_animation, plane_diagram
from .style import PALETTE, color, styled

__all__ = ["PALETTE", "bar_chart", "clock_animation", "color", "heatmap", "line_chart", "plane_vectors",
           "styled", "heatmap_grid", "profile_band"]
__all__ += ["animation_controls", "matrix_panels", "pair_turn_animation", "plane_diagram"]
__all__ += ["series_bars"]
