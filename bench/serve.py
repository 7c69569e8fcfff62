"""The one way tests, benchmarks and the load script start the app and a browser.

`streamlit_server()` runs `streamlit run app.py` on a free loopback port, waits until
`/_stcore/health` answers "ok", yields the running `Server`, and stops it on exit.
`launch_chromium()` starts Debian's Chromium through Playwright, and `wait_for_app()` waits until a
page has connected, finished its script run and drawn all its charts. Both take either Playwright
API: with the async one, await what they return.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

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
def streamlit_server(*, port: int | None = None, startup_timeout: float = 90.0) -> Iterator[Server]:
    """Run the app on 127.0.0.1 until the block exits; raise RuntimeError if it does not come up."""
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats",
               "false", "--server.fileWatcherType", "none"]
    with tempfile.TemporaryDirectory(prefix="rope-explorer-server-") as folder, \
            open(Path(folder) / "server.log", "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
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
