"""The shipped presets: rope_viz/data/model_configs.json, each model's published config.json with its source."""

from __future__ import annotations

import copy
import difflib
import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from .layers import ModelRoPE
from .reading import model_rope

_DATA = Path(__file__).resolve().parent.parent / "data" / "model_configs.json"


@lru_cache(maxsize=1)
def _preset_file() -> Mapping:
    with _DATA.open(encoding="utf-8") as handle:
        return json.load(handle)["presets"]


def preset_repo(name: str) -> str | None:
    """The Hugging Face repository id a preset's config.json comes from ("owner/name"), read from its source:
    a huggingface.co address, or a copy named "<owner>--<name>_config.json"; None where neither says."""
    source = str(_preset_file()[name].get("source", ""))
    found = re.match(r"https://huggingface\.co/([^/]+/[^/]+)/", source)
    if found:
        return found.group(1)
    found = re.search(r"/([^/]+)--([^/]+)_config\.json$", source)
    return f"{found.group(1)}/{found.group(2)}" if found else None


def find_preset(name: str) -> str:
    """A preset's name from its name, its repository id (preset_repo), the part of either after the owner, or any
    of them spelled in another case;
    ValueError naming the closest names ("did you mean") where none is, or every preset one repository id
    stands for where it stands for several."""
    presets = _preset_file()
    if not isinstance(name, str):
        raise ValueError(f"name must be a preset name (a string), got {type(name).__name__}")
    if name in presets:
        return name
    spellings: dict[str, set] = {}
    for key in presets:
        repo = preset_repo(key)
        for spelling in (key, repo, key.split("/")[-1], repo and repo.split("/")[-1]):
            if spelling:
                spellings.setdefault(spelling.casefold(), set()).add(key)
    found = sorted(spellings.get(name.strip().casefold(), ()), key=list(presets).index)
    if len(found) == 1:
        return found[0]
    if found:
        raise ValueError(f"name {name!r} stands for several presets: {', '.join(map(repr, found))}; name one")
    close = difflib.get_close_matches(name.strip().casefold(), list(spellings), n=3, cutoff=0.6)
    order = list(presets).index
    hint = list(dict.fromkeys(key for spelling in close for key in sorted(spellings[spelling], key=order)))
    guess = f"did you mean {' or '.join(map(repr, hint))}? " if hint else ""
    raise ValueError(f"name {name[:80]!r} is not a preset name: {guess}name must be one of "
                     f"{', '.join(map(repr, presets))} (or its repository id; python -m rope_viz.conformance presets "
                     "lists them)")


def preset_info(name: str) -> dict:
    """A shipped preset as stored: {"source": where its config.json was read, "checked": what was
    cross-checked (and whether the copy was cut down or re-saved), "config": that config.json, or its
    RoPE-relevant keys} (a copy). name: a preset's name or repository id (see find_preset)."""
    return copy.deepcopy(_preset_file()[find_preset(name)])


def preset(name: str) -> ModelRoPE:
    """The ModelRoPE of a shipped preset (see model_presets for the names)."""
    key = find_preset(name)
    return model_rope(preset_info(key)["config"], name=key)


@lru_cache(maxsize=1)
def _all_presets() -> dict:
    return {name: preset(name) for name in _preset_file()}


def model_presets() -> dict[str, ModelRoPE]:
    """Every shipped preset by name, in the data file's order."""
    return dict(_all_presets())
