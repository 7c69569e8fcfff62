"""A model family is one entry: a family transformers does not know, built from the registry's public hooks
(`nope_every` with its own key, `defaults` with `defaults_source`), is read by model_rope with no other change;
its layers against the rule written out here. And families.py builds only from public helpers."""

import ast
from pathlib import Path

import pytest

from rope_viz import model_rope
from rope_viz.models import FAMILIES, Family
from rope_viz.models.config import nope_every

ROOT = Path(__file__).resolve().parents[2]
# a made-up family: every `rope_skip_every`-th layer (counted from 1) has no RoPE, 3 when the file omits it
TOYFORMER = Family("a made-up model: no transformers file", nope=nope_every("rope_skip_every"),
                   defaults={"rope_skip_every": 3, "rope_theta": 50000.0},
                   defaults_source="the toyformer config of this test")
CONFIG = {"model_type": "toyformer", "hidden_size": 128, "num_attention_heads": 2, "num_hidden_layers": 9}


@pytest.fixture
def toyformer(monkeypatch):
    monkeypatch.setitem(FAMILIES, "toyformer", TOYFORMER)


@pytest.mark.parametrize("every", [None, 1, 2, 4, 9, 20])
def test_a_nope_family_reads_its_own_key(toyformer, every):
    config = CONFIG if every is None else dict(CONFIG, rope_skip_every=every)
    model = model_rope(config)
    n = 3 if every is None else every  # the family's default when the file omits the key
    assert [layer.rotary for layer in model.layers] == [(i + 1) % n != 0 for i in range(9)]
    assert model.family == "toyformer"
    assert {layer.base for layer in model.layers if layer.rotary} <= {50000.0}


def test_a_nope_list_in_the_config_wins_and_a_bad_key_is_named(toyformer):
    flags = [1, 0, 0, 1, 1, 1, 0, 1, 1]
    assert [layer.rotary for layer in model_rope(dict(CONFIG, no_rope_layers=flags)).layers] == [bool(f) for f in flags]
    with pytest.raises(ValueError, match="rope_skip_every"):
        model_rope(dict(CONFIG, rope_skip_every=0))
    with pytest.raises(ValueError, match="no_rope_layers"):
        model_rope(dict(CONFIG, no_rope_layers=[1, 0]))


def test_the_shipped_nope_families_keep_their_readings():
    """Llama 4 reads an empty no_rope_layers as "not given"; SmolLM3 takes it as the list it is (and refuses it)."""
    base = {"hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 8, "no_rope_layers": []}
    llama4 = model_rope(dict(base, model_type="llama4_text", no_rope_layer_interval=4))
    assert [layer.rotary for layer in llama4.layers] == [True, True, True, False] * 2
    with pytest.raises(ValueError, match="no_rope_layers"):
        model_rope(dict(base, model_type="smollm3"))


def test_the_registry_builds_from_public_helpers_only():
    """families.py imports no private (_name) helper from another module: what a family needs is public."""
    tree = ast.parse((ROOT / "rope_viz" / "models" / "families.py").read_text(encoding="utf-8"))
    private = [alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               for alias in node.names if alias.name.startswith("_")]
    assert private == []
