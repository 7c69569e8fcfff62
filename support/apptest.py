"""Driving pages through Streamlit's AppTest, for the tests and the page benchmark."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import numpy as np
from streamlit.runtime.state.common import user_key_from_element_id
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


def open_presenting(page: str, flag: str = "1", params: dict | None = None) -> AppTest:
    """Open a page from a link that carries `present` (an app-level knob: it is in the link from the start), with
    the page's other query parameters."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"lang": "en", "present": flag, **(params or {})})
    at.run()
    at.switch_page(script(page))
    at.run()
    return at


_OPENED: dict[tuple, AppTest] = {}


def opened(page: str, params: dict | None = None, lang: str = "en") -> AppTest:
    """The page opened with these URL query parameters in this language, run once for the whole test run
    and shared: only for tests that read the page. A test that clicks, types or changes a widget (or
    changes the environment before the run) opens its own copy with open_page. The app's own settings in
    the environment (ROPE_VIZ_*) are part of what makes a run the same."""
    key = (page, lang, tuple(sorted((name, str(value)) for name, value in (params or {}).items())),
           tuple(sorted((name, value) for name, value in os.environ.items() if name.startswith("ROPE_VIZ"))))
    if key not in _OPENED:
        _OPENED[key] = open_page(page, params, lang)
    return _OPENED[key]


def chart_specs(at: AppTest) -> list[dict]:
    """The plotly figure spec of every chart on the page, in order."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def chart_keys(at: AppTest) -> list[str]:
    """The key each chart on the page was drawn with (`explorer.app.place.chart(fig, key=...)`), in order:
    Streamlit keeps the key at the end of the chart element's id."""
    return [user_key_from_element_id(el.proto.id) for el in at.get("plotly_chart")]


def charts(at: AppTest) -> dict[str, dict]:
    """{key: plotly figure spec} of every chart on the page."""
    return {key: json.loads(el.proto.spec) for key, el in zip(chart_keys(at), at.get("plotly_chart"))}


def chart(at: AppTest, key: str) -> dict:
    """The plotly figure spec of the chart drawn with `key`; fails, naming the keys there are, if none is."""
    drawn = charts(at)
    assert key in drawn, f"no chart {key!r} on the page, only {sorted(drawn)}"
    return drawn[key]


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


def arrow_tips(spec: dict) -> dict[str, tuple[float, float]]:
    """{legend name: (x, y) of the arrow tip} for the arrow traces of a figure spec (two points from the origin)."""
    return {tr["name"]: (tr["x"][1], tr["y"][1]) for tr in spec["data"]
            if isinstance(tr.get("x"), list) and len(tr["x"]) == 2 and tr["x"][0] == 0.0 and tr["y"][0] == 0.0}


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


def open_at_extremes(page: str, params: dict, charts: list[str]) -> AppTest:
    """Open a page (shared, read-only) with knobs at the ends of their ranges: it runs cleanly, needs no notice,
    draws the charts with the keys `charts`, in order, and sends under 2 MB of chart JSON."""
    at = opened(page, params)
    check_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    assert chart_keys(at) == list(charts)
    assert chart_payload(at) < 2_000_000
    return at


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



def assert_says_where_it_was_timed(at: AppTest, repeat: int = 5) -> None:
    """A timing's caption names the CPU's vector instructions and torch's threads here (asked of torch itself), and
    the median of `repeat` runs."""
    import torch

    said = page_text(at)
    # the thread count is the timing job's own (read in the queue's worker thread, whose OpenMP count another
    # thread's torch.set_num_threads does not change): between 1 and the machine's cores, not this thread's
    threads = re.search(rf"\({re.escape(torch.backends.cpu.get_cpu_capability())} instructions, (\d+) torch threads\)",
                        said)
    assert threads and 1 <= int(threads[1]) <= (os.cpu_count() or 1), said[-600:]
    assert f"median of {repeat} timed runs" in said, said[-600:]
