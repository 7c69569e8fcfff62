"""The designs page through AppTest, on the shipped four-layer grid: every scheme's line against the JSON
read here, the answers and the frequency readings on the page, the passkey
task in Chinese and a hostile task (opening in Chinese and at the extremes: test_every_page)."""

import json

import numpy as np

from explorer.pure.views import rope_designs as view
from rope_viz import toy
from support.apptest import chart, chart_keys, charts, has_cjk, opened, page_text, spec_array


def test_defaults_draw_every_scheme_the_norms_and_the_layouts():
    at = opened("rope_designs")
    doc = json.loads((toy.DEFAULT_DIR / toy.GRID4_FILE).read_text())
    lines = [t for t in chart(at, "accuracy")["data"] if t.get("showlegend", True) and t.get("name")]
    assert [t["name"] for t in lines] == [
        "RoPE", "NoPE", "ALiBi", "NoPE every 4th layer", "NoPE every 4th + temperature", "local RoPE + global NoPE",
        "p-RoPE (fastest quarter)", "partial RoPE (a quarter of dims)"]
    for trace, scheme in zip(lines, toy.SCHEMES):
        acc = np.array([[e["accuracy"] for e in r["eval"]] for r in doc["runs"]
                        if r["config"]["task"] == "recall" and r["config"]["encoding"] == scheme])
        np.testing.assert_allclose(spec_array(trace["y"]), acc.mean(axis=0), rtol=1e-5)
    norms = chart(at, "norms")
    assert len(norms["data"]) == 2  # RoPE and p-RoPE norm maps, on one colour scale shown by its bar
    assert {trace.get("coloraxis") for trace in norms["data"]} == {"coloraxis"}
    bar = norms["layout"]["coloraxis"]
    assert bar["colorbar"]["title"]["text"] == "query norm × key norm" and bar.get("showscale", True)
    text = page_text(at)
    # one answer per design question, each judged at the default 8x from the seed bands
    data = view.grid_curves(str(toy.DEFAULT_DIR), view.grid_stamp(str(toy.DEFAULT_DIR)), "recall")
    answers = view.answers(data, 8.0, "recall")
    assert len(answers) == len(view.QUESTIONS)
    assert text.count("On recall at 8×") == len(answers)
    for answer in answers:
        assert f"reaches {answer.verdict.args['a']} against {answer.verdict.args['b']}" in text
    assert "on the key at offset" in text and "of the summed norms" in text and "Why the two maps look alike" in text
    assert "ALiBi comes out the other way on" in text  # the two-layer grid, reconciled
    assert len(at.metric) == 1 + len(view.REMOVED) and len(at.table) == 1
    assert at.metric[0].label == "RoPE seed 0 as trained, 8×"
    mixup = chart(at, "mixup")
    names = [t["name"] for t in mixup["data"]]
    assert names == ["own layout: interleaved (2i, 2i+1)", "swapped to half (i, i+d/2)"]
    assert mixup["layout"]["xaxis"]["title"]["text"] == "answer position (in the second copy)"
    assert len([r for r in at.radio if (r.key or "").startswith("quiz.rope_designs_")]) == 3  # the last page asks too


def test_the_passkey_task_in_chinese():
    at = opened("rope_designs", {"task": "passkey"}, lang="zh")
    assert not at.exception
    assert has_cjk(page_text(at)) and all(has_cjk(s["layout"]["title"]["text"]) for s in charts(at).values())


def test_a_hostile_task_falls_back_with_a_notice():
    at = opened("rope_designs", {"task": "[x](http://evil.example)", "factor": "nan"})
    assert not at.exception
    assert "evil.example" not in page_text(at)
    assert chart_keys(at)
