"""Knob specifications: how each URL query value is parsed, repaired and written back.

Nothing a URL carries is trusted: a value that is not valid for its knob is clamped or
replaced by the default, and `parse` says so, so the page can show a notice.
Pure Python, no Streamlit, so it can be property-tested on its own.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

MAX_RAW_LENGTH = 64


def _number(raw: str) -> float | None:
    """A finite float from a short plain numeric string, else None."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_RAW_LENGTH:
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Knob:
    """A named knob with a default; subclasses define what values are allowed."""

    name: str
    default: Any
    label: str = field(default="", kw_only=True)  # text key of the widget's label
    help: str = field(default="", kw_only=True)  # text key of its tooltip ("" for none)

    def coerce(self, value) -> tuple[Any, bool]:
        """(an allowed value close to `value`, whether it had to change)."""
        raise NotImplementedError

    def parse(self, raw: str) -> tuple[Any, bool]:
        """(value, replaced) for a raw query-string value."""
        raise NotImplementedError

    def dump(self, value) -> str:
        return str(value)

    def extremes(self) -> tuple[Any, Any]:
        """The lightest and the heaviest value the knob allows (for tests and benchmarks)."""
        return self.default, self.default


def _finite(value) -> bool:
    """A real, finite int or float (not a bool)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


class _NumberKnob(Knob):
    """A knob whose URL value is a plain number, checked by `coerce`."""

    def parse(self, raw):
        value = _number(raw)
        if value is None:
            return self.default, True
        return self.coerce(value)

    def coerce(self, value):
        allowed = self.nearest(value) if _finite(value) else None
        if allowed is None:
            return self.default, True
        return allowed, allowed != value

    def nearest(self, value):
        """The allowed value nearest a finite number, or None where there is none."""
        raise NotImplementedError

    def dump(self, value):
        return f"{value:.10g}"


@dataclass(frozen=True)
class IntKnob(_NumberKnob):
    """An integer on the grid lo, lo + step, ..., clamped to [lo, hi]."""

    lo: int = 0
    hi: int = 100
    step: int = 1

    def nearest(self, value):
        snapped = self.lo + round((min(max(value, self.lo), self.hi) - self.lo) / self.step) * self.step
        return int(min(snapped, self.hi - (self.hi - self.lo) % self.step))

    def dump(self, value):
        return str(value)

    def extremes(self):
        return self.lo, self.hi - (self.hi - self.lo) % self.step


@dataclass(frozen=True)
class FloatKnob(_NumberKnob):
    """A real number clamped to [lo, hi] and rounded to `digits` decimals."""

    lo: float = 0.0
    hi: float = 1.0
    digits: int = 3

    def nearest(self, value):
        return round(min(max(float(value), self.lo), self.hi), self.digits)

    def extremes(self):
        return self.lo, self.hi


@dataclass(frozen=True)
class NumberChoiceKnob(_NumberKnob):
    """One of a few positive numbers (a log-scale slider); others snap to the nearest in log space."""

    options: tuple = ()

    def nearest(self, value):
        if value <= 0:
            return None
        return min(self.options, key=lambda opt: abs(math.log(opt) - math.log(value)))

    def extremes(self):
        return min(self.options), max(self.options)


@dataclass(frozen=True)
class ChoiceKnob(Knob):
    """One of a fixed set of short identifiers; `heaviest` is the one that costs most to show. Drawn as
    a row of radio buttons, or as a drop-down menu when `menu` (for long lists)."""

    options: tuple = ()
    heaviest: str | None = None
    menu: bool = False

    def extremes(self):
        return self.default, self.heaviest or self.default

    def coerce(self, value):
        return (value, False) if value in self.options else (self.default, True)

    def parse(self, raw):
        return self.coerce(raw)


@dataclass(frozen=True)
class BoolKnob(Knob):
    """On or off; the URL carries 1 or 0."""

    def coerce(self, value):
        return (value, False) if isinstance(value, bool) else (self.default, True)

    def extremes(self):
        return False, True

    def parse(self, raw):
        if raw in ("1", "true"):
            return True, False
        if raw in ("0", "false"):
            return False, False
        return self.default, True

    def dump(self, value):
        return "1" if value else "0"


@dataclass(frozen=True)
class IntSetKnob(Knob):
    """A sorted set of distinct integers in [lo, hi], at most `most` of them; the URL carries 0,3,7."""

    lo: int = 0
    hi: int = 10
    most: int = 8

    def coerce(self, value):
        """Linear in the number of options, whatever `value` holds: a selection longer than the options
        cannot be a set of them, so only that many items are looked at."""
        if isinstance(value, (str, bytes)):
            return self._fallback(), True
        try:
            items = list(itertools.islice(value, self.hi - self.lo + 2))
        except TypeError:
            return self._fallback(), True
        kept = sorted({int(v) for v in items if isinstance(v, int) and not isinstance(v, bool)
                       and self.lo <= v <= self.hi})[: self.most]
        if not kept:
            return self._fallback(), True
        return tuple(kept), tuple(kept) != tuple(items)

    def _fallback(self):
        return tuple(v for v in self.default if self.lo <= v <= self.hi) or (self.lo,)

    def extremes(self):
        """One item, and `most` items spread over the whole range (both ends included)."""
        count = min(self.most, self.hi - self.lo + 1)
        spread = sorted({self.lo + round(j * (self.hi - self.lo) / max(count - 1, 1)) for j in range(count)})
        return (self.lo,), tuple(spread)

    def parse(self, raw):
        if not isinstance(raw, str) or len(raw) > MAX_RAW_LENGTH * 4:
            return self._fallback(), True
        values = []
        for part in raw.split(","):
            number = _number(part.strip())
            if number is None or number != int(number):
                return self._fallback(), True
            values.append(int(number))
        return self.coerce(values)

    def dump(self, value):
        return ",".join(str(v) for v in value)


@dataclass(frozen=True)
class TextKnob(Knob):
    """Free text of at most `max_length` characters (a pasted config); longer or non-text values are
    replaced by the default. The page validates the content itself: nothing in it is trusted."""

    max_length: int = 4096

    def coerce(self, value):
        if isinstance(value, str) and len(value) <= self.max_length and "\x00" not in value:
            return value, False
        return self.default, True

    def parse(self, raw):
        return self.coerce(raw)
