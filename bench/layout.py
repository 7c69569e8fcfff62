"""`python -m bench layout`: every view of the app (page x window x language, support.layout_check) in a
real Chromium: per page and per window, the overlapping text boxes, truncated texts, texts over a widget,
metric values smaller than their labels, texts too small, formulas cut without a scroll cue, flat heatmaps,
faint presenter lines, views whose first plot area starts below the first screen and Chinese views whose
chart text is not drawn with a Simplified Chinese font. Target: zero of each. `--only TEXT` checks the views
whose name (page-window-lang) holds TEXT; `--save-shots` also writes a screenshot of every view's first
screen to test-artifacts/layout/<view>.png; `--root FOLDER` checks the app in another checkout (to count
the findings of an older version with this check)."""

from __future__ import annotations

from pathlib import Path

from explorer.pure.sitemap import PAGES
from support.layout_check import KINDS, VIEWS, WINDOWS, inspect

COLUMNS = (*KINDS, "off first screen", "wrong font")
HEADS = ("overlap", "cut", "on widget", "small value", "small text", "formula", "flat", "faint", "off 1st",
         "font")  # the table's column heads, in COLUMNS' order


def counts(found) -> dict:
    return {**{kind: len(getattr(found, kind)) for kind in KINDS},
            "off first screen": int(found.off_first_screen), "wrong font": int(found.wrong_font)}


def _row(name: str, values: dict) -> str:
    return f"{name:30s} " + " ".join(f"{values[c]:>{len(h)}d}" for c, h in zip(COLUMNS, HEADS))


def run(save_shots: bool = False, only: str = "", root: Path | None = None) -> dict:
    from playwright.sync_api import sync_playwright

    from support.server import ROOT, launch_chromium, streamlit_server, wait_for_app

    root = Path(root) if root else ROOT

    shots = ROOT / "test-artifacts" / "layout"
    if save_shots:
        shots.mkdir(parents=True, exist_ok=True)
    views, rows = [], []
    with streamlit_server(root=root) as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        context = browser.new_context()
        for view in [view for view in VIEWS if only in view.name]:
            tab = context.new_page()
            tab.set_viewport_size(view.viewport)
            tab.goto(f"{server.url}/{view.path}" + (f"?{view.query}" if view.query else ""), timeout=90_000)
            wait_for_app(tab, timeout=90_000)
            tab.wait_for_timeout(400)  # responsive charts settle at the window's width
            found = inspect(tab, view)
            if save_shots:
                tab.screenshot(path=str(shots / f"{view.name}.png"))
            tab.close()
            views.append({**found.summary(), "counts": counts(found)})
            print(_row(view.name, counts(found)), flush=True)
        context.close()
        browser.close()
    print(f"{'page x window':30s} " + " ".join(HEADS))
    for stem, _url, _icon in PAGES:
        for window in WINDOWS:
            own = [v for v in views if v["view"].startswith(f"{stem}-{window}-")]
            if own:
                row = {"page": stem, "window": window, **{c: sum(v["counts"][c] for v in own) for c in COLUMNS}}
                rows.append(row)
                print(_row(f"{stem} {window}", row), flush=True)
    totals = {c: sum(r[c] for r in rows) for c in COLUMNS}
    print(_row(f"all {len(views)} views", totals))
    return {"root": str(root), "views": views, "rows": rows,
            "targets": [{"name": c, "value": totals[c], "target": 0, "pass": totals[c] == 0} for c in COLUMNS]}
