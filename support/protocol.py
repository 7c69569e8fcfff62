"""A Streamlit client at the protocol level: one session over the websocket, as the browser talks to it.

No browser is involved, so on a small machine what is measured is the server. A session does what the
app's frontend does when a page is opened by its address:

1. GET `/_stcore/health`, which sets the `_streamlit_xsrf` cookie;
2. open the websocket at `/_stcore/stream` with the subprotocols `["streamlit", <xsrf cookie>]`, the
   cookie and a same-origin `Origin` header (Streamlit accepts the connection without them; with XSRF
   protection on it only trusts auth cookies behind a matching token, and a browser always sends them);
3. send a `BackMsg` whose `rerun_script` (a `ClientState`) carries the query string and the page's url
   path as `page_name` (the home page is ""), optionally with arbitrary `WidgetStates`;
4. read `ForwardMsg`s until `script_finished` with a final status (a run stopped early for a rerun, as
   `st.rerun()` does, is followed by the next run, and reading goes on).

    async with Session(url) as session:
        run = await session.run("relative-attention", "lang=en")
        assert run.ok and run.charts

`run_sessions()` opens many sessions at once (their starts spread over a few seconds), each visiting one
page, and `summarize()` turns their runs into served/failed counts and percentiles. Every clock here is
`time.perf_counter()` seconds from the moment the session began to connect, so a run's times are what a
visitor who opened the link would wait. Loopback servers only: the connection never uses a proxy.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from http.cookies import SimpleCookie
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect

XSRF_COOKIE = "_streamlit_xsrf"
STREAM_PATH = "/_stcore/stream"
HEALTH_PATH = "/_stcore/health"
MAX_MESSAGE_BYTES = 256 * 2 ** 20  # Streamlit's own limit (server.maxMessageSize) is 200 MB
_EARLY = ForwardMsg.ScriptFinishedStatus.Name(ForwardMsg.FINISHED_EARLY_FOR_RERUN)
_SUCCESS = ForwardMsg.ScriptFinishedStatus.Name(ForwardMsg.FINISHED_SUCCESSFULLY)


class ProtocolError(RuntimeError):
    """The server answered something a browser would not accept (no cookie, a closed socket, ...)."""


@dataclass
class Run:
    """What one script run sent back, with its clocks (seconds since the session began to connect)."""

    page: str  # the url path asked for ("" is the home page)
    query: str
    sent_s: float | None = None  # when the rerun_script BackMsg went out
    first_message_s: float | None = None
    first_delta_s: float | None = None
    first_chart_s: float | None = None  # the first delta holding a plotly_chart element
    finished_s: float | None = None  # the final script_finished
    status: str | None = None  # the final ScriptFinishedStatus name, e.g. "FINISHED_SUCCESSFULLY"
    page_not_found: str | None = None  # the page name in a page_not_found message ("" from st.navigation)
    navigation: list[str] = field(default_factory=list)  # url_pathname of each page the router listed
    page_script_hash: str | None = None  # the page the router ran (navigation.page_script_hash)
    runs: int = 0  # script runs seen (more than one after st.rerun())
    messages: int = 0
    deltas: int = 0
    charts: int = 0
    bytes: int = 0  # payload bytes received
    elements: dict[str, int] = field(default_factory=dict)  # element kind -> count, across all runs
    exceptions: list[str] = field(default_factory=list)  # "Type: message" of each exception element
    notices: list[tuple[float, str]] = field(default_factory=list)  # (when, text) of each alert element
    chart_times: list[float] = field(default_factory=list)  # when each plotly_chart delta arrived
    error: str | None = None  # a transport failure or a timeout: the run did not end

    @property
    def finished(self) -> bool:
        return self.error is None and self.status is not None

    @property
    def ok(self) -> bool:
        """Served: the run ended successfully on the page asked for, and showed no exception."""
        return (self.finished and self.status == _SUCCESS and not self.exceptions
                and self.page_not_found is None)

    @property
    def duration_s(self) -> float | None:
        """From sending the rerun to its end."""
        if self.finished_s is None or self.sent_s is None:
            return None
        return self.finished_s - self.sent_s

    def as_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def _cookie_from_headers(raw_headers: bytes) -> str | None:
    cookie = SimpleCookie()
    for line in raw_headers.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"set-cookie":
            try:
                cookie.load(value.strip().decode("latin-1"))
            except Exception:  # a cookie http.cookies cannot parse: not the one looked for
                continue
    morsel = cookie.get(XSRF_COOKIE)
    return morsel.value if morsel else None


async def fetch_xsrf_cookie(base_url: str, timeout: float = 30.0) -> str | None:
    """GET /_stcore/health as the frontend does, and return the `_streamlit_xsrf` cookie it sets.

    None when the server sets none (XSRF protection off). A plain HTTP/1.1 exchange on asyncio streams,
    so that many sessions can fetch at once without threads."""
    parts = urlsplit(base_url)
    if parts.scheme != "http":
        raise ValueError(f"only http:// servers are supported, not {base_url!r}")
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = parts.path.rstrip("/") + HEALTH_PATH
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except OSError:
                pass
    status = head.split(b"\r\n", 1)[0]
    if b" 200 " not in status + b" ":
        raise ProtocolError(f"{path} answered {status.decode('latin-1')!r}")
    return _cookie_from_headers(head)


def widget_state(widget_id: str, **value) -> WidgetState:
    """A WidgetState for `widget_id` with one value field, e.g. widget_state(id, double_value=1.5)."""
    state = WidgetState(id=widget_id)
    for name, item in value.items():
        target = getattr(state, name)
        if hasattr(target, "data"):  # DoubleArray, SInt64Array, StringArray
            target.data.extend(item)
        else:
            setattr(state, name, item)
    return state


class Session:
    """One visitor: a websocket to the app with its own Streamlit session. Use as an async context manager.

    `connect()` opens it (recording `connected_s`), `run()` asks for a script run of a page and reads it to
    its end, `close()` closes the socket (the server then forgets the session)."""

    def __init__(self, base_url: str, *, timeout: float = 60.0, compression: str | None = "deflate",
                 xsrf: bool = True, origin: bool = True):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.compression = compression
        self.xsrf = xsrf  # fetch the cookie and send its token, as the browser does
        self.origin = origin  # send a same-origin Origin header, as the browser does
        self.started = time.perf_counter()
        self.connected_s: float | None = None
        self.xsrf_cookie: str | None = None
        self.subprotocol: str | None = None
        self.websocket: ClientConnection | None = None
        self.received_bytes = 0  # payload bytes of every ForwardMsg received so far

    def clock(self) -> float:
        return time.perf_counter() - self.started

    async def connect(self) -> Session:
        self.started = time.perf_counter()
        parts = urlsplit(self.base_url)
        headers = {}
        subprotocols = ["streamlit"]
        if self.xsrf:
            self.xsrf_cookie = await fetch_xsrf_cookie(self.base_url, self.timeout)
            if self.xsrf_cookie:
                headers["Cookie"] = f"{XSRF_COOKIE}={self.xsrf_cookie}"
                subprotocols.append(self.xsrf_cookie)
        self.websocket = await connect(
            f"ws://{parts.netloc}{parts.path.rstrip('/')}{STREAM_PATH}",
            origin=f"http://{parts.netloc}" if self.origin else None, subprotocols=subprotocols,
            additional_headers=headers, compression=self.compression, proxy=None, open_timeout=self.timeout,
            ping_interval=None, max_size=MAX_MESSAGE_BYTES, max_queue=None,
            user_agent_header="rope-explorer-protocol-client")
        self.subprotocol = self.websocket.subprotocol
        self.connected_s = self.clock()
        return self

    async def send(self, back_msg: BackMsg) -> None:
        if self.websocket is None:
            raise ProtocolError("the session is not connected")
        await self.websocket.send(back_msg.SerializeToString())

    async def send_rerun(self, page: str = "", query: str = "",
                         widget_states: Iterable[WidgetState] | None = None,
                         page_script_hash: str = "") -> None:
        """Ask for a script run of the page at url path `page` ("" is home) with `query` (no leading ?)."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = query.lstrip("?")
        state.page_name = page.strip("/")
        state.page_script_hash = page_script_hash
        if widget_states is not None:
            state.widget_states.widgets.extend(widget_states)
        await self.send(msg)

    async def receive(self, timeout: float | None = None) -> ForwardMsg:
        if self.websocket is None:
            raise ProtocolError("the session is not connected")
        async with asyncio.timeout(self.timeout if timeout is None else timeout):
            data = await self.websocket.recv()
        payload = data if isinstance(data, bytes) else data.encode()
        self.received_bytes += len(payload)
        msg = ForwardMsg()
        msg.ParseFromString(payload)
        return msg

    async def run(self, page: str = "", query: str = "", widget_states: Iterable[WidgetState] | None = None,
                  *, timeout: float | None = None) -> Run:
        """Send a rerun for `page` and read until its final script_finished (or `timeout` seconds).

        Never raises for a transport failure or a timeout: they land in `Run.error`."""
        result = Run(page=page.strip("/"), query=query.lstrip("?"))
        deadline = time.perf_counter() + (self.timeout if timeout is None else timeout)
        received_before = self.received_bytes
        try:
            await self.send_rerun(page, query, widget_states)
            result.sent_s = self.clock()
            while True:
                msg = await self.receive(timeout=max(0.0, deadline - time.perf_counter()))
                self._record(result, msg)
                if result.status is not None and result.status != _EARLY:
                    break
        except TimeoutError:
            result.error = f"timed out after {self.timeout if timeout is None else timeout:g} s"
        except Exception as error:  # a closed socket, a refused handshake: this visit was not served
            result.error = f"{type(error).__name__}: {str(error).splitlines()[0][:200] if str(error) else ''}"
        result.bytes = self.received_bytes - received_before
        return result

    def _record(self, result: Run, msg: ForwardMsg) -> None:
        now = self.clock()
        result.messages += 1
        if result.first_message_s is None:
            result.first_message_s = now
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            result.runs += 1
            result.status = None
        elif kind == "delta":
            result.deltas += 1
            if result.first_delta_s is None:
                result.first_delta_s = now
            if msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                name = element.WhichOneof("type") or "?"
                result.elements[name] = result.elements.get(name, 0) + 1
                if name == "alert":
                    result.notices.append((now, element.alert.body[:300]))
                if name == "plotly_chart":
                    result.chart_times.append(now)
                    result.charts += 1
                    if result.first_chart_s is None:
                        result.first_chart_s = now
                elif name == "exception":
                    result.exceptions.append(f"{element.exception.type}: {element.exception.message}"[:500])
        elif kind == "page_not_found":
            result.page_not_found = msg.page_not_found.page_name
        elif kind == "navigation":
            result.navigation = [page.url_pathname for page in msg.navigation.app_pages]
            result.page_script_hash = msg.navigation.page_script_hash
        elif kind == "script_finished":
            result.status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
            if result.status != _EARLY:
                result.finished_s = now

    async def close(self) -> None:
        if self.websocket is not None:
            await self.websocket.close()
            self.websocket = None

    async def __aenter__(self) -> Session:
        return await self.connect()

    async def __aexit__(self, *exc) -> None:
        await self.close()


@dataclass
class Visit:
    """One session of `run_sessions`: when it started (seconds after the first) and its run."""

    index: int
    start_s: float
    connected_s: float | None
    run: Run

    def as_dict(self) -> dict:
        return {"index": self.index, "start_s": self.start_s, "connected_s": self.connected_s,
                **self.run.as_dict()}


async def visit(base_url: str, page: str = "", query: str = "", *, timeout: float = 60.0,
                index: int = 0, start_s: float = 0.0, **session_options) -> Visit:
    """One visitor opens a page by its address: connect, one run to its end, close."""
    session = Session(base_url, timeout=timeout, **session_options)
    try:
        async with asyncio.timeout(timeout):
            await session.connect()
    except Exception as error:
        run = Run(page=page, query=query, error=f"connect: {type(error).__name__}: {str(error)[:200]}")
        return Visit(index, start_s, None, run)
    try:
        run = await session.run(page, query, timeout=max(1.0, timeout - session.clock()))
    finally:
        try:
            await session.close()
        except Exception:  # closing a broken socket: the run already says what went wrong
            pass
    return Visit(index, start_s, session.connected_s, run)


async def run_sessions(base_url: str, pages: Sequence[tuple[str, str]], *, spread_s: float = 2.0,
                       timeout: float = 60.0, **session_options) -> list[Visit]:
    """One concurrent session per (url path, query) in `pages`, started evenly within `spread_s` seconds.

    Each session connects, runs its page once and closes; the list keeps the order of `pages`."""
    count = len(pages)
    step = spread_s / count if count > 1 else 0.0

    async def one(index: int, page: str, query: str) -> Visit:
        await asyncio.sleep(index * step)
        return await visit(base_url, page, query, timeout=timeout, index=index, start_s=index * step,
                           **session_options)

    return list(await asyncio.gather(*(one(i, page, query) for i, (page, query) in enumerate(pages))))


def run_async(coroutine):
    """Run `coroutine` to its end in a thread of its own and return its result.

    `asyncio.run` refuses to start where the calling thread already runs an event loop, as it does
    while Playwright's sync API is open (a browser fixture lives for the whole test session); a
    fresh thread has no loop, so this works from anywhere.
    """
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, coroutine).result()


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile (0..1) of values, interpolated; None for no values."""
    values = sorted(values)
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[min(98, max(0, round(q * 100) - 1))] \
        if 0 < q < 1 else (values[0] if q <= 0 else values[-1])


def _spread(values: list[float]) -> dict:
    return {"p50": percentile(values, 0.50), "p95": percentile(values, 0.95), "max": max(values, default=None),
            "n": len(values)}


def summarize(visits: Sequence[Visit]) -> dict:
    """Served and failed counts, and p50/p95/max (seconds from each session's start) of: connected,
    first delta, first chart (visits whose page has charts), and end of the script run."""
    runs = [v.run for v in visits]
    served = sum(run.ok for run in runs)
    failures: dict[str, int] = {}
    for run in runs:
        if not run.ok:
            why = (run.error or (f"{len(run.exceptions)} exception(s)" if run.exceptions else None)
                   or ("page_not_found" if run.page_not_found is not None else None) or f"status {run.status}")
            why = why.split(":")[0] if run.error else why
            failures[why] = failures.get(why, 0) + 1
    return {
        "sessions": len(visits),
        "served": served,
        "failed": len(visits) - served,
        "failures": failures,
        "connected_s": _spread([v.connected_s for v in visits if v.connected_s is not None]),
        "first_delta_s": _spread([r.first_delta_s for r in runs if r.first_delta_s is not None]),
        "first_chart_s": _spread([r.first_chart_s for r in runs if r.first_chart_s is not None]),
        "finished_s": _spread([r.finished_s for r in runs if r.finished_s is not None]),
        "charts": sum(r.charts for r in runs),
        "received_mb": sum(r.bytes for r in runs) / 2 ** 20,
    }
