"""`python -m bench layout`: every view of the app (page x window x language, support.layout_check) in a
real Chromium: per page, the overlapping text boxes, truncated texts, views whose first plot area starts
below the first screen and Chinese views whose chart text is not drawn with a Simplified Chinese font.
Target: zero of each. `--only TEXT` checks the views whose name (page-window-lang) holds TEXT;
`--save-shots` also writes a screenshot of every view's first screen to test-artifacts/layout/<view>.png."""

from __future__ import annotations

from explorer.pages import PAGES
from support.layout_check import VIEWS, inspect

COLUMNS = ("overlaps", "truncated", "off first screen", "wrong font")


def counts(found) -> dict:
    return {"overlaps": len(found.overlaps), "truncated": len(found.truncated),
            "off first screen": int(found.off_first_screen), "wrong font": int(found.wrong_font)}


def run(save_shots: bool = False, only: str = "") -> dict:
    from playwright.sync_api import sync_playwright

    from support.server import ROOT, launch_chromium, streamlit_server, wait_for_app

    shots = ROOT / "test-artifacts" / "layout"
    if save_shots:
        shots.mkdir(parents=True, exist_ok=True)
    views, rows = [], []
    with streamlit_server() as server, sync_playwright() as playwright:
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
            print(f"  {view.name:32s} " + " ".join(f"{counts(found)[c]:3d}" for c in COLUMNS), flush=True)
        context.close()
        browser.close()
    print(f"{'page':16s} " + " ".join(f"{c:>17s}" for c in COLUMNS))
    for stem, _url, _icon in PAGES:
        own = [v for v in views if v["view"].startswith(f"{stem}-")]
        row = {"page": stem, **{c: sum(v["counts"][c] for v in own) for c in COLUMNS}}
        rows.append(row)
        print(f"{stem:16s} " + " ".join(f"{row[c]:17d}" for c in COLUMNS), flush=True)
    totals = {c: sum(r[c] for r in rows) for c in COLUMNS}
    print(f"{'all ' + str(len(views)) + ' views':16s} " + " ".join(f"{totals[c]:17d}" for c in COLUMNS))
    return {"views": views, "pages": rows,
            "targets": [{"name": c, "value": totals[c], "target": 0, "pass": totals[c] == 0} for c in COLUMNS]}
