"""bench.host's parts that can fail without timing: the cgroup folders and limits it writes (against a made-up
cgroup tree in a temp folder, read back by explorer.app.host as the app reads its own), the refusal where no cgroup
can be made, the wrapper that enters the cgroups before exec, and the readings of the kernel's counters."""

import subprocess
import sys

import pytest

from bench import host as bench_host
from bench.host import CannotLimit, Cgroup, Size, create, enter_command, server_env, skip_patterns, skipped
from explorer.app import host

SMALL = Size("0.25 core / 690 MB", 0.25, 690_000_000)


@pytest.fixture(autouse=True)
def no_limits_by_hand(monkeypatch):
    monkeypatch.delenv(host.MEMORY_ENV, raising=False)
    monkeypatch.delenv(host.CORES_ENV, raising=False)


def v1_tree(tmp_path, memory="/a/b", cpu="/c"):
    root = tmp_path / "cgroup"
    (root / "memory" / memory.strip("/")).mkdir(parents=True)
    (root / "cpu,cpuacct" / cpu.strip("/")).mkdir(parents=True)
    proc = tmp_path / "proc_cgroup"
    proc.write_text(f"9:name=systemd:/\n4:memory:{memory}\n1:cpu,cpuacct:{cpu}\n0::/\n")
    return root, proc


def test_v1_limits_are_written_below_the_process_own_cgroups_and_the_app_reads_them(tmp_path):
    root, proc = v1_tree(tmp_path)
    group = create("size", SMALL, root, proc)
    memory, cpu = root / "memory" / "a" / "b" / "size", root / "cpu,cpuacct" / "c" / "size"
    assert group.version == 1 and group.folders == {"memory": memory, "cpu": cpu}
    assert (memory / "memory.limit_in_bytes").read_text() == "690000000"
    assert not (memory / "memory.memsw.limit_in_bytes").exists()  # optional: only where the kernel offers it
    assert (cpu / "cpu.cfs_period_us").read_text() == "100000"
    assert (cpu / "cpu.cfs_quota_us").read_text() == "25000"
    assert group.procs_files() == [memory / "cgroup.procs", cpu / "cgroup.procs"]
    inside = tmp_path / "proc_inside"
    inside.write_text("4:memory:/a/b/size\n1:cpu,cpuacct:/c/size\n")
    assert host.memory_limit_bytes(root, inside) == 690e6
    assert host.cores(root, inside) == 0.25


def test_v2_limits_are_written_in_a_child_of_the_root_with_its_controllers_enabled(tmp_path):
    root = tmp_path / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (root / "cgroup.subtree_control").write_text("")
    proc = tmp_path / "proc_cgroup"
    proc.write_text("0::/\n")
    group = create("size", Size("1 core / 1 GB", 1.0, 1_000_000_000), root, proc)
    assert group.version == 2 and group.folders == {"": root / "size"}
    assert (root / "cgroup.subtree_control").read_text() == "+memory +cpu"
    assert (root / "size" / "memory.max").read_text() == "1000000000"
    assert (root / "size" / "cpu.max").read_text() == "100000 100000"
    inside = tmp_path / "proc_inside"
    inside.write_text("0::/size\n")
    assert host.memory_limit_bytes(root, inside) == 1e9
    assert host.cores(root, inside) == 1.0


def test_no_cgroup_controllers_is_refused(tmp_path):
    (tmp_path / "cgroup").mkdir()
    with pytest.raises(CannotLimit, match="neither cgroup v2 nor"):
        create("size", SMALL, tmp_path / "cgroup", tmp_path / "none")


def test_v2_without_the_memory_controller_is_refused(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpu io pids\n")
    with pytest.raises(CannotLimit, match="not both memory and cpu"):
        create("size", SMALL, tmp_path, tmp_path / "none")


def test_a_failure_halfway_leaves_no_cgroup_behind(tmp_path, monkeypatch):
    root, proc = v1_tree(tmp_path)
    proc.write_text("4:memory:/a/b\n1:cpu,cpuacct:/gone\n")  # the cpu parent does not exist: mkdir fails
    discarded = []
    monkeypatch.setattr(bench_host, "_discard", discarded.append)  # a temp folder keeps its files; cgroupfs would not
    with pytest.raises(CannotLimit, match="cannot create the cgroup"):
        create("size", SMALL, root, proc)
    assert discarded == [root / "memory" / "a" / "b" / "size"]


def test_the_bench_stops_without_faking_limits_where_it_cannot_make_a_cgroup(tmp_path, monkeypatch, capsys):
    def no_server(*args, **kwargs):
        raise AssertionError("a server was started without a cgroup")
    monkeypatch.setattr(bench_host, "streamlit_server", no_server)
    (tmp_path / "cgroup").mkdir()
    assert bench_host.main(["--out", str(tmp_path / "out.json")], tmp_path / "cgroup", tmp_path / "none") == 2
    said = capsys.readouterr().err
    assert "cannot create the cgroups" in said and "not faked with ROPE_VIZ_MEMORY_GB" in said
    assert not (tmp_path / "out.json").exists()


def test_the_server_environment_has_no_limits_set_by_hand(monkeypatch):
    monkeypatch.setenv(host.MEMORY_ENV, "0.69")
    monkeypatch.setenv(host.CORES_ENV, "0.25")
    monkeypatch.setenv("ROPE_VIZ_UNRELATED", "kept")
    env = server_env()
    assert host.MEMORY_ENV not in env and host.CORES_ENV not in env and env["ROPE_VIZ_UNRELATED"] == "kept"


def test_the_wrapper_writes_its_pid_into_each_cgroup_then_execs_the_command_as_that_pid(tmp_path):
    files = [tmp_path / "memory.procs", tmp_path / "cpu.procs"]
    done = subprocess.run([*enter_command(files), sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    pid = done.stdout.strip()
    assert pid.isdigit() and [f.read_text().strip() for f in files] == [pid, pid]


def test_the_wrapper_runs_nothing_when_it_cannot_enter_a_cgroup(tmp_path):
    files = [tmp_path / "memory.procs", tmp_path / "missing" / "cpu.procs"]
    done = subprocess.run([*enter_command(files), sys.executable, "-c", "print('ran')"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 97 and "ran" not in done.stdout


def test_v1_counters_are_read(tmp_path):
    memory, cpu = tmp_path / "memory", tmp_path / "cpu"
    memory.mkdir()
    cpu.mkdir()
    (memory / "memory.failcnt").write_text("3\n")
    (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    (memory / "memory.max_usage_in_bytes").write_text("689999872\n")
    (cpu / "cpu.stat").write_text("nr_periods 10\nnr_throttled 4\nthrottled_time 2500000000\n")
    assert Cgroup(1, {"memory": memory, "cpu": cpu}).stats() == {
        "limit_hits": 3, "oom_kills": 2, "peak_mb": 689.999872, "throttled_periods": 4, "throttled_s": 2.5}


def test_v2_counters_are_read(tmp_path):
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\noom_group_kill 0\n")
    (tmp_path / "memory.peak").write_text("1000000000\n")
    (tmp_path / "cpu.stat").write_text("usage_usec 9\nnr_periods 20\nnr_throttled 7\nthrottled_usec 1500000\n")
    assert Cgroup(2, {"": tmp_path}).stats() == {
        "limit_hits": 5, "oom_kills": 1, "peak_mb": 1000.0, "throttled_periods": 7, "throttled_s": 1.5}


def test_remove_takes_the_folders_away(tmp_path):
    root, proc = v1_tree(tmp_path)
    group = create("size", SMALL, root, proc)
    for folder in group.folders.values():  # a real cgroup's files vanish with it; a temp folder's must go first
        for file in folder.iterdir():
            file.unlink()
    group.remove()
    assert not any(folder.exists() for folder in group.folders.values())


def test_the_page_notices_of_what_it_skips_are_recognised():
    few = ("This server has 0.25 of a CPU core (fewer than 0.5), so the sections below, each about ten passes of the "
           "model, are not measured for a text of your own: they would keep you waiting for minutes.")
    memory = ("SmolLM2-135M needs about 0.65 GB of memory once it has run, and this server has 0.31 GB to spare, so "
              "it is not loaded here")
    said = skipped([few[:300], memory, "Something else entirely."], skip_patterns())
    assert said == ["few_cores (cores 0.25, least 0.5)", "no_memory (model SmolLM2-135M, need 0.65, spare 0.31)"]


def measured_row(**changes):
    """A size's row as measure_size writes it: every visit served, nothing killed, the limits read inside."""
    visit = {"ok": True, "exceptions": []}
    row = {"cores": 0.25, "memory_bytes": 690_000_000, "host_sees": {"memory_bytes": 689_999_872.0, "cores": 0.25},
           "pages": {f"page{i}": visit for i in range(19)}, "real_models": {f"case{i}": visit for i in range(3)},
           "class": {"served": 10, "exceptions": []}, "log_tracebacks": 0, "exit_code": None,
           "stats": {"oom_kills": 0}}
    return {**row, **changes}


def test_a_size_passes_when_all_is_served_nothing_killed_and_the_limits_are_read():
    assert bench_host.verdict(measured_row()) == {"served": 32, "wanted": 32, "tracebacks": 0, "killed": False,
                                                  "sees_limits": True, "pass": True}


@pytest.mark.parametrize("changes, failing", [
    ({"exit_code": -9}, "killed"),                                       # SIGKILL: the kernel's OOM killer
    ({"stats": {"oom_kills": 1}}, "killed"),
    ({"log_tracebacks": 1}, "tracebacks"),
    ({"class": {"served": 9, "exceptions": []}}, "served"),
    ({"host_sees": {"memory_bytes": 24e9, "cores": 0.25}}, "sees_limits"),   # the machine's memory, not the cgroup's
    ({"host_sees": {"memory_bytes": 689_999_872.0, "cores": 2.0}}, "sees_limits"),
])
def test_a_size_fails_on_a_kill_a_traceback_a_lost_visit_or_limits_not_read(changes, failing):
    found = bench_host.verdict(measured_row(**changes))
    assert not found["pass"]
    assert found[failing] != bench_host.verdict(measured_row())[failing]


def test_each_size_visits_every_page_both_models_an_own_text_and_a_class(monkeypatch):
    from types import SimpleNamespace
    from urllib.parse import parse_qs

    from explorer.pure.sitemap import URLS
    from support.protocol import Run, Visit

    asked = []

    async def fake_visit(url, page="", query="", **options):
        asked.append((page, query))
        return Visit(0, 0.0, 0.0, Run(page, query, finished_s=0.1, status="FINISHED_SUCCESSFULLY"))

    async def fake_sessions(url, pages, **options):
        return [Visit(i, 0.0, 0.0, Run(p, q, finished_s=0.2, status="FINISHED_SUCCESSFULLY"))
                for i, (p, q) in enumerate(pages)]
    monkeypatch.setattr(bench_host, "visit", fake_visit)
    monkeypatch.setattr(bench_host, "run_sessions", fake_sessions)
    found = bench_host.visit_all("http://127.0.0.1:1", SimpleNamespace(timeout=9.0, class_page="relative-attention"))
    assert [page for page, _ in asked[:len(URLS)]] == list(URLS)
    real = [parse_qs(query) for page, query in asked[len(URLS):] if page == "real-models"]
    assert [q["model"] for q in real] == [["smollm2-135m"], ["gemma-3-270m"], ["smollm2-135m"]]
    assert "text" not in real[0] and "text" not in real[1] and len(real[2]["text"][0]) > 1000
    assert found["class"]["served"] == found["class"]["sessions"] == 10
    assert set(found["pages"]) == {url or "home" for url in URLS}
