"""The caching policy holds: text and the session's device can never be read inside a cached function,
so a cache can never serve one language's labels or one device's results to another session."""

import pytest

from explorer.app.cache import cached
from explorer.app.session import device, t


def test_text_inside_a_cached_function_raises():
    @cached
    def labelled(x: int) -> str:
        return t("home.title") + str(x)

    with pytest.raises(RuntimeError, match="t\\(\\) called inside a cached function"):
        labelled(1)


def test_the_session_device_inside_a_cached_function_raises():
    @cached
    def on_device(x: int) -> str:
        return f"{device()}:{x}"

    with pytest.raises(RuntimeError, match="device\\(\\) called inside a cached function"):
        on_device(2)


def test_plain_cached_functions_still_cache():
    calls = []

    @cached
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    assert square(3) == 9 and square(3) == 9
    assert calls == [3]


def test_figures_are_cached_once_per_language(monkeypatch):
    import explorer.app.cache
    import explorer.app.session
    from explorer.app.cache import figure

    builds = []

    @figure
    def titled(n: int) -> str:
        builds.append(n)
        return f"{t('home.title')} {n}"

    monkeypatch.setattr(explorer.app.session, "lang", lambda: "en")
    assert titled(1) == "RoPE Explorer 1" and titled(1) == "RoPE Explorer 1"
    monkeypatch.setattr(explorer.app.session, "lang", lambda: "zh")
    assert titled(1) != "RoPE Explorer 1"  # another language is another entry, never the English figure
    assert builds == [1, 1]


def test_the_session_device_inside_a_figure_raises():
    from explorer.app.cache import figure

    @figure
    def on_device(n: int) -> str:
        return f"{device()}{n}"

    with pytest.raises(RuntimeError, match="device\\(\\) called inside a cached function"):
        on_device(3)
