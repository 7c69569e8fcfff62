"""A session's share of the server (explorer.app.run_share): the seconds of its runs in the last window, and how
long it must wait once it is over its share; clocks are given, never read."""

import pytest

from explorer.app.run_share import SHARE_ENV, Shares, share_s


def test_under_the_share_nothing_waits():
    shares = Shares(window_s=60)
    shares.add("a", 10, now=0)
    shares.add("a", 10, now=5)
    assert shares.used("a", now=6) == 20
    assert shares.wait_s("a", 30, now=6) == 0
    assert shares.wait_s("b", 30, now=6) == 0


def test_over_the_share_waits_until_enough_runs_leave_the_window():
    shares = Shares(window_s=60)
    for start in (0, 10, 20, 30):
        shares.add("greedy", 10, now=start)  # 40 s in the window
    assert shares.wait_s("greedy", 30, now=31) == pytest.approx(29)  # the run at 0 leaves at 60: 30 s left
    assert shares.wait_s("greedy", 25, now=31) == pytest.approx(39)  # two runs must leave: the second at 70
    assert shares.wait_s("greedy", 30, now=61) == 0
    assert shares.used("greedy", now=61) == 30
    assert shares.wait_s("greedy", 0, now=31) == 0  # a share of 0 bounds nothing
    assert shares.wait_s("polite", 30, now=31) == 0


def test_the_share_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(SHARE_ENV, "12.5")
    assert share_s() == 12.5
    for bad in ("lots", "-1", "nan"):
        monkeypatch.setenv(SHARE_ENV, bad)
        with pytest.raises(ValueError, match=SHARE_ENV):
            share_s()


def test_one_sessions_runs_start_at_least_the_gap_apart():
    shares = Shares(window_s=60)
    assert shares.pace("a", 0.25, now=10.0) == 0
    assert shares.pace("a", 0.25, now=10.1) == pytest.approx(0.15)  # starts at 10.25
    assert shares.pace("a", 0.25, now=10.1) == pytest.approx(0.4)  # a third at once: starts at 10.5
    assert shares.pace("b", 0.25, now=10.1) == 0  # another session is not held
    assert shares.pace("a", 0.25, now=20.0) == 0
