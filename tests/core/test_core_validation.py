"""Bad input: every public function raises ValueError whose message names the argument, and
size checks fire before anything large is allocated."""

from __future__ import annotations

import math
import sys

import pytest
import torch

import rope_viz
import rope_viz.rotary
import rope_viz.sinusoidal
from rope_viz import (angles, apply_rope, inv_freq, layout_permutation, max_elements, pair_indices, rotation_matrices,
                      rotation_matrix, set_max_elements, wavelengths)
from rope_viz.analysis import (additive_decomposition, attention_weights, decay_bound, diagonal_profile,
                               empirical_decay, encoded_scores, linear_attention, random_tokens, rope_scores,
                               shift_residual, softmax_attention, toeplitz_deviation)
from rope_viz.sinusoidal import sinusoidal_at, sinusoidal_encoding

BAD_DIMS = [3, 7, 0, -2, -4, True, False, 4.0, 8.5, "8", None, float("nan")]
BAD_BASES = [0, 0.0, -1.0, -10000, float("nan"), float("inf"), float("-inf"), "10000", None, True, 1j]

DIM_FUNCTIONS = {
    "inv_freq": lambda d: inv_freq(d),
    "wavelengths": lambda d: wavelengths(d),
    "angles": lambda d: angles([0, 1], d),
    "layout_permutation": lambda d: layout_permutation(d),
    "pair_indices": lambda d: pair_indices(d),
    "rotation_matrix": lambda d: rotation_matrix(1, d),
    "rotation_matrices": lambda d: rotation_matrices([0, 1], d),
    "sinusoidal_encoding": lambda d: sinusoidal_encoding(4, d),
    "sinusoidal_at": lambda d: sinusoidal_at([0, 1], d),
    "decay_bound": lambda d: decay_bound(d, 10000.0, [0, 1]),
    "empirical_decay": lambda d: empirical_decay(d, 10000.0, [0, 1], samples=2),
}


@pytest.mark.parametrize("fn", list(DIM_FUNCTIONS), ids=str)
@pytest.mark.parametrize("dim", BAD_DIMS, ids=repr)
def test_bad_dim(fn, dim):
    with pytest.raises(ValueError, match=r"\bdim\b") as err:
        DIM_FUNCTIONS[fn](dim)
    assert repr(dim) in str(err.value) or str(dim) in str(err.value)  # names the value too


@pytest.mark.parametrize("dim", [3, 5, 1])
def test_apply_rope_odd_last_dimension(dim):
    with pytest.raises(ValueError, match=r"dim") as err:
        apply_rope(torch.zeros(2, dim))
    assert str(dim) in str(err.value)


BASE_FUNCTIONS = {
    "inv_freq": lambda b: inv_freq(8, b),
    "wavelengths": lambda b: wavelengths(8, b),
    "angles": lambda b: angles([0, 1], 8, b),
    "rotation_matrix": lambda b: rotation_matrix(1, 8, b),
    "rotation_matrices": lambda b: rotation_matrices([0, 1], 8, b),
    "apply_rope": lambda b: apply_rope(torch.zeros(2, 8), base=b),
    "apply_rope_matrix": lambda b: apply_rope(torch.zeros(2, 8), base=b, method="matrix"),
    "rope_scores": lambda b: rope_scores(torch.zeros(2, 8), torch.zeros(2, 8), base=b),
    "sinusoidal_encoding": lambda b: sinusoidal_encoding(4, 8, b),
    "decay_bound": lambda b: decay_bound(8, b, [0, 1]),
    "empirical_decay": lambda b: empirical_decay(8, b, [0, 1], samples=2),
}


@pytest.mark.parametrize("fn", list(BASE_FUNCTIONS), ids=str)
@pytest.mark.parametrize("base", BAD_BASES, ids=repr)
def test_bad_base(fn, base):
    with pytest.raises(ValueError, match=r"\bbase\b"):
        BASE_FUNCTIONS[fn](base)


@pytest.mark.parametrize("method", ["matrix", "pairs", "complex", "fast"])
@pytest.mark.parametrize("rotary_dim", [10, 12, 3, 5, 0, -2, True, 4.0, "4"], ids=repr)
def test_bad_rotary_dim(method, rotary_dim):
    with pytest.raises(ValueError, match="rotary_dim"):
        apply_rope(torch.zeros(3, 8), rotary_dim=rotary_dim, method=method)


BAD_POSITIONS = {
    "too_short": [0, 1],
    "too_long": [0, 1, 2, 3, 4],
    "nan": [0, 1, float("nan"), 3],
    "inf": [0, float("inf"), 2, 3],
    "two_d": [[0, 1], [2, 3]],
    "strings": ["a", "b", "c", "d"],
    "bool": [True, False, True, False],
    "complex": torch.zeros(4, dtype=torch.complex64),
    "object": object(),
    "nan_tensor": torch.tensor([0.0, 1.0, float("nan"), 3.0]),
}


@pytest.mark.parametrize("method", ["matrix", "pairs", "complex", "fast"])
@pytest.mark.parametrize("kind", list(BAD_POSITIONS))
def test_bad_positions_apply_rope(method, kind):
    with pytest.raises(ValueError, match="positions"):
        apply_rope(torch.zeros(4, 8), BAD_POSITIONS[kind], method=method)


@pytest.mark.parametrize("kind", ["too_short", "nan", "strings"])
def test_bad_positions_elsewhere(kind):
    x = torch.zeros(4, 8)
    w = torch.zeros(8, 8)
    with pytest.raises(ValueError, match="positions"):
        rope_scores(x, x, BAD_POSITIONS[kind], None)
    with pytest.raises(ValueError, match="positions"):
        encoded_scores(x, w, w, encoding="sinusoidal", positions=BAD_POSITIONS[kind])
    with pytest.raises(ValueError, match="positions"):
        softmax_attention(x, x, x, BAD_POSITIONS[kind])
    with pytest.raises(ValueError, match="positions"):
        linear_attention(x, x, x, BAD_POSITIONS[kind])
    with pytest.raises(ValueError, match="positions"):
        shift_residual(x, w, w, 1, positions=BAD_POSITIONS[kind])


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "x", None], ids=repr)
def test_bad_position_and_distances(bad):
    if bad is not None:  # rotation_matrix(None) means the default position 0, like positions=None
        with pytest.raises(ValueError, match="position"):
            rotation_matrix(bad, 4)
    with pytest.raises(ValueError, match="distances"):
        decay_bound(8, 10000.0, [0, bad])
    with pytest.raises(ValueError, match="distances"):
        empirical_decay(8, 10000.0, [bad], samples=2)
    with pytest.raises(ValueError, match="positions"):
        sinusoidal_at([0, bad], 8)
    with pytest.raises(ValueError, match="positions"):
        angles([bad], 8)


def test_missing_distances_and_positions():
    with pytest.raises(ValueError, match="distances must be a 1-D sequence of numbers, got None"):
        decay_bound(8, 10000.0, None)
    with pytest.raises(ValueError, match="positions must be a 1-D sequence of numbers, got None"):
        sinusoidal_at(None, 8)


@pytest.mark.parametrize("layout", ["Half", "rotate_half", "neox", "", None, 0], ids=repr)
def test_unknown_layout(layout):
    for call in (
        lambda: apply_rope(torch.zeros(2, 8), layout=layout),
        lambda: rotation_matrix(1, 8, layout=layout),
        lambda: rotation_matrices([1], 8, layout=layout),
        lambda: pair_indices(8, layout),
        lambda: rope_scores(torch.zeros(2, 8), torch.zeros(2, 8), layout=layout),
    ):
        with pytest.raises(ValueError, match="layout") as err:
            call()
        assert "interleaved" in str(err.value) and "half" in str(err.value)  # says what is allowed


@pytest.mark.parametrize("method", ["Fast", "einsum", "", None, "triton"], ids=repr)
def test_unknown_method(method):
    with pytest.raises(ValueError, match="method") as err:
        apply_rope(torch.zeros(2, 8), method=method)
    assert "pairs" in str(err.value)


@pytest.mark.parametrize("x", [[[1.0, 2.0]], (1.0, 2.0), None, 3.0, "x"], ids=repr)
def test_non_tensor_x(x):
    with pytest.raises(ValueError, match=r"\bx\b"):
        apply_rope(x)


def test_numpy_x_refused():
    np = pytest.importorskip("numpy")
    with pytest.raises(ValueError, match=r"\bx\b"):
        apply_rope(np.zeros((2, 4)))


@pytest.mark.parametrize("x", [torch.zeros(8), torch.zeros(()), torch.zeros(2, 8, dtype=torch.int64),
                               torch.zeros(2, 8, dtype=torch.bool)], ids=["1d", "0d", "int", "bool"])
def test_bad_tensor_x(x):
    with pytest.raises(ValueError, match=r"\bx\b"):
        apply_rope(x)


def test_attention_bad_inputs():
    t = torch.zeros(3, 4)
    w = torch.zeros(4, 4)
    with pytest.raises(ValueError, match=r"\bq\b"):
        rope_scores([[1.0]], t)
    with pytest.raises(ValueError, match=r"\bk\b"):
        rope_scores(t, "k")
    with pytest.raises(ValueError, match=r"\bv\b"):
        softmax_attention(t, t, None)
    with pytest.raises(ValueError, match=r"\bv\b"):
        linear_attention(t, t, [1.0])
    with pytest.raises(ValueError, match="feature_map"):
        linear_attention(t, t, t, feature_map="tanh")
    with pytest.raises(ValueError, match="encoding"):
        encoded_scores(t, w, w, encoding="alibi")
    with pytest.raises(ValueError, match="w_q"):
        encoded_scores(t, torch.zeros(5, 4), torch.zeros(5, 4))
    with pytest.raises(ValueError, match="w_q"):
        encoded_scores(t, torch.zeros(4, 4), torch.zeros(4, 2))
    with pytest.raises(ValueError, match="w_q"):
        encoded_scores(t, torch.zeros(4), torch.zeros(4))
    with pytest.raises(ValueError, match=r"\bx\b"):
        encoded_scores(torch.zeros(4), w, w)
    with pytest.raises(ValueError, match=r"\bpe\b"):
        additive_decomposition(t, torch.zeros(2, 4), w, w)
    with pytest.raises(ValueError, match=r"\bpe\b"):
        additive_decomposition(t, "pe", w, w)
    with pytest.raises(ValueError, match="scores"):
        diagonal_profile(torch.zeros(3, 4))
    with pytest.raises(ValueError, match="scores"):
        diagonal_profile(torch.zeros(0, 0))
    with pytest.raises(ValueError, match="scores"):
        toeplitz_deviation(torch.zeros(3))
    with pytest.raises(ValueError, match="scores"):
        attention_weights([[1.0]])


@pytest.mark.parametrize("shift", [float("nan"), float("inf")])
def test_bad_shift(shift):
    t = torch.zeros(3, 4)
    with pytest.raises(ValueError, match="shift"):
        shift_residual(t, torch.zeros(4, 4), torch.zeros(4, 4), shift)


def test_bad_counts():
    with pytest.raises(ValueError, match="num_positions"):
        sinusoidal_encoding(0, 8)
    with pytest.raises(ValueError, match="num_positions"):
        sinusoidal_encoding(2.5, 8)
    with pytest.raises(ValueError, match="samples"):
        empirical_decay(8, 10000.0, [0], samples=0)
    with pytest.raises(ValueError, match=r"\bseq\b"):
        random_tokens(0, 4)
    with pytest.raises(ValueError, match=r"\bdim\b"):
        random_tokens(4, True)


# --------------------------------------------------------------------------------------------
# The element budget.
# --------------------------------------------------------------------------------------------

def _forbid(monkeypatch, module, name):
    """Make module.name fail loudly: the budget check must fire before it is reached."""
    def boom(*args, **kwargs):
        raise AssertionError(f"{module.__name__}.{name} was called before the budget check")
    monkeypatch.setattr(module, name, boom)


@pytest.mark.parametrize("value", ["abc", "1.5", "0", "-3"])
def test_max_elements_env_must_be_positive_int(monkeypatch, value):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", value)
    with pytest.raises(ValueError, match="ROPE_VIZ_MAX_ELEMENTS"):
        max_elements()
    with pytest.raises(ValueError, match="ROPE_VIZ_MAX_ELEMENTS"):
        rotation_matrices([0, 1], 8)


def test_max_elements_env(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "12345")
    assert max_elements() == 12345
    set_max_elements(1000)  # the environment overrides a budget set in code, as a server's operator would
    assert max_elements() == 12345
    monkeypatch.delenv("ROPE_VIZ_MAX_ELEMENTS")
    assert max_elements() == 1000


def test_no_budget_by_default_outside_the_app(monkeypatch):
    """A notebook's default: no budget (sys.maxsize elements), and a tensor past the app's 2**27 is not refused
    by the budget (rotation_matrices' check comes before it allocates: torch.zeros is stopped here)."""
    monkeypatch.delenv("ROPE_VIZ_MAX_ELEMENTS", raising=False)
    assert max_elements() == sys.maxsize
    _forbid(monkeypatch, torch, "zeros")
    with pytest.raises(AssertionError, match="torch.zeros was called"):
        rotation_matrices(range(1 << 10), 512)  # 1,024 x 512 x 512 = 2**28 elements


def test_set_max_elements_bounds_every_call_and_none_removes_it(monkeypatch):
    monkeypatch.delenv("ROPE_VIZ_MAX_ELEMENTS", raising=False)
    assert set_max_elements(1000) is None
    with pytest.raises(ValueError, match="1,024 elements, over the budget of 1,000"):
        apply_rope(torch.zeros(16, 8), method="matrix")  # 16 x 8 x 8 = 1,024
    assert set_max_elements(None) == 1000
    assert max_elements() == sys.maxsize
    assert apply_rope(torch.zeros(16, 8), method="matrix").shape == (16, 8)
    for bad in (0, -1, 1.5, True, "1000"):
        with pytest.raises(ValueError, match="max_elements must be an integer"):
            set_max_elements(bad)


def test_rotation_matrices_over_budget_before_allocating(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "10000")
    _forbid(monkeypatch, rope_viz.rotary, "cos_sin")
    with pytest.raises(ValueError, match="budget"):
        rotation_matrices(range(100), 64)  # 100 * 64 * 64 = 409,600 elements
    with pytest.raises(ValueError, match="budget"):
        rotation_matrix(0, 128)  # 16,384 elements


def test_rotation_matrices_under_budget_still_work(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "10000")
    assert rotation_matrices(range(2), 64).shape == (2, 64, 64)  # 8,192 elements


def test_huge_rotation_matrices_refused_under_a_servers_budget(monkeypatch):
    monkeypatch.delenv("ROPE_VIZ_MAX_ELEMENTS", raising=False)
    set_max_elements(1 << 27)
    _forbid(monkeypatch, rope_viz.rotary, "cos_sin")
    # 2^17 positions x 4096^2 would be 2^41 elements (16 TiB of float64)
    with pytest.raises(ValueError, match="budget"):
        rotation_matrices(torch.arange(1 << 17), 4096)


def test_apply_rope_matrix_over_budget_before_allocating(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", str(1 << 20))
    _forbid(monkeypatch, rope_viz.rotary, "rotation_matrices")
    x = torch.zeros(2048, 64)  # 131,072 elements: fine for the rotating paths
    with pytest.raises(ValueError, match="budget"):
        apply_rope(x, method="matrix")  # 2048 * 64 * 64 = 8,388,608 matrix elements
    monkeypatch.undo()
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", str(1 << 20))
    assert apply_rope(x, method="fast").shape == x.shape


def test_apply_rope_input_over_budget(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "100")
    with pytest.raises(ValueError, match="budget"):
        apply_rope(torch.zeros(20, 8))


def test_other_budget_checks(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "1000")
    _forbid(monkeypatch, rope_viz.sinusoidal, "sinusoidal_at")
    with pytest.raises(ValueError, match="budget"):
        sinusoidal_encoding(10 ** 9, 512)
    monkeypatch.undo()
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "1000")
    with pytest.raises(ValueError, match="budget"):
        angles(range(100), 64)
    with pytest.raises(ValueError, match="budget"):
        decay_bound(64, 10000.0, range(100))
    with pytest.raises(ValueError, match="budget"):
        empirical_decay(64, 10000.0, range(10), samples=10 ** 9)
    with pytest.raises(ValueError, match="budget"):
        random_tokens(10 ** 6, 10 ** 6)
    with pytest.raises(ValueError, match="budget"):
        sinusoidal_at(range(100), 64)
    t = torch.zeros(40, 4)
    with pytest.raises(ValueError, match="budget"):
        rope_scores(t, t)
    with pytest.raises(ValueError, match="budget"):
        encoded_scores(t, torch.zeros(4, 4), torch.zeros(4, 4))


def test_budget_message_names_size_and_budget(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_MAX_ELEMENTS", "1000")
    with pytest.raises(ValueError) as err:
        rotation_matrices(range(10), 16)
    msg = str(err.value)
    assert "2,560" in msg and "1,000" in msg and "rotation_matrices" in msg


def test_good_values_still_accepted():
    # the boundary cases that must not raise
    assert inv_freq(2, 1e-3).tolist() == [1.0]  # any finite positive base
    assert apply_rope(torch.zeros(1, 2), rotary_dim=2).shape == (1, 2)
    assert math.isfinite(decay_bound(2, 2, [0]).item())


# the one real-number check every module uses: rope_viz._checks.check_real / check_positive
NOT_FINITE = [float("nan"), float("inf"), -float("inf"), 10 ** 400, "1", None, True, 1j, torch.tensor(1.0)]


@pytest.mark.parametrize("value", NOT_FINITE, ids=repr)
def test_check_real_refuses_what_is_not_a_finite_real(value):
    from rope_viz._checks import check_real

    with pytest.raises(ValueError, match=r"^speed must be a finite number, got "):
        check_real(value, "speed")


@pytest.mark.parametrize(("value", "bounds", "ok"), [
    (0.0, {"above": 0}, False), (1e-300, {"above": 0}, True), (-0.0, {"at_least": 0}, True),
    (-1e-300, {"at_least": 0}, False), (2, {"above": 1.5}, True), (1.5, {"above": 1.5}, False),
])
def test_check_real_bounds(value, bounds, ok):
    from rope_viz._checks import check_real

    if ok:
        assert check_real(value, "x", **bounds) == float(value)
    else:
        bound = f"> {bounds['above']:g}" if "above" in bounds else f">= {bounds['at_least']:g}"
        with pytest.raises(ValueError, match=f"x must be a finite number {bound}, got"):
            check_real(value, "x", **bounds)


def test_check_positive_takes_numpy_and_python_numbers():
    import numpy as np
    from rope_viz._checks import check_positive

    assert [check_positive(v, "base") for v in (3, 2.5, np.float32(0.5), np.int64(7))] == [3.0, 2.5, 0.5, 7.0]
    assert all(type(check_positive(v, "base")) is float for v in (3, np.float32(0.5)))
    with pytest.raises(ValueError, match="base must be a finite number > 0, got 0"):
        check_positive(0, "base")
