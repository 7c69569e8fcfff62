"""A pasted config never raises: every JSON text is either used or refused with a reason, and what is used
can be computed by the page at its knobs' extremes."""

import json
import math

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from explorer.pure.knobs import CONTEXT_LENGTHS, PAGE_KNOBS
from explorer.pure.views import long_context as view
from rope_viz import ROPE_TYPES

REASONS = {"invalid", "overflow", "too_large"}
VALID = {"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 2048}
EXTREME_NUMBERS = st.sampled_from([0, -0.0, 1, 2, 3, 1e-308, 5e-324, 1e308, -1e308, 1.7976931348623157e308, 2 ** 31,
                                   2 ** 63, 10 ** 400, -(10 ** 400), 16384, 16386, 4096, 4098, 0.5, 1.0000001])
WEIRD_STRINGS = st.sampled_from(["nan", "NaN", "inf", "-Infinity", "1e999", "", "[a](http://127.0.0.1:9/x)",
                                 "ntk", "yarn", "dynamic", "longrope", "llama3", "linear", "su", "default"])
SCALARS = st.one_of(st.none(), st.booleans(), EXTREME_NUMBERS, st.integers(), st.floats(allow_nan=False),
                    WEIRD_STRINGS, st.text(max_size=20))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                          max_size=4), max_leaves=12)
KEYS = ("hidden_size", "num_attention_heads", "head_dim", "rotary_dim", "partial_rotary_factor", "rope_theta",
        "max_position_embeddings", "original_max_position_embeddings", "qk_rope_head_dim", "model_type",
        "_name_or_path", "rotary_pct", "n_positions")
SCALING_KEYS = ("rope_type", "type", "factor", "original_max_position_embeddings", "beta_fast", "beta_slow",
                "low_freq_factor", "high_freq_factor", "short_factor", "long_factor", "attention_factor",
                "mscale", "mscale_all_dim")


@st.composite
def configs(draw):
    """A config.json: the valid one with keys changed to odd values, a rope_scaling of any type with odd
    values, or any JSON at all; as text (floats past 1e308 written out as JSON allows)."""
    kind = draw(st.sampled_from(("edited", "scaled", "anything")))
    if kind == "anything":
        config = draw(JSON)
    else:
        config = dict(VALID)
        for key in draw(st.lists(st.sampled_from(KEYS), max_size=4, unique=True)):
            config[key] = draw(JSON)
        if kind == "scaled":
            scaling = {"rope_type": draw(st.sampled_from(ROPE_TYPES + ("su", "bogus")))}
            for key in draw(st.lists(st.sampled_from(SCALING_KEYS[1:]), max_size=5, unique=True)):
                scaling[key] = draw(st.one_of(EXTREME_NUMBERS, st.lists(EXTREME_NUMBERS, max_size=4), JSON))
            config[draw(st.sampled_from(("rope_scaling", "rope_parameters")))] = scaling
    return json.dumps(config)


def _check(config_text: str) -> view.PageModel:
    model = view.resolve_model("gemma-7b", config_text)  # raises nothing, whatever the text
    if model.pasted:
        assert model.refused is None and 2 <= model.rotary_dim <= view.max_rotary_dim()
        assert math.isfinite(model.base) and model.base > 0
    else:
        assert model.refused.reason in REASONS and model.name == "gemma-7b"
    return model


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
@example('{"hidden_size": 4096, "num_attention_heads": 32, "rope_scaling": {"rope_type": "ntk", "factor": 1e308}}')
@example('{"head_dim": 16384, "hidden_size": 16384, "num_attention_heads": 1}')
@example('{"hidden_size": 256, "num_attention_heads": 4, "rope_theta": 1e300}')
@example('{"hidden_size": 256, "num_attention_heads": 4, "rope_theta": 1e400}')
@example('{"hidden_size": 256, "num_attention_heads": 4, "rope_theta": -0.0}')
@example('{"hidden_size": 256, "num_attention_heads": 4, "rope_theta": NaN}')
@example('{"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 1, '
         '"rope_scaling": {"rope_type": "dynamic", "factor": 1e308}}')
@example("[" * 5000 + "]" * 5000)
def test_any_config_is_used_or_refused_and_used_ones_compute(config_text):
    model = _check(config_text)
    if model.pasted:
        for target in (CONTEXT_LENGTHS[0], CONTEXT_LENGTHS[-1]):
            curves = view.scaling_curves(model, target, model.original, target / model.original, 128.0, 0.1,
                                         16.0, 64.0)
            assert set(curves.methods) | set(curves.skipped) >= set(view.METHODS) - {"longrope"}


def test_the_two_configs_that_raised_are_refused_with_their_reasons():
    overflow = _check('{"hidden_size": 4096, "num_attention_heads": 32, '
                      '"rope_scaling": {"rope_type": "ntk", "factor": 1e308}}')
    assert overflow.refused == view.Refusal("overflow", "OverflowError")
    wide = _check('{"head_dim": 16384, "hidden_size": 16384, "num_attention_heads": 1}')
    assert wide.refused == view.Refusal("too_large", rotary_dim=16384, limit=view.max_rotary_dim())


def test_the_limit_is_what_the_scores_fit_in_the_budget(monkeypatch):
    """At the samples knob's top, the largest accepted rotary size computes the expected scores and the
    dynamic-NTK trap, and one pair more is over the core's element budget for the trap (the expected scores,
    on a log-spaced grid, use fewer distances than DECAY_POINTS; a small budget keeps the test quick)."""
    assert PAGE_KNOBS["long_context"]["samples"].hi == view.MAX_SAMPLES
    assert view.max_rotary_dim() == (1 << 27) // (128 * 256) == 4096
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", str(128 * 256 * 16))
    limit = view.max_rotary_dim()
    assert limit == 16
    view.expected_scores(limit, 10000.0, {}, 1 << 20, view.MAX_SAMPLES, 0)
    view.dynamic_trap(limit, 10000.0, 512, 4.0, 1 << 19, 1 << 20, view.MAX_SAMPLES, 0)
    with pytest.raises(ValueError, match="budget"):
        view.dynamic_trap(limit + 2, 10000.0, 512, 4.0, 1 << 19, 1 << 20, view.MAX_SAMPLES, 0)
    just_over = _check(json.dumps({"head_dim": limit + 2, "num_attention_heads": 1, "hidden_size": limit + 2}))
    assert just_over.refused == view.Refusal("too_large", rotary_dim=limit + 2, limit=limit)
    assert _check(json.dumps({"head_dim": limit, "num_attention_heads": 1, "hidden_size": limit})).pasted
