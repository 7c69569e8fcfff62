"""Knobs that many pages share, with their labels, tooltips and ranges in one place."""

from __future__ import annotations

from . import params
from .state import knob, t

# 1-2-5 steps from 10 to 10^7: a log-scale slider that includes the bases real models use
BASES = tuple(float(m * 10 ** e) for e in range(1, 8) for m in (1, 2, 5) if m * 10 ** e <= 10 ** 7)


def format_base(value: float) -> str:
    return f"{value:,.0f}"


def head_dim(page: str, *, default: int = 64, lo: int = 2, hi: int = 256, where=None) -> int:
    spec = params.IntKnob("dim", default, lo, hi, 2)
    return knob(page, spec, t("common.head_dim"), help=t("common.head_dim_help"), where=where)


def base(page: str, *, default: float = 10000.0, where=None) -> float:
    spec = params.NumberChoiceKnob("base", default, BASES)
    return knob(page, spec, t("common.base"), help=t("common.base_help"), where=where, format_func=format_base)


def layout(page: str, *, where=None) -> str:
    spec = params.ChoiceKnob("layout", "interleaved", ("interleaved", "half"))
    return knob(page, spec, t("common.layout"), help=t("common.layout_help"), where=where,
                format_func=lambda v: t(f"common.layout_{v}"))


def seed(page: str, *, where=None) -> int:
    spec = params.IntKnob("seed", 0, 0, 999, 1)
    return knob(page, spec, t("common.seed"), help=t("common.seed_help"), where=where)
