"""The drag component's value as a client could forge it, sent through Streamlit's websocket protocol: no
value breaks the page, and only the named knobs' finite numbers move them (into their ranges, and the URL)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

import pytest

from support.hostile import WidgetSession
from support.protocol import run_async, widget_state
from support.server import streamlit_server

pytestmark = pytest.mark.slow
TIMEOUT_S = 120.0
PAGE, QUERY = "complex-numbers", "a=2&b=1&theta=50&w_mod=1.5&w_angle=60&lang=en"
FORGED = ("x", "null", "[]", "{}", '{"knobs": null}', '{"knobs": [1, 2]}', '{"knobs": {"a": "<b>", "b": null}}',
          '{"knobs": {"a": true, "dim": 4, "theta": 170}}', '{"knobs": {"a": 1e999}}', '"' + "9" * 5000 + '"')


class UrlSession(WidgetSession):
    """A WidgetSession that keeps the query string the server last wrote into the address bar."""

    query_string: str | None = None

    def _record(self, result, msg) -> None:
        super()._record(result, msg)
        if msg.WhichOneof("type") == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string


@pytest.fixture(scope="module")
def server():
    with streamlit_server() as running:
        yield running


def knobs_in(query: str) -> dict[str, str]:
    return {name: values[-1] for name, values in parse_qs(query).items() if name != "lang"}


def test_forged_drag_values_leave_the_knobs_and_the_page_whole(server):
    async def go():
        async with UrlSession(server.url, timeout=TIMEOUT_S) as session:
            first = await session.run(PAGE, QUERY)
            drag = session.widget_id("complex_numbers.drag")
            runs = [(sent, await session.run(PAGE, QUERY, widget_states=[widget_state(drag, json_value=sent)]),
                     session.query_string) for sent in FORGED]
            return first, runs

    first, runs = run_async(go())
    assert first.ok
    broken = [(sent, run.exceptions or run.error or run.status) for sent, run, _ in runs if not run.ok]
    assert not broken, broken
    moved = [(sent, query) for sent, _, query in runs if query is not None and knobs_in(query) != knobs_in(QUERY)]
    assert not moved, moved


def test_a_released_value_sets_its_knobs_within_their_ranges(server):
    released = {"knobs": {"a": -1.234, "b": 7.5, "w_angle": 61}, "release": 1}

    async def go():
        async with UrlSession(server.url, timeout=TIMEOUT_S) as session:
            await session.run(PAGE, QUERY)
            drag = session.widget_id("complex_numbers.drag")
            run = await session.run(PAGE, QUERY, widget_states=[widget_state(drag, json_value=json.dumps(released))])
            return run, session.query_string

    run, query = run_async(go())
    assert run.ok
    # a rounded to the knob's 2 decimals, b clamped to its top (3), w_angle taken, the others untouched
    assert knobs_in(query) == {"a": "-1.23", "b": "3", "theta": "50", "w_mod": "1.5", "w_angle": "61"}
