"""RoPE in bfloat16 / float16 / float32 against independent references.

Every expected value here is computed in this file: the exact angle with mpmath at 50 digits, the
applied angles with Python floats and numpy float32/float16 arithmetic, bfloat16 rounding by hand
(round-to-nearest-even on the float32 bit pattern), and the bfloat16 tables against Hugging Face's
LlamaRotaryEmbedding itself.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch

from rope_viz import precision as P
from support.rope_reference import hand_bf16

MAX_POSITION = 1 << 24


# ----------------------------------------------------------------------------- references

def hand_theta(dim: int, base: float) -> list[float]:
    return [float(base) ** (-2.0 * i / dim) for i in range(dim // 2)]


def mp_wrap(x):
    two_pi = 2 * mpmath.pi
    return x - two_pi * mpmath.nint(x / two_pi)


def ref_exact(m: int, i: int, dim: int, base: float) -> float:
    """m * base^(-2i/dim) wrapped to (-pi, pi], at 50 digits."""
    with mpmath.workdps(50):
        return float(mp_wrap(mpmath.mpf(m) * mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / dim)))


def ref_error(applied: float, m: int, i: int, dim: int, base: float) -> float:
    """|wrap(applied - m theta_i)| at 50 digits; NaN for a non-finite applied angle."""
    if not math.isfinite(applied):
        return math.nan
    with mpmath.workdps(50):
        theta = mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / dim)
        return float(abs(mp_wrap(mpmath.mpf(applied) - mpmath.mpf(m) * theta)))


def ref_fp32_angle(m, theta_i) -> float:
    return float(np.float32(m) * np.float32(theta_i))


def ref_tables(m, theta_i, store):
    """The recipe "*-tables": float32 angle, float32 cos/sin, then `store` (hand_bf16 or float16)."""
    a = ref_fp32_angle(m, theta_i)
    c = float(store(np.float32(math.cos(a))))
    s = float(store(np.float32(math.sin(a))))
    return c, s


def ref_applied(recipe: str, m: int, theta_i: float):
    """(applied angle, cos, sin) of a recipe, written with Python floats / numpy scalars."""
    if recipe == "fp64":
        a = float(m) * theta_i
    elif recipe == "fp32":
        a = ref_fp32_angle(m, theta_i)
    elif recipe == "bf16-positions":
        a = float(hand_bf16(np.float32(m)) * np.float32(theta_i))
    elif recipe == "fp16-positions":
        with np.errstate(over="ignore"):
            p = np.float32(np.float16(m))
        a = float(p * np.float32(theta_i)) if np.isfinite(p) else math.nan
    else:
        store = hand_bf16 if recipe == "bf16-tables" else np.float16
        c, s = ref_tables(m, theta_i, store)
        return math.atan2(s, c), c, s
    return a, math.cos(a), math.sin(a)


# ----------------------------------------------------------------------------- sanity of the references

def test_hand_bf16_rounds_to_nearest_even():
    values = [1.0, 256.0, 257.0, 258.0, 259.0, 4088.0, 4112.0, 4113.0, 4144.0, 1_000_000.0]
    expected = [1.0, 256.0, 256.0, 258.0, 260.0, 4096.0, 4096.0, 4128.0, 4160.0, 999_424.0]
    assert hand_bf16(np.array(values, np.float32)).tolist() == expected
    # and torch's own cast agrees (two implementations, one rule)
    assert torch.tensor(values).to(torch.bfloat16).float().tolist() == expected


# ----------------------------------------------------------------------------- the exact reference

@pytest.mark.parametrize("dim, base", [(128, 10000.0), (128, 500000.0), (96, 10000.0), (16, 1e6)])
def test_exact_angles_match_mpmath(dim, base):
    positions = [0, 1, 255, 4097, 65_521, 999_999, 1_000_000, 12_345_677, MAX_POSITION]
    got = P.exact_angles(positions, dim, base)
    assert got.shape == (len(positions), dim // 2) and got.dtype == torch.float64
    pairs = sorted({0, 1, 2, dim // 4, dim // 2 - 1})
    for r, m in enumerate(positions):
        for i in pairs:
            assert abs(float(got[r, i]) - ref_exact(m, i, dim, base)) < 1e-13, (m, i)


# ----------------------------------------------------------------------------- every recipe vs reference

CASES = {  # recipe -> positions where its failure (or its absence) shows
    "fp64": [0, 7, 70_000, 1_000_000, MAX_POSITION],
    "fp32": [1, 2049, 32_768, 131_071, 999_999, 1_000_000, MAX_POSITION],
    "bf16-positions": [255, 256, 257, 4_100, 8_191, 40_000, 1_048_575],
    "fp16-positions": [2_047, 2_049, 40_001, 65_504, 65_519, 65_520, 70_000],
    "bf16-tables": [1, 100, 4_097, 131_072, 1_000_000],
    "fp16-tables": [1, 100, 4_097, 131_072, 1_000_000],
}


@pytest.mark.parametrize("recipe", P.RECIPES)
@pytest.mark.parametrize("dim, base", [(32, 10000.0), (16, 500000.0)])
def test_recipe_error_matches_reference(recipe, dim, base):
    positions = CASES[recipe]
    theta = hand_theta(dim, base)
    err = P.precision_error(positions, dim, base, recipe=recipe)
    signed = P.precision_error(positions, dim, base, recipe=recipe, signed=True)
    applied = P.applied_rotation(positions, dim, base, recipe=recipe)
    assert err.shape == (len(positions), dim // 2) and err.dtype == torch.float64
    for r, m in enumerate(positions):
        for i, t in enumerate(theta):
            a, c, s = ref_applied(recipe, m, t)
            expected = ref_error(a, m, i, dim, base)
            if math.isnan(expected):
                assert math.isnan(float(err[r, i])) and math.isnan(float(applied["angle"][r, i])), (m, i)
                continue
            assert abs(float(err[r, i]) - expected) < 1e-12, (recipe, m, i, float(err[r, i]), expected)
            assert abs(abs(float(signed[r, i])) - expected) < 1e-12
            assert abs(float(applied["cos"][r, i]) - c) < 1e-12 and abs(float(applied["sin"][r, i]) - s) < 1e-12
            if abs(a) < 1e4:  # math.remainder by a rounded 2 pi is only a reference for small angles
                assert abs(float(applied["angle"][r, i]) - math.remainder(a, 2 * math.pi)) < 1e-9


def test_fp64_error_is_negligible():
    window = torch.arange(1_000_000 - 255, 1_000_001)
    assert float(P.precision_error(window, 128, recipe="fp64").max()) < 1e-9
    top = torch.arange(MAX_POSITION - 63, MAX_POSITION + 1)
    assert float(P.precision_error(top, 128, 500000.0, recipe="fp64").max()) < 1e-8


def test_fp32_pair0_is_exact_for_integer_positions():
    gen = torch.Generator().manual_seed(1)
    positions = torch.cat((torch.randint(0, MAX_POSITION + 1, (500,), generator=gen), torch.tensor([MAX_POSITION])))
    for base in (10000.0, 500000.0):
        err = P.precision_error(positions, 64, base, recipe="fp32")
        assert float(err[:, 0].max()) < 1e-13
        assert float(err[:, 1:].max()) > 0.01  # while the other pairs are far off out there


def test_fp32_error_near_a_million_is_bounded_by_spacing_and_theta_rounding():
    """|error| <= spacing(A)/2 + m |theta32 - theta| (0.0625 / 2 for the product at 1e6 rad)."""
    dim, base = 128, 10000.0
    positions = list(range(1_000_000 - 31, 1_000_001))
    err = P.precision_error(positions, dim, base, recipe="fp32")
    theta = hand_theta(dim, base)
    worst_slack = math.inf
    for r, m in enumerate(positions):
        for i, t in enumerate(theta):
            a = ref_fp32_angle(m, t)
            product_half_gap = float(np.spacing(np.float32(abs(a)))) / 2
            theta_part = m * abs(float(np.float32(t)) - t)
            bound = product_half_gap + theta_part + 1e-9
            worst_slack = min(worst_slack, bound - float(err[r, i]))
    assert worst_slack >= 0
    assert float(np.spacing(np.float32(1e6))) == 0.0625
    assert 0.03 < float(err.max()) < 0.0625 + 1e6 * 2.0 ** -25


def test_bf16_positions_exact_to_256_then_wrong():
    err = P.precision_error(list(range(0, 257)), 16, recipe="bf16-positions")
    assert float(err.max()) < 1e-5  # only the float32 product rounding of theta
    # 257 is a tie between 256 and 258 and goes to the even 256: pair 0 (theta = 1) is off by 1 rad
    assert abs(float(P.precision_error([257], 16, recipe="bf16-positions")[0, 0]) - 1.0) < 1e-12
    # near 1,048,576 a bfloat16 step is 8,192 positions: pair 0 is off by up to pi
    assert float(P.precision_error([1_048_576 + 4_000], 16, recipe="bf16-positions")[0, 0]) == pytest.approx(
        abs(math.remainder(4_000.0, 2 * math.pi)), abs=1e-9)


def test_fp16_positions_overflow_past_65504():
    with np.errstate(over="ignore"):
        assert float(np.float16(65519.0)) == 65504.0 and math.isinf(float(np.float16(65520.0)))
    limits = P.position_limits("fp16-positions")
    assert limits == {"dtype": "float16", "exact_up_to": 2048, "overflow_from": 65520}
    err = P.precision_error([65_519, 65_520, 100_000], 8, recipe="fp16-positions")
    assert torch.isfinite(err[0]).all() and torch.isnan(err[1:]).all()
    applied = P.applied_rotation([65_519, 65_520], 8, recipe="fp16-positions")
    assert applied["position"].tolist() == [65504.0, math.inf]
    # float16 positions are exact to 2,048, and 2,049 (a tie) goes to 2,048
    assert P.applied_rotation([2048, 2049], 8, recipe="fp16-positions")["position"].tolist() == [2048.0, 2048.0]


def test_position_limits_of_every_recipe():
    assert P.position_limits("bf16-positions") == {"dtype": "bfloat16", "exact_up_to": 256, "overflow_from": None}
    for recipe in ("fp32", "bf16-tables", "fp16-tables"):
        assert P.position_limits(recipe) == {"dtype": "float32", "exact_up_to": MAX_POSITION, "overflow_from": None}
    assert P.position_limits("fp64")["exact_up_to"] == MAX_POSITION


@pytest.mark.parametrize("recipe, store, bound", [("bf16-tables", hand_bf16, 2.0 ** -8),
                                                   ("fp16-tables", np.float16, 2.0 ** -11)])
def test_table_norm_error(recipe, store, bound):
    dim, base = 32, 10000.0
    positions = [3, 77, 4_097, 60_000, 1_000_000]
    got = P.norm_error(positions, dim, base, recipe=recipe)
    for r, m in enumerate(positions):
        for i, t in enumerate(hand_theta(dim, base)):
            c, s = ref_tables(m, t, store)
            assert abs(float(got[r, i]) - abs(math.hypot(c, s) - 1)) < 1e-15
    assert 0 < float(got.max()) <= bound
    assert float(P.norm_error(positions, dim, base, recipe="fp32").max()) < 1e-15


# ----------------------------------------------------------------------------- Hugging Face

@pytest.fixture(scope="module")
def llama_rotary():
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    def build(base):
        config = LlamaConfig(hidden_size=256, num_attention_heads=2, max_position_embeddings=1 << 21,
                             rope_parameters={"rope_type": "default", "rope_theta": base})
        return LlamaRotaryEmbedding(config)

    return build


@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_bf16_tables_are_what_a_bfloat16_llama_gets(llama_rotary, base):
    """Hugging Face builds cos in float32 from position_ids.float() * inv_freq and casts it to x's
    dtype. Its inv_freq is computed in float32 arithmetic, so compare the pairs where it equals
    the correctly rounded theta_i (most of them)."""
    emb = llama_rotary(base)
    positions = torch.arange(1_000_000 - 127, 1_000_001)
    x = torch.zeros(1, positions.numel(), 128, dtype=torch.bfloat16)
    cos, sin = emb(x, positions[None])
    same_theta = emb.inv_freq == torch.tensor(hand_theta(128, base), dtype=torch.float64).float()
    assert int(same_theta.sum()) >= 32
    ours = P.applied_rotation(positions, 128, base, recipe="bf16-tables")
    assert torch.equal(ours["cos"][:, same_theta], cos[0, :, :64].double()[:, same_theta])
    assert torch.equal(ours["sin"][:, same_theta], sin[0, :, :64].double()[:, same_theta])


# ----------------------------------------------------------------------------- spacing

def test_spacing_teaching_numbers():
    assert P.spacing(4096, "bfloat16") == 32
    assert P.spacing(8191, "bfloat16") == 32
    assert P.spacing(1_048_576, "bfloat16") == 8192
    assert P.spacing(256, "bfloat16") == 2 and P.spacing(255, "bfloat16") == 1
    assert P.spacing(1e6, "float32") == 0.0625
    assert P.spacing(1e6, torch.float32) == 0.0625
    assert P.spacing(65504, "float16") == 32 and P.spacing(2048, "float16") == 2
    assert math.isinf(P.spacing(70000, "float16"))


def test_spacing_matches_numpy_and_the_bf16_bit_pattern():
    gen = np.random.default_rng(0)
    values = np.concatenate((gen.uniform(0, 2e7, 300), 2.0 ** gen.integers(-20, 24, 50), [1.0, 3.0, 1e-3]))
    got32 = P.spacing(values.tolist(), "float32")
    exp32 = np.spacing(values.astype(np.float32)).astype(np.float64)
    # numpy's spacing is for the float32-rounded value: equal except where rounding crosses a power of 2
    same_binade = np.floor(np.log2(values.astype(np.float32))) == np.floor(np.log2(values))
    assert np.array_equal(got32.numpy()[same_binade], exp32[same_binade])
    small = values[values < 65_000]
    got16 = P.spacing(small.tolist(), "float16").numpy()
    f16 = small.astype(np.float16)
    keep = np.floor(np.log2(f16.astype(np.float64))) == np.floor(np.log2(small))
    assert np.array_equal(got16[keep], np.spacing(f16).astype(np.float64)[keep])
    # bfloat16: the next bit pattern up, minus the value, for values that are bfloat16 already
    b = hand_bf16(values.astype(np.float32))
    nxt = (b.view(np.uint32) + np.uint32(1 << 16)).view(np.float32)
    assert np.array_equal(P.spacing(b.astype(np.float64).tolist(), "bfloat16").numpy(),
                          (nxt.astype(np.float64) - b.astype(np.float64)))


# ----------------------------------------------------------------------------- the staircase

def test_bf16_staircase_4096_to_8191():
    got = P.distinct_rotations(4096, 8192, 128, recipe="bf16-positions", pair=0)
    cast = hand_bf16(np.arange(4096, 8192, dtype=np.float32))
    starts = [4096] + [4096 + j for j in range(1, 4096) if cast[j] != cast[j - 1]]
    counts = np.diff(starts + [8192]).tolist()
    assert got["start"].tolist() == starts and got["count"].tolist() == counts
    assert got["position"].tolist() == [float(cast[s - 4096]) for s in starts]
    assert set(np.diff(got["position"].numpy()).tolist()) == {32.0}  # one rotation per 32 positions
    interior = got["count"][1:-1]
    assert set(interior.tolist()) == {31, 33}  # ties to even: 31 and 33 in turn, 32 on average
    assert all(a + b == 64 for a, b in zip(interior.tolist(), interior.tolist()[1:]))
    assert int(got["count"].sum()) == 4096
    for s, angle in zip(got["start"].tolist(), got["angle"].tolist()):
        assert abs(angle - math.remainder(float(hand_bf16(np.float32(s))), 2 * math.pi)) < 1e-9


def test_staircase_example_and_other_recipes():
    got = P.distinct_rotations(4090, 4141, 64, recipe="bf16-positions", pair=3)
    assert got["start"].tolist() == [4090, 4113] and got["count"].tolist() == [23, 28]
    assert got["position"].tolist() == [4096.0, 4128.0]
    far = P.distinct_rotations(1_048_576, 1_048_576 + 4 * 8192, 64)  # 2^20: steps of 8,192 above, 4,096 below
    assert far["position"].tolist()[:4] == [1_048_576.0 + 8192 * j for j in range(4)]
    assert far["count"].tolist()[:4] == [4097, 8191, 8193, 8191]
    assert P.distinct_rotations(4090, 4141, 64, recipe="fp32", pair=3)["count"].tolist() == [1] * 51
    overflow = P.distinct_rotations(65_510, 65_530, 8, recipe="fp16-positions")
    assert overflow["start"].tolist() == [65_510, 65_520]  # 65,504 until the cast overflows, then inf
    assert overflow["position"].tolist() == [65504.0, math.inf]


# ----------------------------------------------------------------------------- worst errors

def test_worst_angle_errors_match_reference():
    dim, base, window = 16, 10000.0, 6
    rows = P.worst_angle_errors([1_000_000, 40_000], dim, base, recipes=("fp32", "bf16-tables"), window=window)
    assert [(r["recipe"], r["end"]) for r in rows] == [
        ("fp32", 1_000_000), ("fp32", 40_000), ("bf16-tables", 1_000_000), ("bf16-tables", 40_000)]
    theta = hand_theta(dim, base)
    for row in rows:
        best = (-1.0, None, None)
        for m in range(row["end"] - window + 1, row["end"] + 1):
            for i, t in enumerate(theta):
                e = ref_error(ref_applied(row["recipe"], m, t)[0], m, i, dim, base)
                best = max(best, (e, m, i), key=lambda b: b[0])
        assert abs(row["max_error"] - best[0]) < 1e-12
        assert (row["worst_position"], row["worst_pair"]) == best[1:]


# ----------------------------------------------------------------------------- attention scores

def ref_rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Interleaved pairs (2i, 2i+1) turned by the given tables, written out."""
    out = x.copy()
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out


@pytest.mark.parametrize("recipe", ["fp32", "bf16-positions", "bf16-tables", "fp64"])
def test_recipe_scores_match_reference(recipe):
    dim, base, window, position = 8, 10000.0, 5, 40_000
    gen = torch.Generator().manual_seed(3)
    q = torch.randn(window, dim, generator=gen, dtype=torch.float64)
    k = torch.randn(window, dim, generator=gen, dtype=torch.float64)
    got = P.recipe_scores(position, dim, base, recipe=recipe, window=window, q=q, k=k)
    positions = list(range(position - window + 1, position + 1))
    theta = hand_theta(dim, base)

    def tables(ms, exact):
        cos = np.zeros((len(ms), len(theta)))
        sin = np.zeros_like(cos)
        for r, m in enumerate(ms):
            for i, t in enumerate(theta):
                if exact:
                    a = ref_exact(m, i, dim, base)
                    cos[r, i], sin[r, i] = math.cos(a), math.sin(a)
                else:
                    _, cos[r, i], sin[r, i] = ref_applied(recipe, m, t)
        return cos, sin

    qn, kn = q.numpy(), k.numpy()

    def scores(cos, sin, qq=qn, kk=kn):
        return ref_rotate(qq, cos, sin) @ ref_rotate(kk, cos, sin).T

    want = scores(*tables(positions, False))
    exact = scores(*tables(positions, True))
    near = scores(*tables(list(range(window)), False))
    assert got["positions"].tolist() == positions
    np.testing.assert_allclose(got["scores"].numpy(), want, rtol=0, atol=1e-11)
    np.testing.assert_allclose(got["exact"].numpy(), exact, rtol=0, atol=1e-11)
    assert got["max_abs_error"] == pytest.approx(np.abs(want - exact).max(), abs=1e-11)
    assert got["relative_error"] == pytest.approx(np.abs(want - exact).max() / np.abs(exact).max(), abs=1e-11)
    assert got["shift_residual"] == pytest.approx(np.abs(near - want).max(), abs=1e-11)
    one = scores(*tables(positions, False), np.repeat(qn[:1], window, 0), np.repeat(kn[:1], window, 0))
    spread = max(np.ptp(np.diagonal(one, offset=o)) for o in range(-window + 1, window))
    assert got["toeplitz_deviation"] == pytest.approx(spread, abs=1e-11)
    assert got["exact_toeplitz_deviation"] < 1e-12


def test_score_error_table():
    rows = P.score_error((1_000, 1_000_000), 32, recipes=("fp64", "fp32", "bf16-positions"), window=16)
    by = {(r["recipe"], r["position"]): r for r in rows}
    assert len(rows) == 6
    assert by["fp64", 1_000_000]["relative_error"] < 1e-9 and by["fp64", 1_000_000]["shift_residual"] < 1e-7
    assert by["fp32", 1_000]["relative_error"] < 1e-4 < by["fp32", 1_000_000]["relative_error"]
    assert by["bf16-positions", 1_000]["relative_error"] > 0.05  # bfloat16 steps of 4 at 1,000
    one = P.recipe_scores(1_000_000, 32, recipe="bf16-positions", window=16)
    assert one["distinct_rotations"] == 1  # a step of 8,192 positions swallows the window


# ----------------------------------------------------------------------------- validation

@pytest.mark.parametrize("positions, fragment", [
    ([-1], "[0, 16,777,216]"), ([MAX_POSITION + 1], "16777217"), ([1.5], "1.5"),
    ([float("nan")], "finite"), ([[1, 2]], "1-D"), ("abc", "positions"),
])
def test_bad_positions(positions, fragment):
    with pytest.raises(ValueError, match="positions") as info:
        P.precision_error(positions, 8)
    assert fragment in str(info.value)


def test_too_many_positions(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "1000")
    with pytest.raises(ValueError, match="budget"):
        P.precision_error(list(range(100)), 64)
    with pytest.raises(ValueError, match="budget"):
        P.distinct_rotations(0, 5000, 8)


@pytest.mark.parametrize("call, fragment", [
    (lambda: P.precision_error([1], 8, recipe="bf16"), "recipe must be one of"),
    (lambda: P.norm_error([1], 8, recipe=None), "recipe must be one of"),
    (lambda: P.position_limits("fp8"), "recipe must be one of"),
    (lambda: P.precision_error([1], 7), "dim must be a positive even integer, got 7"),
    (lambda: P.precision_error([1], 0), "dim must be a positive even integer, got 0"),
    (lambda: P.precision_error([1], 8, 0.0), "base must be a finite number > 0"),
    (lambda: P.precision_error([1], 8, float("inf")), "base must be a finite number > 0"),
    (lambda: P.spacing(1.0, "int8"), "dtype must be one of"),
    (lambda: P.spacing(float("nan")), "value must not be NaN"),
    (lambda: P.distinct_rotations(10, 10, 8), "start < stop"),
    (lambda: P.distinct_rotations(0, MAX_POSITION + 2, 8), "stop"),
    (lambda: P.distinct_rotations(0, 10, 8, pair=4), "pair must be an integer in [0, 3]"),
    (lambda: P.recipe_scores(10, 8, window=16), "position must be an integer >= 15"),
    (lambda: P.recipe_scores(100, 8, window=4, q=torch.zeros(3, 8), k=torch.zeros(4, 8)), "q must be"),
    (lambda: P.recipe_scores(100, 8, window=4, layout="pairs"), "layout must be one of"),
])
def test_bad_arguments(call, fragment):
    with pytest.raises(ValueError) as info:
        call()
    assert fragment in str(info.value)
