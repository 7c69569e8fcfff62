"""Wall-clock timing that waits for the device, for the costs some pages measure live (the core holds
no clocks: rope_viz computes, the app times it)."""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass

import torch

from rope_viz._checks import check_budget, check_dim, check_int, check_positive
from rope_viz.device import describe, get_device, synchronize
from rope_viz import inv_freq


REPEAT = 5  # timed runs per measured value, their median kept: one slow run on a busy server does not move it


@dataclass(frozen=True)
class TimedOn:
    """Where a timing ran: the device (described), the vector instructions torch's CPU kernels use (its
    `get_cpu_capability()`: AVX512, AVX2...), torch's threads, and the timed runs behind each median."""

    device: str
    capability: str
    threads: int
    repeat: int


def timed_on(device: torch.device | str, repeat: int = REPEAT) -> TimedOn:
    """The TimedOn of a timing run now, in this thread, on `device`."""
    return TimedOn(device=describe(torch.device(device)), capability=torch.backends.cpu.get_cpu_capability(),
                   threads=torch.get_num_threads(), repeat=repeat)


def time_call(fn, *, device: torch.device, repeat: int = REPEAT, warmup: int = 1, min_time: float = 0.0) -> float:
    """Median seconds of one fn() call over `repeat` timed runs (each run repeats the call until
    it lasts min_time, so very short calls are measured over many iterations)."""
    for _ in range(warmup):
        fn()
    synchronize(device)
    samples = []
    for _ in range(repeat):
        calls = 0
        start = time.perf_counter()
        while True:
            fn()
            calls += 1
            synchronize(device)
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        samples.append(elapsed / calls)
    return statistics.median(samples)


def _tables_float32(pos32, theta32):
    angle = torch.outer(pos32, theta32)
    return angle.cos(), angle.sin()


def _tables_float64(pos64, theta64):
    angle = torch.outer(pos64, theta64)
    return angle.cos().float(), angle.sin().float()


def _tables_float64_reduced(pos64, theta64):
    angle = torch.remainder(torch.outer(pos64, theta64), 2 * math.pi).float()
    return angle.cos(), angle.sin()


def time_angle_fix(length: int = 32768, dim: int = 128, base: float = 10000.0, *, device=None,
                   repeat: int = REPEAT) -> dict:
    """What computing the angles in float64 costs: median seconds (time_call) to
    build float32 cos/sin tables (length, dim/2) for positions 0..length-1 on `device` (default
    get_device()) three ways:

    "float32": cos/sin of outer(positions, theta) all in float32 (angles off by up to ~0.06 rad
    near 1e6); "float64": outer(positions, theta) in float64, cos/sin in float64, cast to float32
    (correctly rounded tables); "float64_reduced": the angle in float64 reduced mod 2 pi in float64
    (error ~ angle * 1e-16 / 2 pi), cast to float32, cos/sin in float32 of that small angle.
    Also "ratio" and "ratio_reduced" (each over float32) and "device". Devices without float64
    (Apple MPS) report NaN for the float64 ways.
    """
    length = check_int(length, "length", minimum=1)
    dim = check_dim(dim)
    base = check_positive(base, "base")
    repeat = check_int(repeat, "repeat", minimum=1)
    check_budget(2 * length * (dim // 2), "time_angle_fix")
    device = get_device() if device is None else torch.device(device)
    theta32 = inv_freq(dim, base, dtype=torch.float32, device=device)
    pos32 = torch.arange(length, dtype=torch.float32, device=device)
    fp32 = time_call(lambda: _tables_float32(pos32, theta32), device=device, repeat=repeat, min_time=0.01)
    try:
        theta64 = inv_freq(dim, base, dtype=torch.float64, device=device)
        pos64 = torch.arange(length, dtype=torch.float64, device=device)
        fp64 = time_call(lambda: _tables_float64(pos64, theta64), device=device, repeat=repeat, min_time=0.01)
        reduced = time_call(lambda: _tables_float64_reduced(pos64, theta64), device=device, repeat=repeat,
                            min_time=0.01)
    except (TypeError, RuntimeError):  # no float64 on this device
        fp64 = reduced = math.nan
    return {"float32": fp32, "float64": fp64, "float64_reduced": reduced, "ratio": fp64 / fp32,
            "ratio_reduced": reduced / fp32, "device": str(device), "length": length, "dim": dim}
