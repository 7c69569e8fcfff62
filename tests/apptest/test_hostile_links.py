"""Every page, opened from random and hostile links: never an exception, and a notice for every
value the page had to replace."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.knobs import PAGE_KNOBS
from support.apptest import PAGES, open_page

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
