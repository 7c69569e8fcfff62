"""Every page, opened from random and hostile links: never an exception, and a notice for every
value the page had to replace."""

from __future__ import annotations

import math
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.pure.knobs import PAGE_KNOBS
from support.apptest import PAGES, chart_specs, open_hostile_link, open_page

HOSTILE = ["", "nan", "-inf", "1e308", "-1e308", "9" * 70, "<script>alert(1)</script>", "**x**",
           "[a](javascript:alert(1))", "0x1F", "１２", "None", "1,2,,3", "-0", "1e-320", "\u202e64", "'; --"]


def knob_names(page: str) -> tuple[str, ...]:
    """The URL parameters of a page's knobs, as declared."""
    return tuple(sorted(PAGE_KNOBS[page]))


def _same_value(raw: str, final: str) -> bool:
    if raw == final:
        return True
    try:
        return math.isclose(float(raw), float(final), rel_tol=1e-9, abs_tol=0.0)
    except ValueError:
        return False


def check_page(page: str, params: dict[str, str]) -> None:
    at = open_page(page, params)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.get("error")
    notices = " ".join(w.value for w in at.warning)
    for name, raw in params.items():
        if name not in knob_names(page) or name == "lang":
            continue
        final = at.query_params.get(name)
        assert final is not None, f"{page}: knob {name} missing from the URL"
        if not _same_value(raw, final):
            assert f"“{name}”" in notices, f"{page}: {name}={raw!r} became {final!r} without a notice"


@pytest.mark.parametrize("page", PAGES)
def test_every_knob_hostile_at_once(page):
    names = [n for n in knob_names(page) if n != "lang"]
    for offset in range(0, len(HOSTILE), 6):
        params = {name: HOSTILE[(offset + i) % len(HOSTILE)] for i, name in enumerate(names)}
        params["unknown_param"] = "<img src=x onerror=alert(1)>"
        check_page(page, params)


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_links(data):
    page = data.draw(st.sampled_from(PAGES))
    names = data.draw(st.lists(st.sampled_from(knob_names(page) + ("zz", "lang")), max_size=6, unique=True))
    values = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=20),
                       st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=True).map(repr))
    check_page(page, {name: data.draw(values) for name in names})


class Link(NamedTuple):
    """A hostile link to one page: what it carries, what the URL holds after the run, how many notices
    say so, and how many charts the page still draws (None: not counted)."""
    params: dict
    repaired: dict
    notices: int
    charts: int | None


LINKS = {
    "distance_biases": Link(
        {"max_r": "1e308", "heads": "-1", "num_buckets": "7", "max_distance": "nan", "bidirectional": "yes",
         "scale_base": "<script>"},
        {"max_r": "2048", "heads": "1", "num_buckets": "8", "max_distance": "128", "bidirectional": "1",
         "scale_base": "512"},
        notices=6, charts=5),
    "complex_numbers": Link(
        {"a": "nan", "b": "1e308", "theta": "<script>alert(1)</script>", "w_mod": "-5", "w_angle": "0x10"},
        {"a": "2", "b": "3", "theta": "50", "w_mod": "0", "w_angle": "60"},
        notices=5, charts=3),
    "long_term_decay": Link(
        {"dim": "abc", "max_r": "-5", "sweep": "<script>alert(1)</script>", "log_x": "maybe", "samples": "1e9",
         "base": "inf"},
        {"dim": "128", "max_r": "16", "sweep": "4,5,6", "log_x": "1", "samples": "128", "base": "10000"},
        notices=6, charts=None),
    "images_and_video": Link(
        {"height": "1e308", "row": "-4", "col": "nan", "frequencies": "<b>x</b>", "frames": "９",
         "resume": "javascript:alert(1)", "dim": "12"},
        {"height": "32", "row": "0", "col": "5", "frequencies": "shared", "frames": "8", "resume": "spatial_extent",
         "dim": "8"},
        notices=7, charts=7),  # the three maps are three charts
    "implementation_forms": Link(
        {"q1": "nan", "theta": "1e308", "seq": "7", "dim": "7", "rotary_dim": "999", "shift": "<script>"},
        {"q1": "1", "theta": "3.142", "seq": "16", "dim": "6", "rotary_dim": "6", "shift": "100"},
        notices=6, charts=None),
    "linear_attention": Link(
        {"seq": "1e308", "dim": "-4", "phi": "<script>alert(1)</script>", "channel": "nan", "timing": "yes",
         "seed": "[a](javascript:alert(1))"},
        {"seq": "2048", "dim": "2", "phi": "elu", "channel": "0", "timing": "0", "seed": "0"},
        notices=6, charts=5),
    "long_context": Link(
        {"target": "1e308", "preset": "<script>alert(1)</script>", "config": "x" * 9000, "factor": "nan",
         "focus": "../../etc"},
        {"target": "1048576", "preset": "Llama-3.1-8B", "factor": "0", "focus": "model"},
        notices=5, charts=7),
    "phase_cancellation": Link(
        {"m": "-4", "n": "1e9", "dim": "7", "base": "nan", "pair": "99", "seed": "<img src=x onerror=alert(1)>"},
        {"m": "0", "n": "128", "seed": "0", "dim": "6", "base": "10000", "pair": "2"},
        notices=6, charts=4),
    "precision": Link(
        {"dim": "1e308", "pair": "-4", "start": "nan", "far": "<b>x</b>", "recipe": "<script>alert(1)</script>",
         "timing": "yes", "seed": "[a](javascript:alert(1))"},
        {"dim": "256", "pair": "0", "start": "4090", "far": "8000", "recipe": "bf16-positions", "timing": "0",
         "seed": "0"},
        notices=7, charts=7),
    "relative_attention": Link(
        {"seq": "1e308", "dim": "7", "content": "<script>alert(1)</script>", "causal": "maybe", "shift": "-5",
         "seed": "nan", "base": "-1"},
        {"seq": "2048", "dim": "6", "content": "same", "causal": "0", "shift": "0", "seed": "0", "base": "10000"},
        notices=7, charts=4),
    "frequency_clocks": Link(
        {"dim": "7", "base": "nan", "pairs": "<script>alert(1)</script>", "max_pos": "1e308"},
        {"dim": "6", "base": "10000", "max_pos": "512"},
        notices=4, charts=None),
    "trained_models": Link(
        {"task": "<script>", "factor": "1e308", "layer": "-4", "head": "nan", "scaling": "'; --",
         "train_len": "9" * 70, "train_seed": "[a](javascript:1)"},
        {"task": "recall", "factor": "8", "layer": "0", "head": "0", "scaling": "none", "train_len": "32",
         "train_seed": "0"},
        notices=7, charts=4),
    "rope_vs_sinusoidal": Link(
        {"seq": "-3", "dim": "1e9", "base": "abc", "shift": "2.5e99", "seed": "<b>1</b>"},
        {"seq": "8", "dim": "256", "base": "10000", "shift": "4096", "seed": "0"},
        notices=5, charts=5),
}


@pytest.mark.parametrize("page", sorted(LINKS))
def test_hostile_link_is_repaired_with_notices(page):
    link = LINKS[page]
    at = open_hostile_link(page, link.params, link.repaired, notices=link.notices)
    if link.charts is not None:
        assert len(chart_specs(at)) == link.charts
