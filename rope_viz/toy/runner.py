"""Whole runs: `train` (one model, a results document), `run_grid` (the two-layer grid) and
`run_grid4` (the four-layer grid of SCHEMES x TASK_NAMES), plus the command line of
`python -m rope_viz.toy`.

Both grids are resumable: each finished run is written to the results file at once, and a rerun of
the same command skips the runs the file already holds, so a long grid can be built over several
sittings (`--max-runs N` stops a sitting after N new runs). The document's wall_seconds adds up the
sittings, each of which is listed under "sittings" (command, start, wall time, runs trained).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import multiprocessing as mp
import shlex
import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

import torch

from .._checks import check_int
from ..device import get_device
from .model import ENCODINGS, POSITION_SCHEMES, SCHEMES
from .evaluations import EVALUATIONS_FILE, evaluate_grid, save_evaluations
from .results import DEFAULT_DIR, SCHEMA, load_results, save_model, save_results, summarize
from .tasks import TASK_NAMES, TASKS
from .training import TrainConfig, train_run

GRID_STEPS = 1500  # sinusoidal and ALiBi learn recall only after ~700-900 steps; RoPE after ~300
GRID_SEEDS = (0, 1, 2)
GRID4_STEPS = 1500
GRID4_ARCH: dict[str, Any] = {"n_layers": 4, "d_model": 64, "n_heads": 2, "train_len": 32}  # 16 pairs per head
GRID4_EVAL_FACTORS = (1.0, 2.0, 4.0, 8.0, 16.0)
GRID4_FILE = "grid4.json"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _document(runs: list[dict], command: str, argv: list[str], wall: float) -> dict:
    return {"schema": SCHEMA, "command": command, "argv": list(argv), "created": _now(),
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


def grid4_configs(steps: int = GRID4_STEPS, seeds=GRID_SEEDS, tasks=TASK_NAMES, schemes=SCHEMES) -> list[TrainConfig]:
    """The four-layer grid: every task x scheme x seed, GRID4_ARCH, evaluated at GRID4_EVAL_FACTORS
    times the training length, without inference-time scalings."""
    return [TrainConfig(task=t, encoding=e, seed=s, steps=steps, eval_factors=GRID4_EVAL_FACTORS, scalings=(),
                        **GRID4_ARCH)
            for t in tasks for e in schemes for s in seeds]


def _run_key(config: dict) -> str:
    return json.dumps(config, sort_keys=True)


def run_configs(configs: list[TrainConfig], path, *, weights_seed: int | None = 0, weights_prefix: str = "",
                workers: int = 2, command: str = "", argv=(), progress=None, device: str = "cpu",
                max_runs: int | None = None, sitting_command: str | None = None) -> dict:
    """Train `configs` in `workers` processes (one thread each) on `device` into the results file
    `path`, resuming: the runs the file already holds are skipped, each new run is written as soon
    as it ends. Weights are saved for the runs of seed `weights_seed` (None: none) under
    path's folder, as weights/<weights_prefix><task>_<encoding>_seed<seed>.safetensors.
    command/argv: the command that trains the whole grid (kept from the first sitting);
    sitting_command: this sitting's own (default `command`). max_runs: stop after that many new
    runs (None: all). Returns the document (the file's, unchanged, when nothing was left to train).

    A file holding runs that are not in `configs` (another grid, or other settings) is refused
    with a ValueError, so that a resumed grid never mixes two settings."""
    path = Path(path)
    started, created = time.perf_counter(), _now()
    wanted = {_run_key(c.to_dict()): c for c in configs}
    previous = load_results(path) if path.exists() else None
    done = {} if previous is None else {_run_key(r["config"]): r for r in previous["runs"]}
    foreign = sorted(set(done) - set(wanted))
    if foreign:
        raise ValueError(f"path={str(path)!r} holds {len(foreign)} runs that this grid does not plan "
                         f"(e.g. {foreign[0]:.120}); write to another file")
    todo = [c for key, c in wanted.items() if key not in done]
    if max_runs is not None:
        todo = todo[:check_int(max_runs, "max_runs", minimum=1)]
    if not todo and previous is not None:
        return previous
    sitting = {"command": sitting_command or command, "created": created, "wall_seconds": 0.0, "runs": 0}
    sittings = ([] if previous is None else list(previous.get("sittings", []))) + [sitting]
    first_command = previous["command"] if previous is not None else command
    first_argv = previous["argv"] if previous is not None else list(argv)
    jobs = []
    for config in todo:
        name = f"{weights_prefix}{config.task}_{config.encoding}_seed{config.seed}.safetensors"
        weights = path.parent / "weights" / name if config.seed == weights_seed else None
        jobs.append((config.to_dict(), None if weights is None else str(weights), str(device)))
    order = list(wanted)
    runs = dict(done)
    doc = previous

    def record(run):
        nonlocal doc
        runs[_run_key(run["config"])] = run
        sitting["wall_seconds"] = round(time.perf_counter() - started, 3)
        sitting["runs"] += 1
        ordered = [runs[k] for k in order if k in runs]
        wall = sum(s["wall_seconds"] for s in sittings)
        doc = _document(ordered, first_command, first_argv, wall)
        doc["created"] = previous["created"] if previous is not None else created
        doc["sittings"] = sittings
        save_results(doc, path)
        if progress is not None:
            progress(sitting["runs"], len(jobs), run)

    if workers <= 1:
        torch.set_num_threads(1)
        for run in map(_grid_job, jobs):
            record(run)
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            for run in pool.imap_unordered(_grid_job, jobs):
                record(run)
    if doc is None:  # no configs and no results file: no run to record
        raise ValueError(f"configs must plan at least one run, got {len(wanted)}")
    return doc


def run_grid(out_dir=DEFAULT_DIR, *, steps: int = GRID_STEPS, seeds=GRID_SEEDS, tasks=TASKS,
             encodings=ENCODINGS, workers: int = 2, command: str = "", argv=(), progress=None,
             device: str = "cpu", max_runs: int | None = None, sitting_command: str | None = None) -> dict:
    """Train the two-layer grid into out_dir/grid.json (resumable, see run_configs), the seed-0
    weights under out_dir/weights, and return the results document."""
    return run_configs(grid_configs(steps, seeds, tasks, encodings), Path(out_dir) / "grid.json",
                       weights_seed=seeds[0], workers=workers, device=device, max_runs=max_runs,
                       command=command or f"python -m rope_viz.toy grid --steps {steps}", argv=argv,
                       progress=progress, sitting_command=sitting_command)


def run_grid4(path=DEFAULT_DIR / GRID4_FILE, *, steps: int = GRID4_STEPS, seeds=GRID_SEEDS, tasks=TASK_NAMES,
              schemes=SCHEMES, workers: int = 2, command: str = "", argv=(), progress=None,
              device: str = "cpu", max_runs: int | None = None, sitting_command: str | None = None) -> dict:
    """Train the four-layer grid (grid4_configs) into the results file `path` (resumable, see
    run_configs), the seed-0 weights beside it under weights/, and return the results document."""
    return run_configs(grid4_configs(steps, seeds, tasks, schemes), path, weights_seed=seeds[0],
                       weights_prefix=f"{Path(path).stem}_",
                       workers=workers, device=device, max_runs=max_runs,
                       command=command or f"python -m rope_viz.toy grid4 --steps {steps}", argv=argv,
                       progress=progress, sitting_command=sitting_command)


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
            choices = {"task": TASK_NAMES, "encoding": POSITION_SCHEMES, "layout": ("interleaved", "half")}.get(f.name)
            tr.add_argument(flag, type=type(value), default=value, choices=choices)
    tr.add_argument("--out", type=Path, default=None, help="results JSON (default rope_viz/toy/shipped/runs/...)")
    tr.add_argument("--no-weights", action="store_true", help="do not save the weights")
    gr = sub.add_parser("grid", help="train the shipped grid (tasks x encodings x seeds)")
    gr.add_argument("--steps", type=int, default=GRID_STEPS)
    gr.add_argument("--seeds", type=int, nargs="+", default=list(GRID_SEEDS))
    gr.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    gr.add_argument("--encodings", nargs="+", choices=ENCODINGS, default=list(ENCODINGS))
    gr.add_argument("--out-dir", type=Path, default=DEFAULT_DIR)
    g4 = sub.add_parser("grid4", help="train the four-layer grid (tasks x schemes x seeds), resumable")
    g4.add_argument("--steps", type=int, default=GRID4_STEPS)
    g4.add_argument("--seeds", type=int, nargs="+", default=list(GRID_SEEDS))
    g4.add_argument("--tasks", nargs="+", choices=TASK_NAMES, default=list(TASK_NAMES))
    g4.add_argument("--schemes", nargs="+", choices=SCHEMES, default=list(SCHEMES))
    g4.add_argument("--out", type=Path, default=DEFAULT_DIR / GRID4_FILE, help="results JSON")
    ev = sub.add_parser("evaluate4", help="evaluate the four-layer grid's seed-0 models once, for the designs page")
    ev.add_argument("--grid", type=Path, default=DEFAULT_DIR / GRID4_FILE, help="the grid's results JSON")
    ev.add_argument("--out", type=Path, default=None, help=f"default: {EVALUATIONS_FILE} beside the grid")
    ev.add_argument("--tasks", nargs="+", choices=TASK_NAMES, default=None)
    ev.add_argument("--factors", nargs="+", type=float, default=None, help="default: the grid's factors above 1")
    for sub_parser in (gr, g4):
        sub_parser.add_argument("--workers", type=int, default=2)
        sub_parser.add_argument("--max-runs", type=int, default=None,
                                help="stop after this many new runs (a rerun resumes)")
    for sub_parser in (tr, gr, g4):
        sub_parser.add_argument("--device", default=None,
                             help="cpu, cuda, cuda:N or mps (default: the fastest here, as rope_viz.device.get_device)")
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
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    command = shlex.join(["python", "-m", "rope_viz.toy", *argv])
    try:
        if args.cmd == "evaluate4":
            return _main_evaluate(args, command)
        device = _device(args.device)
        if args.cmd == "train":
            return _main_train(args, argv, command, device)
        return _main_grid(args, argv, command, device)
    except ValueError as err:  # a bad setting: say which, no traceback
        raise SystemExit(f"error: {err}") from None


def _main_train(args, argv, command, device) -> int:
    from tqdm import tqdm
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


def _main_evaluate(args, command) -> int:
    """The evaluations of the designs page, on the CPU (the page's device), written beside the grid."""
    def progress(task, factor, seconds):
        print(f"{task} {factor:g}x done, {seconds:.0f} s", flush=True)
    doc = evaluate_grid(args.grid, factors=args.factors, tasks=args.tasks, command=command, progress=progress)
    out = save_evaluations(doc, args.out or Path(args.grid).with_name(EVALUATIONS_FILE))
    print(f"wrote {out}: {doc['wall_seconds']:.0f} s")
    return 0


def _without_option(argv: list[str], flag: str) -> list[str]:
    """argv without `flag` and its value (either `flag N` or `flag=N`)."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == flag:
            skip = True
        elif not arg.startswith(flag + "="):
            out.append(arg)
    return out


def _main_grid(args, argv, command, device) -> int:
    from tqdm import tqdm
    names = args.encodings if args.cmd == "grid" else args.schemes
    with tqdm(total=len(args.seeds) * len(args.tasks) * len(names), desc=args.cmd, unit="model") as bar:
        def progress(done, total, run):
            bar.total = total  # the runs this sitting trains
            bar.update(1)
            c = run["config"]
            bar.set_postfix_str(f"{c['task']}/{c['encoding']}/seed{c['seed']} {run['train_seconds']:.0f}s")
        # the whole grid's command: without a sitting's limit or its process count (one thread each,
        # the same numbers with any count)
        grid_argv = _without_option(_without_option(argv, "--max-runs"), "--workers")
        options = {"steps": args.steps, "seeds": tuple(args.seeds), "tasks": tuple(args.tasks),
                   "workers": args.workers, "command": shlex.join(["python", "-m", "rope_viz.toy", *grid_argv]),
                   "argv": grid_argv, "sitting_command": command, "progress": progress, "device": device,
                   "max_runs": args.max_runs}
        if args.cmd == "grid":
            path = Path(args.out_dir) / "grid.json"
            doc = run_grid(args.out_dir, encodings=tuple(args.encodings), **options)
        else:
            path = Path(args.out)
            doc = run_grid4(path, schemes=tuple(args.schemes), **options)
    print(f"wrote {path}: {len(doc['runs'])} runs, {doc['wall_seconds']:.0f} s in all")
    return 0
