"""Accounting: calls, tokens and LLM latency per query and per purpose (planner, observer, reformulation), the
run's cost table built from them, and what went wrong on the way (:data:`ISSUE_KINDS`).

Degradation must be visible: a model that answers in a format the parser cannot read, names ids that do not
exist or is cut off by its token limit still lets the run finish (each caller falls back), so without these counts
a bad endpoint looks like a weak method. Each query's :class:`Cost` counts them; :func:`cost_table` sums them into
cost.json's ``issues``, with the share of calls for each, and :func:`degradation_warnings` names the kinds above the
threshold (``NOMOS_LLM_ISSUE_THRESHOLD``, 5%), which the end-of-run summary prints and ``eval --strict`` fails on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nomos.retrieval.llm.config import Reply

ISSUE_KINDS = (
    "format_errors",  # a reply the parser could not read in any accepted format
    "unknown_ids",  # a reply naming ids that are not among those shown
    "ambiguous_ids",  # a reply naming an id two shown ids could be
    "truncations",  # cut by the token limit (finish_reason "length"), still after the retry with more room
    "empty_replies",  # no answer at all (also after reasoning was removed), still after the retry
    "content_filtered",  # refused by the server's filter (finish_reason "content_filter"), still after the retry
    "fallbacks",  # the caller used its deterministic fallback (planner query, original case, first-stage order)
    "regenerated",  # a first reply was empty/cut/filtered and asked again (informational)
    "cache_hits",  # replayed from the reply cache (informational)
    "reasoning_stripped",  # thinking text or a reasoning field removed before parsing (informational)
)
INFORMATIONAL = frozenset({"regenerated", "cache_hits", "reasoning_stripped"})
"""Kinds that are counted but never warned about: they are how a healthy run looks (a re-run, a thinking model)."""

ISSUE_OF = {
    "planner_format": "format_errors", "observer_format": "format_errors", "rerank_format": "format_errors",
    "format": "format_errors", "unknown_ids": "unknown_ids", "ambiguous_ids": "ambiguous_ids",
}
"""The count kind of each trace issue a parser reports (others, e.g. ``planner_empty``, are counted from the reply
itself or as the caller's fallback)."""


@dataclass
class Cost:
    """Calls, tokens and LLM latency of one query (or a whole run), in total and per purpose, and the counts of
    each :data:`ISSUE_KINDS`."""

    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    llm_seconds: float = 0.0
    by_purpose: dict[str, dict[str, float]] = field(default_factory=dict)
    issues: dict[str, int] = field(default_factory=dict)

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
        for kind, on in (("cache_hits", reply.cached), ("reasoning_stripped", bool(reply.reasoning)),
                         ("regenerated", bool(reply.regenerated)), ("truncations", reply.finish_reason == "length"),
                         ("content_filtered", reply.finish_reason == "content_filter"),
                         ("empty_replies", not reply.text.strip())):
            if on:
                self.note(kind)

    def note(self, kind: str, n: int = 1) -> None:
        """Count ``n`` of ``kind`` (one of :data:`ISSUE_KINDS`)."""
        if kind not in ISSUE_KINDS:
            raise ValueError(f"unknown LLM issue kind {kind!r}; known: {', '.join(ISSUE_KINDS)}")
        self.issues[kind] = self.issues.get(kind, 0) + n

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "cached_calls": self.cached_calls, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "llm_seconds": round(self.llm_seconds, 4), "by_purpose": self.by_purpose,
                "issue_counts": {k: self.issues[k] for k in ISSUE_KINDS if self.issues.get(k)}}


def note_issues(cost: Cost, issues: list[dict[str, Any]]) -> None:
    """Count the parser's trace issues (``{"kind": …}``) under their :data:`ISSUE_OF` kinds, once per kind per
    reply; a reply that kept nothing usable because of a format error is counted there, not twice."""
    for kind in dict.fromkeys(ISSUE_OF[i["kind"]] for i in issues if i.get("kind") in ISSUE_OF):
        cost.note(kind)
    if any(i.get("kind") in ("rerank_format", "rerank_empty", "rerank_length", "rerank_content_filter") for i in issues):
        cost.note("fallbacks")


def issue_summary(counts: Mapping[str, float], calls: float) -> dict[str, Any]:
    """Every kind's count and its share of ``calls`` (cost.json's ``issues``)."""
    n = max(calls, 1)
    return {"calls": int(calls), "counts": {k: int(counts.get(k, 0)) for k in ISSUE_KINDS},
            "rates": {k: round(counts.get(k, 0) / n, 4) for k in ISSUE_KINDS}}


def cost_table(per_query: Mapping[str, Mapping[str, Any]], wall_seconds: float) -> dict[str, Any]:
    """The run's cost table: totals, means per query, the issue counts and rates, and the per-query rows (from
    ``Cost.to_dict`` + seconds)."""
    keys = ("calls", "cached_calls", "input_tokens", "output_tokens", "llm_seconds", "seconds")
    total = {k: sum(float(r.get(k, 0)) for r in per_query.values()) for k in keys}
    n = max(len(per_query), 1)
    purposes: dict[str, dict[str, float]] = {}
    counts: dict[str, float] = {}
    for r in per_query.values():
        for name, p in r.get("by_purpose", {}).items():
            acc = purposes.setdefault(name, {})
            for k, v in p.items():
                acc[k] = acc.get(k, 0) + v
        for k, v in r.get("issue_counts", {}).items():
            counts[k] = counts.get(k, 0) + v
    return {
        "queries": len(per_query),
        "wall_seconds": round(wall_seconds, 3),
        "total": {k: round(v, 3) for k, v in total.items()},
        "mean_per_query": {k: round(v / n, 3) for k, v in total.items()},
        "by_purpose": purposes,
        "issues": issue_summary(counts, total["calls"]),
        "per_query": {q: dict(r) for q, r in sorted(per_query.items())},
    }


def run_issues(costs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The issue summary of a whole run's costs: a method's own table plus a re-ranking stage's
    (``costs["rerank"]``), summed; None when the run made no LLM calls."""
    tables = [t for t in (costs, costs.get("rerank")) if isinstance(t, Mapping) and isinstance(t.get("issues"), Mapping)]
    if not tables:
        return None
    counts: dict[str, float] = {}
    calls = 0
    for t in tables:
        calls += t["issues"].get("calls", 0)
        for k, v in t["issues"].get("counts", {}).items():
            counts[k] = counts.get(k, 0) + v
    return issue_summary(counts, calls)


def degradation_warnings(summary: Mapping[str, Any] | None, threshold: float = 0.05) -> list[str]:
    """One line per non-informational kind above ``threshold`` of the run's calls ("unknown_ids: 12 of 80 LLM
    calls (15.0%)"); empty when none is, or when there were no calls."""
    if not summary or not summary.get("calls"):
        return []
    calls = summary["calls"]
    return [f"{k}: {summary['counts'][k]} of {calls} LLM calls ({100 * summary['counts'][k] / calls:.1f}%)"
            for k in ISSUE_KINDS if k not in INFORMATIONAL and summary["counts"].get(k, 0) / calls > threshold]


def issue_report(costs: Mapping[str, Any], threshold: float) -> dict[str, Any] | None:
    """The run's issue summary (:func:`run_issues`) with the threshold and the warnings above it: what cost.json,
    the manifest, the report and the end-of-run summary show; None without LLM calls."""
    summary = run_issues(costs)
    if summary is None:
        return None
    return {**summary, "threshold": threshold, "warnings": degradation_warnings(summary, threshold)}
