"""explorer.app.memory: with glibc's mmap threshold fixed, arrays of a few MiB freed by a page run go back to the
system; without it, once a larger array has come and gone, they stay in the process. Each case runs in a
fresh interpreter (the threshold is per process)."""

import subprocess
import sys
import textwrap

import pytest

from support.server import ROOT

PROBE = textwrap.dedent("""
    import sys
    import numpy as np
    import psutil
    if sys.argv[1] == "fixed":
        from explorer.app.memory import return_freed_buffers
        assert return_freed_buffers()
    process = psutil.Process()
    first = np.ones(1 << 20)  # 8 MiB, a mapping of its own; freeing it raises glibc's threshold past 8 MiB
    del first
    before = process.memory_info().rss
    arrays = [np.ones(1 << 19) for _ in range(10)]  # ten 4 MiB arrays
    pinned = [bytearray(64) for _ in range(1000)]  # small blocks allocated after them
    del arrays
    print((process.memory_info().rss - before) / 2**20)
""")


def kept_mib(mode: str) -> float:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return float(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator: Linux only")
def test_freed_arrays_go_back_to_the_system():
    plain, fixed = kept_mib("plain"), kept_mib("fixed")
    assert plain > 4.0, plain  # the behaviour the fix is for (if glibc changes, this says so)
    assert fixed < 1.0, fixed


TRIM_PROBE = textwrap.dedent("""
    import sys
    import psutil
    from explorer.app.memory import trim
    process = psutil.Process()
    blocks = [bytearray(2048) for _ in range(40_000)]  # 80 MiB from glibc's heap (above pymalloc's 512 bytes)
    pinned = bytearray(2048)  # a block after them keeps the heap's top from shrinking by itself
    del blocks
    before = process.memory_info().rss
    applied = trim() if sys.argv[1] == "trim" else True
    print(applied, (before - process.memory_info().rss) / 2**20)
""")


def test_trim_hands_freed_heap_pages_back():
    """After a long piece of work frees its many small blocks, trim() gives their pages back although a
    block allocated later sits above them (glibc's free() alone keeps them)."""
    def returned(mode: str) -> float:
        done = subprocess.run([sys.executable, "-c", TRIM_PROBE, mode], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        applied, mib = done.stdout.split()
        assert applied == "True"
        return float(mib)

    assert returned("plain") < 8.0
    assert returned("trim") > 60.0


REUSE_PROBE = textwrap.dedent("""
    import resource
    import sys
    import numpy as np
    import psutil
    from explorer.app.memory import return_freed_buffers, reusing_buffers
    assert return_freed_buffers()

    def faults():  # pages the kernel handed out for 20 arrays of 4 MiB, each filled and freed
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(20):
            np.ones(1 << 19)
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    process = psutil.Process()
    with reusing_buffers():
        inside = faults()
        arrays = [np.ones(1 << 19) for _ in range(10)]
        pinned = [bytearray(64) for _ in range(1000)]  # small blocks allocated after them
        del arrays
        before = process.memory_info().rss
    kept = (process.memory_info().rss - before) / 2**20
    print(inside, faults(), kept)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator: Linux only")
def test_a_heavy_job_reuses_its_buffers_and_gives_them_back_after():
    """Inside reusing_buffers a freed 4 MiB array's pages serve the next one; after it, the threshold is fixed
    again (every array is a fresh mapping) and what the block freed has gone back to the system."""
    done = subprocess.run([sys.executable, "-c", REUSE_PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    inside, outside, kept = (float(x) for x in done.stdout.split())
    assert outside > 20 * 256, (inside, outside)  # every array faults its pages in again (here about 510 each)
    assert inside < outside / 10, (inside, outside)
    assert kept < -30.0, kept  # the ten freed arrays (40 MiB) left the process's memory
