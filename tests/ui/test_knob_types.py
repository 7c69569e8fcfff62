"""Knob specs: whatever a URL carries, parsing yields an allowed value and says when it replaced one."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.pure.knob_types import BoolKnob, ChoiceKnob, FloatKnob, IntKnob, IntSetKnob, NumberChoiceKnob

DIM = IntKnob("dim", 64, 2, 256, 2)
RATIO = FloatKnob("ratio", 0.5, 0.0, 2.0, 2)
BASE = NumberChoiceKnob("base", 10000.0, (10.0, 100.0, 1000.0, 10000.0, 1e5))
LAYOUT = ChoiceKnob("layout", "interleaved", ("interleaved", "half"))
CAUSAL = BoolKnob("causal", False)
PAIRS = IntSetKnob("pairs", (0, 1, 5), 0, 31, 4)
SPECS = (DIM, RATIO, BASE, LAYOUT, CAUSAL, PAIRS)

HOSTILE = ["", " ", "nan", "NaN", "inf", "-inf", "1e308", "-1e308", "9" * 400, "<script>alert(1)</script>",
           "**bold**", "[x](javascript:alert(1))", "0x10", "64; DROP TABLE", "\x00", "１２８", "None", "[]", "{}",
           "1,2,3", ",", "-0", "1e-320", "true"]


def _allowed(spec, value) -> bool:
    if isinstance(spec, IntKnob):
        return isinstance(value, int) and spec.lo <= value <= spec.hi and (value - spec.lo) % spec.step == 0
    if isinstance(spec, FloatKnob):
        return isinstance(value, float) and spec.lo <= value <= spec.hi and math.isfinite(value)
    if isinstance(spec, (NumberChoiceKnob, ChoiceKnob)):
        return value in spec.options
    if isinstance(spec, BoolKnob):
        return isinstance(value, bool)
    return (isinstance(value, tuple) and 1 <= len(value) <= spec.most and list(value) == sorted(set(value))
            and all(spec.lo <= v <= spec.hi for v in value))


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(st.text(max_size=80), st.sampled_from(HOSTILE),
                     st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers().map(str)))
def test_any_raw_value_parses_to_an_allowed_value(raw):
    for spec in SPECS:
        value, replaced = spec.parse(raw)
        assert _allowed(spec, value), (spec.name, raw, value)
        assert isinstance(replaced, bool)
        # the written-back form parses to the same value, without a notice
        assert spec.parse(spec.dump(value)) == (value, False)


def test_known_values():
    assert DIM.parse("128") == (128, False)
    assert DIM.parse("7") in ((6, True), (8, True))
    assert DIM.parse("1000") == (256, True)
    assert DIM.parse("-5") == (2, True)
    assert DIM.parse("nan") == (64, True)
    assert DIM.parse("<b>64</b>") == (64, True)
    assert RATIO.parse("0.25") == (0.25, False)
    assert RATIO.parse("1e9") == (2.0, True)
    assert BASE.parse("10000") == (10000.0, False)
    assert BASE.parse("12000") == (10000.0, True)
    assert BASE.parse("0") == (10000.0, True)
    assert LAYOUT.parse("half") == ("half", False)
    assert LAYOUT.parse("HALF") == ("interleaved", True)
    assert CAUSAL.parse("1") == (True, False)
    assert CAUSAL.parse("yes") == (False, True)
    assert PAIRS.parse("3,1") == ((1, 3), True)
    assert PAIRS.parse("0,1,2,3,4,5") == ((0, 1, 2, 3), True)
    assert PAIRS.parse("40") == ((0, 1, 5), True)


def test_coerce_repairs_session_values_after_a_range_change():
    narrow = IntSetKnob("pairs", (0, 1, 5), 0, 3, 4)
    assert narrow.coerce((1, 5, 30)) == ((1,), True)
    assert narrow.coerce((7, 9)) == ((0, 1), True)
    assert IntKnob("pair", 0, 0, 3).coerce(31) == (3, True)


def test_knobs_of_lengths_and_positions_hold_integers():
    """A context length, a prompt length or a position is a whole number from the URL to the view: the knob's
    options and default are ints, and a URL value is read back as the int option (no float cast later)."""
    from explorer.pure.knobs import PAGE_KNOBS

    for page, name in (("long_context", "target"), ("long_context", "prompt"), ("model_anatomy", "context"),
                       ("precision", "far")):
        spec = PAGE_KNOBS[page][name]
        assert all(type(option) is int for option in spec.options) and type(spec.default) is int, (page, name)
        value, replaced = spec.parse("131072.0")
        assert type(value) is int and value in spec.options, (page, name, value)
