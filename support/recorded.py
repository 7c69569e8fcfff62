"""Numbers computed now against numbers a command recorded on some machine (the toy grids and their evaluations in
rope_viz/toy/shipped, results/real/examples.json, results/real/long_context.json): how far apart they may be, and
why, in one place. Every such comparison in the tests goes through `assert_close` with one of the rules below.

A fresh run of the same code on the same inputs differs from a recording for reasons that are not bugs:

- float32 accumulation order (FLOAT32_REL). Machines of this kind come with different CPUs (one with AVX-512 and
  avx512_bf16, an AMD EPYC with AVX2 only: `torch.backends.cpu.get_cpu_capability()`), and each runs its own matmul
  and reduction kernels, which add in another order. Each addition rounds to half a float32 ulp (2^-24 relative),
  so the results agree to a few ulps (2^-23 = 1.2e-7) per operation, a few more after some layers. Measured, the
  AVX2 code paths forced (`ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2`) on the AVX-512 CPU against the
  shipped files: at most 4.3e-8 relative on the toy grid's evaluations (1.2e-8 on an AVX2 EPYC), 6e-8 on
  SmolLM2's float32 loss (30 layers), 8e-11 on the long-context losses. 1e-6 (8 ulps) leaves room above that.
- bfloat16 matmuls (BFLOAT16_REL). rope_viz.real runs the interventions' matmuls in bfloat16 (8 significant bits:
  each rounding is up to 2^-9 = 2e-3 relative) where a recording or this host chose it. Measured on SmolLM2's
  losses with the traps planted and quarters stopped (`list` example, 115 tokens): bfloat16 against float32 up to
  4.1e-3 relative (1.1e-3 for the plain loss), bfloat16 on the AVX2 kernels against the recording's bfloat16 on
  avx512_bf16 up to 2.9e-3. 1e-2 leaves room above that. It applies whenever either side ran bfloat16 matmuls, or
  the recording does not say which precision it used.
- a recorded file's rounding: a file that keeps `digits` significant digits is off by up to 0.5 * 10^(1 - digits)
  relative (results/real/examples.json keeps 6: 5e-6). It adds to the rules above.
- argmax answers (`answers`, `flips`): an accuracy counts answers decided by an argmax, and two logits within the
  rounding above of each other may swap on another CPU. A swap is rare; 1% of the answers (at least one) may flip.
- training (RETRAINED): a model retrained by its recorded command on another CPU ends at other weights, since
  training amplifies the first rounding differences. For a scheme whose three seeds agree within 0.04 at every
  length, the accuracies stay within 0.05 (a scheme whose seeds disagree does not reproduce across CPUs at all).
- rounding noise measured as such (NOISE_ABS): the shift test's residual is the largest change of any
  log-probability when every position moves by the same amount, which exact arithmetic makes 0; float32 leaves
  about 6e-5 (5.65e-5 recorded, 6.09e-5 with the AVX2 paths forced), a different value on each CPU. It is
  compared on an absolute scale of 1e-4.

A real bug moves the numbers far more: one layer's RoPE removed moves SmolLM2's loss by 2% (3.073 to 3.135 nats),
a value rounded to bfloat16 by mistake moves it by up to 0.4%, the wrong pair layout changes the toy models' norm
maps by tens of percent. tests/test_recorded.py plants such changes and sees each rule reject them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FLOAT32_REL = 1e-6
BFLOAT16_REL = 1e-2
NOISE_ABS = 1e-4
FLIP_SHARE = 0.01  # of the answers an argmax decides
PRECISIONS = ("float32", "bfloat16")


@dataclass(frozen=True)
class Tolerance:
    """How far a fresh number may be from a recorded one: math.isclose's relative and absolute tolerances."""

    rel: float = 0.0
    abs: float = 0.0

    def close(self, fresh: float, recorded: float) -> bool:
        return math.isclose(fresh, recorded, rel_tol=self.rel, abs_tol=self.abs)


NOISE = Tolerance(abs=NOISE_ABS)
RETRAINED = Tolerance(abs=0.05)


def matmuls(recorded: str | None, here: str, digits: int | None = None) -> Tolerance:
    """The tolerance between a number recorded with `recorded` matmuls and the same number computed here with
    `here` matmuls ("float32" or "bfloat16"; recorded None: the recording does not say, so either is allowed, and
    the bfloat16 rule applies). digits: the significant digits the recording kept (None: a float64's all)."""
    for name, value in (("recorded", recorded), ("here", here)):
        if value is not None and value not in PRECISIONS:
            raise ValueError(f"{name} must be one of {PRECISIONS} or None, got {value!r}")
    rel = FLOAT32_REL if recorded == here == "float32" else BFLOAT16_REL
    if digits is not None:
        rel += 0.5 * 10.0 ** (1 - digits)
    return Tolerance(rel=rel)


def flips(scored: int) -> Tolerance:
    """A count of right answers out of `scored` argmax answers: FLIP_SHARE of them may flip, at least one."""
    return Tolerance(abs=max(1, math.ceil(FLIP_SHARE * scored)))


def answers(scored: int) -> Tolerance:
    """An accuracy (right answers / `scored`): FLIP_SHARE of the answers may flip, at least one."""
    return Tolerance(abs=flips(scored).abs / scored)


def assert_close(fresh, recorded, tolerance: Tolerance, where: str = "") -> None:
    """fresh against recorded: dicts (the same keys), lists and tuples (the same lengths) entry by entry, numbers
    (int or float, not bool) within `tolerance`, anything else equal. The first difference raises AssertionError
    naming where it is, both values and the tolerance. Numpy arrays and tensors are read as lists."""
    fresh, recorded = _plain(fresh), _plain(recorded)
    at = where or "the value"
    if isinstance(recorded, dict) and isinstance(fresh, dict):
        assert fresh.keys() == recorded.keys(), f"{at}: keys {sorted(fresh)} != recorded {sorted(recorded)}"
        for key in recorded:
            assert_close(fresh[key], recorded[key], tolerance, f"{where}/{key}")
    elif isinstance(recorded, list | tuple) and isinstance(fresh, list | tuple):
        assert len(fresh) == len(recorded), f"{at}: {len(fresh)} entries != recorded {len(recorded)}"
        for i, (a, b) in enumerate(zip(fresh, recorded)):
            assert_close(a, b, tolerance, f"{where}[{i}]")
    elif _number(recorded) and _number(fresh):
        assert tolerance.close(fresh, recorded), f"{at}: {fresh!r} != recorded {recorded!r} within {tolerance}"
    else:  # a string, None, a bool (True is not 1 here)
        assert (type(fresh), fresh) == (type(recorded), recorded), f"{at}: {fresh!r} != recorded {recorded!r}"


def _plain(value):
    """A numpy array or scalar, or a tensor, as Python lists and numbers; anything else as it is."""
    return value.tolist() if hasattr(value, "tolist") and not isinstance(value, list | tuple) else value


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
