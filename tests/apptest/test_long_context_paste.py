"""Long context with a pasted config: the menu names it, a refusal is answered in the box's expander, and
"the model's own" curve is drawn from the config's own scaling."""

import json

import numpy as np
import pytest

import rope_viz

from support.apptest import chart, open_page, opened, paste_past_the_limit, spec_array

PASTED = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 65536,
          "rope_theta": 500000.0, "rope_scaling": {"rope_type": "llama3", "factor": 4.0, "low_freq_factor": 2.0,
                                                   "high_freq_factor": 8.0, "original_max_position_embeddings": 16384}}


def test_a_valid_paste_is_named_in_the_menu_and_draws_its_own_factor():
    at = opened("long_context", {"config": json.dumps(PASTED), "target": 65536})
    assert not at.exception and not at.warning
    menu = at.selectbox(key="long_context.preset")
    assert all(option.endswith("(replaced by pasted: llama)") for option in menu.options)
    factors = {trace["name"]: spec_array(trace["y"]) for trace in chart(at, "factors")["data"]}
    assert factors["the model's own"][-1] == pytest.approx(4.0)  # the config's factor, not T / L = 4 by chance:
    assert factors["the model's own"][0] == pytest.approx(1.0)   # its bands keep the fast pairs
    assert not np.allclose(factors["the model's own"], factors["Llama 3"])  # the sliders' bands are 1 and 4


def test_a_refused_paste_is_answered_inside_the_box_expander():
    at = opened("long_context", {"config": '{"model_type": "llama", "num_attention_heads": 3}'})
    assert not at.exception
    inside = at.expander[0].warning
    assert len(inside) == 1 and "was not used" in inside[0].value and "hidden_size" in inside[0].value
    menu = at.selectbox(key="long_context.preset")
    assert "Llama-3.1-8B" in menu.options  # the presets keep their names


def test_the_servers_element_budget_is_in_force_in_a_page_run():
    """The library has no budget; the app sets its server's, 2**27 elements, so a config rotating 4,104
    coordinates (past the 4,096 that the page's charts fit in that budget) is refused with both numbers."""
    wide = {**PASTED, "head_dim": 4104}
    at = open_page("long_context", {"config": json.dumps(wide)})
    assert not at.exception
    inside = at.expander[0].warning
    assert len(inside) == 1 and "4,104 coordinates" in inside[0].value and "at most 4,096" in inside[0].value
    assert rope_viz.max_elements() == 1 << 27


def test_a_config_longer_than_the_box_takes_is_refused_beside_it():
    """A text past the box's 8,192 characters is refused under the box with both sizes; the preset stays."""
    at = paste_past_the_limit("long_context", json.dumps({**PASTED, "notes": "x" * 9000}), 8192)
    assert "Llama-3.1-8B" in at.selectbox(key="long_context.preset").options  # the presets keep their names


GEMMA4 = {"model_type": "gemma4_text", "hidden_size": 256, "num_attention_heads": 4, "head_dim": 64,
          "global_head_dim": 128, "num_hidden_layers": 6}


def test_gemma4_pasted_its_proportional_rope_is_not_called_longrope_and_the_menu_is_plain_text():
    """Gemma 4's rope type "proportional" is no method of this page: the notice says so and does not blame
    LongRoPE's factor lists; the menu (plain text, not Markdown) names the model with no code-span backticks."""
    at = opened("long_context", {"config": json.dumps(GEMMA4)})
    assert not at.exception and not at.warning
    menu = at.selectbox(key="long_context.preset").options
    rotary = [name for name in rope_viz.model_presets() if rope_viz.preset(name).has_rope]  # the menu's presets
    assert len(menu) == len(rotary) and all(option == f"{name} (replaced by pasted: gemma4_text)"
                                            for option, name in zip(menu, rotary))
    assert "`" not in "".join(menu)
    (notice,) = [box.value for box in at.info if "in focus" in box.value]
    assert "proportional" in notice and "stretches nothing" in notice and "LongRoPE" not in notice
