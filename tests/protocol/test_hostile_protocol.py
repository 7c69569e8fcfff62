"""One client cannot take the server down: forged websocket messages and rerun storms, at the protocol level.

One server for the module; each case measures what the server spent (CPU seconds, RSS before, at its
peak and after the session closed) with support.hostile. Latencies are printed for docs/reliability.md's
reliability table, never asserted (a shared machine's timings vary).

1. One message costs little: frames above `server.maxMessageSize` are refused unread, messages above
   `server.maxWidgetStateSize` are refused, and the largest message accepted (an array of about a
   million items for a multiselect, a few hundred thousand strings for a select slider) costs one page
   run: the app refuses arrays longer than any widget holds before Streamlit's deserializer sees them.
2. Rerun storms: one session asking 50 reruns a second, or three sessions running the heaviest valid
   relative-attention page with new seeds: a bystander who keeps opening the home page is still served.
3. Widget values of the wrong type, for every kind of widget the app draws: the page is served without
   an exception, the knob is shown at its default with a notice, and the session keeps working.
4. The five newer pages (long context, precision, images and video, distance biases, trained models):
   values of every wrong type for every widget they draw, sent by a session that drew them and by fresh
   sessions that never did; hostile values in the link for every knob; pasted configs that are broken,
   huge or carry markup; the live training button pressed by one session and by five at once. Every
   run is served without an exception, the session still works after it, and the server's CPU and
   memory stay within generous bounds.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from urllib.parse import urlencode

import pytest

from explorer.app import live_budget
from explorer.pure.knobs import PAGE_KNOBS, heaviest, lightest
from explorer.pure.sitemap import URLS
from support.hostile import (Bystander, Presses, WidgetSession, bystander, measure, press_training, settled,
                             training_idle)
from support.protocol import Session, run_async, visit, widget_state
from support.server import streamlit_server

TIMEOUT_S = 120.0
CPU_S = 2.0  # server CPU seconds one message may cost (beyond the page run it asks for)
PEAK_MB = 150.0  # RSS growth while one message is handled
KEPT_MB = 50.0  # RSS growth left once its session is closed
CLOCKS = "frequency-clocks"


LIVE_RUNS = 1  # the module's server starts at most this many live training runs an hour (section 4)


@pytest.fixture(scope="module")
def server():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(live_budget.RUNS_ENV, str(LIVE_RUNS))
        with streamlit_server() as running:
            run_async(_warm(running.url))
            yield running


async def _warm(url: str) -> None:
    """Import and compile what the first visits of a fresh server pay for, so that it is not measured."""
    for page, query in (("", ""), (CLOCKS, ""), ("long-term-decay", ""),
                        ("relative-attention", urlencode(heaviest("relative_attention")))):
        await visit(url, page, query, timeout=TIMEOUT_S)


@pytest.fixture
def explain(server):
    return lambda what: f"{what}\n--- streamlit server output ---\n{server.log_tail()}"


def _light(page: str) -> str:
    return urlencode({**lightest(page), "lang": "en"})


async def _alone(url: str, seconds: float = 3.0) -> Bystander:
    stop, result = asyncio.Event(), Bystander()
    task = asyncio.create_task(bystander(url, stop, result=result))
    await asyncio.sleep(seconds)
    stop.set()
    return await task


async def _during(url: str, attack) -> Bystander:
    """The bystander's latencies while `attack` (a coroutine) runs."""
    stop, result = asyncio.Event(), Bystander()
    task = asyncio.create_task(bystander(url, stop, result=result))
    try:
        await attack
    finally:
        stop.set()
    return await task


def _check_cost(cost, what: str, *, page_run_s: float = 0.0) -> None:
    print(f"{what}: {cost}")
    assert cost.cpu_s <= CPU_S + page_run_s, f"{what}: {cost}"
    assert cost.peak_growth_mb <= PEAK_MB, f"{what}: {cost}"
    assert cost.kept_mb <= KEPT_MB, f"{what}: {cost}"


# --- 1. what one message may cost ---------------------------------------------------------------------


async def _forged_run(url: str, server, page: str, key: str, **value):
    """A session opens `page`, then sends one rerun whose widget state gives widget `key` `value`;
    returns (the forged run, the next plain run, the server's cost of both, the session closed)."""
    async with WidgetSession(url, timeout=TIMEOUT_S) as session:
        first = await session.run(page, _light(_page_id(page)))
        assert first.ok, first
        forged_state = widget_state(session.widget_id(key), **value)
        async with measure(server) as cost:
            forged = await session.run(page, widget_states=[forged_state])
            after = await session.run(page)
            await session.close()
    return forged, after, cost


def _page_id(url_path: str) -> str:
    from explorer.pure.sitemap import PAGES

    return next(page for page, url, _ in PAGES if url == url_path)


@pytest.mark.parametrize("page, key, value", [
    # the largest arrays that fit in one accepted message (maxWidgetStateSize is 1 MB)
    (CLOCKS, "frequency_clocks.pairs", dict(int_array_value=[5] * 900_000)),
    ("long-term-decay", "long_term_decay.sweep", dict(int_array_value=[3] * 900_000)),
    (CLOCKS, "frequency_clocks.base", dict(string_array_value=["1"] * 300_000)),
    (CLOCKS, "frequency_clocks.pairs", dict(string_array_value=[str(i % 64) for i in range(200_000)])),
], ids=["multiselect-int-array", "sweep-int-array", "select-slider-strings", "multiselect-strings"])
def test_the_largest_accepted_message_costs_one_page_run(server, explain, page, key, value):
    forged, after, cost = run_async(_forged_run(server.url, server, page, key, **value))
    assert forged.ok, explain(forged)
    assert after.ok, explain(after)
    _check_cost(cost, f"{key} {list(value)}", page_run_s=1.0)


def test_messages_above_the_limits_are_refused_unread(server, explain):
    """A 24 MB widget state (accepted by Streamlit's defaults: 200 MB frames, 25 MB widget state) is
    refused, and so are four concurrent 30 MB frames; each costs the server almost nothing and every
    other session is still served."""
    async def go():
        async with WidgetSession(server.url, timeout=TIMEOUT_S) as session:
            assert (await session.run(CLOCKS, _light("frequency_clocks"))).ok
            huge = widget_state(session.widget_id("frequency_clocks.pairs"), int_array_value=[5] * 24_000_000)
            async with measure(server, settle_s=1.0) as one:
                refused = await session.run(CLOCKS, widget_states=[huge], timeout=30)
        sessions = [await Session(server.url, timeout=TIMEOUT_S).connect() for _ in range(4)]
        frame = b"\x00" * (30 * 2 ** 20)
        async with measure(server, settle_s=1.0) as four:
            outcomes = await asyncio.gather(*(s.websocket.send(frame) for s in sessions), return_exceptions=True)
            await asyncio.sleep(0.5)
            for s in sessions:
                try:
                    await s.close()
                except Exception:  # noqa: BLE001 - the server already closed it
                    pass
        later = await visit(server.url, CLOCKS, _light("frequency_clocks"), timeout=TIMEOUT_S)
        return refused, one, outcomes, four, later

    refused, one, outcomes, four, later = run_async(go())
    assert not refused.ok and refused.error, explain(refused)  # the socket was closed: 1009, message too big
    _check_cost(one, "one 24 MB widget state")
    _check_cost(four, "four 30 MB frames")
    assert later.run.ok, explain(later.run)


# --- 2. rerun storms ----------------------------------------------------------------------------------


async def _drain(session: Session) -> None:
    try:
        while True:
            await session.receive(timeout=TIMEOUT_S)
    except Exception:  # noqa: BLE001 - the session was closed
        pass


# The storm's pages: every page but RoPE in real models, whose first visit loads a pretrained model into the process
# once (0.1-0.6 GB, shared by every later session; bench.real_models measures it): whether a storm's runs get far
# enough to start that load is a matter of timing, and it is no cost an attacker can repeat.
STORM_PAGES = tuple(url for url in URLS if url != "real-models")


async def _storm(url: str, seconds: float = 5.0, per_second: int = 50) -> None:
    """One session asks `per_second` reruns a second of random pages, never waiting for a run's end."""
    pick = random.Random(7)
    async with Session(url, timeout=TIMEOUT_S) as session:
        reader = asyncio.create_task(_drain(session))
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            await session.send_rerun(pick.choice(STORM_PAGES), "lang=en")
            await asyncio.sleep(1 / per_second)
        reader.cancel()


async def _hammer(url: str, sessions: int = 3, runs: int = 4) -> None:
    """`sessions` sessions each run the heaviest valid relative-attention page `runs` times, a new seed
    each time (nothing comes from the cache)."""
    query = heaviest("relative_attention")

    async def one(index: int) -> None:
        async with Session(url, timeout=TIMEOUT_S) as session:
            for k in range(runs):
                seed = str(500 + index * runs + k + int(time.time()) % 400)
                await session.run("relative-attention", urlencode({**query, "seed": seed}))

    await asyncio.gather(*(one(i) for i in range(sessions)))


@pytest.mark.parametrize("attack", ["storm", "hammer"])
def test_a_bystander_is_served_during_an_attack(server, explain, attack):
    async def go():
        await settled(server)  # what an earlier test left running is not counted against this attack
        alone = await _alone(server.url)
        async with measure(server) as cost:
            during = await _during(server.url, _storm(server.url) if attack == "storm" else _hammer(server.url))
        await settled(server)  # a storm's last page runs end before the next test measures
        return alone, during, cost

    alone, during, cost = run_async(go())
    what = (f"{attack}: bystander p95 alone {alone.p95:.2f} s (n={len(alone.latencies)}), during "
            f"{during.p95} s (n={len(during.latencies)}, worst {during.worst}); server {cost}")
    print(what)  # the latencies go to docs/reliability.md's table
    assert not alone.failures and not during.failures, explain((alone.failures, during.failures))
    assert len(during.latencies) >= 3, explain(what)
    assert cost.kept_mb <= KEPT_MB * 2, explain(what)  # caches of the pages the attack opened stay


# --- 3. widget values of the wrong type ---------------------------------------------------------------

WRONG = {
    "int_value": 7, "double_value": 1.5, "bool_value": True, "string_value": "x",
    "json_value": "{not json", "int_array_value": [1, 2], "double_array_value": [0.5],
    "string_array_value": ["a", "b"], "bytes_value": b"\x00", "trigger_value": True,
}
# every kind of widget the app draws: slider, select slider, multiselect, radio (knob and plain), toggle,
# drop-down menu, and a chart that takes clicks (its selection, a JSON string)
WIDGETS = [
    (CLOCKS, "frequency_clocks.dim", "double_array_value"),
    (CLOCKS, "frequency_clocks.base", "string_array_value"),
    (CLOCKS, "frequency_clocks.pairs", "string_array_value"),
    (CLOCKS, "app.lang", "string_value"),
    (CLOCKS, "app.img", "string_value"),
    ("long-term-decay", "long_term_decay.log_x", "bool_value"),
    ("long-context", "long_context.preset", "string_value"),
    ("relative-attention", "scores", "string_value"),
]


@pytest.mark.parametrize("page, key, own", WIDGETS, ids=[key for _, key, _ in WIDGETS])
def test_a_value_of_the_wrong_type_is_replaced_and_the_session_recovers(server, explain, page, key, own):
    async def go():
        runs = []
        async with WidgetSession(server.url, timeout=TIMEOUT_S) as session:
            assert (await session.run(page, _light(_page_id(page)))).ok
            widget = session.widget_id(key)
            for kind, value in WRONG.items():
                if kind != own:
                    runs.append((kind, await session.run(page, widget_states=[widget_state(widget, **{kind: value})])))
            runs.append(("next plain run", await session.run(page)))
        # a fresh session whose first message already carries the wrong value
        async with WidgetSession(server.url, timeout=TIMEOUT_S) as fresh:
            runs.append(("fresh session", await fresh.run(page, widget_states=[widget_state(widget, int_value=3)])))
            runs.append(("fresh, next run", await fresh.run(page)))
        return runs

    runs = run_async(go())
    broken = [(kind, run.exceptions or run.error or run.status) for kind, run in runs if not run.ok]
    assert not broken, explain(broken)
    if key.split(".")[0] in (
        "frequency_clocks",
        "long_term_decay",
        "long_context",
    ):  # a knob: shown at its default, with a notice
        noticed = [kind for kind, run in runs[:-3] if run.elements.get("alert", 0)]
        assert noticed == [kind for kind, _ in runs[:-3]], explain(runs[:-3])


FORGED_CLICKS = ("x", "{}", "[]", "null", '{"selection": null}', '{"selection": {"points": "all"}}',
                 '{"selection": {"points": [{"x": 1e308, "y": -5}]}}',
                 '{"selection": {"points": [{"x": "<b>", "y": null}]}}',
                 '{"selection": {"points": [{"x": 4, "y": 11}]}}')


def test_a_forged_click_on_the_score_map_is_read_safely(server, explain):
    """The score map's selection is JSON the client writes: any of it gives a served page."""
    async def go():
        async with WidgetSession(server.url, timeout=TIMEOUT_S) as session:
            assert (await session.run("relative-attention", _light("relative_attention"))).ok
            chart = session.widget_id("scores")
            return [(sent, await session.run("relative-attention",
                                             widget_states=[widget_state(chart, string_value=sent)]))
                    for sent in FORGED_CLICKS]

    broken = [(sent, run.exceptions or run.error or run.status) for sent, run in run_async(go()) if not run.ok]
    assert not broken, explain(broken)


# --- 4. the five newer pages ----------------------------------------------------------------------------

NEWER = ("long-context", "precision", "images-and-video", "distance-biases", "trained-models")
PAYLOAD = ("Official notice: [log in again here](http://127.0.0.1:9/phish) ![pixel](http://127.0.0.1:9/p.png) "
           "<script>alert(1)</script> [run](javascript:alert(1)) **URGENT**")
HOSTILE_URL_VALUES = ("nan", "-1e308", "1e999", "-0.0", "9" * 400, "\x00\u202e", "../../etc/passwd", PAYLOAD)
NEWER_CPU_S = 60.0  # server CPU seconds a whole hostile sweep of one page may take (dozens of page runs)
# RSS left once its sessions are closed (the caches of the pages it opened stay): trained-models keeps its toy
# models and their evaluations, 145-156 MB here from one run to the next, so the bound sits clear of that spread
NEWER_KEPT_MB = 250.0


def _broken(runs) -> list:
    return [(what, run.exceptions or run.error or run.status) for what, run in runs if not run.ok]


async def _drawn_widgets(url: str, page: str) -> dict[str, str]:
    """key -> widget id of every widget `page` draws at its defaults (its question's radios included)."""
    async with WidgetSession(url, timeout=TIMEOUT_S) as session:
        assert (await session.run(page, "lang=en")).ok
        return {key: widget_id for key, (widget_id, _) in session.widgets.items()}


@pytest.mark.parametrize("page", NEWER)
def test_every_widget_of_a_newer_page_takes_any_forged_value(server, explain, page):
    """Each round gives every widget of the page a value of one type at once: in a session that drew
    them, then as the first message of a fresh session that never did; a plain run follows each."""
    async def go():
        widgets = await _drawn_widgets(server.url, page)
        assert len(widgets) >= 3, widgets
        runs = []
        async with measure(server) as cost:
            async with WidgetSession(server.url, timeout=TIMEOUT_S) as drawn:
                assert (await drawn.run(page, "lang=en")).ok
                for kind, value in WRONG.items():
                    states = [widget_state(widget_id, **{kind: value}) for widget_id in widgets.values()]
                    runs.append((f"drawn {kind}", await drawn.run(page, widget_states=states)))
                runs.append(("drawn, next plain run", await drawn.run(page)))
            for kind, value in WRONG.items():
                async with WidgetSession(server.url, timeout=TIMEOUT_S) as fresh:
                    states = [widget_state(widget_id, **{kind: value}) for widget_id in widgets.values()]
                    runs.append((f"fresh {kind}", await fresh.run(page, "lang=en", widget_states=states)))
                    runs.append((f"fresh {kind}, next run", await fresh.run(page)))
        return widgets, runs, cost

    widgets, runs, cost = run_async(go())
    print(f"{page}: {len(widgets)} widgets x {len(WRONG)} types, drawn and not: {cost}")
    assert not _broken(runs), explain(_broken(runs))
    assert cost.cpu_s <= NEWER_CPU_S and cost.kept_mb <= NEWER_KEPT_MB, explain(f"{page}: {cost}")


@pytest.mark.parametrize("page", NEWER)
def test_hostile_link_values_for_every_knob_of_a_newer_page(server, explain, page):
    """Every knob of the page set to the same hostile value in one link, for each value: served, with
    notices that name knobs without quoting what was sent."""
    knobs = PAGE_KNOBS[_page_id(page)]

    async def go():
        runs, alerts = [], []
        async with measure(server) as cost:
            for raw in HOSTILE_URL_VALUES:
                async with WidgetSession(server.url, timeout=TIMEOUT_S) as session:
                    run = await session.run(page, urlencode({**{name: raw for name in knobs}, "lang": raw}))
                    runs.append((raw[:20], run))
                    alerts += session.alerts
                    runs.append((f"{raw[:20]}, next run", await session.run(page)))
        return runs, alerts, cost

    runs, alerts, cost = run_async(go())
    print(f"{page}: {len(knobs)} knobs x {len(HOSTILE_URL_VALUES)} hostile values: {cost}")
    assert not _broken(runs), explain(_broken(runs))
    assert alerts and not any("log in again here" in alert for alert in alerts
                              if not alert.count("`")), explain(alerts)  # quoted only inside a code span
    assert cost.cpu_s <= NEWER_CPU_S and cost.kept_mb <= NEWER_KEPT_MB, explain(f"{page}: {cost}")


PASTED = {
    "ntk factor 1e308": {"hidden_size": 4096, "num_attention_heads": 32,
                         "rope_scaling": {"rope_type": "ntk", "factor": 1e308}},
    "head_dim 16384": {"head_dim": 16384, "hidden_size": 16384, "num_attention_heads": 1},
    "rope_theta 1e300": {"hidden_size": 256, "num_attention_heads": 4, "rope_theta": 1e300},
    "dynamic at 1e308 from 1": {"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 1,
                                "rope_scaling": {"rope_type": "dynamic", "factor": 1e308}},
    "markup name": {"hidden_size": 256, "num_attention_heads": 4, "_name_or_path": PAYLOAD},
    "markup theta": {"hidden_size": 256, "num_attention_heads": 4, "rope_theta": PAYLOAD},
    "markup type": {"hidden_size": 256, "num_attention_heads": 4, "rope_scaling": {"rope_type": PAYLOAD}},
    "longrope lists of huge numbers": {"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 8192,
                                       "rope_scaling": {"rope_type": "longrope", "short_factor": [1e308] * 32,
                                                        "long_factor": [1e308] * 32,
                                                        "original_max_position_embeddings": 4096}},
}


def test_pasted_configs_never_raise(server, explain):
    """Each config in a link, and typed into the text area of a session that already drew it."""
    async def go():
        runs, alerts = [], {}
        async with measure(server) as cost:
            for name, config in PASTED.items():
                text = json.dumps(config)
                async with WidgetSession(server.url, timeout=TIMEOUT_S) as session:
                    runs.append((f"{name} (link)", await session.run("long-context", urlencode({"config": text}))))
                    alerts[name] = list(session.alerts)
                    area = widget_state(session.widget_id("long_context.config"), string_value=text)
                    runs.append((f"{name} (typed)", await session.run("long-context", widget_states=[area])))
                    runs.append((f"{name}, next run", await session.run("long-context")))
        return runs, alerts, cost

    runs, alerts, cost = run_async(go())
    print(f"pasted configs: {cost}")
    assert not _broken(runs), explain(_broken(runs))
    assert any("4,096" in alert for alert in alerts["head_dim 16384"]), explain(alerts)  # the limit, said
    assert alerts["ntk factor 1e308"], explain(alerts)
    assert cost.cpu_s <= NEWER_CPU_S, explain(f"pasted configs: {cost}")


def test_the_training_button_pressed_by_one_and_by_five_sessions(server, explain):
    """One session pressing every second, then five pressing together, then one more press once the runs
    have ended: never more than one run at a time, never more than LIVE_RUNS (1) in the hour, every press
    answered; the server's CPU and memory stay bounded. (A forged trigger in section 4 may already have
    started the hour's run: then the first presses are refused too.)"""
    async def go():
        one, five = Presses(), Presses()
        assert await training_idle(server.url, timeout=300.0)
        async with measure(server, settle_s=1.0) as cost:
            await press_training(server.url, 8.0, 1.0, sessions=1, timeout=TIMEOUT_S, result=one)
            await press_training(server.url, 8.0, 1.0, sessions=5, timeout=TIMEOUT_S, result=five)
            idle = await training_idle(server.url, timeout=300.0)
        later = await visit(server.url, "trained-models", "lang=en", timeout=TIMEOUT_S)
        after_cap = await press_training(server.url, 2.0, 1.0, sessions=1, timeout=TIMEOUT_S)
        return one, five, idle, later, after_cap, cost

    one, five, idle, later, after_cap, cost = run_async(go())
    what = f"one session: {one}; five: {five}; then: {after_cap}; server {cost}"
    print(what)
    assert not one.failures and not five.failures and not after_cap.failures, explain(what)
    assert one.presses >= 3 and five.presses >= 10 and after_cap.presses >= 1, explain(what)
    assert one.started <= 1 and one.started + one.busy + one.hourly == one.presses, explain(what)
    assert five.started == 0 and five.busy + five.hourly == five.presses, explain(what)  # the hour's run is spent
    assert idle and later.run.ok, explain(what)
    assert after_cap.hourly == after_cap.presses, explain(what)
    assert cost.cpu_s <= 120.0, explain(what)  # a run costs about 20 CPU-s here, the presses a few more
    assert cost.kept_mb <= 300.0, explain(what)
