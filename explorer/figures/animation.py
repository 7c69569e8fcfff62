"""Plotly's own play/pause buttons and frame slider: animations that run in the browser alone."""

from __future__ import annotations


def animation_controls(frame_names: list[str], *, play: str, pause: str, slider_prefix: str,
                       frame_ms: int = 150, redraw: bool = False, active: int = 0, buttons_on_top: bool = False
                       ) -> dict:
    """Layout entries for Plotly's own play/pause buttons and frame slider (no server round-trip).

    active: the frame the slider starts on; buttons_on_top: the play/pause buttons sit at the top right,
    above the plot (where they stay on a short screen), instead of beside the slider."""
    buttons_at = ({"x": 1.0, "y": 1.02, "xanchor": "right", "yanchor": "bottom"} if buttons_on_top else
                  {"x": 0.0, "y": -0.1, "xanchor": "left", "yanchor": "top"})
    still = {"frame": {"duration": 0, "redraw": redraw}, "mode": "immediate", "transition": {"duration": 0}}
    playing = {"frame": {"duration": frame_ms, "redraw": redraw}, "fromcurrent": True,
               "transition": {"duration": 0}, "mode": "immediate"}
    return {
        "updatemenus": [{
            "type": "buttons", "direction": "left", **buttons_at,
            "pad": {"r": 10, "t": 10}, "showactive": False,
            # Plotly has no current frame before its first animation: "play" from a figure opened at frame
            # `active` plays the frames from there on (from the start once it stands on the last one)
            "buttons": [{"label": f"▶ {play}", "method": "animate",
                         "args": [frame_names[active:] if 0 < active < len(frame_names) - 1 else None, playing]},
                        {"label": f"⏸ {pause}", "method": "animate", "args": [[None], still]}],
        }],
        "sliders": [{
            "active": active, "x": 0.0 if buttons_on_top else 0.22, "len": 1.0 if buttons_on_top else 0.78, "y": -0.08, "yanchor": "top",
            "currentvalue": {"prefix": slider_prefix},
            "steps": [{"label": name, "method": "animate", "args": [[name], still]} for name in frame_names],
        }],
    }
