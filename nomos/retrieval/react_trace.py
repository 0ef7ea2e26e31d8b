"""The typed trace of a ReAct-BM25 query: what each round planned, searched, observed and kept, and what it cost.

A :class:`QueryTrace` holds its :class:`Round` s; each round is built from its steps (a :class:`Plan`, a
:class:`Search`, an :class:`Observation`, a :class:`RoundCost`). ``to_dict`` gives the JSON that traces.jsonl, the
checkpoint and ``SearchResult.traces`` have always had, key for key and in the same order (the evaluation writer,
the portal's trace display and resumed checkpoints read those keys), so the file format does not change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nomos.retrieval.llm.costs import Cost

Issue = dict[str, Any]
"""A bad LLM output the loop worked around: ``{"kind": …}`` plus what shows it (the reply, the ids, the batch)."""


@dataclass(frozen=True)
class Plan:
    """The round's BM25 query: the planner's, or the fallback when the planner gave none or repeated itself
    (``issue`` says which)."""

    query: str
    thought: str | None = None
    issue: Issue | None = None
    reasoning: str = ""  # the planner reply's thinking text / reasoning field (kept, never parsed)

    @property
    def fallback_used(self) -> bool:
        return self.issue is not None

    @property
    def source(self) -> str:
        return "fallback" if self.fallback_used else "planner"


@dataclass(frozen=True)
class Search:
    """What BM25 returned for the plan: candidate ids in rank order, and how long searching and fetching took."""

    candidates: list[str]
    search_ms: float
    fetch_ms: float


@dataclass(frozen=True)
class Observation:
    """What the observer made of the candidates: batch sizes, ids cut to fit the budget, kept ids (in BM25 rank
    order) with the observer's reasons, and the issues of its replies (each naming its batch)."""

    batches: list[int]
    truncated: list[str]
    kept: list[str]
    reasons: dict[str, str]
    issues: list[Issue]
    reasoning: list[str] = field(default_factory=list)  # each batch reply's thinking text ("" where none)


@dataclass(frozen=True)
class RoundCost:
    """A round's LLM calls and tokens, its wall time and the part of it spent waiting for the LLM."""

    calls: int
    input_tokens: int
    output_tokens: int
    seconds: float
    llm_wait_seconds: float

    @classmethod
    def between(cls, before: Cost, after: Cost, seconds: float, waited: float) -> RoundCost:
        """The cost of what was added to a query's running :class:`Cost` since ``before`` (a copy of it)."""
        return cls(after.calls - before.calls, after.input_tokens - before.input_tokens,
                   after.output_tokens - before.output_tokens, seconds, waited)

    def to_dict(self) -> dict[str, Any]:
        seconds = round(self.seconds, 4)
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "seconds": seconds, "llm_wait_seconds": round(self.llm_wait_seconds, 4),
                # from the rounded seconds, as the traces have always computed it
                "overhead_ms": round(1000 * (seconds - self.llm_wait_seconds), 2)}


@dataclass(frozen=True)
class Round:
    """One planner → BM25 → observer round."""

    number: int
    plan: Plan
    search: Search
    observation: Observation
    cost: RoundCost

    @property
    def issues(self) -> list[Issue]:
        """The planner's issue (if any) first, then the observer's in batch order."""
        return ([self.plan.issue] if self.plan.issue else []) + self.observation.issues

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"round": self.number, "issues": self.issues, "query_source": self.plan.source}
        if not self.plan.fallback_used:
            d["thought"] = self.plan.thought
        d.update(query=self.plan.query, search_ms=self.search.search_ms, fetch_ms=self.search.fetch_ms)
        if self.observation.truncated:
            d["truncated_for_budget"] = self.observation.truncated
        d.update(candidates=self.search.candidates, kept=self.observation.kept,
                 reasons=self.observation.reasons, batches=self.observation.batches)
        # a thinking model's reasoning, removed before parsing, is kept here (only when there was some, so traces
        # of other models keep their keys)
        if self.plan.reasoning:
            d["planner_reasoning"] = self.plan.reasoning
        if any(self.observation.reasoning):
            d["observer_reasoning"] = self.observation.reasoning
        d.update(self.cost.to_dict())
        return d


@dataclass(frozen=True)
class QueryTrace:
    """A query's rounds, its final ranking's ids, and its cost over all rounds."""

    query_id: str
    rounds: list[Round]
    final: list[str]
    cost: Cost
    seconds: float

    def cost_dict(self) -> dict[str, Any]:
        """The query's row of the cost table (also the checkpoint record's ``cost``)."""
        return {**self.cost.to_dict(), "seconds": round(self.seconds, 4)}

    def to_dict(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "rounds": [r.to_dict() for r in self.rounds], "final": self.final,
                **self.cost_dict()}
