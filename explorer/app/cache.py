"""The app's one caching policy.

- `cached`: data. `st.cache_data` with the app's bounds around a function that computes numbers only: it
  takes everything it depends on as arguments (the device too, as a string), so the arguments are the
  whole cache key. Calling `t()` or reading the session's device inside it raises at once.
- `figure`: a labelled figure, built once per language from cached data. The wrapper adds the session's
  language to the key itself, so no caller can forget it; reading the session's device inside raises.
  (Building a Plotly figure validates every trace and frame: for an animation that is most of a rerun.)
"""

from __future__ import annotations

import functools

import streamlit as st

from explorer.app import session
from explorer.app.cache_guard import computing


def cached(func=None, *, max_entries: int = 16, ttl: int = 3600):
    """Cache a pure function of plain arguments (bounded: `max_entries` results, `ttl` seconds)."""
    def decorate(f):
        guarded = computing(f, frozenset({"t()", "device()"}))
        return st.cache_data(max_entries=max_entries, ttl=ttl, show_spinner=False)(guarded)
    return decorate(func) if func is not None else decorate


def figure(func=None, *, max_entries: int = 32, ttl: int = 3600):
    """Cache the figure a page builds from plain arguments, once per language (bounded like `cached`).

    The figure object is shared, never copied: st.plotly_chart only reads it."""
    def decorate(f):
        guarded = computing(f, frozenset({"device()"}))

        def build(language: str, args: tuple, kwargs: dict):
            return guarded(*args, **kwargs)

        # Streamlit names a cache by the function's module and qualified name: make them this builder's
        build.__module__ = f.__module__
        build.__qualname__ = f"{f.__code__.co_filename}:{f.__qualname__}"
        cached_build = st.cache_resource(max_entries=max_entries, ttl=ttl, show_spinner=False)(build)

        @functools.wraps(f)
        def labelled(*args, **kwargs):
            return cached_build(session.lang(), args, kwargs)
        return labelled
    return decorate(func) if func is not None else decorate
