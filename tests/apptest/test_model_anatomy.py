"""The model-anatomy page through AppTest: the layer strip against the published configs, a pasted config
shown first and named by its model_type, a refused paste answered beside the box, outside text shown as
text, and URL state (opening in Chinese: test_every_page)."""

import json

import numpy as np

from support.apptest import chart, chart_keys, metrics, opened, page_text, paste_past_the_limit, spec_array

QWEN3_NEXT_LIKE = {"model_type": "qwen3_next", "hidden_size": 256, "num_attention_heads": 2, "head_dim": 128,
                   "num_hidden_layers": 8, "max_position_embeddings": 4096}


def test_defaults_draw_the_strip_summaries_and_charts():
    at = opened("model_anatomy")
    assert not at.exception and not at.warning
    assert chart_keys(at) == ["strip", "wavelengths", "temperature"]  # Llama 4's temperature
    strip = chart(at, "strip")
    attention = strip["data"][0]["text"]  # each cell's kind, as its hover label shows it
    scout = ["chunked-attention" if (i + 1) % 4 else "full-attention" for i in range(48)]  # every 4th global NoPE
    assert attention[0][:48] == scout and set(attention[0][48:]) == {""}  # padded to DeepSeek's 61
    assert attention[1][:26] == ["sliding-window" if (i + 1) % 6 else "full-attention" for i in range(26)]  # Gemma 3
    bases = spec_array(strip["data"][1]["z"])
    assert bases[0, 3] == 0 and bases[0, 0] == 5e5 and np.isnan(bases[0, 48:]).all()
    keys = [note["text"] for note in strip["layout"]["annotations"]]  # each strip's title and colour key
    assert keys[0].startswith("Attention:") and all(f"■</span> {kind}" in keys[0] for kind in
                                                    ("full-attention", "sliding-window", "chunked-attention"))
    assert "■</span> no RoPE" in keys[1] and "■</span> 500,000" in keys[1] and "■</span> 128" in keys[2]
    text = page_text(at)
    assert "36 chunked-attention (8,192-token chunks) RoPE layers" in text
    assert "12 full-attention layers without RoPE with a query temperature" in text
    assert "22 sliding-window (512 tokens) RoPE layers (base 10,000" in text
    assert metrics(at)["Cached per token and layer"] == "576"  # DeepSeek-V3: latent 512 + shared rotated key 64


def test_a_pasted_config_comes_first_under_its_model_type():
    at = opened("model_anatomy", {"config": json.dumps(QWEN3_NEXT_LIKE), "model2": "none", "model3": "none"})
    assert not at.exception and not at.warning
    text = page_text(at)
    assert "pasted: ` qwen3_next `" in text  # the config's own text, quoted (safe_text)
    assert "6 of 8 layers are linear attention" in text
    attention = chart(at, "strip")["data"][0]["text"]
    assert len(attention) == 2 and attention[0][:8] == ["linear-attention"] * 3 + ["full-attention"] + \
        ["linear-attention"] * 3 + ["full-attention"]


def test_a_refused_paste_is_answered_and_the_presets_stay():
    at = opened("model_anatomy", {"config": '{"model_type": "llama", "num_attention_heads": 3}'})
    assert not at.exception
    assert len(at.warning) == 1 and "was not used" in at.warning[0].value and "hidden_size" in at.warning[0].value
    assert chart_keys(at) == ["strip", "wavelengths", "temperature"]


def test_outside_text_is_shown_as_text():
    hostile = dict(QWEN3_NEXT_LIKE, model_type="**bold** [link](https://example.com) <b>x</b>")
    at = opened("model_anatomy", {"config": json.dumps(hostile)})
    assert not at.exception
    lines = [m.value for m in at.markdown if "pasted:" in m.value]
    quoted = "` **bold** [link](https://example.com) <b>x</b> `"  # an inline code span: shown one for one
    assert len(lines) == 2 and all(quoted in line for line in lines)
    assert all(line.replace(quoted, "").count("](") == 0 and "<b>" not in line.replace(quoted, "") for line in lines)


def test_a_model_without_rope_says_so():
    at = opened("model_anatomy", {"model1": "Snowflake/snowflake-arctic-embed-m", "model2": "none",
                                  "model3": "none"})
    assert not at.exception
    text = page_text(at)
    assert "This model has no RoPE at all" in text and "None of these models scales its queries" in text
    assert chart_keys(at) == ["strip", "wavelengths"]  # no temperature chart


def test_a_config_longer_than_the_box_takes_is_refused_beside_it():
    """The box takes any length (a browser would drop an over-long paste without a word); the page refuses a
    text past 16,384 characters with a notice under the box that gives both sizes, and keeps the presets."""
    at = paste_past_the_limit("model_anatomy", json.dumps({**QWEN3_NEXT_LIKE, "notes": "x" * 17000}), 16384)
    assert "pasted:" not in page_text(at) and spec_array(chart(at, "strip")["data"][0]["z"]).shape[0] == 3


def test_a_paste_that_leaves_a_preset_out_says_so_and_its_menu_too():
    """Three presets chosen and a valid paste: the third preset has no place. Its menu says it is not shown,
    a notice names it, and the latent-attention section (DeepSeek-V3's) does not speak of it as shown."""
    at = opened("model_anatomy", {"config": json.dumps(QWEN3_NEXT_LIKE)})
    assert not at.exception and not at.warning
    third = at.selectbox(key="model_anatomy.model3")
    assert third.value == "DeepSeek-V3"
    assert "DeepSeek-V3 (not shown: the pasted config takes its place)" in third.options
    assert "google/gemma-3-1b-it" in at.selectbox(key="model_anatomy.model2").options  # shown: named as it is
    (info,) = [box.value for box in at.info if "Not shown" in box.value]
    assert "DeepSeek-V3" in info and "at most 3 models" in info
    assert spec_array(chart(at, "strip")["data"][0]["z"]).shape[0] == 3  # the paste, Scout, Gemma 3
    assert "Cached per token and layer" not in metrics(at)
