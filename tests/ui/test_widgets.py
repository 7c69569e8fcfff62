"""A knob whose range a page narrows stays inside it whatever the link carries."""

from streamlit.testing.v1 import AppTest


def _page():
    from explorer.params import IntKnob
    from explorer.widgets import draw

    # declared 0..127 with default 16, narrowed by the page to 0..1 (a head with two pairs)
    draw(IntKnob("pair", 16, 0, 1, 1, label="common.seed"), "test.pair", "pair")


def test_an_unreadable_value_falls_back_inside_the_narrowed_range():
    at = AppTest.from_function(_page, default_timeout=60)
    at.query_params["pair"] = "<garbage>"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider[0].value == 1


def test_no_link_value_gives_the_default_clamped_to_the_narrowed_range():
    at = AppTest.from_function(_page, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider[0].value == 1
