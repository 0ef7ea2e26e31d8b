"""Per-client rate limits on searches, judgments and every other request that reads the cluster (pages): moving
windows in memory, the rates written as the ``limits`` library parses them (``60/minute``, ``10/second;300/hour``).

A client is the signed-in user where a trusted proxy names one, else its address (:mod:`nomos.portal.identity`).
Why: one client sent 1,000 junk judgments in 7 s and pushed the real ones off the judgments page (issue 26); and
a search is the portal's most expensive request. Each worker process keeps its own counts (uvicorn ``--workers``
N lets a client N times the rate); a shared store (``limits``' Redis storage) would be the next step.

The windows are counted here, not by ``limits``' ``MemoryStorage``: that storage expires its entries on a
``threading.Timer`` of 10 ms that it starts again on the first hit after the last one ran, so at fewer than a
hundred requests a second a worker started and ran one thread per request (py-spy: about 5% of a BM25 page's
portal CPU, issue 38). :class:`MovingWindows` counts the same windows (a hit is allowed while fewer than the
rate's amount fall inside its last ``expiry`` seconds; a refused hit is not counted) and drops a client's
expired entries as it passes, with a sweep of idle clients at most once a minute.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from limits import RateLimitItem, parse_many

from nomos.errors import ConfigError

KINDS = {"search": "NOMOS_SEARCH_RATE", "judgment": "NOMOS_JUDGMENT_RATE", "page": "NOMOS_PAGE_RATE"}


class RateLimited(Exception):
    """A client past its rate: a 429 with ``Retry-After``."""

    def __init__(self, kind: str, retry_after: int) -> None:
        super().__init__(f"too many {kind} requests; retry in {retry_after} s")
        self.kind = kind
        self.retry_after = retry_after


def parse_rates(spec: str, variable: str) -> list[RateLimitItem]:
    """``"60/minute"`` or ``"10/second;300/hour"`` as ``limits`` items; a :class:`ConfigError` naming the
    variable otherwise."""
    try:
        items = parse_many(spec)
    except ValueError:
        items = []
    if not items:
        raise ConfigError(f"{variable}={spec!r} is not a rate", hint="write e.g. 60/minute or 10/second;300/hour")
    return items


SWEEP_SECONDS = 60.0  # how often the clients whose windows are all past are forgotten (memory stays bounded)


@dataclass
class MovingWindows:
    """Moving windows per key, in memory: the times of the hits each key made inside its window.

    Safe to share between threads (one lock; the portal calls it from the event loop and, for a judgment or a
    sync route, from worker threads). ``clock`` is the time source (``time.monotonic``; tests pass their own)."""

    clock: Callable[[], float] = time.monotonic
    _hits: dict[tuple[str, ...], tuple[float, deque[float]]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _next_sweep: float = field(default=0.0, repr=False)

    def hit(self, key: tuple[str, ...], amount: int, seconds: float) -> float | None:
        """Count one hit of ``key`` against ``amount`` per ``seconds``: None when it is allowed (and counted),
        else the seconds until the window's oldest hit leaves it (the refused hit is not counted)."""
        now = self.clock()
        with self._lock:
            if now >= self._next_sweep:
                self._sweep(now)
            _, times = self._hits.setdefault(key, (seconds, deque()))
            while times and times[0] <= now - seconds:
                times.popleft()
            if len(times) >= amount:
                return times[0] + seconds - now
            times.append(now)
            return None

    def _sweep(self, now: float) -> None:
        """Forget the keys whose every hit has left its window."""
        for key in [k for k, (seconds, times) in self._hits.items() if not times or times[-1] <= now - seconds]:
            del self._hits[key]
        self._next_sweep = now + SWEEP_SECONDS

    def __len__(self) -> int:
        """How many keys are held (what a sweep keeps bounded)."""
        return len(self._hits)


@dataclass
class RateLimits:
    """The portal's limits: one list of rates per kind of request, counted per client."""

    rates: dict[str, list[RateLimitItem]]
    windows: MovingWindows = field(default_factory=MovingWindows)

    @classmethod
    def from_specs(cls, search: str, judgment: str, page: str = "300/minute") -> RateLimits:
        return cls({"search": parse_rates(search, KINDS["search"]), "judgment": parse_rates(judgment, KINDS["judgment"]),
                    "page": parse_rates(page, KINDS["page"])})

    def hit(self, kind: str, client: str) -> None:
        """Count one request of ``kind`` for ``client`` against each of its rates, in order; :class:`RateLimited`
        at the first it is one too many for (the rates before it have counted it, as ``limits``' strategy did)."""
        for item in self.rates[kind]:
            wait = self.windows.hit((kind, client, item.key_for()), item.amount, item.get_expiry())
            if wait is not None:
                raise RateLimited(kind, max(1, math.ceil(wait)))
