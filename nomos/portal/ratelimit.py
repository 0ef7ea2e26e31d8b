"""Per-client rate limits on searches, judgments and every other request that reads the cluster (pages), with the ``limits`` library (moving windows in memory).

A client is the signed-in user where a trusted proxy names one, else its address (:mod:`nomos.portal.identity`).
Why: one client sent 1,000 junk judgments in 7 s and pushed the real ones off the judgments page (issue 26); and
a search is the portal's most expensive request. Each worker process keeps its own counts (uvicorn ``--workers``
N lets a client N times the rate); a shared store (``limits``' Redis storage) would be the next step.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

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


@dataclass
class RateLimits:
    """The portal's limits: one list of rates per kind of request, counted per client."""

    rates: dict[str, list[RateLimitItem]]
    limiter: MovingWindowRateLimiter = field(default_factory=lambda: MovingWindowRateLimiter(MemoryStorage()))

    @classmethod
    def from_specs(cls, search: str, judgment: str, page: str = "300/minute") -> RateLimits:
        return cls({"search": parse_rates(search, KINDS["search"]), "judgment": parse_rates(judgment, KINDS["judgment"]),
                    "page": parse_rates(page, KINDS["page"])})

    def hit(self, kind: str, client: str) -> None:
        """Count one request of ``kind`` for ``client``; :class:`RateLimited` when it is one too many."""
        for item in self.rates[kind]:
            if not self.limiter.hit(item, kind, client):
                reset = self.limiter.get_window_stats(item, kind, client).reset_time
                raise RateLimited(kind, max(1, math.ceil(reset - time.time())))
