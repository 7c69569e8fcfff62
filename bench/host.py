"""The app at the small end of free hosting, for real: the server run inside a cgroup this bench creates, at the
sizes Streamlit Community Cloud gives (2 cores / 2.7 GB down to a quarter of a core / 690 MB).

    python -m bench.host                                 # the three sizes
    python -m bench.host --sizes 0.25                    # one size, by its cores
    python -m bench.host --class-page relative-attention # the page the class of ten opens (default)

Per size, a fresh cgroup is made (cgroup v2 where /sys/fs/cgroup is v2: memory.max and cpu.max in a child of the
root; cgroup v1 otherwise: memory.limit_in_bytes in a child of this process's own memory cgroup, the one
/proc/self/cgroup names, and cpu.cfs_quota_us / cpu.cfs_period_us in a child of its own cpu cgroup). The server is
started through a small shell wrapper that writes its own pid into each cgroup.procs and then execs Streamlit, so
the server and anything it starts are limited from their first instruction. Before it, the same wrapper runs
explorer.app.host in the cgroup, to check that the app's own reading of its limits (the rule behind what the
real-models page skips) sees the cgroup's and not the machine's.

Against each size, at the websocket protocol (support.protocol, no browser): every page's first visit in the site's
order, then the real-models page with each model's example and with an own text of 256 tokens (SmolLM2), then a
class of CLASS sessions opening one link at once. Reported per size: pages served, tracebacks (exception elements
and tracebacks in the server's output: must be 0), whether the kernel killed anything for memory (v1
memory.oom_control's oom_kill, v2 memory.events') and the server's exit, how often the memory limit was hit and
the peak, the CPU time throttled (which shows the quota held), what the real-models page says it skips, the first
visit of each page. The cgroups are removed afterwards.

Where this machine cannot create the cgroups (no controllers, not allowed), the bench says why and stops: it never
falls back to ROPE_VIZ_MEMORY_GB or ROPE_VIZ_CORES, which are removed from the server's environment. Prints a
table beside the CPU's model, torch's CPU capability and the load average; writes bench-results/host.json; exits 1
when a page was not served, a traceback was seen, the server was killed for memory or the app did not read the
cgroup's limits; 2 when it cannot create cgroups.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlencode

import psutil

from bench.real_models_live import own_text
from explorer.app.host import CGROUP, CORES_ENV, MEMORY_ENV, PROC_CGROUP, own_cgroups
from explorer.pure.sitemap import URLS
from rope_viz.real.speed import cpu_kind, cpu_label
from support.protocol import percentile, run_sessions, visit
from support.server import ROOT, UsageSampler, streamlit_server

RESULTS = ROOT / "bench-results" / "host.json"
PERIOD_US = 100_000
PAGE_BYTES = 4096  # v1 rounds a memory limit down to a whole page
CLASS = 10
TIMEOUT_S = 900.0
REAL_PAGE = "real-models"
REAL_CASES = ("example, SmolLM2", "example, Gemma 3", "own text, SmolLM2")
SKIP_KEYS = ("no_memory", "few_cores", "traps_asked", "missing")  # the real-models page's notices of what it skips
HOST_PROBE = ("import json; from explorer.app import host; "
              "print(json.dumps({'memory_bytes': host.memory_limit_bytes(), 'cores': host.cores()}))")


@dataclass(frozen=True)
class Size:
    """One hosting size: its name, CPU cores (a CFS quota) and memory in bytes."""

    name: str
    cores: float
    memory_bytes: int


SIZES = (Size("2 cores / 2.7 GB", 2.0, 2_700_000_000), Size("1 core / 1 GB", 1.0, 1_000_000_000),
         Size("0.25 core / 690 MB", 0.25, 690_000_000))


class CannotLimit(RuntimeError):
    """This machine does not let this process create a cgroup with memory and CPU limits (the message says why)."""


@dataclass(frozen=True)
class Cgroup:
    """A cgroup made for one size: its version and its folders ({"memory": .., "cpu": ..} for v1, {"": ..} for v2)."""

    version: int
    folders: dict[str, Path]

    def procs_files(self) -> list[Path]:
        return [folder / "cgroup.procs" for folder in self.folders.values()]

    def stats(self) -> dict:
        """How often the memory limit was met, the kernel's OOM kills, the peak memory and the CPU throttling."""
        if self.version == 2:
            folder = self.folders[""]
            events, cpu = _pairs(folder / "memory.events"), _pairs(folder / "cpu.stat")
            peak = _pairs(folder / "memory.peak", single=True).get("")
            return {"limit_hits": events.get("max", 0), "oom_kills": events.get("oom_kill", 0),
                    "peak_mb": None if peak is None else peak / 1e6, "throttled_periods": cpu.get("nr_throttled", 0),
                    "throttled_s": cpu.get("throttled_usec", 0) / 1e6}
        memory, cpu_folder = self.folders["memory"], self.folders["cpu"]
        oom, cpu = _pairs(memory / "memory.oom_control"), _pairs(cpu_folder / "cpu.stat")
        peak = _pairs(memory / "memory.max_usage_in_bytes", single=True).get("")
        return {"limit_hits": _pairs(memory / "memory.failcnt", single=True).get("", 0),
                "oom_kills": oom.get("oom_kill", 0), "peak_mb": None if peak is None else peak / 1e6,
                "throttled_periods": cpu.get("nr_throttled", 0), "throttled_s": cpu.get("throttled_time", 0) / 1e9}

    def remove(self, wait_s: float = 30.0) -> None:
        """Remove the folders (the kernel allows it once no process is left in them)."""
        deadline = time.monotonic() + wait_s
        for folder in self.folders.values():
            while folder.exists():
                try:
                    folder.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)


def _pairs(path: Path, single: bool = False) -> dict[str, int]:
    """The integers of a cgroup file: "key value" lines, or its one number under "" where `single` ({} if unread)."""
    try:
        text = path.read_text()
    except OSError:
        return {}
    if single:
        return {"": int(text.split()[0])} if text.split() and text.split()[0].isdigit() else {}
    return {k: int(v) for k, v in (line.split()[:2] for line in text.splitlines() if len(line.split()) >= 2)
            if v.lstrip("-").isdigit()}


def _make(folder: Path, settings: list[tuple[str, str, bool]], made: list[Path]) -> None:
    """Create cgroup `folder` and write its (file, value, required) settings; an optional file is written only where
    the kernel offers it."""
    try:
        folder.mkdir()
    except OSError as error:
        raise CannotLimit(f"cannot create the cgroup {folder}: {error.strerror or error}") from None
    made.append(folder)
    for name, value, required in settings:
        target = folder / name
        if not required and not target.exists():
            continue
        try:
            target.write_text(value)
        except OSError as error:
            raise CannotLimit(f"cannot write {value} to {target}: {error.strerror or error}") from None


def create(name: str, size: Size, root: Path = CGROUP, proc: Path = PROC_CGROUP) -> Cgroup:
    """A new cgroup `name` limited to `size` (v2 under the root where the root is v2; else v1 under this process's
    own memory and cpu cgroups), or CannotLimit saying why not, with nothing left behind."""
    quota = f"{round(size.cores * PERIOD_US)}"
    made: list[Path] = []
    try:
        if (root / "cgroup.controllers").is_file():
            offered = set((root / "cgroup.controllers").read_text().split())
            if not {"memory", "cpu"} <= offered:
                raise CannotLimit(f"cgroup v2 at {root} offers {sorted(offered)}, not both memory and cpu")
            try:
                (root / "cgroup.subtree_control").write_text("+memory +cpu")
            except OSError as error:
                raise CannotLimit(f"cannot enable memory and cpu for {root}'s children: "
                                  f"{error.strerror or error}") from None
            folder = root / name
            _make(folder, [("memory.max", str(size.memory_bytes), True), ("memory.swap.max", "0", False),
                           ("cpu.max", f"{quota} {PERIOD_US}", True)], made)
            return Cgroup(2, {"": folder})
        cpu_mount = next((root / n for n in ("cpu", "cpu,cpuacct") if (root / n).is_dir()), None)
        if not (root / "memory").is_dir() or cpu_mount is None:
            raise CannotLimit(f"{root} has neither cgroup v2 nor the v1 memory and cpu controllers")
        own = own_cgroups(proc)
        folders = {"memory": root / "memory" / _relative(own.get("memory")) / name,
                   "cpu": cpu_mount / _relative(own.get("cpu")) / name}
        _make(folders["memory"], [("memory.limit_in_bytes", str(size.memory_bytes), True),
                                  ("memory.memsw.limit_in_bytes", str(size.memory_bytes), False)], made)
        _make(folders["cpu"], [("cpu.cfs_period_us", str(PERIOD_US), True), ("cpu.cfs_quota_us", quota, True)], made)
        return Cgroup(1, folders)
    except CannotLimit:
        for folder in reversed(made):
            _discard(folder)
        raise


def _discard(folder: Path) -> None:
    """Remove a cgroup folder made for nothing (cgroupfs removes a cgroup's files with its folder)."""
    with contextlib.suppress(OSError):
        folder.rmdir()


def _relative(path: PurePosixPath | None) -> PurePosixPath:
    return PurePosixPath(".") if path is None else path.relative_to("/")


def enter_command(procs_files: list[Path]) -> list[str]:
    """The wrapper put before a command: a shell that writes its own pid into each cgroup.procs, then execs the
    command (same pid), so that the command and all it starts run inside the cgroups; exits 97 without running the
    command when a write fails."""
    script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 97; shift; done; shift; exec "$@"'
    return ["sh", "-c", script, "enter-cgroups", *map(str, procs_files), "--"]


def server_env() -> dict[str, str]:
    """This environment without the variables that set the app's limits by hand: the cgroup alone must set them."""
    return {k: v for k, v in os.environ.items() if k not in (MEMORY_ENV, CORES_ENV)}


def host_view(prefix: list[str]) -> dict:
    """What explorer.app.host reads, run inside the cgroups."""
    done = subprocess.run([*prefix, sys.executable, "-c", HOST_PROBE], cwd=ROOT, env=server_env(),
                          capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise RuntimeError(f"reading the limits inside the cgroup failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def skip_patterns(text_file: Path = ROOT / "explorer" / "pure" / "text" / "en" / "real_models.toml") -> dict:
    """{key: regex} matching the start of each notice by which the real-models page says what it skips (up to its
    last placeholder and the next word, since a notice is kept cut to 300 characters)."""
    texts = tomllib.loads(text_file.read_text(encoding="utf-8"))
    patterns = {}
    for key in SKIP_KEYS:
        last = texts[key].rindex("}") + 1
        space = texts[key].find(" ", last)
        template = texts[key][:len(texts[key]) if space < 0 else space + 1]  # and the text up to the next space
        pieces = re.split(r"\{(\w+)\}", template)
        patterns[key] = re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)"
                                           for i, p in enumerate(pieces)))
    return patterns


def skipped(notices: list[str], patterns: dict) -> list[str]:
    """The page's notices of what it skips, as "key (its values)"."""
    found = []
    for notice in notices:
        for key, pattern in patterns.items():
            if match := pattern.search(notice):
                values = ", ".join(f"{k} {v}" for k, v in match.groupdict().items())
                found.append(f"{key} ({values})")
    return found


def _run_row(run) -> dict:
    return {"ok": run.ok, "end_s": run.finished_s, "first_chart_s": run.first_chart_s, "charts": run.charts,
            "exceptions": run.exceptions, "error": run.error, "notices": [text for _, text in run.notices]}


def measure_size(size: Size, args, root: Path, proc: Path) -> dict:
    group = create(f"rope-explorer-bench-{os.getpid()}-{size.cores:g}", size, root, proc)
    row: dict = {"size": size.name, "cores": size.cores, "memory_bytes": size.memory_bytes,
                 "cgroup": {"version": group.version, "folders": {k: str(v) for k, v in group.folders.items()}},
                 "load_before": psutil.getloadavg()}
    try:
        prefix = enter_command(group.procs_files())
        row["host_sees"] = host_view(prefix)
        started = time.perf_counter()
        try:
            with streamlit_server(prefix=prefix, env=server_env(), startup_timeout=600) as server, \
                    UsageSampler(server.process.pid) as sampler:
                row["start_s"] = time.perf_counter() - started
                row.update(visit_all(server.url, args))
                row["exit_code"] = server.process.poll()  # None: still running at the end
                row["peak_rss_mb"] = sampler.peak_rss_mb
                log = server.log_tail(400_000)
        except RuntimeError as error:  # the server did not come up (or died while starting)
            row.update(start_error=str(error)[-3000:], exit_code="did not start")
            log = str(error)
        row["log_tracebacks"] = log.count("Traceback (most recent call last)")
        row["log_tail"] = log[-6000:]
        row["stats"] = group.stats()
    finally:
        group.remove()
    row["load_after"] = psutil.getloadavg()
    return row


def visit_all(url: str, args) -> dict:
    async def go():
        pages = {}
        for page in URLS:
            pages[page or "home"] = _run_row((await visit(url, page, "", timeout=args.timeout)).run)
        own = urlencode({"model": "smollm2-135m", "text": own_text(0)})  # 256 tokens of the stdlib's docstrings
        queries = ("model=smollm2-135m", "model=gemma-3-270m", own)
        real = {}
        for name, query in zip(REAL_CASES, queries):
            real[name] = _run_row((await visit(url, REAL_PAGE, query, timeout=args.timeout)).run)
        crowd = await run_sessions(url, [(args.class_page, "")] * CLASS, spread_s=1.0, timeout=args.timeout)
        return pages, real, crowd

    pages, real, crowd = asyncio.run(go())
    ends = [v.run.finished_s for v in crowd if v.run.ok and v.run.finished_s is not None]
    return {"pages": pages, "real_models": real,
            "class": {"page": args.class_page, "served": sum(v.run.ok for v in crowd), "sessions": len(crowd),
                      "p50_s": percentile(ends, 0.5), "p95_s": percentile(ends, 0.95),
                      "exceptions": [e for v in crowd for e in v.run.exceptions],
                      "errors": [v.run.error for v in crowd if v.run.error]}}


def verdict(row: dict) -> dict:
    """Counts the table shows and the checks: pages served, tracebacks, killed for memory, and whether the app read the
    cgroup's limits (memory within the page the kernel rounds a limit down to)."""
    runs = [*row.get("pages", {}).values(), *row.get("real_models", {}).values()]
    crowd = row.get("class", {})
    tracebacks = sum(len(r["exceptions"]) for r in runs) + len(crowd.get("exceptions", [])) + row["log_tracebacks"]
    killed = row["stats"]["oom_kills"] > 0 or row.get("exit_code") is not None
    served = sum(r["ok"] for r in runs) + crowd.get("served", 0)
    wanted = len(URLS) + len(REAL_CASES) + CLASS
    seen = row["host_sees"]
    sees = (0 <= row["memory_bytes"] - seen["memory_bytes"] < PAGE_BYTES and seen["cores"] == row["cores"])
    return {"served": served, "wanted": wanted, "tracebacks": tracebacks, "killed": killed, "sees_limits": sees,
            "pass": served == wanted and tracebacks == 0 and not killed and sees}


def _fmt(value, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def print_table(rows: list[dict], cpu: dict) -> None:
    patterns = skip_patterns()
    print(f"\nthe app in a cgroup per hosting size; {cpu_label(cpu)}, {psutil.cpu_count()} CPUs, "
          f"load average (1 min) {', '.join(_fmt(r['load_before'][0]) for r in rows)} before each size")
    print("| size | cgroup | host.py reads inside | server start s | served | tracebacks | killed for memory | "
          "peak MB: RSS / charged to the cgroup | CPU throttled s | first page after the start s | "
          "other first visits s: median / max (page) | "
          "real models s: example SmolLM2, example Gemma 3, own text | class of 10: p95 s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        v, s = verdict(r), r["stats"]
        pages = r.get("pages", {})
        home = pages.get("home", {}).get("end_s")  # the first visit of all: it imports torch, Plotly and the router
        firsts = {p: x["end_s"] for p, x in pages.items() if x["end_s"] is not None and p != "home"}
        slowest = max(firsts, key=firsts.__getitem__) if firsts else None
        real = ", ".join(_fmt(x["end_s"]) for x in r.get("real_models", {}).values())
        seen = r["host_sees"]
        print(f"| {r['size']} | v{r['cgroup']['version']} | {seen['memory_bytes'] / 1e9:.2f} GB, "
              f"{seen['cores']:g} CPU | {_fmt(r.get('start_s'))} | {v['served']}/{v['wanted']} | {v['tracebacks']} | "
              f"{'YES' if v['killed'] else 'no'} ({s['oom_kills']} OOM kills, limit hit {s['limit_hits']}×) | "
              f"{_fmt(r.get('peak_rss_mb'), 0)} / {_fmt(s['peak_mb'], 0)} | {_fmt(s['throttled_s'])} | {_fmt(home)} | "
              f"{_fmt(percentile(list(firsts.values()), 0.5))} / {_fmt(firsts.get(slowest))} ({slowest}) | {real} | "
              f"{_fmt(r.get('class', {}).get('p95_s'))} |")
    for r in rows:
        print(f"\n{r['size']}: the real-models page says it skips:")
        for case, x in r.get("real_models", {}).items():
            said = skipped(x["notices"], patterns)
            print(f"  {case}: {'; '.join(said) if said else 'nothing'}")
        print("  first visits (s): " + ", ".join(f"{p} {_fmt(x['end_s'])}{'' if x['ok'] else ' FAILED'}"
                                                   for p, x in r.get("pages", {}).items()))


def main(argv: list[str] | None = None, root: Path = CGROUP, proc: Path = PROC_CGROUP) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=float, default=[s.cores for s in SIZES],
                        choices=[s.cores for s in SIZES], help="the sizes to run, by their cores (default all)")
    parser.add_argument("--class-page", default="relative-attention", help="the link the class of ten opens")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S, help="seconds allowed per visit")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"JSON results (default {RESULTS})")
    args = parser.parse_args(argv)
    cpu = cpu_kind()
    rows = []
    started = time.perf_counter()
    for size in (s for s in SIZES if s.cores in args.sizes):
        print(f"== {size.name} ==", flush=True)
        try:
            rows.append(measure_size(size, args, root, proc))
        except CannotLimit as why:
            print(f"this machine cannot create the cgroups this bench needs: {why}.\nStopping: the limits are "
                  f"not faked with {MEMORY_ENV} or {CORES_ENV}; run it as root on a host with cgroup v1 memory and "
                  "cpu controllers or cgroup v2.", file=sys.stderr)
            return 2
        rows[-1]["verdict"] = verdict(rows[-1])
        print(json.dumps(rows[-1]["verdict"]), flush=True)
    print_table(rows, cpu)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"cpu": cpu, "cpus": psutil.cpu_count(), "class_size": CLASS, "sizes": rows,
                                    "wall_s": time.perf_counter() - started}, indent=1), encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0 if all(r["verdict"]["pass"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
