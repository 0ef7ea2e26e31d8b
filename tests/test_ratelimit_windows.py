"""The portal's moving windows (nomos/portal/ratelimit.py): the counts ``limits``' moving-window strategy gave,
without a thread per request, and memory that a sweep bounds. A fake clock drives them; no node."""

from __future__ import annotations

import threading

import pytest

from nomos.portal import ratelimit
from nomos.portal.ratelimit import MovingWindows, RateLimited, RateLimits


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_window_allows_its_amount_then_refuses_until_the_oldest_hit_leaves() -> None:
    clock = Clock()
    w = MovingWindows(clock=clock)
    assert [w.hit(("k",), 3, 60) for _ in range(3)] == [None, None, None]
    clock.now += 10
    assert w.hit(("k",), 3, 60) == pytest.approx(50.0)  # the first hit leaves the window at t+60
    clock.now += 49.9
    assert w.hit(("k",), 3, 60) == pytest.approx(0.1)
    clock.now += 0.1  # exactly 60 s after the first three: they are out, the refused hits were never counted
    assert w.hit(("k",), 3, 60) is None
    assert w.hit(("k",), 3, 60) is None
    assert w.hit(("k",), 3, 60) is None
    assert w.hit(("k",), 3, 60) is not None


def test_keys_count_apart() -> None:
    w = MovingWindows(clock=Clock())
    assert w.hit(("search", "addr:a"), 1, 60) is None
    assert w.hit(("search", "addr:b"), 1, 60) is None
    assert w.hit(("page", "addr:a"), 1, 60) is None
    assert w.hit(("search", "addr:a"), 1, 60) is not None


def test_a_sweep_forgets_idle_clients_and_keeps_active_ones() -> None:
    clock = Clock()
    w = MovingWindows(clock=clock)
    for i in range(100):
        w.hit(("search", f"addr:{i}"), 5, 1)
    w.hit(("search", "addr:slow"), 5, 3600)
    assert len(w) == 101
    clock.now += ratelimit.SWEEP_SECONDS + 1
    w.hit(("search", "addr:new"), 5, 1)
    assert len(w) == 2  # the hour's window is still open; the 100 one-second ones are gone


def test_no_thread_is_started_per_hit() -> None:
    """limits' MemoryStorage started a 10 ms Timer thread on a hit after its last one had run."""
    limits = RateLimits.from_specs("1000/minute", "1000/minute", "1000/minute")
    before = threading.active_count()
    for _ in range(50):
        limits.hit("search", "addr:x")
    assert threading.active_count() == before


def test_every_rate_of_a_kind_counts_and_the_first_exceeded_refuses() -> None:
    clock = Clock()
    limits = RateLimits.from_specs("2/second;3/hour", "1/minute")
    limits.windows = MovingWindows(clock=clock)
    limits.hit("search", "c")
    limits.hit("search", "c")
    with pytest.raises(RateLimited) as second:
        limits.hit("search", "c")
    assert second.value.retry_after == 1 and second.value.kind == "search"
    clock.now += 1
    limits.hit("search", "c")
    with pytest.raises(RateLimited) as hour:
        limits.hit("search", "c")
    assert hour.value.retry_after == 3599  # the hour's window: its first hit leaves it at t+3600
