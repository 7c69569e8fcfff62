"""Whole runs: `train` (one model, a results document) and `run_grid` (the shipped grid), plus
the command line of `python -m rope_viz.toy`."""

from __future__ import annotations

import argparse
import datetime as _dt
import multiprocessing as mp
import shlex
import sys
import time
from dataclasses import fields
from pathlib import Path

import torch

from ..device import get_device
from .model import ENCODINGS
from .results import DEFAULT_DIR, SCHEMA, save_model, save_results, summarize
from .tasks import TASKS
from .training import TrainConfig, train_run

GRID_STEPS = 1500  # sinusoidal and ALiBi learn recall only after ~700-900 steps; RoPE after ~300
GRID_SEEDS = (0, 1, 2)


def _document(runs: list[dict], command: str, argv: list[str], wall: float) -> dict:
    return {"schema": SCHEMA, "command": command, "argv": list(argv),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "device": runs[0]["device"], "torch": torch.__version__, "wall_seconds": round(wall, 3),
            "runs": runs, "summary": summarize(runs)}


def train(config: TrainConfig | None = None, *, progress=None, should_stop=None, weights_path=None,
          command: str | None = None, argv: list[str] | None = None, device=None) -> dict:
    """Train one model and return a results document (same schema as the shipped grid) with one run.

    progress(step, steps, loss) is called every config.log_every steps; should_stop() is polled
    every step (a True ends training early; the model is still evaluated). weights_path: also
    save the weights there (safetensors); the run records that path as given. device: where to train
    (default the CPU). Safe to call from a background thread (it sets no global state besides torch's seed).
    """
    config = TrainConfig() if config is None else config
    started = time.perf_counter()
    model, run = train_run(config, progress=progress, should_stop=should_stop, device=device)
    if weights_path is not None:
        run["weights"] = str(save_model(model, config, weights_path))
    command = command or config.cli_command()
    return _document([run], command, argv if argv is not None else shlex.split(command)[3:],
                     time.perf_counter() - started)


def _grid_job(args):
    config_dict, weights_path, device = args
    torch.set_num_threads(1)
    config = TrainConfig.from_dict(config_dict)
    model, run = train_run(config, device=device)
    if weights_path is not None:
        save_model(model, config, weights_path)
        run["weights"] = f"weights/{Path(weights_path).name}"  # relative to grid.json
    return run


def grid_configs(steps: int = GRID_STEPS, seeds=GRID_SEEDS, tasks=TASKS, encodings=ENCODINGS) -> list[TrainConfig]:
    """The shipped grid: every task x encoding x seed, RoPE also evaluated with PI, NTK and YaRN."""
    return [TrainConfig(task=t, encoding=e, seed=s, steps=steps, scalings=("pi", "ntk", "yarn"))
            for t in tasks for e in encodings for s in seeds]


def run_grid(out_dir=DEFAULT_DIR, *, steps: int = GRID_STEPS, seeds=GRID_SEEDS, tasks=TASKS,
             encodings=ENCODINGS, workers: int = 2, command: str = "", argv=(), progress=None,
             device: str = "cpu") -> dict:
    """Train the grid in `workers` processes (one thread each) on `device`, write grid.json and the
    seed-0 weights under out_dir/weights, and return the results document."""
    out_dir = Path(out_dir)
    started = time.perf_counter()
    jobs = []
    for config in grid_configs(steps, seeds, tasks, encodings):
        weights = (out_dir / "weights" / f"{config.task}_{config.encoding}_seed{config.seed}.safetensors"
                   if config.seed == seeds[0] else None)
        jobs.append((config.to_dict(), None if weights is None else str(weights), str(device)))
    runs = []
    if workers <= 1:
        torch.set_num_threads(1)
        iterator = map(_grid_job, jobs)
        for run in iterator:
            runs.append(run)
            if progress is not None:
                progress(len(runs), len(jobs), run)
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            for run in pool.imap_unordered(_grid_job, jobs):
                runs.append(run)
                if progress is not None:
                    progress(len(runs), len(jobs), run)
    order = {(c["task"], c["encoding"], c["seed"]): i for i, (c, _, _) in enumerate(jobs)}
    runs.sort(key=lambda r: order[(r["config"]["task"], r["config"]["encoding"], r["config"]["seed"])])
    doc = _document(runs, command or f"python -m rope_viz.toy grid --steps {steps}", list(argv),
                    time.perf_counter() - started)
    save_results(doc, out_dir / "grid.json")
    return doc


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rope_viz.toy",
                                     description="Train tiny transformers with different position encodings.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    tr = sub.add_parser("train", help="train and evaluate one model")
    default = TrainConfig()
    for f in fields(TrainConfig):
        value = getattr(default, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, tuple):
            kind = float if f.name == "eval_factors" else str
            tr.add_argument(flag, nargs="*", type=kind, default=list(value))
        else:
            choices = {"task": TASKS, "encoding": ENCODINGS, "layout": ("interleaved", "half")}.get(f.name)
            tr.add_argument(flag, type=type(value), default=value, choices=choices)
    tr.add_argument("--out", type=Path, default=None, help="results JSON (default results/toy/runs/...)")
    tr.add_argument("--no-weights", action="store_true", help="do not save the weights")
    gr = sub.add_parser("grid", help="train the shipped grid (tasks x encodings x seeds)")
    gr.add_argument("--steps", type=int, default=GRID_STEPS)
    gr.add_argument("--seeds", type=int, nargs="+", default=list(GRID_SEEDS))
    gr.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    gr.add_argument("--encodings", nargs="+", choices=ENCODINGS, default=list(ENCODINGS))
    gr.add_argument("--workers", type=int, default=2)
    gr.add_argument("--out-dir", type=Path, default=DEFAULT_DIR)
    for sub_parser in (tr, gr):
        sub_parser.add_argument("--device", default=None,
                             help="cpu, cuda, cuda:N or mps (default: the fastest here, as rope_viz.get_device)")
    return parser


def _device(name: str | None) -> str:
    """The --device argument checked (a clear exit, not a traceback), or the fastest device here."""
    try:
        if name is None:
            return str(get_device())
        device = torch.device(name)
        torch.empty(0, device=device)
    except (ValueError, RuntimeError, AssertionError) as err:
        raise SystemExit(f"--device {name or 'default'!r} is not usable here: {err}") from None
    return str(device)


def main(argv=None) -> int:
    """Entry point of `python -m rope_viz.toy`."""
    from tqdm import tqdm
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    command = shlex.join(["python", "-m", "rope_viz.toy", *argv])
    device = _device(args.device)
    if args.cmd == "train":
        kwargs = {f.name: getattr(args, f.name) for f in fields(TrainConfig)}
        config = TrainConfig.from_dict(kwargs)
        stem = f"{config.task}_{config.encoding}_seed{config.seed}"
        out = args.out or DEFAULT_DIR / "runs" / f"{stem}.json"
        weights = None if args.no_weights else out.with_suffix(".safetensors")
        with tqdm(total=config.steps, desc=stem, unit="step") as bar:
            def progress(step, steps, loss):
                bar.n = step
                bar.set_postfix(loss=f"{loss:.3f}")
            doc = train(config, progress=progress, should_stop=None, weights_path=weights,
                        command=command, argv=argv, device=device)
        if weights is not None:
            doc["runs"][0]["weights"] = weights.name  # relative to the JSON's folder
        save_results(doc, out)
        print(f"wrote {out}")
        return 0
    with tqdm(total=len(args.seeds) * len(args.tasks) * len(args.encodings), desc="grid", unit="model") as bar:
        def progress(done, total, run):
            bar.update(1)
            c = run["config"]
            bar.set_postfix_str(f"{c['task']}/{c['encoding']}/seed{c['seed']} {run['train_seconds']:.0f}s")
        doc = run_grid(args.out_dir, steps=args.steps, seeds=tuple(args.seeds), tasks=tuple(args.tasks),
                       encodings=tuple(args.encodings), workers=args.workers, command=command,
                       argv=argv, progress=progress, device=device)
    print(f"wrote {Path(args.out_dir) / 'grid.json'} in {doc['wall_seconds']:.0f} s")
    return 0
