"""The fast path (rope_viz.kernels): its eager and compiled branches against a float64 reference.

The reference below is written here from the definition: theta_i = base^(-2i/r), and pair i
(coordinates (2i, 2i+1) interleaved, (i, i + r/2) half) turned by position * theta_i, all in
float64. The compiled branch is compiled once per session on tiny tensors (torch.compile takes
10-30 s here); the tests are skipped, saying why, where torch.compile does not work.
"""

from __future__ import annotations

import threading

import pytest
import torch

from rope_viz import apply_rope, kernels
from rope_viz.frequencies import rope_tables
from support.rope_reference import pair_rope, seeded_randn

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:torch.jit")  # raised inside torch.compile

LAYOUTS = ("interleaved", "half")
# Odd shapes: one position, a pair count that is odd, a single pair, 2-D input, a long odd sequence.
SHAPES = ((3, 1, 4), (2, 5, 7, 6), (4, 2), (13, 10), (1, 3, 257, 64))


def reference(x, positions=None, base=10000.0, layout="interleaved", rotary_dim=None):
    """RoPE from the definition in float64, any layout, partial rotary."""
    return pair_rope(x, positions, base, layout, rotary_dim)

def _tables(x):
    table_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    return rope_tables(None, x.shape[-2], x.shape[-1], 10000.0, table_dtype, x.device)


# Tolerances against the float64 reference: float32 is ~1e-7 relative per operation; bfloat16 and
# float16 results are the float32 result rounded once (half an ulp), which computing in the low
# precision itself would exceed.
TOL = {torch.float64: dict(rtol=1e-12, atol=1e-12), torch.float32: dict(rtol=1e-6, atol=1e-6),
       torch.bfloat16: dict(rtol=2 ** -8, atol=1e-6), torch.float16: dict(rtol=2 ** -11, atol=1e-6)}


def assert_matches(got, x, layout, **kwargs):
    assert got.dtype == x.dtype and got.shape == x.shape
    torch.testing.assert_close(got.to(torch.float64), reference(x, layout=layout, **kwargs), **TOL[x.dtype])


def test_reference_turns_the_worked_example():
    # q = [1, 2] turned by 0.5 rad (dim 2: theta_0 = 1, position 0.5) is [-0.08127, 2.23459].
    got = reference(torch.tensor([[1.0, 2.0]]), positions=[0.5])[0].tolist()
    assert got == pytest.approx([-0.08127, 2.23459], abs=1e-5)


# ------------------------------------------------------------------------------------------------
# The eager branch: every shape, layout and dtype, also where the compiled branch exists.
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_eager_branch_matches_reference(layout, shape, dtype):
    x = seeded_randn(*shape, dtype=dtype)
    assert_matches(kernels.rope_eager(x, *_tables(x), layout), x, layout)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_eager_branch_on_non_contiguous_input(layout):
    x = seeded_randn(6, 9, 16, dtype=torch.float32).transpose(0, 1)  # (9, 6, 16): pairs contiguous, rows strided
    assert_matches(kernels.rope_eager(x, *_tables(x), layout), x, layout)
    # pairs start at an odd offset: the complex view must copy
    odd = seeded_randn(5, 7, 18, dtype=torch.float32)[..., 1:17]
    assert_matches(kernels.rope_eager(odd, *_tables(odd), layout), odd, layout)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("rotary_dim", [2, 6, 16])
def test_apply_rope_fast_partial_rotary(layout, dtype, rotary_dim):
    x = seeded_randn(2, 11, 24, dtype=dtype)
    got = apply_rope(x, method="fast", layout=layout, rotary_dim=rotary_dim)
    assert_matches(got, x, layout, rotary_dim=rotary_dim)
    assert torch.equal(got[..., rotary_dim:], x[..., rotary_dim:])  # passed through untouched


@pytest.mark.parametrize("layout", LAYOUTS)
def test_apply_rope_fast_fractional_positions_and_base(layout):
    x = seeded_randn(3, 5, 8, dtype=torch.float64)
    positions = [0.0, 0.5, 7.25, 1000.0, -3.0]
    got = apply_rope(x, positions, base=500.0, method="fast", layout=layout)
    assert_matches(got, x, layout, positions=positions, base=500.0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_eager_branch_with_the_same_cos_and_another_sin(layout):
    # cos(-a) = cos(a) and sin(-a) = -sin(a): the same cos table with -sin turns the other way.
    x = seeded_randn(2, 6, 8, dtype=torch.float32)
    positions = torch.arange(6, dtype=torch.float64) * 3
    cos, sin = rope_tables(positions, 6, 8, 10000.0, torch.float32, "cpu")
    assert_matches(kernels.rope_eager(x, cos, sin, layout), x, layout, positions=positions)
    assert_matches(kernels.rope_eager(x, cos, -sin, layout), x, layout, positions=-positions)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_eager_branch_is_differentiable(layout):
    x = seeded_randn(2, 4, 8, dtype=torch.float64).requires_grad_()
    kernels.rope_eager(x, *_tables(x), layout).square().sum().backward()
    # A rotation keeps the norm of each row, so d/dx sum(|R x|^2) = 2x.
    torch.testing.assert_close(x.grad, 2 * x.detach())


# ------------------------------------------------------------------------------------------------
# The compiled branch (compiled once for the session, on tiny tensors).
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def compiled():
    if kernels.warm_up(dtypes=(torch.float32, torch.bfloat16)):
        return
    try:
        torch.compile(lambda t: t + 1)(torch.ones(2))
    except Exception as err:  # noqa: BLE001 - whatever stops torch.compile on this machine
        pytest.skip(f"torch.compile does not work here ({type(err).__name__}): the fast path stays eager")
    pytest.fail("torch.compile works here, yet warm_up() failed: a fused kernel disagrees with the eager branch")


def _forbid_eager(monkeypatch):
    def eager_called(*args):
        raise AssertionError("the eager branch ran where the compiled one should have")
    monkeypatch.setattr(kernels, "rope_eager", eager_called)


# (layout, dtype) pairs the CPU compiles: interleaved float32 stays with the eager complex multiply.
COMPILED_ON_CPU = (("half", torch.float32), ("half", torch.bfloat16), ("interleaved", torch.bfloat16))


@pytest.mark.slow  # torch.compile takes 20-30 s the first time
@pytest.mark.parametrize(("layout", "dtype"), COMPILED_ON_CPU)
@pytest.mark.parametrize("shape", [s for s in SHAPES if s[-2] > 1 and s[-1] > 2] + [(2, 3, 100, 128)])
def test_compiled_branch_matches_reference(compiled, layout, dtype, shape):
    x = seeded_randn(*shape, dtype=dtype)
    got = kernels.rope_compiled(x, *_tables(x), layout)
    assert got is not None, "a new shape needed a new compilation"
    assert_matches(got, x, layout)


@pytest.mark.slow  # torch.compile takes 20-30 s the first time
@pytest.mark.parametrize(("layout", "dtype"), COMPILED_ON_CPU)
def test_apply_rope_fast_takes_the_compiled_branch_once_warm(compiled, monkeypatch, layout, dtype):
    monkeypatch.setattr(kernels, "COMPILED_MIN_ELEMENTS", 0)
    _forbid_eager(monkeypatch)
    x = seeded_randn(2, 3, 9, 32, dtype=dtype)
    assert_matches(apply_rope(x, method="fast", layout=layout), x, layout)


@pytest.mark.slow  # torch.compile takes 20-30 s the first time
def test_compiled_branch_is_not_used_where_eager_is_one_pass(compiled):
    x = seeded_randn(2, 9, 32, dtype=torch.float32)
    assert kernels.rope_compiled(x, *_tables(x), "interleaved") is None


@pytest.mark.slow  # torch.compile takes 20-30 s the first time
def test_inputs_the_compiled_code_does_not_cover_run_eagerly(compiled, monkeypatch):
    monkeypatch.setattr(kernels, "COMPILED_MIN_ELEMENTS", 0)
    # one position, or one pair: sizes the kernel was not compiled for
    cases = [seeded_randn(4, 1, 16, dtype=torch.float32),
             seeded_randn(4, 6, 2, dtype=torch.float32),
             seeded_randn(4, 6, 16, dtype=torch.float32).transpose(0, 1),  # not contiguous
             seeded_randn(4, 6, 16, dtype=torch.float64),  # a dtype not warmed up
             seeded_randn(4, 6, 16, dtype=torch.float32).requires_grad_()]  # autograd
    for x in cases:
        assert kernels.rope_compiled(x, *_tables(x), "half") is None
        assert_matches(apply_rope(x, method="fast", layout="half"), x, "half")


@pytest.mark.slow  # torch.compile takes 20-30 s the first time
def test_calls_during_a_compilation_run_eagerly(compiled, monkeypatch):
    monkeypatch.setattr(kernels, "COMPILED_MIN_ELEMENTS", 0)
    x = seeded_randn(2, 6, 16, dtype=torch.float32)
    with kernels._compile_lock:  # what warm_up holds while it compiles
        assert kernels.rope_compiled(x, *_tables(x), "half") is None
        got = [None]
        worker = threading.Thread(target=lambda: got.__setitem__(0, apply_rope(x, method="fast", layout="half")))
        worker.start()
        worker.join(timeout=60)
        assert not worker.is_alive(), "apply_rope waited for the compiler"
    assert_matches(got[0], x, "half")


def test_warm_up_without_a_working_compiler_stays_eager(monkeypatch):
    def broken_compile(*args, **kwargs):
        raise RuntimeError("no C++ compiler here")
    monkeypatch.setattr(kernels, "_warm", set())
    monkeypatch.setattr(kernels, "_COMPILED", {})
    monkeypatch.setattr(torch, "compile", broken_compile)
    monkeypatch.setattr(kernels, "COMPILED_MIN_ELEMENTS", 0)
    assert kernels.warm_up() is False
    x = seeded_randn(2, 6, 16, dtype=torch.float32)
    assert kernels.rope_compiled(x, *_tables(x), "half") is None
    for layout in LAYOUTS:
        assert_matches(apply_rope(x, method="fast", layout=layout), x, layout)
