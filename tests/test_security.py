"""Security settings that must not drift: no raw HTML from code but one constant stylesheet, no eval (a
model's `.eval()` is no eval), XSRF on, errors hidden."""

import ast
import re
import tomllib
from pathlib import Path

from explorer.pure.sitemap import FOLDER

ROOT = Path(__file__).resolve().parents[1]
APP_SOURCES = [ROOT / "app.py", *sorted((ROOT / FOLDER).glob("*.py")), *sorted((ROOT / "explorer").rglob("*.py")),
               *sorted((ROOT / "rope_viz").rglob("*.py"))]


# The one place raw HTML may be written: the presenter view's constant stylesheet.
STYLESHEET_MODULE = ROOT / "explorer" / "app" / "presenter.py"


def test_no_raw_html_or_dynamic_code_in_the_app():
    offenders = []
    for path in APP_SOURCES:
        text = path.read_text(encoding="utf-8")
        if path == STYLESHEET_MODULE:  # its one st.html call is checked below
            text = text.replace("st.html(STYLE)", "", 1)
        for pattern in (r"unsafe_allow_html\s*=\s*True", r"(?<![.\w])eval\(", r"(?<![.\w])exec\(", r"st\.html\(",
                        r"components\.html\(", r"\bhtml\("):
            if re.search(pattern, text):
                offenders.append(f"{path.relative_to(ROOT)}: {pattern}")
    assert not offenders, offenders


def test_the_only_html_is_one_constant_stylesheet():
    """presenter.py writes HTML once: `st.html(STYLE)`, where STYLE is a module constant, a plain string
    literal (no f-string, no concatenation) whose only placeholders are filled with the figure style's colours
    (`Template(literal).substitute(PAGE_COLOURS)`, each a hex or rgba colour), assigned once, holding one
    <style> block."""
    tree = ast.parse(STYLESHEET_MODULE.read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and node.func.attr == "html"]
    assert len(calls) == 1
    (call,) = calls
    assert not call.keywords and len(call.args) == 1
    assert isinstance(call.args[0], ast.Name) and call.args[0].id == "STYLE"
    assignments = [node for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                   and any(isinstance(target, ast.Name) and target.id == "STYLE"
                           for target in (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    assert len(assignments) == 1 and isinstance(assignments[0], ast.Assign)
    assert tree.body.count(assignments[0]) == 1, "STYLE is assigned at module level"
    filled = assignments[0].value
    assert isinstance(filled, ast.Call) and isinstance(filled.func, ast.Attribute) and not filled.keywords
    assert filled.func.attr == "substitute" and [ast.unparse(arg) for arg in filled.args] == ["PAGE_COLOURS"]
    template = filled.func.value
    assert isinstance(template, ast.Call) and ast.unparse(template.func) == "Template" and len(template.args) == 1
    value = template.args[0]
    assert isinstance(value, ast.Constant) and isinstance(value.value, str)
    assert value.value.startswith("<style>") and value.value.endswith("</style>")
    assert value.value.count("<") == 2 and "{" not in value.value.split("}")[-1]
    from string import Template

    from explorer.app import presenter
    from explorer.pure.figures.style import PAGE_COLOURS

    colour = re.compile(r"#[0-9a-f]{6}|rgba\((\d{1,3}, ){3}(0|1|0\.\d+)\)")
    assert all(colour.fullmatch(value) for value in PAGE_COLOURS.values()), PAGE_COLOURS
    assert presenter.STYLE == Template(value.value).substitute(PAGE_COLOURS)


def test_streamlit_config_keeps_xsrf_on_and_hides_error_details():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["enableXsrfProtection"] is True
    assert config["client"]["showErrorDetails"] == "none"
    assert config["browser"]["gatherUsageStats"] is False
