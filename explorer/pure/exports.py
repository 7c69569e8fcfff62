"""What a chart exports: its data as CSV, and a file name that says what it shows and with which knobs."""

from __future__ import annotations

import csv
import io
import re

import numpy as np

from explorer.pure.figures import PICK_LAYER
from explorer.pure.knobs import PAGE_KNOBS
from explorer.pure.sitemap import url_path

MAX_NAME = 120


def file_name(page: str, chart: str, params: dict[str, str]) -> str:
    """`<page address>-<chart>-<knob>=<value>_...` over the page's own knobs (not the language or the presenter
    view), with only letters, digits and -_.= kept (no path or markup)."""
    own = PAGE_KNOBS.get(page, {})
    knobs = "_".join(f"{name}={value}" for name, value in params.items() if name in own)
    name = "-".join(part for part in (url_path(page) or "home", chart, knobs) if part)
    return re.sub(r"[^A-Za-z0-9_.=-]+", "-", name)[:MAX_NAME].strip("-") or "chart"


def _values(values) -> list:
    return [] if values is None else np.asarray(values).ravel().tolist()


def figure_csv(fig) -> str:
    """Every trace of a figure in long form: one row per point (series, x, y) or per cell (series, x, y, z);
    a layer that only catches clicks is left out."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    has_z = any(getattr(trace, "z", None) is not None for trace in fig.data)
    writer.writerow(["series", "x", "y", "z"] if has_z else ["series", "x", "y"])
    for index, trace in enumerate(fig.data):
        if trace.meta == PICK_LAYER:
            continue
        series = trace.name or f"trace {index}"
        z = getattr(trace, "z", None)
        if z is not None:
            z = np.asarray(z, dtype=np.float64)
            xs = _values(trace.x) or list(range(z.shape[1]))
            ys = _values(trace.y) or list(range(z.shape[0]))
            for row, y in zip(z, ys):
                for value, x in zip(row, xs):
                    writer.writerow([series, x, y, value])
            continue
        xs, ys = _values(getattr(trace, "x", None)), _values(getattr(trace, "y", None))
        xs = xs or list(range(len(ys)))
        for x, y in zip(xs, ys):
            writer.writerow([series, x, y, ""] if has_z else [series, x, y])
    return out.getvalue()
