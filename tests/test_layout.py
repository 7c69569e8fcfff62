"""The test tree stays collectable as one run: pytest imports test files by their base name, so two test
files with the same name in different folders stop the whole suite at collection."""

from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def test_every_test_file_name_is_unique():
    names = Counter(path.name for path in ROOT.rglob("test_*.py"))
    assert not [name for name, count in names.items() if count > 1], names.most_common(3)
