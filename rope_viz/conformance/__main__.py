"""python -m rope_viz.conformance probe CONFIG -o probe.safetensors [--max-position N]
python -m rope_viz.conformance verify CONFIG answers.safetensors [--json report.json] [--layout interleaved|half]
    [--max-position N] [--dtype bfloat16|float16]
python -m rope_viz.conformance presets
python -m rope_viz.conformance engines [--json results/conformance/engines.json] [--preset NAME ...]
    [--engine transformers|vLLM|MLX-LM|llama.cpp ...]
    (where llama-cpp-python is not installed, the recorded llama.cpp cells are kept)

CONFIG: a preset name or repository id (`presets` lists them) or a config.json path. verify prints one row per
kind of layer and exits 0 when every kind passes, 1 when one answers wrong, 3 when every answer given is right
but answers stop at some position (declare the engine's limit with --max-position, the same for probe and
verify), 2 when an argument or file is refused.

python -m rope_viz.conformance gguf MODEL.gguf [--config config.json | --preset NAME] [--json report.json]
reads a GGUF file's header (never its tensors), prints each layer's RoPE as llama.cpp will run it and, with a
config, every difference as a bug class; it exits 0 when they agree (or no config is given), 1 when they differ,
2 when the file or an argument is refused."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from ..models import find_preset, model_presets, preset_info, preset_repo
from .card import card_table, cell_text, engine_card
from .engines import ENGINES, engine_version
from .files import verify_file, write_probe
from .gguf_file import check_gguf
from .probe import config_value, kinds, load_model
from .verify import describe

DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}


EXIT = {"pass": 0, "fail": 1, "stops": 3}


def _presets() -> int:
    """One row per preset: its name, repository id, model type, max_position_embeddings and kinds of layer."""
    rows = [("name", "repository", "model_type", "max positions", "kinds of layer")]
    for name, model in model_presets().items():
        groups = kinds(model)
        rows.append((name, preset_repo(name) or "", str(preset_info(name)["config"].get("model_type", "")),
                     f"{model.layers[0].max_position_embeddings or 0:,}",
                     "; ".join(describe(kind.layer) for kind in groups)))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4])
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rope_viz.conformance", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    probe = commands.add_parser("probe", help="write the probe file of a model")
    probe.add_argument("config", help="a preset name or a config.json path")
    probe.add_argument("-o", "--output", default="probe.safetensors")
    probe.add_argument("--max-position", type=int, help="the engine's declared limit: positions from it on are "
                       "not probed (give verify the same)")
    commands.add_parser("presets", help="list the presets: name, repository id, context and kinds of layer")
    engines = commands.add_parser("engines", help="the report card: every preset through each engine's adapter")
    engines.add_argument("--json", default="results/conformance/engines.json", help="where the card is written")
    engines.add_argument("--preset", action="append", help="only this preset (repeatable): its cells replace the "
                         "recorded ones")
    engines.add_argument("--engine", action="append", choices=tuple(ENGINES), help="only this engine (repeatable)")
    gguf = commands.add_parser("gguf", help="a GGUF file's RoPE as llama.cpp reads it, beside a config")
    gguf.add_argument("model", help="the GGUF file (only its header is read)")
    source = gguf.add_mutually_exclusive_group()
    source.add_argument("--config", help="the model's config.json")
    source.add_argument("--preset", help="a preset name (rope_viz.model_presets())")
    gguf.add_argument("--json", help="also write the reading as JSON here")
    verify = commands.add_parser("verify", help="judge an answers file")
    verify.add_argument("config", help="a preset name or a config.json path")
    verify.add_argument("answers", help="the answers file (safetensors)")
    verify.add_argument("--json", help="also write the report as JSON here")
    verify.add_argument("--layout", choices=("interleaved", "half"),
                        help="the engine's own pair layout, where its loader permutes the checkpoint's q/k rows")
    verify.add_argument("--max-position", type=int, help="the engine's declared limit, as given to probe")
    verify.add_argument("--dtype", choices=tuple(DTYPES), help="the dtype the engine computes in by design")
    args = parser.parse_args(argv)
    if args.command == "gguf":
        return _gguf(args)
    if args.command == "presets":
        return _presets()
    if args.command == "engines":
        return _engines(args)
    try:
        model = load_model(args.config)
        if args.command == "probe":
            path = write_probe(model, args.output, max_position=args.max_position)
            print(f"wrote {path} ({path.stat().st_size:,} bytes) for {model.name}")
            return 0
        report = verify_file(model, args.answers, layout=args.layout, max_position=args.max_position,
                             dtype=DTYPES.get(args.dtype))
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{report.model}: {report.status.upper() if report.status == 'fail' else report.status}")
    print(report.table())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=1), encoding="utf-8")
    return EXIT[report.status]


def _engines(args) -> int:
    try:
        names = None if not args.preset else [find_preset(name) for name in args.preset]
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    path = Path(args.json)
    engines = list(args.engine or ENGINES)
    kept = [e for e in engines if e == "llama.cpp" and engine_version(e) is None and path.is_file()]
    if kept:  # a source build this machine lacks: its recorded cells stay
        print("llama.cpp is not installed: its recorded cells are kept", file=sys.stderr)
    card = engine_card(names, [e for e in engines if e not in kept], progress=lambda name, engine, cell: print(
        f"{name} / {engine}: {cell_text(cell)}", file=sys.stderr, flush=True))
    if (names or args.engine or kept) and path.is_file():  # a part run again: its cells replace the recorded ones
        recorded = json.loads(path.read_text(encoding="utf-8"))
        fresh = {row["preset"]: row for row in card["presets"]}
        for row in recorded["presets"]:  # the engines run again replace their cells; the others stay
            if row["preset"] in fresh:
                fresh[row["preset"]]["engines"] = {**row["engines"], **fresh[row["preset"]]["engines"]}
        card["presets"] = [fresh.pop(row["preset"], row) for row in recorded["presets"]] + list(fresh.values())
        card["engines"] = {**recorded["engines"], **card["engines"]}
    print(card_table(card))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    return 0


def _gguf(args) -> int:
    try:
        if args.config and not args.config.endswith(".json"):
            raise ValueError(f"--config must be a config.json path, got {args.config!r}")
        config = config_value(args.config) if args.config else args.preset
        report = check_gguf(args.model, config)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    verdict = "" if report.model is None else (": agrees with the config" if report.ok else ": differs from the config")
    print(f"{args.model} ({report.architecture}) as llama.cpp reads it{verdict}")
    print(report.table())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=1), encoding="utf-8")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
