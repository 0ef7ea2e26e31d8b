"""Accounting: calls, tokens and LLM latency per query and per purpose (planner, observer, reformulation), and
the run's cost table built from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nomos.retrieval.llm.config import Reply


@dataclass
class Cost:
    """Calls, tokens and LLM latency of one query (or a whole run), in total and per purpose."""

    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    llm_seconds: float = 0.0
    by_purpose: dict[str, dict[str, float]] = field(default_factory=dict)

    def add(self, reply: Reply, purpose: str) -> None:
        self.calls += 1
        self.cached_calls += int(reply.cached)
        self.input_tokens += reply.input_tokens
        self.output_tokens += reply.output_tokens
        self.llm_seconds += reply.seconds
        p = self.by_purpose.setdefault(purpose, {"calls": 0, "input_tokens": 0, "output_tokens": 0, "llm_seconds": 0.0})
        p["calls"] += 1
        p["input_tokens"] += reply.input_tokens
        p["output_tokens"] += reply.output_tokens
        p["llm_seconds"] += reply.seconds

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "cached_calls": self.cached_calls, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "llm_seconds": round(self.llm_seconds, 4), "by_purpose": self.by_purpose}


def cost_table(per_query: Mapping[str, Mapping[str, Any]], wall_seconds: float) -> dict[str, Any]:
    """The run's cost table: totals, means per query, and the per-query rows (from ``Cost.to_dict`` + seconds)."""
    keys = ("calls", "cached_calls", "input_tokens", "output_tokens", "llm_seconds", "seconds")
    total = {k: sum(float(r.get(k, 0)) for r in per_query.values()) for k in keys}
    n = max(len(per_query), 1)
    purposes: dict[str, dict[str, float]] = {}
    for r in per_query.values():
        for name, p in r.get("by_purpose", {}).items():
            acc = purposes.setdefault(name, {})
            for k, v in p.items():
                acc[k] = acc.get(k, 0) + v
    return {
        "queries": len(per_query),
        "wall_seconds": round(wall_seconds, 3),
        "total": {k: round(v, 3) for k, v in total.items()},
        "mean_per_query": {k: round(v / n, 3) for k, v in total.items()},
        "by_purpose": purposes,
        "per_query": {q: dict(r) for q, r in sorted(per_query.items())},
    }
