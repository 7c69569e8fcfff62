"""The check-an-implementation page's view: a model (preset or pasted config.json), its probe file, and the
verdict per kind of layer on an uploaded answers file or on the reference with a known bug planted (the demo),
as plain values: table rows, and for each failing kind its error against position and pair beside the same
curves for the matched bug."""

from __future__ import annotations

import re

import numpy as np

from rope_viz import conformance, model_rope
from rope_viz.conformance.verify import layer_ranges

from explorer.pure.views.phrases import Phrase, phrase

NONE = "none"  # the demo that plants nothing: the reference itself
FLOOR = 1e-12  # errors below this are drawn at it (a log axis has no zero)


def choose(name: str, config_text: str) -> dict:
    """{"config": what the kit reads (the pasted text while it is a valid config, else the preset name),
    "refused": the core's reason a paste was refused, or None}."""
    if config_text.strip():
        try:
            model_rope(config_text)  # a paste is config.json text, never a preset's name
            return {"config": config_text, "refused": None}
        except ValueError as err:
            return {"config": name, "refused": str(err)}
        except (ArithmeticError, RecursionError) as err:
            return {"config": name, "refused": type(err).__name__}
    return {"config": name, "refused": None}


def probe_file(name: str, config_text: str) -> tuple[bytes, str]:
    """(the probe file, a file name made of the model's name)."""
    model = conformance.load_model(choose(name, config_text)["config"])
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", model.name).strip("-.") or "model"
    return conformance.probe_bytes(model), f"probe-{stem[:80]}.safetensors"


def _rope(layer) -> Phrase:
    if not layer.rotary:
        return phrase("check_implementation.kind_nope", head_dim=layer.head_dim)
    return phrase("check_implementation.kind_rope", base=f"{layer.base:,.0f}", rope_type=layer.rope_type,
                  rotary_dim=layer.rotary_dim, head_dim=layer.head_dim, layout=layer.layout)


def _bug(verdict) -> Phrase:
    if verdict.ok:
        return phrase("check_implementation.no_bug")
    if verdict.bug is None:
        return phrase("check_implementation.unexplained")
    return phrase("check_implementation.bug_cell", bug=phrase(f"check_implementation.bug_{verdict.bug}"),
                  variant=phrase(f"check_implementation.variant_{verdict.variant}", **verdict.values),
                  roles=tuple(phrase(f"check_implementation.role_{role}") for role in verdict.roles))


def _curves(verdict) -> dict:
    def floor(values):
        return np.maximum(np.asarray(values, dtype=np.float64), FLOOR).astype(np.float32)
    positions = verdict.profile.positions
    keep = positions > 0  # the position axis is logarithmic
    out = {"positions": positions[keep].astype(np.float32), "observed_by_position": floor(
        verdict.profile.by_position[keep]), "pairs": np.arange(len(verdict.profile.by_pair), dtype=np.float32),
        "observed_by_pair": floor(verdict.profile.by_pair), "bug_by_position": None, "bug_by_pair": None}
    if verdict.bug_profile is not None:
        out["bug_by_position"] = floor(verdict.bug_profile.by_position[keep])
        out["bug_by_pair"] = floor(verdict.bug_profile.by_pair)
    return out


def check(name: str, config_text: str, demo: str, upload: bytes | None) -> dict:
    """The verdicts on `upload` (an answers file) when one is given and readable, else on the reference with
    the `demo` bug planted (NONE: none). upload_refused: why an upload was refused; demo_missing: True when
    the demo bug cannot occur in this model (the reference is judged instead)."""
    chosen = choose(name, config_text)
    probe = conformance.make_probe(chosen["config"])
    out = {"refused": chosen["refused"], "upload_refused": None, "demo_missing": False, "source": "demo"}
    report = None
    if upload is not None:
        try:
            report = conformance.verify_file(probe, upload)
            out["source"] = "upload"
        except (ValueError, RuntimeError) as err:
            out["upload_refused"] = str(err)
    if report is None:
        fn = conformance.reference(probe)
        if demo != NONE:
            try:
                fn = conformance.planted(probe, demo)
            except ValueError:
                out["demo_missing"] = True
        report = conformance.verify(probe, fn)
    out["ok"] = report.ok
    out["rows"] = [{"kind": v.kind, "layers": layer_ranges(v.layers), "count": len(v.layers), "rope": _rope(v.layer),
                    "ok": v.ok, "max_error": v.max_error, "bug": _bug(v), "first_pair": v.first_pair,
                    "first_position": v.first_position} for v in report.verdicts]
    out["failures"] = [{"kind": v.kind, "bug": v.bug, "cell": _bug(v), "first_pair": v.first_pair,
                        "first_position": v.first_position, "max_error": v.max_error, **_curves(v),
                        "links": conformance.BUG_CLASSES[v.bug].links() if v.bug else ()}
                       for v in report.verdicts if not v.ok]
    return out


def bug_table() -> dict[str, list]:
    """The bug classes: name, what goes wrong (Phrases) and where each shipped (the reports' labels)."""
    classes = list(conformance.BUG_CLASSES.values())
    return {"check_implementation.col_bug": [phrase(f"check_implementation.bug_{bug.name}") for bug in classes],
            "check_implementation.col_what": [phrase(f"check_implementation.what_{bug.name}") for bug in classes],
            "check_implementation.col_shipped": [", ".join(label for label, _ in bug.links()) for bug in classes]}
