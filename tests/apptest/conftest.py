"""Helpers for driving pages through Streamlit's AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("complex_plane", "rotations", "phase", "relative", "implementation", "versus", "decay", "linear")


def open_page(page: str, params: dict | None = None, lang: str = "en", timeout: float = 120) -> AppTest:
    """Run the app, then open pages/<page>.py with the given URL query parameters."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.query_params["lang"] = lang
    at.run()
    if page != "home":
        at.query_params.update({k: str(v) for k, v in (params or {}).items()})
        at.switch_page(f"pages/{page}.py")
        at.run()
    return at


def chart_specs(at: AppTest) -> list[dict]:
    """The plotly figure spec of every chart on the page, in order."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


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


@pytest.fixture
def assert_clean():
    def check(at: AppTest) -> None:
        assert not at.exception, [e.value for e in at.exception]
        assert not at.get("error"), "the page shows an error element"
    return check
