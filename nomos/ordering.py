"""The project's one tie rule: every ranking (a retriever's hits, a run file read back, a fusion, a judge's verdicts)
is ordered by score descending, then id ascending, so that ties come out the same on every run and every machine.
It sits on the bottom floor so that retrieval and the offline evaluation share it instead of each writing its own."""

from __future__ import annotations


def score_order(item_id: str, score: float) -> tuple[float, str]:
    """The sort key of every ranking in the project: score descending, then id ascending."""
    return (-score, item_id)
