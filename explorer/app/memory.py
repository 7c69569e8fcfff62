"""Memory the server gives back to the system once a page run or a live training run has freed it.

glibc serves an allocation above its mmap threshold (128 KiB at start) with a mapping of its own, which
goes back to the system when freed. But each time such a mapping is freed, glibc raises the threshold to
its size, up to 32 MiB: from then on the arrays and tensors of a page run (a few MiB each) come from the
heap, and the heap keeps what they leave when other blocks sit after them. With forty sessions computing
at once the server's RSS then holds the peak of all of them. Fixing the threshold at its starting value
stops that: 40 visits to random pages with random knobs peaked at 1.09-1.13 GB without it and
0.71-0.75 GB with it (bench.load side by side, README).

A heavy job (explorer.app.job_queue) is the other way round: a real model's pass allocates and frees buffers of
0.3-14 MiB thousands of times, and with the threshold fixed each is a fresh mapping whose pages the kernel hands
out and zeroes again (a 256-token own text on SmolLM2: 4,700 mappings, 6.3 of its 15.4 CPU-seconds in the
kernel). While a job runs the threshold is glibc's largest, so the job reuses its buffers; after it, the
threshold is fixed again and the freed pages go back to the system (`reusing_buffers`).
"""

from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameter numbers, from glibc's malloc.h
MMAP_THRESHOLD_BYTES = 128 * 1024
TRIM_THRESHOLD_BYTES = 128 * 1024  # glibc's default: free memory past it at a heap's top goes back at once
REUSE_THRESHOLD_BYTES = 32 * 1024 * 1024  # glibc's largest mmap threshold on 64-bit
REUSE_TRIM_BYTES = 64 * 1024 * 1024


def return_freed_buffers() -> bool:
    """Fix glibc's mmap threshold for this process; True where it applied (Linux with glibc)."""
    mallopt = _glibc("mallopt")
    return mallopt is not None and mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1


@contextmanager
def reusing_buffers() -> Iterator[None]:
    """Within the block, buffers up to 32 MiB come from glibc's heap and stay there for reuse (up to 64 MiB free at
    a heap's top is kept); after it, both thresholds are back at their starting values and the heaps' free pages go
    back to the system (nothing happens off glibc)."""
    mallopt, malloc_trim = _glibc("mallopt"), _glibc("malloc_trim")
    if mallopt is None or malloc_trim is None:
        yield
        return
    mallopt(M_MMAP_THRESHOLD, REUSE_THRESHOLD_BYTES)
    mallopt(M_TRIM_THRESHOLD, REUSE_TRIM_BYTES)
    try:
        yield
    finally:
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
        malloc_trim(0)


def trim() -> bool:
    """Collect unreachable objects and hand the free pages at the top of glibc's heaps back to the system
    (malloc_trim), after a long piece of work such as a live training run; True where it applied."""
    gc.collect()
    malloc_trim = _glibc("malloc_trim")
    return malloc_trim is not None and malloc_trim(0) == 1


def _glibc(name: str):
    """glibc's function `name`, or None off Linux or without glibc."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL("libc.so.6"), name)
    except (OSError, AttributeError):
        return None
