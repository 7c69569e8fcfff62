"""Driving pages through Streamlit's AppTest, for the tests and the page benchmark."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from explorer.pure.sitemap import TOPICS, script

ROOT = Path(__file__).resolve().parents[1]
PAGES = TOPICS  # the topic pages (every page but home), in the router's order


def open_page(page: str, params: dict | None = None, lang: str = "en", timeout: float = 120) -> AppTest:
    """Run the app, then open the page (by its id, e.g. "linear_attention") with the given URL query parameters."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.query_params["lang"] = lang
    at.run()
    if page != "home":
        at.query_params.update({k: str(v) for k, v in (params or {}).items()})
        at.switch_page(script(page))
        at.run()
    return at


def chart_specs(at: AppTest) -> list[dict]:
    """The plotly figure spec of every chart on the page, in order."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def spec_array(field) -> np.ndarray:
    """Values of a figure-spec field as float64: a plain (nested) list, or numpy data that plotly
    sent base64-packed as {"dtype", "bdata"} with "shape" ("rows, cols") for more than one axis."""
    if not isinstance(field, dict):
        return np.asarray(field, dtype=np.float64)
    flat = np.frombuffer(base64.b64decode(field["bdata"]), dtype=field["dtype"]).astype(np.float64)
    return flat.reshape([int(side) for side in field["shape"].split(",")]) if "shape" in field else flat


def chart_payload(at: AppTest) -> int:
    """Characters of plotly JSON the page sends for all its charts."""
    return sum(len(el.proto.spec) for el in at.get("plotly_chart"))


def metrics(at: AppTest) -> dict[str, str]:
    """{label: shown value} of every st.metric on the page."""
    return {el.label: el.value for el in at.metric}


def url_values(at: AppTest, names) -> dict[str, str | None]:
    """{name: value} of the given URL query parameters after the run (None where one is missing)."""
    return {name: at.query_params.get(name) for name in names}


def axis_titles(spec: dict) -> list[str]:
    """All axis titles in a figure spec."""
    layout = spec.get("layout", {})
    return [v["title"]["text"] for k, v in layout.items()
            if k.startswith(("xaxis", "yaxis")) and isinstance(v, dict) and v.get("title", {}).get("text")]


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def page_text(at: AppTest) -> str:
    parts = [el.value for el in at.title] + [el.value for el in at.markdown] + [el.value for el in at.caption]
    parts += [el.label for el in at.get("slider")] + [el.value for el in at.subheader]
    return "\n".join(str(p) for p in parts)


def check_clean(at: AppTest) -> None:
    """The run raised nothing and the page shows no error element."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.get("error"), "the page shows an error element"


def open_defaults(page: str, charts: int) -> tuple[AppTest, list[dict]]:
    """Open a page at its defaults: it runs cleanly and draws `charts` charts, each with a title and
    at least two axis titles. Returns the run and its chart specs."""
    at = open_page(page)
    check_clean(at)
    specs = chart_specs(at)
    assert len(specs) == charts
    for spec in specs:
        assert spec["layout"]["title"]["text"] and len(axis_titles(spec)) >= 2, spec["layout"].get("title")
    return at, specs


def open_at_extremes(page: str, params: dict, charts: int) -> tuple[AppTest, list[dict]]:
    """Open a page with knobs at the ends of their ranges: it runs cleanly, needs no notice, draws
    `charts` charts and sends under 2 MB of chart JSON. Returns the run and its chart specs."""
    at = open_page(page, params)
    check_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    specs = chart_specs(at)
    assert len(specs) == charts
    assert chart_payload(at) < 2_000_000
    return at, specs


def open_hostile_link(page: str, params: dict, repaired: dict[str, str], notices: int) -> AppTest:
    """Open a page from a link with bad values: it runs cleanly, the URL then holds the `repaired`
    values, and `notices` notices say what was replaced."""
    at = open_page(page, params)
    check_clean(at)
    assert url_values(at, repaired) == repaired
    assert len(at.warning) == notices
    return at


def paste_past_the_limit(page: str, pasted: str, limit: int) -> AppTest:
    """Open `page`, type `pasted` (longer than `limit`) into its config box and rerun; check that the page
    refuses it with one notice under the box (inside its expander) giving both sizes, and that the text
    stays in the box to be cut down. The AppTest, for the page's own checks."""
    at = open_page(page)
    at.text_area(key=f"{page}.config").input(pasted).run()
    assert not at.exception
    (said,) = at.expander[0].warning
    assert f"{limit:,}" in said.value and f"{len(pasted):,}" in said.value
    assert at.text_area(key=f"{page}.config").value == pasted
    return at

