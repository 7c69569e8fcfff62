"""The 2026 presets (DeepSeek-V4, Nemotron 3, MiMo-V2, GLM-5.1, MiniMax-M2.5, Step-3.7, Kimi-K2.5, Qwen3.6),
each chosen by its link on the long-context and model-anatomy pages: the page runs cleanly and draws its
charts; DeepSeek-V4's own sections show only when it is chosen."""

import pytest

from explorer.pure.knobs import LONG_CONTEXT_PRESETS
from support.apptest import axis_titles, chart_keys, charts, check_clean, opened, page_text, spec_array

V4 = "nvidia/DeepSeek-V4-Flash-NVFP4"
NEW = (V4, "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "XiaomiMiMo/MiMo-V2-Flash", "zai-org/GLM-5.1",
       "MiniMaxAI/MiniMax-M2.5", "stepfun-ai/Step-3.7-Flash", "nvidia/Kimi-K2.5-NVFP4", "nvidia/Qwen3.6-35B-A3B-NVFP4")
ROTARY = tuple(name for name in NEW if name in LONG_CONTEXT_PRESETS)


def test_the_long_context_menu_holds_every_new_rotary_preset():
    assert len(ROTARY) == 7 and "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16" not in ROTARY  # no RoPE anywhere


@pytest.mark.slow
@pytest.mark.parametrize("name", ROTARY)
def test_long_context_runs_for_each_new_preset(name):
    at = opened("long_context", {"preset": name})
    check_clean(at)
    assert chart_keys(at) and name in page_text(at)


@pytest.mark.slow
@pytest.mark.parametrize("chosen", [NEW[0:3], NEW[3:6], NEW[6:8] + ("none",)])
def test_model_anatomy_runs_for_each_new_preset(chosen):
    at = opened("model_anatomy", dict(zip(("model1", "model2", "model3"), chosen)))
    check_clean(at)
    text = page_text(at)
    assert all(name in text for name in chosen if name != "none")
    assert ("Compressed keys: where each one is rotated" in text) == (V4 in chosen)
    assert ("The attention output turned back" in text) == (V4 in chosen)
    compressed = [spec for key, spec in charts(at).items() if key.startswith("compressed")]
    assert len(compressed) == (2 if V4 in chosen else 0)
    if V4 in chosen:  # two charts: blocks of 4 and of 128, a diamond at each block's first position
        csa, hca = compressed
        assert axis_titles(csa) == ["token position n", "query position m"]
        assert spec_array(csa["data"][2]["x"]).tolist() == [0, 4, 0, 4, 8, 0, 4, 8, 12, 16]  # queries 9, 13, 21
        assert spec_array(hca["data"][2]["x"]).tolist() == [0, 128, 0, 128, 256, 0, 128, 256, 384, 512]
