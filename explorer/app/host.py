"""What this server's host gives it: memory and CPU cores, read from the cgroup a container or a hosting service
sets (cgroup v2's memory.max and cpu.max, or v1's limit and quota) at this process's own cgroup (the path
/proc/self/cgroup names, where systemd or a container host places it) and each cgroup above it, else from the
machine. Streamlit Community
Cloud gives an app from 0.078 to 2 cores and 690 MB to 2.7 GB: the real-models page reads these to say what it
skips on a small host instead of running out of memory or keeping a visitor waiting for minutes.

ROPE_VIZ_MEMORY_GB and ROPE_VIZ_CORES set them by hand (a host whose limits are not visible from inside)."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import psutil

CGROUP = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")  # this process's own cgroups: a host limits a child cgroup, not the root
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


def own_cgroups(proc: Path = PROC_CGROUP) -> dict[str, PurePosixPath]:
    """{controller: this process's cgroup path} from /proc/self/cgroup: cgroup v1 lines "4:memory:/a/b" (one entry
    per controller, "cpu,cpuacct" split), the v2 line "0::/a/b" under the key "" ({} where it cannot be read)."""
    try:
        lines = proc.read_text().splitlines()
    except OSError:
        return {}
    found = {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[2].startswith("/"):
            for controller in parts[1].split(",") if parts[1] else [""]:
                found[controller] = PurePosixPath(parts[2])
    return found


def _chain(folder: Path, path: PurePosixPath | None) -> list[Path]:
    """`folder` joined with `path` and with each of its ancestors up to `folder` itself (a limit set higher up holds
    for every cgroup below it), the ones that exist."""
    if path is None:
        return [folder]
    relative = path.relative_to("/")
    steps = [relative, *relative.parents]
    return [folder / step for step in steps if (folder / step).is_dir()]


def _cgroup_files(root: Path, proc: Path, v2_name: str | None, v1_controller: str | None, v1_name: str) -> list[Path]:
    """The files holding one limit for this process (v2 and v1) at its own cgroup and every ancestor."""
    own = own_cgroups(proc)
    files = [folder / v2_name for folder in _chain(root, own.get(""))] if v2_name else []
    if v1_controller:
        for mount in (root / v1_controller, *([root / "cpu,cpuacct"] if v1_controller == "cpu" else [])):
            if mount.is_dir():
                files += [folder / v1_name for folder in _chain(mount, own.get(v1_controller))]
                break
    return files


def memory_limit_bytes(root: Path = CGROUP, proc: Path = PROC_CGROUP) -> float:
    """The memory this process may use in all: $ROPE_VIZ_MEMORY_GB, the smallest limit of its own cgroup and their
    ancestors (v2 memory.max, v1 memory.limit_in_bytes), else the machine's."""
    by_hand = env_number(MEMORY_ENV)
    if by_hand is not None:
        return by_hand * 1e9
    files = _cgroup_files(root, proc, "memory.max", "memory", "memory.limit_in_bytes")
    limits = [v for v in map(_number, files) if v is not None]
    return min([*limits, float(psutil.virtual_memory().total)])


def spare_memory_bytes() -> float:
    """What this process may still take: its limit less what it holds now."""
    return memory_limit_bytes() - psutil.Process().memory_info().rss


def cores(root: Path = CGROUP, proc: Path = PROC_CGROUP) -> float:
    """The CPU cores this process may use: $ROPE_VIZ_CORES, the smallest quota of its own cgroup and their ancestors
    (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us), else the cores it may run on."""
    by_hand = env_number(CORES_ENV)
    if by_hand is not None:
        return by_hand
    count = float(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    for quota_file in _cgroup_files(root, proc, "cpu.max", None, ""):
        try:
            quota, period = quota_file.read_text().split()[:2]
        except (OSError, ValueError):
            continue
        if quota.isdigit() and period.isdigit() and int(period):
            count = min(count, int(quota) / int(period))
    for quota_file in _cgroup_files(root, proc, None, "cpu", "cpu.cfs_quota_us"):
        quota, period = _number(quota_file), _number(quota_file.with_name("cpu.cfs_period_us"))
        if quota and period:
            count = min(count, quota / period)
    return count
