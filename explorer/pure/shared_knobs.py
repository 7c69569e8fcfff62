"""The knobs several pages share, and the two helpers a page declares its own knobs with.

A topic declares its knobs in its view, `KNOBS = declare(own(PAGE, IntKnob, "turns", 3, 1, 12, 1), BASE, ...)`,
importing from here and from `explorer.pure.knob_types` only (explorer.pure.knobs gathers every view's `KNOBS`
when it loads, so a view that imported explorer.pure.knobs would import itself in a circle).
"""

from __future__ import annotations

from explorer.pure.knob_types import IntKnob, Knob, NumberChoiceKnob

# 1-2-5 steps from 10 to 10^7: a log-scale slider that includes the bases real models use
BASES = tuple(float(m * 10 ** e) for e in range(1, 8) for m in (1, 2, 5) if m * 10 ** e <= 10 ** 7)


def format_base(value: float) -> str:
    return f"{value:,.0f}"


def head_dim(default: int = 64, lo: int = 2, hi: int = 256) -> IntKnob:
    return IntKnob("dim", default, lo, hi, 2, label="common.head_dim", help="common.head_dim_help")


BASE = NumberChoiceKnob("base", 10000.0, BASES, label="common.base", help="common.base_help")
SEED = IntKnob("seed", 0, 0, 999, 1, label="common.seed", help="common.seed_help")


def own(page: str, spec_type, name: str, *args, label: str | None = None, help: str | None = None, **kw):
    """A knob labelled by the page's own text keys: `<page>.<name>` and `<page>.<name>_help` (`label` and
    `help` name other keys of the page; help="" for none)."""
    return spec_type(name, *args, label=f"{page}.{label or name}",
                     help="" if help == "" else f"{page}.{help or (label or name) + '_help'}", **kw)


def declare(*specs: Knob) -> dict:
    """{name: spec} of a page's knobs, in the order the page draws them."""
    return {spec.name: spec for spec in specs}
