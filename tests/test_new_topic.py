"""The recipe for a new topic stays true: `python -m explorer.new_topic <id>`, run in a copy of the tree, writes the
topic's seven files and one line of the page list and changes nothing else, and the copy then passes, for the new
topic, the tests that hold every topic (layout, text, questions, every page, the home page's cards and the
lesson's end) and the topic's own two tests. Only those run in the copy, to keep the check short (~30 s)."""

import subprocess
import sys
from pathlib import Path

import pytest

from explorer.new_topic import add_to_sitemap, new_topic

ROOT = Path(__file__).resolve().parents[1]
PAGE = "rope_on_a_torus"
SEVEN = {"app_pages/rope-on-a-torus.py", "explorer/pure/views/rope_on_a_torus.py",
         "explorer/app/panels/rope_on_a_torus.py", "explorer/pure/text/en/rope_on_a_torus.toml",
         "explorer/pure/text/zh/rope_on_a_torus.toml",
         "tests/apptest/test_rope_on_a_torus.py", "tests/views/test_rope_on_a_torus_view.py"}


def tree_copy(folder: Path) -> dict[str, bytes]:
    """The working tree's files (tracked, and untracked ones git does not ignore) copied under `folder`."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    copied = {}
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            copied[name] = source.read_bytes()
            (folder / name).write_bytes(copied[name])
    return copied


def run(folder: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *command], cwd=folder, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_a_new_topic_is_its_seven_files_and_one_line_and_passes_the_tests(tmp_path):
    before = tree_copy(tmp_path)
    made = run(tmp_path, "-m", "explorer.new_topic", PAGE)
    assert made.returncode == 0, made.stderr
    after = {str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*")
             if path.is_file() and "__pycache__" not in path.parts}
    assert after - set(before) == SEVEN
    changed = [name for name, data in before.items() if (tmp_path / name).read_bytes() != data]
    assert changed == ["explorer/pure/sitemap.py"]
    old = before["explorer/pure/sitemap.py"].decode().splitlines()
    new = (tmp_path / "explorer/pure/sitemap.py").read_text().splitlines()
    assert [line for line in new if line not in old] == [f'    ("{PAGE}", "rope-on-a-torus", ":material/lightbulb:"),']
    assert len(new) == len(old) + 1

    lint = run(tmp_path, "-m", "ruff", "check", *sorted(SEVEN))
    assert lint.returncode == 0, lint.stdout
    tests = run(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", f"{PAGE} or not parametrize",
                "tests/test_layout.py", "tests/test_page_folder.py", "tests/ui/test_text.py", "tests/ui/test_quiz.py",
                "tests/apptest/test_every_page.py", f"tests/apptest/test_{PAGE}.py", f"tests/views/test_{PAGE}_view.py",
                "tests/apptest/test_quiz_and_presenter.py::test_home_offers_the_lesson_and_a_card_for_every_topic",
                "tests/apptest/test_quiz_and_presenter.py::test_the_last_lesson_step_ends_with_a_finish_panel")
    assert tests.returncode == 0, tests.stdout[-4000:]
    counts = tests.stdout.strip().splitlines()[-1]
    assert "failed" not in counts and "skipped" not in counts and int(counts.split()[0]) >= 40, counts


def test_the_command_refuses_a_bad_or_taken_name_and_writes_nothing(tmp_path):
    for bad, said in (("Torus", "lower-case"), ("rope-torus", "lower-case"), ("precision", "already"),
                      ("common", "already")):
        with pytest.raises(ValueError, match=said):
            new_topic(bad, root=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_sitemap_line_goes_last_in_the_lesson():
    source = 'PAGES = (\n    ("home", "", ":material/home:"),\n)\nTOPICS = tuple(page for page in PAGES)\n'
    added = add_to_sitemap(source, "a_b", ":material/star:")
    assert added.splitlines()[2] == '    ("a_b", "a-b", ":material/star:"),' and added.count("\n") == 5
    with pytest.raises(ValueError, match="PAGES"):
        add_to_sitemap("PAGES = ()\n", "a_b", ":material/star:")
