"""python -m rope_viz.conformance probe CONFIG -o probe.safetensors
python -m rope_viz.conformance verify CONFIG answers.safetensors [--json report.json] [--layout interleaved|half]

CONFIG: a preset name (rope_viz.model_presets()) or a config.json path. verify prints one row per kind of
layer and exits 0 when every kind passes, 1 when one fails, 2 when an argument or file is refused.

python -m rope_viz.conformance gguf MODEL.gguf [--config config.json | --preset NAME] [--json report.json]
reads a GGUF file's header (never its tensors), prints each layer's RoPE as llama.cpp will run it and, with a
config, every difference as a bug class; it exits 0 when they agree (or no config is given), 1 when they differ,
2 when the file or an argument is refused."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .files import verify_file, write_probe
from .gguf_file import check_gguf
from .probe import load_model


def _config(value: str):
    """A config.json path's text, else the value itself (a preset name)."""
    if not value.endswith(".json"):
        return value
    path = Path(value)
    if not path.is_file():
        raise ValueError(f"config {value!r} ends in .json but is not a file")
    return path.read_text(encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rope_viz.conformance", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    probe = commands.add_parser("probe", help="write the probe file of a model")
    probe.add_argument("config", help="a preset name or a config.json path")
    probe.add_argument("-o", "--output", default="probe.safetensors")
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
    args = parser.parse_args(argv)
    if args.command == "gguf":
        return _gguf(args)
    try:
        model = load_model(_config(args.config))
        if args.command == "probe":
            path = write_probe(model, args.output)
            print(f"wrote {path} ({path.stat().st_size:,} bytes) for {model.name}")
            return 0
        report = verify_file(model, args.answers, layout=args.layout)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{report.model}: {'pass' if report.ok else 'FAIL'}")
    print(report.table())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=1), encoding="utf-8")
    return 0 if report.ok else 1


def _gguf(args) -> int:
    try:
        if args.config and not args.config.endswith(".json"):
            raise ValueError(f"--config must be a config.json path, got {args.config!r}")
        config = _config(args.config) if args.config else args.preset
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
