"""Security settings that must not drift: no raw HTML from code, no eval, XSRF on, errors hidden."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP_SOURCES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "explorer").rglob("*.py")),
               *sorted((ROOT / "rope_viz").rglob("*.py"))]


def test_no_raw_html_or_dynamic_code_in_the_app():
    offenders = []
    for path in APP_SOURCES:
        text = path.read_text(encoding="utf-8")
        for pattern in (r"unsafe_allow_html\s*=\s*True", r"\beval\(", r"\bexec\(", r"st\.html\(",
                        r"components\.html\("):
            if re.search(pattern, text):
                offenders.append(f"{path.relative_to(ROOT)}: {pattern}")
    assert not offenders, offenders


def test_streamlit_config_keeps_xsrf_on_and_hides_error_details():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["enableXsrfProtection"] is True
    assert config["client"]["showErrorDetails"] == "none"
    assert config["browser"]["gatherUsageStats"] is False
