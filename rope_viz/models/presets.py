"""The shipped presets: rope_viz/data/model_configs.json, each model's published config.json with its source."""

from __future__ import annotations

import copy
import json
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


def preset_info(name: str) -> dict:
    """A shipped preset as stored: {"source": where its config.json was read, "checked": what was
    cross-checked (and whether the copy was cut down or re-saved), "config": that config.json, or its
    RoPE-relevant keys} (a copy)."""
    presets = _preset_file()
    if name not in presets:
        raise ValueError(f"name must be one of {', '.join(map(repr, presets))}; got {name!r}")
    return copy.deepcopy(presets[name])


def preset(name: str) -> ModelRoPE:
    """The ModelRoPE of a shipped preset (see model_presets for the names)."""
    return model_rope(preset_info(name)["config"], name=name)


@lru_cache(maxsize=1)
def _all_presets() -> dict:
    return {name: preset(name) for name in _preset_file()}


def model_presets() -> dict[str, ModelRoPE]:
    """Every shipped preset by name, in the data file's order."""
    return dict(_all_presets())
