"""The check-an-implementation page's view: a model (preset or pasted config.json), its probe file, and the
verdict per kind of layer on an uploaded answers file or on the reference with a known bug planted (the demo),
as plain values: table rows, and for each failing kind its error against position and pair beside the same
curves for the matched bug."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple


from rope_viz import conformance, model_rope
from rope_viz.conformance.verify import describe, layer_ranges

from explorer.pure.views.engines_today import CHARTS as ENGINE_CHARTS
from explorer.pure.views.engines_today import FailureCurves, failure_curves
from explorer.pure.views.phrases import Phrase, phrase

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py): the
# demo's first failure, then one per failing kind of the recorded engines card (explorer.pure.views.engines_today)
CHARTS = ("position_0", "pair_0") + ENGINE_CHARTS

NONE = "none"  # the demo that plants nothing: the reference itself
MODEL_LAYOUT = "model"  # the declared layout that is the model's own (no q/k rows permuted on load)


class Choice(NamedTuple):
    """What the kit reads (the pasted text while it is a valid config, else the preset name), and the core's
    reason a paste was refused, or None."""
    config: str
    refused: str | None


def choose(name: str, config_text: str) -> Choice:
    """The pasted config when it is valid, else the preset `name`."""
    if config_text.strip():
        try:
            model_rope(config_text)  # a paste is config.json text, never a preset's name
            return Choice(config_text, None)
        except ValueError as err:
            return Choice(name, str(err))
        except (ArithmeticError, RecursionError) as err:
            return Choice(name, type(err).__name__)
    return Choice(name, None)


class ProbeFile(NamedTuple):
    """The probe file's bytes and a file name made of the model's name."""
    data: bytes
    file_name: str


def probe_file(name: str, config_text: str) -> ProbeFile:
    """The probe file of the chosen model."""
    model = conformance.load_model(choose(name, config_text).config)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", model.name).strip("-.") or "model"
    return ProbeFile(conformance.probe_bytes(model), f"probe-{stem[:80]}.safetensors")


def _rope(layer) -> Phrase:
    if not layer.rotary:
        return phrase("check_implementation.kind_nope", head_dim=layer.head_dim)
    return phrase("check_implementation.kind_rope", base=f"{layer.base:,.0f}", rope_type=layer.rope_type,
                  rotary_dim=layer.rotary_dim, head_dim=layer.head_dim, layout=layer.layout)


def _bug(verdict) -> Phrase:
    if verdict.ok:
        return phrase("check_implementation.no_bug")
    if verdict.bug is None:
        if verdict.stops_at is not None and verdict.first_pair is None:
            return phrase("check_implementation.stops_cell", position=f"{verdict.stops_at:,}")
        return phrase("check_implementation.unexplained")
    cell = phrase("check_implementation.bug_cell", bug=phrase(f"check_implementation.bug_{verdict.bug}"),
                  variant=phrase(f"check_implementation.variant_{verdict.variant}", **verdict.values),
                  roles=tuple(phrase(f"check_implementation.role_{role}") for role in verdict.roles))
    if verdict.also is None:
        return cell
    bug, variant, values = verdict.also
    return phrase("check_implementation.two_bugs_cell", first=cell, bug=phrase(f"check_implementation.bug_{bug}"),
                  variant=phrase(f"check_implementation.variant_{variant}", **values))


def _notes(verdict) -> tuple[Phrase, ...]:
    """What a failure's verdict says beyond its bug: the layout a q/k-permuting loader makes right, and where
    the answers stop."""
    notes = []
    if verdict.layout_fix is not None:
        notes.append(phrase("check_implementation.layout_hint", layout=verdict.layout_fix))
    if verdict.stops_at is not None:
        notes.append(phrase("check_implementation.stops_note", position=f"{verdict.stops_at:,}"))
    return tuple(notes)


def _curves(verdict) -> FailureCurves:
    profile, bug = verdict.profile, verdict.bug_profile
    return failure_curves(profile.positions, profile.by_position, profile.by_pair,
                          None if bug is None else bug.by_position, None if bug is None else bug.by_pair)


@dataclass(frozen=True)
class VerdictRow:
    """One kind of layer (its index) in the verdict table: its layers (as ranges) and how many, its RoPE, whether it
    passes, its largest error, the bug that explains it, and the first pair and position that fail."""
    kind: int
    layers: str
    count: int
    rope: Phrase
    ok: bool
    max_error: float
    bug: Phrase
    first_pair: int | None
    first_position: int | None


@dataclass(frozen=True)
class Failure:
    """A failing kind of layer: the bug class that explains it (None if none does) and its table cell, where
    it first goes wrong, its largest error, its error curves, the reports where the bug shipped (label,
    url or None), and the sentences its verdict adds (the layout to declare, where the answers stop)."""
    kind: int
    bug: str | None
    cell: Phrase
    first_pair: int | None
    first_position: int | None
    max_error: float
    curves: FailureCurves
    links: tuple[tuple[str, str | None], ...]
    notes: tuple[Phrase, ...] = ()


@dataclass(frozen=True)
class Check:
    """The verdicts: refused, why a paste was refused; upload_refused, why an upload was; demo_missing, True
    when the demo bug cannot occur in this model (the reference is judged instead); source, "upload" or
    "demo"; ok, whether every kind passes; a row per kind and a Failure per failing kind."""
    refused: str | None
    upload_refused: str | None
    demo_missing: bool
    source: str
    ok: bool
    rows: list[VerdictRow]
    failures: list[Failure]


def check(name: str, config_text: str, demo: str, upload: bytes | None, layout: str = MODEL_LAYOUT) -> Check:
    """The verdicts on `upload` (an answers file) when one is given and readable, else on the reference with
    the `demo` bug planted (NONE: none); layout: the engine's declared pair layout (MODEL_LAYOUT: the
    model's own)."""
    chosen = choose(name, config_text)
    probe = conformance.make_probe(chosen.config, layout=None if layout == MODEL_LAYOUT else layout)
    upload_refused, demo_missing, source = None, False, "demo"
    report = None
    if upload is not None:
        try:
            report = conformance.verify_file(probe, upload)
            source = "upload"
        except (ValueError, RuntimeError) as err:
            upload_refused = str(err)
    if report is None:
        fn = conformance.reference(probe)
        if demo != NONE:
            try:
                fn = conformance.planted(probe, demo)
            except ValueError:
                demo_missing = True
        report = conformance.verify(probe, fn)
    rows = [VerdictRow(kind=v.kind, layers=layer_ranges(v.layers), count=len(v.layers), rope=_rope(v.layer),
                       ok=v.ok, max_error=v.max_error, bug=_bug(v), first_pair=v.first_pair,
                       first_position=v.first_position) for v in report.verdicts]
    failures = [Failure(kind=v.kind, bug=v.bug, cell=_bug(v), first_pair=v.first_pair,
                        first_position=v.first_position, max_error=v.max_error, curves=_curves(v),
                        links=conformance.BUG_CLASSES[v.bug].links() if v.bug else (), notes=_notes(v))
                for v in report.verdicts if not v.ok]
    return Check(refused=chosen.refused, upload_refused=upload_refused, demo_missing=demo_missing, source=source,
                 ok=report.ok, rows=rows, failures=failures)


MANUAL = Path(__file__).resolve().parents[3] / "docs" / "conformance.md"


@functools.cache
def answer_example(kind: str) -> str:
    """The kit manual's script (docs/conformance.md, "For engine developers") that fills an answers file: kind
    "torch" or "numpy"."""
    found = re.search(rf"<!-- conformance-example: {kind} -->\n```python\n(.*?)```", MANUAL.read_text("utf-8"), re.S)
    if found is None:
        raise ValueError(f"kind must be one of 'torch', 'numpy' (the kit manual's examples), got {kind!r}")
    return found.group(1)


def bug_table() -> dict[str, list]:
    """The bug classes: name, what goes wrong (Phrases) and where each shipped (the reports' labels)."""
    classes = list(conformance.BUG_CLASSES.values())
    return {"check_implementation.col_bug": [phrase(f"check_implementation.bug_{bug.name}") for bug in classes],
            "check_implementation.col_what": [phrase(f"check_implementation.what_{bug.name}") for bug in classes],
            "check_implementation.col_shipped": [", ".join(label for label, _ in bug.links()) for bug in classes]}


# ----------------------------------------------------------------------------- a GGUF file as llama.cpp reads it

MAX_GGUF_BYTES = 16 << 20  # the page reads a GGUF of at most this size (or the first bytes of one, its header)


@dataclass(frozen=True)
class GGUFRow:
    """Layers that llama.cpp and the config rotate alike: their ranges and count, llama.cpp's rotation, the
    config's (None without one), whether they agree and the bug classes of their differences."""
    layers: str
    count: int
    llama_cpp: Phrase
    config: Phrase | None
    ok: bool
    differences: Phrase


@dataclass(frozen=True)
class GGUFCheck:
    """A GGUF file's reading: refused, why the file could not be read (then nothing else is set); the file's
    own name (general.name) and architecture, as text from the file; compared, whether the chosen model was
    compared (mismatch: why not); ok, whether it agrees; a row per group of layers."""
    refused: str | None
    name: str | None = None
    architecture: str | None = None
    compared: bool = False
    mismatch: str | None = None
    ok: bool = True
    rows: tuple[GGUFRow, ...] = ()


def _gguf_rope(layer) -> Phrase:
    if not layer.rotary:
        return phrase("check_implementation.gguf_no_rope")
    source = phrase("check_implementation.gguf_fixed_base") if layer.base_from.startswith("llama.cpp") else \
        phrase("check_implementation.gguf_key", name=layer.base_from)
    parts = [phrase("check_implementation.gguf_base", base=f"{layer.base:,.0f}", source=source),
             phrase("check_implementation.gguf_dims", rotary_dim=layer.rotary_dim, head_dim=layer.head_dim),
             phrase(f"check_implementation.gguf_mode_{layer.mode.lower()}") if layer.layout == layer.checkpoint_layout
             else phrase("check_implementation.gguf_permuted")]
    if layer.scaling != "none" and (layer.freq_scale != 1.0 or layer.ext_factor):
        parts.append(phrase("check_implementation.gguf_scaling", scaling=layer.scaling,
                            factor=f"{1 / layer.freq_scale:g}", context=f"{layer.original_context:,}"))
    if layer.attention_factor != 1.0:
        parts.append(phrase("check_implementation.gguf_attention", factor=f"{layer.attention_factor:.4f}"))
    if layer.freq_factors:
        parts.append(phrase("check_implementation.gguf_factors", tensors=", ".join(layer.freq_factors)))
    return phrase("check_implementation.gguf_parts", parts=tuple(parts))


def gguf_check(data: bytes, name: str, config_text: str) -> GGUFCheck:
    """The GGUF file `data` (at most MAX_GGUF_BYTES: the whole file or its first bytes) read from its header
    only, as llama.cpp rotates each layer, beside the chosen model (a preset or the pasted config) when it has
    as many layers."""
    if len(data) > MAX_GGUF_BYTES:
        raise ValueError(f"data must be at most {MAX_GGUF_BYTES:,} bytes, got {len(data):,}")
    try:
        header = conformance.read_header(data)
        layers = conformance.llama_cpp_layers(header)
    except ValueError as err:
        return GGUFCheck(refused=str(err))
    model = conformance.load_model(choose(name, config_text).config)
    file_name = header.values.get("general.name")
    file_name = file_name if isinstance(file_name, str) else None
    mismatch = None if len(model.layers) == len(layers) else \
        f"{len(layers)} layers in the file, {len(model.layers)} in {model.name}"
    findings = [conformance.compare_layer(g, layer) for g, layer in zip(layers, model.layers)] \
        if mismatch is None else [()] * len(layers)
    groups: dict[tuple, list[int]] = {}
    for i, layer in enumerate(layers):
        config = describe(model.layers[i]) if mismatch is None else None
        bugs = tuple(dict.fromkeys(finding.bug for finding in findings[i]))
        groups.setdefault((layer.describe(), config, bugs), []).append(i)
    rows = tuple(GGUFRow(layers=layer_ranges(members), count=len(members), llama_cpp=_gguf_rope(layers[members[0]]),
                         config=None if mismatch else _rope(model.layers[members[0]]), ok=not key[2],
                         differences=phrase("check_implementation.gguf_parts", parts=tuple(
                             phrase(f"check_implementation.bug_{bug}") for bug in key[2]))
                         if key[2] else phrase("check_implementation.gguf_same"))
                 for key, members in groups.items())
    return GGUFCheck(refused=None, name=file_name, architecture=header.architecture, compared=mismatch is None,
                     mismatch=mismatch, ok=not any(findings), rows=rows)
