"""What this server's host gives it: memory and CPU cores, read from the cgroup a container or a hosting service
sets (cgroup v2's memory.max and cpu.max, or v1's limit and quota), else from the machine. Streamlit Community
Cloud gives an app from 0.078 to 2 cores and 690 MB to 2.7 GB: the real-models page reads these to say what it
skips on a small host instead of running out of memory or keeping a visitor waiting for minutes.

ROPE_VIZ_MEMORY_GB and ROPE_VIZ_CORES set them by hand (a host whose limits are not visible from inside)."""

from __future__ import annotations

import os
from pathlib import Path

import psutil

CGROUP = Path("/sys/fs/cgroup")
MEMORY_ENV, CORES_ENV = "ROPE_VIZ_MEMORY_GB", "ROPE_VIZ_CORES"


def _number(path: Path) -> float | None:
    try:
        raw = path.read_text().split()
    except OSError:
        return None
    return float(raw[0]) if raw and raw[0].isdigit() else None


def env_number(name: str, *, zero: bool = False) -> float | None:
    """The number in environment variable `name` (None when unset): positive, or 0 too where `zero`; a
    ValueError naming the variable otherwise."""
    raw = os.environ.get(name)
    if raw is None:
        return None
    allowed = "a number, 0 or more" if zero else "a positive number"
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} must be {allowed}") from None
    if not (value >= 0 if zero else value > 0):
        raise ValueError(f"{name}={raw!r} must be {allowed}")
    return value


def memory_limit_bytes() -> float:
    """The memory this process may use in all: $ROPE_VIZ_MEMORY_GB, the cgroup's limit, else the machine's."""
    by_hand = env_number(MEMORY_ENV)
    if by_hand is not None:
        return by_hand * 1e9
    limits = [v for v in (_number(CGROUP / "memory.max"), _number(CGROUP / "memory" / "memory.limit_in_bytes"))
              if v is not None]
    return min([*limits, float(psutil.virtual_memory().total)])


def spare_memory_bytes() -> float:
    """What this process may still take: its limit less what it holds now."""
    return memory_limit_bytes() - psutil.Process().memory_info().rss


def cores() -> float:
    """The CPU cores this process may use: $ROPE_VIZ_CORES, the cgroup's quota, else the cores it may run on."""
    by_hand = env_number(CORES_ENV)
    if by_hand is not None:
        return by_hand
    count = float(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    for quota_file in (CGROUP / "cpu.max",):
        try:
            quota, period = quota_file.read_text().split()[:2]
        except (OSError, ValueError):
            continue
        if quota.isdigit() and period.isdigit() and int(period):
            count = min(count, int(quota) / int(period))
    quota, period = _number(CGROUP / "cpu" / "cpu.cfs_quota_us"), _number(CGROUP / "cpu" / "cpu.cfs_period_us")
    if quota and period:
        count = min(count, quota / period)
    return count
