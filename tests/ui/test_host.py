"""explorer.app.host: the memory and CPU limits of the app's own cgroup (the path /proc/self/cgroup names, and every
cgroup above it), cgroup v1 and v2, read from a fake /proc and /sys tree."""

from pathlib import Path

import psutil
import pytest

from explorer.app import host

MACHINE = float(psutil.virtual_memory().total)


def tree(tmp_path: Path, proc_lines: str, files: dict[str, str]) -> tuple[Path, Path]:
    root = tmp_path / "sys" / "fs" / "cgroup"
    root.mkdir(parents=True)
    for name, value in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(value + "\n")
    proc = tmp_path / "proc" / "self" / "cgroup"
    proc.parent.mkdir(parents=True)
    proc.write_text(proc_lines)
    return root, proc


@pytest.fixture(autouse=True)
def no_hand_limits(monkeypatch):
    monkeypatch.delenv(host.MEMORY_ENV, raising=False)
    monkeypatch.delenv(host.CORES_ENV, raising=False)


def test_v1_limits_of_a_child_cgroup(tmp_path):
    root, proc = tree(tmp_path, "12:memory:/app/web\n11:cpu,cpuacct:/app/web\n3:pids:/\n", {
        "memory/memory.limit_in_bytes": "9223372036854771712",  # the root: no limit
        "memory/app/web/memory.limit_in_bytes": "690000000",
        "cpu,cpuacct/app/web/cpu.cfs_quota_us": "25000",
        "cpu,cpuacct/app/web/cpu.cfs_period_us": "100000",
        "cpu,cpuacct/cpu.cfs_quota_us": "-1",
        "cpu,cpuacct/cpu.cfs_period_us": "100000",
    })
    assert host.memory_limit_bytes(root, proc) == 690e6
    assert host.cores(root, proc) == pytest.approx(0.25)


def test_v2_limits_of_a_child_cgroup_and_its_parent(tmp_path):
    root, proc = tree(tmp_path, "0::/system.slice/app.service\n", {
        "memory.max": "max",
        "system.slice/memory.max": "2700000000",  # the parent's limit holds for the child
        "system.slice/app.service/memory.max": "max",
        "system.slice/app.service/cpu.max": "100000 100000",
        "system.slice/cpu.max": "max 100000",
    })
    assert host.memory_limit_bytes(root, proc) == 2.7e9
    assert host.cores(root, proc) == pytest.approx(min(1.0, host.cores(tmp_path / "none", proc)))


def test_no_limit_anywhere_gives_the_machine(tmp_path):
    root, proc = tree(tmp_path, "0::/\n", {"memory.max": "max"})
    assert host.memory_limit_bytes(root, proc) == MACHINE
    assert host.memory_limit_bytes(tmp_path / "absent", tmp_path / "absent") == MACHINE


def test_own_cgroups_reads_both_versions(tmp_path):
    _, proc = tree(tmp_path, "4:memory:/a/b\n1:cpu,cpuacct:/c\n0::/d\nbroken line\n", {})
    found = host.own_cgroups(proc)
    assert {k: str(v) for k, v in found.items()} == {"memory": "/a/b", "cpu": "/c", "cpuacct": "/c", "": "/d"}


def test_limits_by_hand_win(tmp_path, monkeypatch):
    root, proc = tree(tmp_path, "12:memory:/app\n", {"memory/app/memory.limit_in_bytes": "690000000"})
    monkeypatch.setenv(host.MEMORY_ENV, "1.5")
    monkeypatch.setenv(host.CORES_ENV, "0.5")
    assert host.memory_limit_bytes(root, proc) == 1.5e9 and host.cores(root, proc) == 0.5
