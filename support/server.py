"""The one way tests, benchmarks and the load script start the app and a browser, and watch its server.

`streamlit_server()` runs `streamlit run app.py` on a free loopback port, waits until
`/_stcore/health` answers "ok", yields the running `Server`, and stops it on exit.
`launch_chromium()` starts Debian's Chromium through Playwright, and `wait_for_app()` waits until a
page has connected, finished its script run and drawn all its charts. Both take either Playwright
API: with the async one, await what they return.
`usage(pid)` reads a server's resident memory and CPU seconds (the process and all its children), and
`UsageSampler` samples them in a background thread while a benchmark runs.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterator, Mapping, Sequence

import psutil

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic")

# True once the app is connected, its script run has ended, no element in the main area is still a
# loading skeleton (charts load their code lazily, after the run) and every chart has drawn its svg.
_APP_READY = """() => {
    const app = document.querySelector('[data-testid=stApp]');
    if (!app || app.dataset.testConnectionState !== 'CONNECTED'
            || app.dataset.testScriptState !== 'notRunning') return false;
    const main = document.querySelector('[data-testid=stMain]');
    if (!main || main.querySelector('[data-testid=stSkeleton]')) return false;
    return [...main.querySelectorAll('[data-testid=stPlotlyChart]')].every(c => c.querySelector('.main-svg'));
}"""


@dataclass(frozen=True)
class Server:
    """A running app: its base URL (no trailing slash), the streamlit process and its output file."""

    url: str
    process: subprocess.Popen
    log: Path

    def log_tail(self, chars: int = 4000) -> str:
        """The end of what the server has printed (tracebacks of failed runs land here)."""
        return self.log.read_text(encoding="utf-8", errors="replace")[-chars:]

    def usage(self) -> Usage:
        """The server's resident memory and CPU seconds right now (see `usage`)."""
        return usage(self.process.pid)


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.read().decode().strip() == "ok"
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def streamlit_server(*, port: int | None = None, startup_timeout: float = 90.0,
                     root: Path = ROOT, script: str = "app.py", prefix: Sequence[str] = (),
                     env: Mapping[str, str] | None = None) -> Iterator[Server]:
    """Run the app on 127.0.0.1 until the block exits; raise RuntimeError if it does not come up.

    `root` is the folder holding app.py (the checkout by default; another copy of the app to compare);
    `script`, relative to it, is the script served (another one: a test's own small page); `prefix` goes before
    the command (a wrapper that execs it, e.g. into a cgroup); `env` replaces this process's environment."""
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    command = [*prefix, sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats",
               "false", "--server.fileWatcherType", "none"]
    with tempfile.TemporaryDirectory(prefix="rope-explorer-server-") as folder, \
            open(Path(folder) / "server.log", "wb") as log:
        process = subprocess.Popen(command, cwd=root, stdout=log, stderr=subprocess.STDOUT,
                                   env={**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1"})
        server = Server(url, process, Path(log.name))
        try:
            deadline = time.monotonic() + startup_timeout
            while not _healthy(url):
                if process.poll() is not None or time.monotonic() > deadline:
                    state = f"exited with {process.returncode}" if process.poll() is not None else "not healthy"
                    raise RuntimeError(f"streamlit server on port {port} {state} after "
                                       f"{startup_timeout:.0f} s; its output:\n{server.log_tail()}")
                time.sleep(0.25)
            yield server
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def launch_chromium(playwright, **options):
    """Launch headless Chromium with the flags this machine needs (a Browser, or an awaitable of one)."""
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS), **options)


def wait_for_app(page, timeout: float = 60_000):
    """Wait until the app is connected, its run has finished and its charts are drawn (timeout in ms)."""
    return page.wait_for_function(_APP_READY, timeout=timeout, polling=100)


@dataclass(frozen=True)
class Usage:
    """Resident memory (MiB) and CPU seconds used so far (user + system) of a process and its children."""

    rss_mb: float
    cpu_s: float


def usage(pid: int) -> Usage:
    """RSS and CPU seconds of process `pid` and all its live children; raises psutil.NoSuchProcess if it ended."""
    process = psutil.Process(pid)
    rss = cpu = 0.0
    for proc in [process, *process.children(recursive=True)]:
        try:
            with proc.oneshot():
                rss += proc.memory_info().rss
                times = proc.cpu_times()
                cpu += times.user + times.system
        except psutil.Error:  # a child that ended between listing and reading
            if proc is process:
                raise
    return Usage(rss / 2 ** 20, cpu)


class UsageSampler(threading.Thread):
    """Samples `usage(pid)` every `every` seconds until `stop()`; also usable as a context manager."""

    def __init__(self, pid: int, every: float = 0.2):
        super().__init__(daemon=True, name=f"usage-sampler-{pid}")
        self.pid = pid
        self.every = every
        self.samples: list[tuple[float, Usage]] = []  # (seconds since start, usage)
        self._finished = threading.Event()
        self._started_at = time.perf_counter()

    def run(self) -> None:
        self._started_at = time.perf_counter()
        while not self._finished.is_set():
            try:
                self.samples.append((time.perf_counter() - self._started_at, usage(self.pid)))
            except psutil.Error:  # the server ended
                return
            self._finished.wait(self.every)

    def stop(self) -> None:
        self._finished.set()
        if self.is_alive():
            self.join()

    def __enter__(self) -> UsageSampler:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def peak_rss_mb(self) -> float | None:
        return max((u.rss_mb for _, u in self.samples), default=None)

    @property
    def rss_mb(self) -> list[float]:
        return [round(u.rss_mb, 1) for _, u in self.samples]

    @property
    def cpu_s(self) -> float | None:
        """CPU seconds the server used between the first and the last sample."""
        if len(self.samples) < 2:
            return None
        return self.samples[-1][1].cpu_s - self.samples[0][1].cpu_s
