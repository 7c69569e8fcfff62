"""`python -m bench pages` and `python -m bench browser`: what each page of the app costs.

pages: for every page of the app, at its default knobs and at its largest knobs (LARGEST below),
the warm script time (open the page, then time several reruns through Streamlit's AppTest, median)
and the chart payload (bytes of plotly JSON the page sends). A page still being written, with few
knobs or none, simply measures what it has; a LARGEST value the page repairs (out of its range)
is reported as a notice, so this table is easy to keep in step with the pages.

costs: what one message may cost the server: every page at its heaviest knobs, run with every cache emptied
first (Streamlit's caches and the heavy-job queue's kept results), so that nothing it computes was computed
before; the process's CPU seconds for that one run (all threads: the script's and the queue's), the median of
`--reruns` cold runs, against MESSAGE_CPU_S. Run it again with `ATEN_CPU_CAPABILITY=avx2
ONEDNN_MAX_CPU_ISA=AVX2` for the other CPU kind. The real-models page is left out: its measurements are jobs of
the queue whose costs bench/real_models.py reports.

browser: a real Chromium against a running server (support.server), on a server and browser that have
already shown every page once: the time to the first drawn chart (`.main-svg`) and to the whole page
when a new tab opens the page's address (the app's code starts in the tab), and the time to the first
chart when the page is reached from the sidebar inside the app (the target: under 3 s).
"""

from __future__ import annotations

import logging
import statistics
import time

import psutil

from explorer.pure.knobs import heaviest
from explorer.pure.sitemap import PAGES

WARM_RERUN_S = {"default": 0.3, "largest": 1.0}
PAYLOAD_BYTES = {"default": 1_000_000, "largest": 2_000_000}
FIRST_CHART_S = 3.0
MESSAGE_CPU_S = 2.0  # server CPU seconds one valid message may cost
COLD_LEFT_OUT = ("real_models",)
FIRST_CHART = "[data-testid=stMain] .main-svg"  # plotly's svg exists once a chart is drawn
# AppTest runs the app outside a server, and these loggers warn about that on every run.
OUTSIDE_SERVER_LOGGERS = ("streamlit.runtime.scriptrunner_utils.script_run_context",
                          "streamlit.runtime.state.session_state_proxy")

def _measure_page(stem: str, params: dict, reruns: int) -> dict:
    from support.apptest import open_page

    try:
        at = open_page(stem, params)
    except Exception as err:  # noqa: BLE001 - a page being written may not even load
        return {"error": f"{type(err).__name__}: {err}"}
    if at.exception:
        return {"error": "; ".join(e.value for e in at.exception)}
    samples = []
    for _ in range(reruns):
        start = time.perf_counter()
        at.run()
        samples.append(time.perf_counter() - start)
    charts = at.get("plotly_chart")
    return {"warm_rerun_s": statistics.median(samples), "charts": len(charts),
            "payload_bytes": sum(len(el.proto.spec) for el in charts),
            "notices": [w.value for w in at.warning], "error": "; ".join(e.value for e in at.exception) or None}


def _cold_cpu_s(at) -> float:
    """CPU seconds of one run of `at` after every cache of the process is emptied."""
    import streamlit as st

    from explorer.app.job_queue import QUEUE

    st.cache_data.clear()
    st.cache_resource.clear()
    QUEUE.forget()
    start = time.process_time()
    at.run()
    return time.process_time() - start


def run_cold(reruns: int = 3, only: str = "") -> dict:
    """Every page (but COLD_LEFT_OUT) at its heaviest knobs, cold: CPU seconds of one run, median of `reruns`."""
    import torch

    from rope_viz.real.speed import cpu_kind, cpu_label
    from support.apptest import open_page

    for name in OUTSIDE_SERVER_LOGGERS:
        logging.getLogger(name).addFilter(lambda record: record.levelno >= logging.ERROR)
    cpu = cpu_kind()
    capability = cpu["torch_capability"]
    rows = []
    print(f"{cpu_label(cpu)}, {torch.get_num_threads()} torch threads, load average {psutil.getloadavg()[0]:.1f}")
    print(f"{'page':22s} {'cold CPU s':>10s} {'worst':>6s}  verdict")
    for stem, _url, _icon in PAGES:
        if stem in COLD_LEFT_OUT or only not in stem:
            continue
        at = open_page(stem, heaviest(stem))  # imports and first-visit costs, not measured
        samples = [_cold_cpu_s(at) for _ in range(reruns)]
        row = {"page": stem, "params": heaviest(stem), "cpu_s": statistics.median(samples), "worst_s": max(samples),
               "error": "; ".join(e.value for e in at.exception) or None}
        row["pass"] = not row["error"] and row["cpu_s"] <= MESSAGE_CPU_S
        rows.append(row)
        print(f"{stem:22s} {row['cpu_s']:10.2f} {row['worst_s']:6.2f}  {'PASS' if row['pass'] else 'FAIL'}", flush=True)
    targets = [{"what": f"{r['page']}: one cold run at the heaviest knobs <= {MESSAGE_CPU_S} CPU-s ({capability})",
                "pass": r["pass"]} for r in rows]
    return {"capability": capability, "cpu": cpu, "load_average": psutil.getloadavg(), "reruns": reruns, "rows": rows,
            "targets": targets}


def _verdict(row: dict, knobs: str) -> bool:
    return (not row.get("error") and row["warm_rerun_s"] <= WARM_RERUN_S[knobs]
            and row["payload_bytes"] <= PAYLOAD_BYTES[knobs])


def run(reruns: int = 5) -> dict:
    """Every page at default and largest knobs; prints the table as it goes."""
    for name in OUTSIDE_SERVER_LOGGERS:  # a filter, since Streamlit resets levels when it loads its config
        logging.getLogger(name).addFilter(lambda record: record.levelno >= logging.ERROR)
    rows = []
    print(f"{'page':16s} {'knobs':8s} {'rerun s':>8s} {'charts':>6s} {'payload KB':>10s}  verdict")
    for stem, _url, _icon in PAGES:
        for knobs, params in (("default", {}), ("largest", heaviest(stem))):
            row = {"page": stem, "knobs": knobs, "params": params, **_measure_page(stem, params, reruns)}
            row["pass"] = _verdict(row, knobs)
            rows.append(row)
            print(format_row(row), flush=True)
    targets = [{"what": f"{r['page']} {r['knobs']}: rerun <= {WARM_RERUN_S[r['knobs']]} s and payload <= "
                        f"{PAYLOAD_BYTES[r['knobs']] // 1000} KB", "pass": r["pass"]} for r in rows]
    return {"reruns": reruns, "rows": rows, "targets": targets}


def format_row(row: dict) -> str:
    if row.get("error") and "warm_rerun_s" not in row:
        return f"{row['page']:16s} {row['knobs']:8s} ERROR {row['error'][:80]}"
    notes = "" if not row["notices"] else f"  ({len(row['notices'])} notice(s): LARGEST out of range?)"
    error = "" if not row["error"] else f"  error: {row['error'][:60]}"
    return (f"{row['page']:16s} {row['knobs']:8s} {row['warm_rerun_s']:8.3f} {row['charts']:6d} "
            f"{row['payload_bytes'] / 1000:10.1f}  {'PASS' if row['pass'] else 'FAIL'}{notes}{error}")


def _time_navigation(tab, url: str, has_charts: bool) -> dict:
    from support.server import wait_for_app

    start = time.perf_counter()
    tab.goto(url)
    first_chart = None
    if has_charts:
        tab.wait_for_selector(FIRST_CHART, state="attached")
        first_chart = time.perf_counter() - start
    wait_for_app(tab)
    return {"first_chart_s": first_chart, "page_ready_s": time.perf_counter() - start}


def _time_sidebar_navigation(tab, home: str, url: str) -> float:
    """From the home page (no charts), click the page's sidebar link: seconds until its first chart."""
    from support.server import wait_for_app

    tab.goto(home)
    wait_for_app(tab)
    start = time.perf_counter()
    tab.locator(f'[data-testid=stSidebarNav] a[href$="/{url}"]').click()
    tab.wait_for_selector(FIRST_CHART, state="attached")
    return time.perf_counter() - start


def run_browser(repeats: int = 3) -> dict:
    """Every page in Chromium on a warm server: median time to the first chart and to the whole page."""
    from playwright.sync_api import sync_playwright

    from support.server import launch_chromium, streamlit_server

    rows = []
    with streamlit_server() as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        urls = {stem: f"{server.url}/{url}" for stem, url, _icon in PAGES}
        has_charts = {}
        for stem, url in urls.items():  # warm the server's caches and the browser's
            tab = context.new_page()
            _time_navigation(tab, url, has_charts=False)
            has_charts[stem] = tab.locator(FIRST_CHART).count() > 0
            tab.close()
        print(f"{'page':16s} {'new tab: chart s':>16s} {'ready s':>8s} {'in app: chart s':>16s}  verdict")
        for stem, url in urls.items():
            samples = []
            for _ in range(repeats):
                tab = context.new_page()
                samples.append(_time_navigation(tab, url, has_charts[stem]))
                tab.close()
            row = {"page": stem, "page_ready_s": statistics.median(s["page_ready_s"] for s in samples),
                   "first_chart_s": (statistics.median(s["first_chart_s"] for s in samples)
                                     if has_charts[stem] else None),
                   "in_app_first_chart_s": None}
            if has_charts[stem]:  # navigating inside the app: the app's code is already in the browser
                tab = context.new_page()
                row["in_app_first_chart_s"] = statistics.median(
                    _time_sidebar_navigation(tab, server.url, url.rsplit("/", 1)[-1]) for _ in range(repeats))
                tab.close()
            row["pass"] = row["in_app_first_chart_s"] is None or row["in_app_first_chart_s"] < FIRST_CHART_S
            rows.append(row)
            first = "no chart" if row["first_chart_s"] is None else f"{row['first_chart_s']:.2f}"
            in_app = "-" if row["in_app_first_chart_s"] is None else f"{row['in_app_first_chart_s']:.2f}"
            verdict = "PASS" if row["pass"] else "FAIL"
            print(f"{stem:16s} {first:>16s} {row['page_ready_s']:8.2f} {in_app:>16s}  {verdict}",
                  flush=True)
        context.close()
        browser.close()
    targets = [{"what": f"{r['page']}: first chart < {FIRST_CHART_S} s after sidebar navigation", "pass": r["pass"]}
               for r in rows]
    return {"repeats": repeats, "rows": rows, "targets": targets}
