"""A knob whose range a page narrows stays inside it whatever the link carries."""

from streamlit.testing.v1 import AppTest


def _page():
    from explorer.pure.knob_types import IntKnob
    from explorer.app.widgets import draw

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


def _every_knob():
    from explorer.pure.knobs import PAGE_KNOBS
    from explorer.app.widgets import draw

    for page, knobs in PAGE_KNOBS.items():
        for name, spec in knobs.items():
            draw(spec, f"{page}.{name}", f"{page} {name}")


def test_the_value_type_of_every_knob_widget_not_yet_drawn_is_the_one_streamlit_gives_it():
    """A value sent for a knob this session has not drawn is checked against `value_field`, which must be
    the value type Streamlit's own widget declares once drawn (every knob of every page, drawn here)."""
    from explorer.pure.knobs import PAGE_KNOBS
    from explorer.app.client_guard import value_field

    at = AppTest.from_function(_every_knob, default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    drawn = {meta.id.split("-", 2)[-1]: meta.value_type
             for meta in at.session_state._state._state._new_widget_state.widget_metadata.values()}
    assert set(drawn) == {f"{page}.{name}" for page, knobs in PAGE_KNOBS.items() for name in knobs}
    assert {key: value_field(key) for key in drawn} == drawn
    assert len(drawn) > 100


def test_values_for_widgets_not_drawn_are_checked_by_kind():
    """Before a widget is drawn: a knob's value of its own type passes (its draw() repairs it), of another
    type is refused; a value for any other widget (a question's radio, a button, an unknown key) is dropped."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    from explorer.app.client_guard import _acceptable

    def state(key, field, value):
        sent = WidgetState(id=f"$$ID-0123abcd-{key}")
        target = getattr(sent, field)
        if field.endswith("_array_value"):
            target.data.extend(value)
        else:
            setattr(sent, field, value)
        return sent

    assert _acceptable(state("long_context.target", "string_array_value", ["131072"]), None)
    assert _acceptable(state("long_context.config", "string_value", "{}"), None)
    assert not _acceptable(state("long_context.config", "string_array_value", ["{}"]), None)
    assert not _acceptable(state("long_context.samples", "string_value", "64"), None)
    assert not _acceptable(state("quiz.frequency_clocks_full_turn.123", "string_array_value", ["a"]), None)
    assert not _acceptable(state("quiz.frequency_clocks_full_turn.123", "string_value", "a"), None)
    assert not _acceptable(state("trained_models.start_button", "bool_value", True), None)
    assert not _acceptable(state("no.such_widget", "int_value", 3), None)
