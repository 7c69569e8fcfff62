"""The test tree stays collectable as one run: pytest imports test files by their base name, so two test
files with the same name in different folders stop the whole suite at collection."""

from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def test_every_test_file_name_is_unique():
    names = Counter(path.name for path in ROOT.rglob("test_*.py"))
    assert not [name for name, count in names.items() if count > 1], names.most_common(3)


def test_the_pure_layer_never_reaches_into_the_app_layer():
    """explorer/pure/ imports neither Streamlit nor explorer.app nor the pages' facade `explorer` (read from
    the source, so a lazy import inside a function counts too): explorer.app may import explorer.pure, never
    the other way round."""
    import ast

    pure = ROOT.parent / "explorer" / "pure"
    crossings = []
    for path in pure.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
                if node.module == "explorer":
                    names = [f"explorer.{alias.name}" for alias in node.names]
            else:
                continue
            crossings += [f"{path.relative_to(pure)}: {name}" for name in names
                          if name.split(".")[0] == "streamlit"
                          or (name.split(".")[0] == "explorer" and not name.startswith("explorer.pure"))]
    assert pure.is_dir() and len(list(pure.rglob("*.py"))) > 20
    assert not crossings, crossings


def test_every_topic_has_one_name_from_its_address_to_its_files():
    """The page at /frequency-clocks is page id frequency_clocks, and every file of the topic carries that
    name: its script, view, panel, text in both languages, its AppTests and its view tests."""
    from explorer.pure.sitemap import TOPICS, script, url_path

    repo = ROOT.parent
    assert len(TOPICS) >= 17
    for page in TOPICS:
        url = url_path(page)
        assert url.replace("-", "_") == page, (page, url)
        files = [script(page), f"explorer/pure/views/{page}.py", f"explorer/app/panels/{page}.py",
                 f"explorer/pure/text/en/{page}.toml", f"explorer/pure/text/zh/{page}.toml",
                 f"tests/apptest/test_{page}.py", f"tests/views/test_{page}_view.py"]
        assert [f for f in files if not (repo / f).is_file()] == [], page


def test_no_two_core_modules_import_each_other():
    """Among rope_viz's modules (a package's __init__ aside) imports run one way: the registry of model families
    reads with the config reader's helpers and the reader never imports the registry back. Every import counts,
    those under TYPE_CHECKING or inside a function too."""
    import ast

    core = ROOT.parent / "rope_viz"

    def name_of(path: Path) -> str:
        return ".".join(path.relative_to(core.parent).with_suffix("").parts)

    imports = {}
    for path in core.rglob("*.py"):
        if path.name == "__init__.py":
            continue
        package = name_of(path).rpartition(".")[0].split(".")
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
                found.add(".".join(part for part in (base, node.module or "") if part))
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
        imports[name_of(path)] = found
    assert "rope_viz.models.families" in imports["rope_viz.models.reading"]  # the reading sees real imports
    both_ways = sorted({tuple(sorted((a, b))) for a, found in imports.items() for b in found
                        if a in imports.get(b, ())})
    assert not both_ways, both_ways
