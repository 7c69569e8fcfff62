"""The README's commands stay true: CI runs its test command verbatim, and the files it names exist."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_ci_runs_the_readme_test_command_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Run the tests", 1)[1]
    command = _bash_blocks(section)[0]
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci_lines


def test_readme_run_command_names_real_files():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = _bash_blocks(readme.split("## Run the app", 1)[1])[0]
    assert "pip install -r requirements.txt" in command and "streamlit run app.py" in command
    assert (ROOT / "requirements.txt").is_file() and (ROOT / "app.py").is_file()
    pins = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(r"^torch==\d+\.\d+\.\d+\+cpu$", pins, re.M), "torch must stay pinned to a CPU-only build"
    assert re.search(r"^--extra-index-url https://download\.pytorch\.org/whl/cpu$", pins, re.M), \
        "the CPU-only build comes from PyTorch's CPU wheel index"


def test_readme_says_the_run_command_names_one_python_and_others_work():
    """The command calls one interpreter by name; the text right under it names that interpreter and says how to
    run another supported one, rather than a version range the command itself does not follow."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Run the app", 1)[1]
    interpreter = _bash_blocks(section)[0].split()[0]
    minimum = re.fullmatch(r"python(3\.\d+)", interpreter).group(1)
    words = section.split("```", 2)[2].strip().split("\n\n", 1)[0]
    assert f"`{interpreter}`" in words and f"from {minimum} on" in words and "python3 -m venv" in words


def _notebook_blocks() -> list[str]:
    """The Python blocks of "Using the core in a notebook", but the two that need more than the core and the
    [toy] extra or minutes: the real models (the [real] extra's weights; tests/core/test_real_decoder.py runs
    them) and a training run of one's own (tests/core/test_toy.py trains)."""
    guide = (ROOT / "docs" / "notebook.md").read_text(encoding="utf-8")
    section = guide.split("## Using the core in a notebook", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    return [block for block in blocks if "real_model(" not in block and "toy.train(" not in block]


def test_the_notebook_examples_run_as_written():
    """Every kept block, in order, in one namespace, as a notebook runs them: the top level, rope_viz.analysis,
    the encodings' modules, and the toy grid read from the package's own folder."""
    blocks = _notebook_blocks()
    assert len(blocks) == 5 and "toy.DEFAULT_DIR" in blocks[-1]
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/notebook.md example", "exec"), namespace)
    from rope_viz import toy

    assert toy.DEFAULT_DIR == ROOT / "rope_viz" / "toy" / "shipped"
    assert len(namespace["doc"]["runs"]) == 24 and namespace["maps"].shape[-2:] == (128, 128)
    rotating = r"\b(?:apply_rope|apply_rope_qk|apply_rotary|RotaryEmbedding|apply_axial_rope|apply_mrope|apply_xpos|" \
               r"rope_scores|encoded_scores|recipe_scores)\((?:[^()]|\([^()]*\))*\)"
    calls = re.findall(rotating, "\n".join(blocks))
    assert len(calls) >= 12
    for call in calls:
        assert 'layout="half"' in call, f"the pair layout is named in every example: {call!r}"


def test_the_readme_stays_a_first_page_and_links_every_guide():
    """README is what a newcomer needs first (at most 300 lines); every guide in docs/ is linked from it, and
    every file it or a guide links to exists."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    links = set(re.findall(r"\]\(((?!https?:)[^)#\s]+)\)", readme))
    guides = {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")}
    assert guides >= {"docs/contributing.md", "docs/architecture.md", "docs/notebook.md", "docs/conformance.md"}
    assert guides <= links, sorted(guides - links)
    assert [link for link in links if not (ROOT / link).is_file()] == []
    broken = [(guide.name, link) for guide in (ROOT / "docs").glob("*.md")
              for link in re.findall(r"\]\(((?!https?:)[^)#\s]+)\)", guide.read_text(encoding="utf-8"))
              if not (guide.parent / link).is_file()]
    assert broken == []
