"""The protocol client (support.protocol) really talks to the app: one server for the module, a few sessions.

Each session speaks Streamlit's websocket protocol as the browser does, without a browser: these tests
check the client against the real app, and the app's answers to a page opened by its address.
"""

from __future__ import annotations


import pytest

from explorer.pure.sitemap import URLS
from support.protocol import run_async, Session, run_sessions, summarize
from support.server import streamlit_server

TIMEOUT_S = 120.0


@pytest.fixture(scope="module")
def server():
    with streamlit_server() as running:
        yield running


@pytest.fixture
def explain(server):
    """A failure message with the end of the server's output (a page's traceback lands there)."""
    return lambda what: f"{what}\n--- streamlit server output ---\n{server.log_tail()}"


def _open(url: str, page: str, query: str = ""):
    async def go():
        async with Session(url, timeout=TIMEOUT_S) as session:
            return session, await session.run(page, query)

    return run_async(go())


def test_home_page_run_finishes_without_exception(server, explain):
    session, run = _open(server.url, "")
    assert session.xsrf_cookie, "the health check set no _streamlit_xsrf cookie (XSRF protection is on)"
    assert session.subprotocol == "streamlit"
    assert run.error is None, explain(run.error)
    assert run.status == "FINISHED_SUCCESSFULLY", explain(run)
    assert not run.exceptions, explain(run.exceptions)
    assert run.page_not_found is None
    assert run.deltas > 0 and run.elements.get("markdown", 0) + run.elements.get("heading", 0) > 0
    # the router announced every page of the app, by its url path
    assert [path for path in URLS if path] == [path for path in run.navigation if path], run.navigation
    assert run.ok and run.sent_s <= run.first_delta_s <= run.finished_s


def test_relative_attention_page_returns_its_charts(server, explain):
    _, run = _open(server.url, "relative-attention", "lang=en")
    assert run.ok, explain(run)
    assert run.charts >= 1, explain(run.elements)
    assert run.first_delta_s <= run.first_chart_s <= run.finished_s


def test_unknown_page_path_yields_page_not_found(server, explain):
    _, run = _open(server.url, "no-such-page-here")
    assert run.error is None, explain(run.error)
    assert run.page_not_found is not None, explain(run)
    assert not run.ok  # not served: the page asked for does not exist (the router shows home instead)


def test_four_concurrent_sessions_are_all_served(server, explain):
    visits = run_async(run_sessions(server.url, [("frequency-clocks", "")] * 2 + [("", ""), ("relative-attention", "")],
                                      spread_s=0.5, timeout=TIMEOUT_S))
    summary = summarize(visits)
    assert summary["served"] == 4, explain([v.as_dict() for v in visits if not v.run.ok])
    assert summary["first_chart_s"]["n"] == 4 and summary["finished_s"]["n"] == 4  # home draws its clocks too
    assert summary["finished_s"]["max"] >= summary["finished_s"]["p95"] >= summary["finished_s"]["p50"] > 0
