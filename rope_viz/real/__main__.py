"""`python -m rope_viz.real long-context ...`: a real model past its trained context with RoPE scaling applied at
inference, written to JSON (see rope_viz.real.long_context and results/real/README.md)."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import torch

from . import long_context as lc
from .decoder import real_model
from .speed import cpu_kind
from .weights import NAMES

ROOT = Path(__file__).resolve().parents[2]
TEXT = ROOT / "results" / "real" / "stdlib_docstrings.txt"
TEXT_SOURCE = ("docstrings (over 200 characters) of 33 Python 3.11 standard-library modules, in file order; "
               "Python Software Foundation License; see results/real/README.md")
# What one core of this shared 2-core machine finishes in about an hour: SmolLM2-135M with one thread and PyTorch's
# fused attention costs ~9 CPU-s for a 2,048-token forward and 190-240 CPU-s for a 16,384-token one.
LENGTHS = (2048, 16384)
DEPTHS = (0.1, 0.5, 0.9)
PAST_DEPTHS = (0.5,)
LOSS_LENGTH = 16384
FACTOR = 2.0
BUCKET = 1024
WHY = ("chosen to finish in about an hour of one core on a 2-core machine shared with other work: with one thread "
       "and fused attention a SmolLM2 forward costs ~9 CPU-s at 2,048 tokens and 190-240 CPU-s at 16,384, so every "
       "method's loss over 16,384 tokens (twice the trained 8,192 positions) in blocks of 1,024, passkeys at three "
       "depths in 2,048 tokens and halfway into 16,384 tokens fit; 32,768-token prompts (about four times the cost "
       "each) and more depths past the context did not; factor 2 stretches the trained 8,192 positions to 16,384")


def _machine() -> dict:
    return {"cpu": cpu_kind()["model"], "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "platform": platform.platform(), "python": platform.python_version(), "torch": torch.__version__}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rope_viz.real", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    grid = sub.add_parser("long-context", help="loss by position bucket and passkey retrieval past the context")
    grid.add_argument("--model", default="smollm2-135m", choices=NAMES)
    grid.add_argument("--out", default=str(ROOT / "results" / "real" / "long_context.json"))
    grid.add_argument("--methods", nargs="+", default=list(lc.METHODS), choices=lc.METHODS)
    grid.add_argument("--factor", type=float, default=FACTOR, help=f"scaling factor of every method ({FACTOR:g})")
    grid.add_argument("--lengths", nargs="+", type=int, default=list(LENGTHS), help="passkey prompt lengths")
    grid.add_argument("--depths", nargs="+", type=float, default=list(DEPTHS),
                      help="passkey depths (0 start .. 1 end) at lengths within the trained context")
    grid.add_argument("--past-depths", nargs="+", type=float, default=list(PAST_DEPTHS),
                      help="passkey depths at lengths past the trained context")
    grid.add_argument("--loss-length", type=int, default=LOSS_LENGTH,
                      help="tokens of the text scored for loss (0: no loss)")
    grid.add_argument("--bucket", type=int, default=BUCKET, help="positions per loss bucket")
    grid.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    grid.add_argument("--text", default=str(TEXT), help="the long natural text scored for loss")
    return parser


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    command = shlex.join(["python", "-m", "rope_viz.real", *argv])
    try:
        torch.set_num_threads(args.threads)
        lm = real_model(args.model)
        loss_ids: torch.Tensor | None
        loss_ids = lm.encode(Path(args.text).read_text(encoding="utf-8"))[:args.loss_length]
        if not args.loss_length:
            loss_ids = None
        elif loss_ids.numel() < args.loss_length:
            raise ValueError(f"--loss-length {args.loss_length} exceeds the text's {loss_ids.numel()} tokens")
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        doc = {"schema": 1, "command": command, "argv": argv,
               "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
               "model": {"name": lm.name, "label": lm.label, "context": lm.context, "base": lm.rope.base,
                         "head_dim": lm.head_dim, "layers": len(lm.rope.layers)},
               "methods": args.methods, "factor": args.factor, "why": WHY,
               "grid": {"lengths": args.lengths,
                        "depths_by_length": {str(n): args.past_depths if n > lm.context else args.depths
                                             for n in args.lengths},
                        "loss_length": args.loss_length, "bucket": args.bucket},
               "text": {"path": os.path.relpath(args.text, ROOT), "source": TEXT_SOURCE,
                        "tokens": 0 if loss_ids is None else int(loss_ids.numel())},
               "machine": _machine(), "complete": False}

        def progress(what, cell, so_far):
            print(f"{what}: {cell.get('cpu_seconds', 'same as ' + str(cell.get('same_rotation_as')))} CPU-s",
                  flush=True)
            out.write_text(json.dumps(doc | so_far, indent=1), encoding="utf-8")

        result = lc.run_grid(lm, methods=tuple(args.methods), factor=args.factor, lengths=args.lengths,
                             depths=args.depths, past_depths=args.past_depths, loss_ids=loss_ids,
                             bucket=args.bucket, progress=progress)
    except ValueError as err:
        raise SystemExit(f"error: {err}") from None
    doc |= result | {"complete": True, "wall_seconds": round(time.perf_counter() - started, 1)}
    out.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
