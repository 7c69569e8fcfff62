"""Wall-clock timing that waits for the device, for costs shown in the app and the benchmark."""

from __future__ import annotations

import statistics
import time

import torch

from .device import synchronize


def time_call(fn, *, device: torch.device, repeat: int = 5, warmup: int = 1, min_time: float = 0.0) -> float:
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
