"""The one estimate of time left, wherever it is said: the encoding log line (nomos.cli.progress), and the
vectors' readiness that ``server status``, the portal's page and its API read (nomos.retrieval.knn, from the rate
and the count left that the indexer notes in the index, nomos.ingest.indexer.RateNote).

Issue 50 found two clocks at one moment («about 2 h 15 min» in the log, «1 h 9 min» in ``server status``): the log's
bar had started its clock before indexing had finished, and each side divided its own count by its own rate. Both
now start when encoding starts and divide the same count left by the same rate, here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STALE_S = 600.0  # a rate noted longer ago than this says nothing about now (the indexer stopped)


def seconds_left(left: float, rate: float) -> float | None:
    """Seconds until ``left`` more items are done at ``rate`` items per second; None when the rate is unknown."""
    if left <= 0:
        return 0.0
    if rate <= 0:
        return None
    return left / rate


def noted_seconds_left(note: Mapping[str, Any] | None, left: int, now: float) -> float | None:
    """Seconds left at ``now`` (wall clock) by what the indexer last noted (``rate``, ``at`` and the count it had
    ``left`` then): the note's own estimate, less the time since it was noted, so it reads what the log line said
    at the note and runs down between notes. ``left``: the count the index holds now, for a note without one (an
    index written before notes carried it). None without a recent note, or nothing left."""
    if not note or left <= 0:
        return None
    rate, at = float(note.get("rate") or 0), float(note.get("at") or 0)
    if rate <= 0 or now - at > STALE_S:
        return None
    if "left" not in note:
        return seconds_left(left, rate)
    then = seconds_left(int(note["left"]), rate)
    return None if then is None else max(then - max(now - at, 0.0), 0.0)
