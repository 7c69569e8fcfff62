"""Every knob of every page, declared once: name, default, range, label and tooltip (text keys).

The pages draw them (`explorer.knob(page, name)`), the tests open pages at their `extremes()`, and the
page benchmark measures each page with every knob at its heaviest value. A range that depends on another
knob (a pair index below d/2) is declared at its widest and narrowed by the page.
"""

from __future__ import annotations

from .params import BoolKnob, ChoiceKnob, FloatKnob, IntKnob, IntSetKnob, NumberChoiceKnob
from .text import LANGS

# 1-2-5 steps from 10 to 10^7: a log-scale slider that includes the bases real models use
BASES = tuple(float(m * 10 ** e) for e in range(1, 8) for m in (1, 2, 5) if m * 10 ** e <= 10 ** 7)
LAYOUTS = ("interleaved", "half")
# the decay page's base sweep: exponent e stands for base 10^e
SWEEP_BASES = {e: float(10 ** e) for e in range(2, 10)}

LANG = ChoiceKnob("lang", "en", LANGS)


def format_base(value: float) -> str:
    return f"{value:,.0f}"


def head_dim(default: int = 64, lo: int = 2, hi: int = 256) -> IntKnob:
    return IntKnob("dim", default, lo, hi, 2, label="common.head_dim", help="common.head_dim_help")


BASE = NumberChoiceKnob("base", 10000.0, BASES, label="common.base", help="common.base_help")
SEED = IntKnob("seed", 0, 0, 999, 1, label="common.seed", help="common.seed_help")


def _own(page: str, spec_type, name: str, *args, label: str | None = None, help: str | None = None, **kw):
    """A knob labelled by the page's own text keys: `<page>.<name>` and `<page>.<name>_help`."""
    return spec_type(name, *args, label=f"{page}.{label or name}",
                     help="" if help == "" else f"{page}.{help or (label or name) + '_help'}", **kw)


def _declare(*specs) -> dict:
    return {spec.name: spec for spec in specs}


PAGE_KNOBS = {
    "home": {},
    "complex_plane": _declare(
        _own("complex_plane", FloatKnob, "a", 2.0, -3.0, 3.0, 2),
        _own("complex_plane", FloatKnob, "b", 1.0, -3.0, 3.0, 2),
        _own("complex_plane", IntKnob, "theta", 50, -180, 180, 1),
        _own("complex_plane", FloatKnob, "w_mod", 1.5, 0.0, 3.0, 2, label="w_modulus"),
        _own("complex_plane", IntKnob, "w_angle", 60, -180, 180, 1),
    ),
    "rotations": _declare(
        head_dim(), BASE,
        _own("rotations", IntKnob, "max_pos", 64, 8, 512, 8),
        _own("rotations", IntSetKnob, "pairs", (0, 1, 2, 8, 16, 31), 0, 127, 8),
        _own("rotations", IntKnob, "m", 10, 0, 512, 1, label="position_m", help=""),
        _own("rotations", IntKnob, "pair", 0, 0, 127, 1, label="pair_pick", help=""),
        SEED,
    ),
    "phase": _declare(
        IntKnob("m", 2, 0, 128, 1, label="common.query_position", help="phase.m_help"),
        IntKnob("n", 5, 0, 128, 1, label="common.key_position", help="phase.n_help"),
        SEED, head_dim(default=16, hi=64), BASE,
        _own("phase", IntKnob, "pair", 1, 0, 31, 1),
    ),
    "relative": _declare(
        _own("relative", IntKnob, "seq", 128, 8, 2048, 8), head_dim(), BASE,
        _own("relative", ChoiceKnob, "content", "same", ("same", "random"), heaviest="random"),
        SEED,
        _own("relative", IntKnob, "shift", 100, 0, 4096, 1),
        _own("relative", BoolKnob, "causal", False),
    ),
    "implementation": _declare(
        _own("implementation", FloatKnob, "q1", 1.0, -5.0, 5.0, 2, help="q_help"),
        _own("implementation", FloatKnob, "q2", 2.0, -5.0, 5.0, 2, help="q_help"),
        _own("implementation", FloatKnob, "theta", 0.5, -3.142, 3.142, 3),
        _own("implementation", IntKnob, "m", 1, 0, 64, 1),
        IntKnob("seq", 256, 16, 512, 16, label="common.seq_len", help="implementation.seq_help"),
        head_dim(hi=128), SEED,
        _own("implementation", IntKnob, "rotary_dim", 32, 2, 128, 2),  # the page: max(2, dim // 4 * 2)
        _own("implementation", IntKnob, "pos", 100, 0, 4096, 1, label="position"),
        _own("implementation", IntKnob, "shift", 100, 0, 4096, 1),
    ),
    "versus": _declare(
        _own("versus", IntKnob, "seq", 64, 8, 1024, 8),
        _own("versus", IntKnob, "dim", 64, 2, 256, 2),
        BASE, SEED,
        _own("versus", IntKnob, "shift", 100, 0, 4096, 1),
    ),
    "decay": _declare(
        head_dim(default=128), BASE,
        _own("decay", IntKnob, "max_r", 1024, 16, 4096, 16),
        _own("decay", BoolKnob, "log_x", False),
        _own("decay", IntSetKnob, "sweep", (4, 5, 6), min(SWEEP_BASES), max(SWEEP_BASES), 6),
        _own("decay", IntKnob, "samples", 64, 8, 128, 8),
        SEED,
    ),
    "linear": _declare(
        _own("linear", IntKnob, "seq", 256, 16, 2048, 16), head_dim(), BASE,
        _own("linear", ChoiceKnob, "phi", "elu", ("elu", "relu")),
        SEED,
        _own("linear", IntKnob, "channel", 0, 0, 255, 1),
        _own("linear", BoolKnob, "timing", False),
    ),
}


def heaviest(page: str) -> dict[str, str]:
    """URL parameters that make `page` as heavy as its knobs allow (each at its heaviest value)."""
    return {name: spec.dump(spec.extremes()[1]) for name, spec in PAGE_KNOBS[page].items()}


def lightest(page: str) -> dict[str, str]:
    """URL parameters with every knob of `page` at its lightest value."""
    return {name: spec.dump(spec.extremes()[0]) for name, spec in PAGE_KNOBS[page].items()}
