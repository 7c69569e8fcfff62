"""deploy/serve.sh: two app processes behind nginx (deploy/nginx.conf). Sessions through the proxy are
served, and one browser (one `rope_backend` cookie) stays on one process, its websocket included.

nginx is required, not optional: .ci/run installs Debian's nginx, and a missing nginx fails here."""

from __future__ import annotations

import asyncio
import http.cookies
import os
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest
from websockets.asyncio.client import connect

from support.protocol import run_async, MAX_MESSAGE_BYTES, STREAM_PATH, XSRF_COOKIE, Session, visit
from support.server import ROOT, free_port

SERVE = ROOT / "deploy" / "serve.sh"
UPSTREAM_HEADER = "X-Rope-Upstream"
AFFINITY_COOKIE = "rope_backend"


def _get(url: str, cookie: str | None = None) -> tuple[str, http.cookies.SimpleCookie, str]:
    """(body, cookies set, the upstream that answered) of a GET through the proxy."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        jar = http.cookies.SimpleCookie()
        for value in response.headers.get_all("Set-Cookie") or []:
            jar.load(value)
        return response.read().decode(), jar, response.headers[UPSTREAM_HEADER]


def _two_free_ports() -> int:
    """A port p such that p and p + 1 are both free on the loopback interface."""
    for _ in range(50):
        port = free_port()
        if port < 65535:
            import socket
            with socket.socket() as sock:
                try:
                    sock.bind(("127.0.0.1", port + 1))
                    return port
                except OSError:
                    continue
    raise RuntimeError("no two consecutive free ports")


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    """deploy/serve.sh 2 on loopback ports; yields the proxy's base URL, stops everything after."""
    assert shutil.which("nginx"), "nginx is missing: apt-get install -y nginx (.ci/run installs it)"
    listen, backend = free_port(), _two_free_ports()
    logs = tmp_path_factory.mktemp("serve")
    log = logs / "serve.log"
    env = {**os.environ, "LISTEN": f"127.0.0.1:{listen}", "BACKEND_PORT": str(backend), "LOG_DIR": str(logs),
           "PYTHONUNBUFFERED": "1"}
    with open(log, "wb") as out:
        process = subprocess.Popen(["bash", str(SERVE), "2"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    url = f"http://127.0.0.1:{listen}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if _get(f"{url}/_stcore/health")[0] == "ok":
                    break
            except OSError:
                pass
            assert process.poll() is None, f"serve.sh exited with {process.returncode}:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"the proxy did not come up:\n{log.read_text()[-3000:]}"
            time.sleep(0.25)
        yield {"url": url, "backends": {f"127.0.0.1:{backend}", f"127.0.0.1:{backend + 1}"},
               "logs": lambda: "\n".join(f"{p.name}:\n{p.read_text(errors='replace')[-2000:]}"
                                         for p in sorted(logs.glob("app-*.log")))}
    finally:
        process.send_signal(signal.SIGTERM)  # serve.sh stops its app processes and nginx with it
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    # everything it started has ended: nothing listens on the backends' ports any more
    for port in (backend, backend + 1):
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)


class CookieSession(Session):
    """A Session that also sends the affinity cookie, as a browser sends every cookie of the site, and
    keeps which upstream answered the websocket's handshake."""

    def __init__(self, base_url: str, affinity: str, **options):
        super().__init__(base_url, **options)
        self.affinity = affinity
        self.upstream: str | None = None

    async def connect(self) -> CookieSession:
        body, jar, _ = await asyncio.to_thread(_get, f"{self.base_url}/_stcore/health",
                                               f"{AFFINITY_COOKIE}={self.affinity}")
        assert body == "ok" and XSRF_COOKIE in jar
        self.xsrf_cookie = jar[XSRF_COOKIE].value
        host = self.base_url.removeprefix("http://")
        self.websocket = await connect(
            f"ws://{host}{STREAM_PATH}", origin=self.base_url, subprotocols=["streamlit", self.xsrf_cookie],
            additional_headers={"Cookie": f"{XSRF_COOKIE}={self.xsrf_cookie}; {AFFINITY_COOKIE}={self.affinity}"},
            proxy=None, ping_interval=None, max_size=MAX_MESSAGE_BYTES, open_timeout=self.timeout)
        self.upstream = self.websocket.response.headers.get(UPSTREAM_HEADER)
        self.connected_s = self.clock()
        return self


def test_sessions_through_the_proxy_are_served(proxy):
    async def many():
        pages = ["", "frequency-clocks", "relative-attention", "", "complex-numbers", "frequency-clocks"]
        return await asyncio.gather(*(visit(proxy["url"], page, timeout=60) for page in pages))

    visits = run_async(many())
    failed = [v.run.as_dict() for v in visits if not v.run.ok]
    assert not failed, f"{failed}\n{proxy['logs']()}"
    assert all(v.run.charts for v in visits if v.run.page)


def test_a_browser_stays_on_one_process(proxy):
    # a first visit gets an affinity cookie and is answered by one of the two processes
    _, jar, first = _get(f"{proxy['url']}/_stcore/health")
    assert AFFINITY_COOKIE in jar and first in proxy["backends"]
    # many browsers spread over both processes, each always on its own
    seen = {}
    for i in range(16):
        cookie = f"{AFFINITY_COOKIE}=browser-{i}"
        answers = {_get(f"{proxy['url']}/_stcore/health", cookie)[2] for _ in range(3)}
        assert len(answers) == 1, f"{cookie} was answered by {answers}"
        seen[f"browser-{i}"] = answers.pop()
    assert set(seen.values()) == proxy["backends"], "one process got every browser"

    async def session_on(affinity: str):
        async with CookieSession(proxy["url"], affinity, timeout=60) as session:
            first_run = await session.run("frequency-clocks")
            second_run = await session.run("phase-cancellation")  # the same session, a second page
            return session.upstream, first_run, second_run

    for affinity in ("browser-0", next(a for a, up in seen.items() if up != seen["browser-0"])):
        upstream, *runs = run_async(session_on(affinity))
        assert upstream == seen[affinity], "the websocket went to another process than the page's requests"
        assert all(run.ok and run.charts for run in runs), f"{[run.as_dict() for run in runs]}\n{proxy['logs']()}"
