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
