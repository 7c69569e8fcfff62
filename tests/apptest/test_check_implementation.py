"""The check-an-implementation page through AppTest: the demo's planted bug found in its kind only, Chinese,
an uploaded answers file judged, a hostile upload refused with a notice (never a traceback)."""

import io

import pytest
import torch

from rope_viz import conformance
from support.apptest import chart, chart_keys, has_cjk, open_page, opened, page_text

pytestmark = pytest.mark.slow


def _table(at):
    return at.table[0].value


def test_defaults_find_the_planted_base_in_the_local_layers_only():
    at = opened("check_implementation")
    assert not at.exception
    frame = _table(at)
    assert list(frame["Result"]) == ["fail", "pass"]  # Gemma 3's sliding kind, then its global kind
    assert frame["Diagnosis"][0].startswith("base — 1,000,000 instead")
    assert [w.value for w in at.warning] == ["1 of 2 kinds of layer fail."]
    assert chart_keys(at)[:2] == ["position_0", "pair_0"]  # then the engines card's failures
    assert [trace["name"] for trace in chart(at, "position_0")["data"]] == ["this implementation", "the matched bug"]
    assert "[vllm #29111](https://github.com/vllm-project/vllm/issues/29111)" in page_text(at)


def test_the_page_in_chinese():
    at = opened("check_implementation", {"demo": "none"}, lang="zh")
    assert not at.exception and not at.warning
    assert has_cjk(page_text(at)) and list(_table(at)["结果"]) == ["通过", "通过"]


def _pickle() -> bytes:
    buffer = io.BytesIO()
    torch.save({"set0.query": torch.zeros(2)}, buffer)
    return buffer.getvalue()


def test_uploads_are_judged_and_a_hostile_one_is_refused():
    at = open_page("check_implementation", {"model": "Llama-2-7b-hf", "demo": "layout"})
    probe = conformance.make_probe("Llama-2-7b-hf")
    plain = {(i, role): getattr(s, role) for i, s in enumerate(probe.sets) for role in conformance.ROLES}
    at.file_uploader[0].set_value(("answers.safetensors", conformance.answers_bytes(probe, plain),
                                   "application/octet-stream")).run()
    assert not at.exception
    assert list(_table(at)["Diagnosis"]) == ["RoPE or NoPE — not rotated (in the query, the key)"]
    for hostile in (_pickle(), b"\xff" * 64, conformance.answers_bytes(probe, plain)[:-9]):
        at.file_uploader[0].set_value(("evil.safetensors", hostile, "application/octet-stream")).run()
        assert not at.exception
        assert any("The uploaded file was not used" in w.value for w in at.warning)
        assert list(_table(at)["Diagnosis"])[0].startswith("layout")  # the demo stays


def test_a_demo_bug_the_model_cannot_have_is_said():
    at = opened("check_implementation", {"demo": "proportional"})
    assert not at.exception
    assert "can occur" in at.info[0].value and list(_table(at)["Result"]) == ["pass", "pass"]


def test_a_declared_layout_in_the_url_is_judged_and_the_layout_verdict_says_how_to_declare_it():
    at = opened("check_implementation", {"model": "Llama-2-7b-hf", "demo": "none", "layout": "interleaved"})
    assert not at.exception and list(_table(at)["Result"]) == ["pass"]
    assert "interleaved pairs" in _table(at)["RoPE"][0]
    at = opened("check_implementation", {"model": "Llama-2-7b-hf", "demo": "layout"}, lang="zh")
    assert not at.exception and '--layout interleaved' in page_text(at)


def test_the_first_screen_says_the_failure_is_a_planted_demo():
    """The default view judges the reference with a bug planted: the first thing it says is that, with the way
    to a passing verdict; the reference with no bug planted says nothing of the kind."""
    at = opened("check_implementation")
    (said,) = at.info
    assert said.value.startswith("A demonstration") and "another kind's base" in said.value
    assert "no bug (the reference)" in said.value
    # the caption over the first failure's charts (first under the title in the presenter view) says it too
    assert any(c.value.startswith("The demonstration's planted bug (another kind's base)") for c in at.caption)
    assert not opened("check_implementation", {"demo": "none"}).info


def test_the_page_shows_the_answer_scripts_and_points_up_to_the_bug_table():
    at = opened("check_implementation")
    code = [c.value for c in at.code]
    assert any("save_file(answers, \"answers.safetensors\", metadata=meta)" in c for c in code)  # PyTorch
    assert any("np.concatenate(" in c for c in code)  # NumPy
    headers = [h.value for h in at.subheader]
    assert headers.index("The bugs the kit knows") < headers.index("A GGUF file, as llama.cpp will rotate it")
    text = page_text(at)
    assert "bugs in the table above" in text and "bugs below" not in text and "README's section" not in text
