"""The designs page through AppTest, on the shipped four-layer grid: every scheme's line against the JSON
read here, the answers and the frequency readings on the page, extremes, Chinese and a hostile task."""

import json

import numpy as np

from explorer.pure.knobs import heaviest, lightest
from explorer.pure.views import rope_designs as view
from rope_viz import toy
from support.apptest import chart_specs, has_cjk, open_at_extremes, open_defaults, open_page, page_text, spec_array


def test_defaults_draw_every_scheme_the_norms_and_the_layouts():
    at, specs = open_defaults("rope_designs", charts=3)
    doc = json.loads((toy.DEFAULT_DIR / toy.GRID4_FILE).read_text())
    lines = [t for t in specs[0]["data"] if t.get("showlegend", True) and t.get("name")]
    assert [t["name"] for t in lines] == [
        "RoPE", "NoPE", "ALiBi", "NoPE every 4th layer", "NoPE every 4th + temperature", "local RoPE + global NoPE",
        "p-RoPE (fastest quarter)", "partial RoPE (a quarter of dims)"]
    for trace, scheme in zip(lines, toy.SCHEMES):
        acc = np.array([[e["accuracy"] for e in r["eval"]] for r in doc["runs"]
                        if r["config"]["task"] == "recall" and r["config"]["encoding"] == scheme])
        np.testing.assert_allclose(spec_array(trace["y"]), acc.mean(axis=0), rtol=1e-5)
    assert len(specs[1]["data"]) == 2  # RoPE and p-RoPE norm maps
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
    names = [t["name"] for t in specs[2]["data"]]
    assert names == ["own layout: interleaved (2i, 2i+1)", "swapped to half (i, i+d/2)"]
    assert specs[2]["layout"]["xaxis"]["title"]["text"] == "answer position (in the second copy)"
    assert len([r for r in at.radio if (r.key or "").startswith("quiz.rope_designs_")]) == 3  # the last page asks too


def test_extremes_and_chinese():
    for params in (heaviest("rope_designs"), lightest("rope_designs")):
        open_at_extremes("rope_designs", params, charts=3)
    at = open_page("rope_designs", {"task": "passkey"}, lang="zh")
    assert not at.exception
    assert has_cjk(page_text(at)) and all(has_cjk(s["layout"]["title"]["text"]) for s in chart_specs(at))


def test_a_hostile_task_falls_back_with_a_notice():
    at = open_page("rope_designs", {"task": "[x](http://evil.example)", "factor": "nan"})
    assert not at.exception
    assert "evil.example" not in page_text(at)
    assert chart_specs(at)
