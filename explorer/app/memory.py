"""Memory the server gives back to the system once a page run or a live training run has freed it.

glibc serves an allocation above its mmap threshold (128 KiB at start) with a mapping of its own, which
goes back to the system when freed. But each time such a mapping is freed, glibc raises the threshold to
its size, up to 32 MiB: from then on the arrays and tensors of a page run (a few MiB each) come from the
heap, and the heap keeps what they leave when other blocks sit after them. With forty sessions computing
at once the server's RSS then holds the peak of all of them. Fixing the threshold at its starting value
stops that: 40 visits to random pages with random knobs peaked at 1.09-1.13 GB without it and
0.71-0.75 GB with it (bench.load side by side, README).
"""

from __future__ import annotations

import ctypes
import gc
import sys

M_MMAP_THRESHOLD = -3  # mallopt's parameter number, from glibc's malloc.h
MMAP_THRESHOLD_BYTES = 128 * 1024


def return_freed_buffers() -> bool:
    """Fix glibc's mmap threshold for this process; True where it applied (Linux with glibc)."""
    mallopt = _glibc("mallopt")
    return mallopt is not None and mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1


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
