"""The complex-plane primer through AppTest: defaults, values read back from the charts, extremes,
Chinese, hostile links. Expected numbers come from Python's complex type and cmath."""

import cmath
import math

import pytest

from explorer.pure.knobs import heaviest, lightest
from support.apptest import (axis_titles, chart_payload, chart_specs, has_cjk, open_at_extremes, open_page, page_text,
                             url_values)

KNOBS = ("a", "b", "theta", "w_mod", "w_angle")


def arrow_tips(spec: dict) -> dict[str, tuple[float, float]]:
    """{legend name: (x, y) of the arrow tip} for the arrow traces (two points from the origin)."""
    return {tr["name"]: (tr["x"][1], tr["y"][1]) for tr in spec["data"]
            if isinstance(tr.get("x"), list) and len(tr["x"]) == 2 and tr["x"][0] == 0.0 and tr["y"][0] == 0.0}


def table_cells(table) -> list[list[str]]:
    return table.value.astype(str).values.tolist()


def test_defaults_show_three_plane_charts_with_the_right_numbers(assert_clean):
    at = open_page("complex_numbers")
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == 3
    for spec in specs:
        assert axis_titles(spec) == ["Re (real part)", "Im (imaginary part)"]
        assert spec["layout"]["yaxis"]["scaleanchor"] == "x"  # equal aspect
        assert spec["layout"]["title"]["text"]
    z = complex(2.0, 1.0)
    tips = arrow_tips(specs[0])
    assert tips["z = a + bi"] == pytest.approx((2.0, 1.0))
    assert tips["i·z"] == pytest.approx((-1.0, 2.0), abs=1e-12)  # i(a + bi) = -b + ai
    zw = z * cmath.rect(1.5, math.radians(60))
    assert arrow_tips(specs[1])["z·w"] == pytest.approx((zw.real, zw.imag), abs=1e-12)
    turned = z * cmath.exp(1j * math.radians(50))
    rotor_tips = arrow_tips(specs[2])
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
    at = open_page("complex_numbers", {"a": -1.5, "b": 0.25, "theta": 90, "w_mod": 0.5, "w_angle": -120})
    specs = chart_specs(at)
    assert arrow_tips(specs[0])["i·z"] == pytest.approx((-0.25, -1.5), abs=1e-12)
    zw = complex(-1.5, 0.25) * cmath.rect(0.5, math.radians(-120))
    assert arrow_tips(specs[1])["z·w"] == pytest.approx((zw.real, zw.imag), abs=1e-12)
    # a quarter turn by the rotor is the same as multiplying by i
    assert arrow_tips(specs[2])["z·e<sup>iθ</sup>"] == pytest.approx((-0.25, -1.5), abs=1e-12)


@pytest.mark.parametrize("params", [
    lightest("complex_numbers"),  # every knob at the low end of its range: a = b = -3, θ = -180°, |w| = 0
    heaviest("complex_numbers"),  # every knob at the high end
    {"a": "0", "b": "0", "theta": "0", "w_mod": "1", "w_angle": "0"},  # z at the origin has no angle
])
def test_extreme_knobs(params):
    at, specs = open_at_extremes("complex_numbers", params, charts=3)
    a, b, theta = float(params["a"]), float(params["b"]), math.radians(float(params["theta"]))
    z, w = complex(a, b), cmath.rect(float(params["w_mod"]), math.radians(float(params["w_angle"])))
    assert arrow_tips(specs[0])["i·z"] == pytest.approx((-b, a), abs=1e-12)
    assert arrow_tips(specs[1])["z·w"] == pytest.approx(((z * w).real, (z * w).imag), abs=1e-12)
    turned = z * cmath.exp(1j * theta)
    assert arrow_tips(specs[2])["z·e<sup>iθ</sup>"] == pytest.approx((turned.real, turned.imag), abs=1e-12)
    assert ("origin" in page_text(at)) == (a == b == 0)


def test_chinese():
    at = open_page("complex_numbers", lang="zh")
    assert has_cjk(page_text(at))
    specs = chart_specs(at)
    assert all(has_cjk(" ".join(axis_titles(spec))) for spec in specs)
    assert has_cjk(specs[2]["layout"]["title"]["text"])
