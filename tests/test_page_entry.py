"""Every page script hands a run it was given on its own to the router: its first statement after its imports is
`ui.enter()` (explorer/app/router.py says why no one place can: Streamlit's older pages/ mode on a fresh server's
first visit, and AppTest, which runs a page opened with `switch_page` by itself on every run)."""

import ast
from pathlib import Path

from explorer.pure.sitemap import PAGES, script

ROOT = Path(__file__).resolve().parents[1]


def first_statement(path: Path) -> str:
    """The source of the first statement of `path` after its docstring and imports."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    rest = [node for node in body if not isinstance(node, (ast.Import, ast.ImportFrom))
            and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    assert rest and all(isinstance(node, (ast.Import, ast.ImportFrom, ast.Expr)) for node in body[:body.index(rest[0])])
    return ast.unparse(rest[0])


def test_every_page_script_enters_the_router_first():
    scripts = sorted((ROOT / "pages").glob("*.py"))
    assert sorted(ROOT / script(name) for name, _, _ in PAGES) == scripts  # no page script outside the list
    late = {path.name: first_statement(path) for path in scripts if first_statement(path) != "ui.enter()"}
    assert not late, late


def test_the_check_sees_a_page_that_does_something_first(tmp_path):
    page = tmp_path / "page.py"
    page.write_text('"""A page."""\nimport explorer as ui\nPAGE = "home"\nui.enter()\n', encoding="utf-8")
    assert first_statement(page) == "PAGE = 'home'"
