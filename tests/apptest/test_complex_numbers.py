"""The complex-plane primer through AppTest: defaults, values read back from the charts
(opening in Chinese and at the extremes: test_every_page).
Expected numbers come from Python's complex type and cmath."""

import cmath
import math

import pytest

from support.apptest import arrow_tips, axis_titles, chart, chart_payload, charts, opened, url_values

KNOBS = ("a", "b", "theta", "w_mod", "w_angle")


def table_cells(table) -> list[list[str]]:
    return table.value.astype(str).values.tolist()


def test_defaults_show_three_plane_charts_with_the_right_numbers():
    at = opened("complex_numbers")
    for spec in charts(at).values():
        assert axis_titles(spec) == ["Re (real part)", "Im (imaginary part)"]
        assert spec["layout"]["yaxis"]["scaleanchor"] == "x"  # equal aspect
        assert spec["layout"]["title"]["text"]
    z = complex(2.0, 1.0)
    tips = arrow_tips(chart(at, "quarter_turn"))
    assert tips["z = a + bi"] == pytest.approx((2.0, 1.0))
    assert tips["i·z"] == pytest.approx((-1.0, 2.0), abs=1e-12)  # i(a + bi) = -b + ai
    zw = z * cmath.rect(1.5, math.radians(60))
    assert arrow_tips(chart(at, "product"))["z·w"] == pytest.approx((zw.real, zw.imag), abs=1e-12)
    turned = z * cmath.exp(1j * math.radians(50))
    rotor_tips = arrow_tips(chart(at, "rotor"))
    assert rotor_tips["z·e<sup>iθ</sup>"] == pytest.approx((turned.real, turned.imag), abs=1e-12)
    assert rotor_tips["z·e<sup>iθ</sup>·e<sup>−iθ</sup> (back to z)"] == pytest.approx((2.0, 1.0), abs=1e-12)
    # the complex product and the matrix product agree to rounding, as printed
    complex_row, matrix_row, difference = table_cells(at.table[1])
    assert float(complex_row[0]) == pytest.approx(turned.real, abs=1e-14)
    assert float(matrix_row[1]) == pytest.approx(turned.imag, abs=1e-14)
    assert all(abs(float(v)) < 1e-14 for v in difference)
    product = table_cells(at.table[0])[2]
    assert [float(v) for v in product] == pytest.approx([zw.real, zw.imag, abs(zw), math.degrees(cmath.phase(zw))],
                                                        abs=1e-2)
    assert url_values(at, KNOBS) == {"a": "2", "b": "1", "theta": "50", "w_mod": "1.5", "w_angle": "60"}
    assert chart_payload(at) < 1_000_000


def test_own_values_are_read_back_from_the_charts():
    at = opened("complex_numbers", {"a": -1.5, "b": 0.25, "theta": 90, "w_mod": 0.5, "w_angle": -120})
    assert arrow_tips(chart(at, "quarter_turn"))["i·z"] == pytest.approx((-0.25, -1.5), abs=1e-12)
    zw = complex(-1.5, 0.25) * cmath.rect(0.5, math.radians(-120))
    assert arrow_tips(chart(at, "product"))["z·w"] == pytest.approx((zw.real, zw.imag), abs=1e-12)
    # a quarter turn by the rotor is the same as multiplying by i
    assert arrow_tips(chart(at, "rotor"))["z·e<sup>iθ</sup>"] == pytest.approx((-0.25, -1.5), abs=1e-12)
