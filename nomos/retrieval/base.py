"""The retriever interface every method implements, and the ranked-list types it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence


@dataclass(frozen=True)
class Hit:
    """One ranked article. ``details`` carries per-method evidence (clause scores, highlights…)."""

    doc_id: str
    score: float
    title: str = ""
    law: str = ""
    source: str = ""
    highlights: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)


def rank(hits: Sequence[Hit], k: int) -> list[Hit]:
    """Deduplicate by id (keep the best), sort by (score desc, doc id asc) and cut to ``k``: deterministic."""
    best: dict[str, Hit] = {}
    for h in hits:
        if h.doc_id not in best or h.score > best[h.doc_id].score:
            best[h.doc_id] = h
    return sorted(best.values(), key=lambda h: (-h.score, h.doc_id))[:k]


class Retriever(Protocol):
    """What the CLI, the evaluator and the portal call, whatever the method behind it."""

    name: str

    def search(self, query: str, k: int) -> list[Hit]:
        """Top-``k`` articles for one query, ranked by (score desc, doc id)."""
        ...

    def search_many(self, queries: Mapping[str, str], k: int) -> dict[str, list[Hit]]:
        """Top-``k`` for many queries (batched where the method allows); keys are the query ids."""
        ...

    def describe(self) -> dict[str, Any]:
        """Parameters that a results manifest must record to reproduce this ranking."""
        ...
