"""Each session's share of the server: the seconds its script runs took in the last minute, bounded.

A visitor can make the server work without any heavy button: every rerun (a knob moved, a button pressed, a
forged client message) runs a page. The router charges each run's seconds to its session (less the time it only
waited in the heavy-job queue, which explorer.app.job_queue charges itself); a session that used more than
`share_s()` seconds in the last `WINDOW_S` waits, before its next run, until it is back under its share, and is
told so. And a session's runs start at most one per `MIN_GAP_S`: a client that sends reruns as fast as the
websocket takes them (each restarting the page) has them started a few times a second, not hundreds, while a person
moving a knob never meets the gap. Plain Python, no Streamlit.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from explorer.app.host import env_number

WINDOW_S = 60.0
SHARE_S = 30.0  # half a core's minute: a visitor reading and moving knobs uses a few seconds
SHARE_ENV = "ROPE_VIZ_SHARE_S"  # another share for this server (0: no bound, and no gap between runs)
MIN_GAP_S = 0.25  # between the starts of one session's runs


def share_s() -> float:
    """$ROPE_VIZ_SHARE_S (seconds, 0 or more), else SHARE_S."""
    value = env_number(SHARE_ENV, zero=True)
    return SHARE_S if value is None else value


class Shares:
    """The seconds each session used, per window."""

    def __init__(self, window_s: float = WINDOW_S):
        self._lock = threading.Lock()
        self._used: dict[str, deque] = {}
        self._started: dict[str, float] = {}
        self.window_s = window_s

    def pace(self, session: str, gap_s: float = MIN_GAP_S, now: float | None = None) -> float:
        """How long a run of `session` starting now must wait so that its runs start at least gap_s apart; the run
        is counted as started after that wait."""
        now = time.monotonic() if now is None else now
        with self._lock:
            start = max(now, self._started.get(session, -gap_s) + gap_s)
            self._started[session] = start
            for old in [s for s, t in self._started.items() if t < now - self.window_s]:
                del self._started[old]
            return start - now

    def add(self, session: str, seconds: float, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            self._used.setdefault(session, deque()).append((now, max(seconds, 0.0)))
            self._forget(now)

    def used(self, session: str, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        with self._lock:
            return sum(s for end, s in self._used.get(session, ()) if end > now - self.window_s)

    def wait_s(self, session: str, share: float, now: float | None = None) -> float:
        """How long `session` must wait until its use of the last window is at most `share` (0: none; a share of 0
        bounds nothing)."""
        now = time.monotonic() if now is None else now
        if share <= 0:
            return 0.0
        with self._lock:
            recent = [(end, s) for end, s in self._used.get(session, ()) if end > now - self.window_s]
        total = sum(seconds for _, seconds in recent)
        for end, seconds in recent:  # oldest first: each run leaving the window frees its seconds
            if total <= share:
                break
            total -= seconds
            if total <= share:
                return end + self.window_s - now
        return 0.0

    def _forget(self, now: float) -> None:
        for session in list(self._used):
            recent = self._used[session]
            while recent and recent[0][0] <= now - self.window_s:
                recent.popleft()
            if not recent:
                del self._used[session]


SHARES = Shares()
"""The server's accounts."""
