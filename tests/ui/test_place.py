"""explorer.app.place: knob rows (a narrowed range narrows the default; knobs beside each other), and a view's
Phrases, Metrics and tables said in the visitor's language."""

from streamlit.testing.v1 import AppTest


def _knobs():
    import streamlit as st

    from explorer.app.place import knob_row

    # the images page's grid: row and col are declared 0..31 with defaults 3 and 5, narrowed to the image
    height, width, row, col = knob_row("images_and_video", "height", "width", "row", "col",
                                       row=lambda v: {"hi": v["height"] - 1}, col=lambda v: {"hi": v["width"] - 1},
                                       beside=lambda: st.caption("beside"))
    st.text(f"{height} {width} {row} {col}")


def test_a_narrowed_range_narrows_the_default_and_the_row_reads_left_to_right():
    at = AppTest.from_function(_knobs, default_timeout=60)
    at.query_params["height"] = "2"
    at.query_params["width"] = "4"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text[0].value == "2 4 1 3"  # row: min(3, 2 - 1); col: 3 fits below 4
    assert [s.max for s in at.slider[2:4]] == [1, 3]
    assert at.caption[0].value == "beside"


def _said():
    from explorer.app.place import metric_row, say, table
    from explorer.pure.views.phrases import metric, phrase

    import streamlit as st

    st.markdown(
        say(
            phrase(
                "trained_models.unlearned",
                encodings=(phrase("trained_models.enc_rope"), phrase("trained_models.enc_nope")),
            )
        )
    )
    metric_row([metric("trained_models.share_past", "42%", factor=4.0, help=phrase("trained_models.distance_help")),
                metric("complex_numbers.iz_name", phrase("complex_numbers.iz_value", x=-1.0, y=0.5))])
    table({"complex_numbers.col_number": [phrase("complex_numbers.w_name"), "z"], "complex_numbers.col_re": ["1", "2"]},
          index="complex_numbers.col_number")


def test_phrases_metrics_and_tables_are_said_in_the_visitors_language():
    at = AppTest.from_function(_said, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.markdown[0].value == ("Note: RoPE, NoPE did not reach 50% even at the training length, so their numbers "
                                    "past it say little about extrapolation.")
    share, iz = at.metric
    assert share.label == "Queries past the training length on it at 4×" and share.value == "42%"
    assert share.help.startswith("Sum over keys of weight")
    assert iz.label == "i·z" and iz.value == "i·z = (-1.0000, 0.5000)"
    frame = at.table[0].value
    assert frame.index.name == "number" and list(frame.index) == ["w", "z"] and list(frame["Re"]) == ["1", "2"]


def test_a_list_of_phrases_takes_the_languages_separator():
    at = AppTest.from_function(_said, default_timeout=60)
    at.session_state["app.lang"] = "zh"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "RoPE，NoPE" in at.markdown[0].value
