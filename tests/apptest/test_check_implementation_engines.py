"""The check page's "Engines today" section through AppTest: the recorded report card as a table (a row per
preset, a column per engine with its version), and each failing kind's error against position beside the bug's
curve, in English and in Chinese."""

import json

import numpy as np
import pytest

from explorer.pure.views.engines_today import CARD
from support.apptest import axis_titles, chart, check_clean, has_cjk, open_page, open_presenting, page_text, spec_array

pytestmark = pytest.mark.slow

RECORDED = json.loads(CARD.read_text(encoding="utf-8"))


def _failing():
    return [(row["preset"], engine, kind) for row in RECORDED["presets"] for engine, cell in row["engines"].items()
            for kind in cell["kinds"] if kind["status"] == "fail"]


def test_the_card_and_each_failure_beside_its_bug():
    at = open_page("check_implementation", {"demo": "none"})
    check_clean(at)
    assert "Engines today" in [s.value for s in at.subheader]
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["preset"] + [f"{e} {v['version']}" for e, v in RECORDED["engines"].items()]
    assert list(frame["preset"]) == [row["preset"] for row in RECORDED["presets"]]
    kimi = frame[frame["preset"] == "moonshotai/Kimi-K2-Instruct"].iloc[0]
    assert kimi["llama.cpp 0.3.36"] == "kind 0: FAIL, no known bug"
    oss = frame[frame["preset"] == "openai/gpt-oss-120b"].iloc[0]
    assert oss["llama.cpp 0.3.36"] == "kind 0: FAIL, YaRN ramp" and oss["transformers 5.24.0"] == "pass"
    for index, (preset, engine, kind) in enumerate(_failing()):
        spec = chart(at, f"engine_{index}")
        title = spec["layout"]["title"]["text"].replace("<br>", " ")  # long titles wrap
        assert preset in title and engine in title
        assert len(axis_titles(spec)) == 2
        names = [trace["name"] for trace in spec["data"]]
        assert names == (["this implementation", "the matched bug"] if kind["bug"] else ["this implementation"])
        observed = spec_array(spec["data"][0]["y"])
        positive = [e for p, e in zip(kind["profile"]["positions"], kind["profile"]["by_position"]) if p > 0]
        np.testing.assert_allclose(observed, np.maximum(positive, 1e-12), rtol=1e-6)


def test_the_card_in_chinese():
    at = open_page("check_implementation", {"demo": "none"}, lang="zh")
    check_clean(at)
    assert "各推理引擎的现状" in [s.value for s in at.subheader]
    frame = at.dataframe[0].value
    assert frame.columns[0] == "预设模型" and has_cjk(" ".join(frame["llama.cpp 0.3.36"]))
    assert has_cjk(chart(at, "engine_0")["layout"]["title"]["text"])
    assert all(has_cjk(title) for title in axis_titles(chart(at, "engine_0")))
    assert "findings" in page_text(at)


def test_the_card_on_a_projector_is_a_table_in_the_presenter_view_s_text():
    """A scrolling data grid draws its own small text; in the presenter view the card is a table, which the
    presenter stylesheet sets as large as the prose, with every preset a row."""
    at = open_presenting("check_implementation", params={"demo": "none"})
    check_clean(at)
    assert not at.dataframe
    (card,) = [tab.value for tab in at.table if "llama.cpp 0.3.36" in tab.value.columns]
    assert list(card.index) == [row["preset"] for row in RECORDED["presets"]]
