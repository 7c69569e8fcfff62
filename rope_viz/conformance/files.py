"""The probe file and the answers file: safetensors, never pickle.

A probe file holds, for each probe set i, the tensors "set{i}.positions" (int64, (seq,) or (3, seq) for
M-RoPE), "set{i}.query" and "set{i}.key" (float32, (seq, head_dim)), and string metadata: "format"
("rope-conformance"), "version" ("1"), "model" and "sets", a JSON list with, per set, the layer to rotate
it as ("layer"), the kind of layer ("kind"), every layer that kind stands for ("layers") and the segment.
An answers file has the same keys, "set{i}.query" and "set{i}.key" holding the rotated rows (float32 or
float64); positions and metadata may be copied over or left out. `read_answers` checks the size, the
header, every key, dtype and shape before it loads a tensor.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import torch

from .probe import ROLES, Probe, make_probe
from .verify import Report, as_answer, judge

FORMAT = "rope-conformance"
VERSION = "1"
MAX_FILE_BYTES = 64 << 20
MAX_HEADER_BYTES = 1 << 20
_DTYPES = {"F32": "float32", "F64": "float64", "I64": "int64", "BF16": "bfloat16", "F16": "float16"}
_LOW = {torch.bfloat16: "BF16", torch.float16: "F16"}


def _safetensors():
    try:
        import safetensors.torch
    except ImportError as err:  # pragma: no cover - the [toy] extra is missing
        raise ValueError("reading and writing probe files needs the safetensors package "
                         "(pip install 'rope-viz[toy]' or pip install safetensors)") from err
    return safetensors.torch


def probe_tensors(probe: Probe) -> dict[str, torch.Tensor]:
    tensors = {}
    for i, s in enumerate(probe.sets):
        tensors[f"set{i}.positions"] = s.positions.contiguous()
        tensors[f"set{i}.query"] = s.query.contiguous()
        tensors[f"set{i}.key"] = s.key.contiguous()
    return tensors


def metadata(probe: Probe) -> dict[str, str]:
    sets = [{"set": i, "layer": s.layer, "kind": s.kind, "layers": list(s.layers), "segment": s.segment}
            for i, s in enumerate(probe.sets)]
    return {"format": FORMAT, "version": VERSION, "model": probe.model.name, "sets": json.dumps(sets)}


def probe_bytes(config, *, max_position: int | None = None) -> bytes:
    """The probe file of `config` (a preset name, a config.json path, a config dict or its JSON text) as bytes;
    max_position: the engine's declared limit (see make_probe)."""
    probe = make_probe(config, max_position=max_position)
    return _safetensors().save(probe_tensors(probe), metadata=metadata(probe))


def write_probe(config, path, *, max_position: int | None = None) -> Path:
    path = Path(path)
    path.write_bytes(probe_bytes(config, max_position=max_position))
    return path


def answers_bytes(probe: Probe, answers: dict) -> bytes:
    """An answers file from {(set index, role): tensor}: what an engine writes (used by the tests and demos)."""
    tensors = {f"set{i}.{role}": torch.as_tensor(value).contiguous() for (i, role), value in answers.items()}
    return _safetensors().save(tensors, metadata=metadata(probe))


# how torch.save's zip archive of pickles starts, and a bare pickle of protocol 2 to 5
PICKLE_SIGNS = (b"PK\x03\x04",) + tuple(bytes((0x80, protocol)) for protocol in range(2, 6))


def _header(data: bytes) -> dict:
    if len(data) < 8:
        raise ValueError(f"answers is {len(data)} bytes: too short to be a safetensors file")
    (size,) = struct.unpack("<Q", data[:8])
    if data[8:9] != b"{" and data.startswith(PICKLE_SIGNS):
        raise ValueError("answers looks like a pickle (torch.save writes one), which this kit never loads: write "
                         "safetensors instead, safetensors.torch.save_file({\"set0.query\": tensor, ...}, path)")
    if size <= MAX_HEADER_BYTES and 8 + size > len(data) and data[8:9] == b"{":
        raise ValueError(f"answers is truncated: it is {len(data):,} bytes, and its header alone declares "
                         f"{8 + size:,}")
    if size > MAX_HEADER_BYTES or 8 + size > len(data):
        raise ValueError(f"answers is not a safetensors file (its header would be {size:,} bytes of "
                         f"{len(data):,})")
    try:
        header = json.loads(data[8:8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ValueError("answers is not a safetensors file (its header is not JSON)") from err
    if not isinstance(header, dict):
        raise ValueError("answers is not a safetensors file (its header is not a JSON object)")
    offsets = [entry.get("data_offsets") for name, entry in header.items() if isinstance(entry, dict)]
    declared = 8 + size + max((o[1] for o in offsets if isinstance(o, list) and len(o) == 2
                               and isinstance(o[1], int)), default=0)
    if declared > len(data):
        raise ValueError(f"answers is truncated: it is {len(data):,} bytes, and its header declares {declared:,}")
    return header


def _check_entry(name: str, entry, shape: tuple, allowed: tuple[str, ...]) -> None:
    if not isinstance(entry, dict):
        raise ValueError(f"answers: {name!r} is not a tensor entry")
    dtype = entry.get("dtype")
    if dtype not in allowed:
        names = " or ".join(_DTYPES[d] for d in allowed)
        raise ValueError(f"answers: {name!r} must be {names}, got dtype {dtype!r}")
    if entry.get("shape") != list(shape):
        raise ValueError(f"answers: {name!r} must have shape {list(shape)}, got {entry.get('shape')!r}")


def read_answers(data, probe: Probe, *, dtype=None) -> dict:
    """{(set index, role): float64 tensor} from an answers file (bytes or a path) for `probe`; ValueError
    for anything else: too large, not safetensors, another model or version, a missing or unknown key, a
    wrong dtype or shape, positions that differ from the probe's. dtype: the engine's declared dtype
    (torch.bfloat16 or torch.float16), whose answers are accepted too."""
    allowed = ("F32", "F64") + ((_LOW[dtype],) if dtype in _LOW else ())
    if isinstance(data, (str, Path)):
        path = Path(data)
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"answers file {str(path)!r} is {path.stat().st_size:,} bytes; at most "
                             f"{MAX_FILE_BYTES:,} are accepted")
        data = path.read_bytes()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"answers must be bytes or a path, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"answers is {len(data):,} bytes; at most {MAX_FILE_BYTES:,} are accepted")
    header = _header(data)
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict):
        raise ValueError("answers: __metadata__ must be a JSON object of strings")
    if meta.get("format", FORMAT) != FORMAT or meta.get("version", VERSION) != VERSION:
        raise ValueError(f"answers: format {meta.get('format')!r} version {meta.get('version')!r}; this kit reads "
                         f"{FORMAT!r} version {VERSION!r}")
    if "model" in meta and meta["model"] != probe.model.name:
        raise ValueError(f"answers are for the model {str(meta['model'])[:80]!r}, not {probe.model.name!r}")
    expected: dict[str, tuple[tuple, tuple[str, ...]]] = {}
    for i, s in enumerate(probe.sets):
        for role in ROLES:
            expected[f"set{i}.{role}"] = (tuple(getattr(s, role).shape), allowed)
        expected[f"set{i}.positions"] = (tuple(s.positions.shape), ("I64",))
    unknown = sorted(set(header) - set(expected))
    if unknown:
        raise ValueError(f"answers: unknown tensor {unknown[0][:80]!r}; expected set<i>.query, set<i>.key "
                         f"(and set<i>.positions) for i < {len(probe.sets)}")
    for name, (shape, allowed) in expected.items():
        if name in header:
            _check_entry(name, header[name], shape, allowed)
        elif not name.endswith(".positions"):
            raise ValueError(f"answers: the tensor {name!r} is missing")
    try:
        tensors = _safetensors().load(data)
    except Exception as err:  # the safetensors reader's own error types differ between versions
        raise ValueError(f"answers is not a readable safetensors file ({type(err).__name__})") from err
    answers = {}
    for i, s in enumerate(probe.sets):
        positions = tensors.get(f"set{i}.positions")
        if positions is not None and not torch.equal(positions, s.positions):
            raise ValueError(f"answers: set{i}.positions differ from the probe's; answer the probe of "
                             f"{probe.model.name!r} as written")
        for role in ROLES:
            answers[i, role] = as_answer(tensors[f"set{i}.{role}"], getattr(s, role).shape, f"set{i}.{role}", dtype)
    return answers


def verify_file(config, answers, *, layout: str | None = None, max_position: int | None = None,
                dtype=None) -> Report:
    """The report on an answers file (bytes or a path) for the probe of `config`; layout and max_position:
    what the engine declares (see make_probe); dtype: torch.bfloat16 or torch.float16 for an engine that computes
    in it by design (see verify)."""
    probe = make_probe(config, layout=layout, max_position=max_position)
    return judge(probe, read_answers(answers, probe, dtype=dtype), dtype=dtype)
