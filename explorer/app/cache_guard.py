"""What a cached function may not read while it computes: a thread-local set of refused reads.

A leaf module (it imports nothing of the app), so that `cache` (which sets the guard) and `session`
(whose `t()` and `device()` check it) both import it, and not each other."""

from __future__ import annotations

import functools
import threading

_inside = threading.local()


def forbid_inside_cache(what: str) -> None:
    """Raise if `what` ("t()", "device()") may not be read in the cached function being computed."""
    if what in getattr(_inside, "forbidden", ()):
        raise RuntimeError(f"{what} called inside a cached function: pass it in as an argument, or "
                           "build text outside the cache")


def computing(f, forbidden: frozenset):
    """f, run with `forbidden` reads refused while it computes."""
    @functools.wraps(f)
    def guarded(*args, **kwargs):
        before = getattr(_inside, "forbidden", frozenset())
        _inside.forbidden = before | forbidden
        try:
            return f(*args, **kwargs)
        finally:
            _inside.forbidden = before
    return guarded
