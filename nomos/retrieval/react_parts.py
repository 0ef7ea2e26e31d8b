"""The pure parts of ReAct-BM25 (no I/O): observer batching under a token budget, reading the planner's and the
observer's replies, repeat detection and the deterministic fallback query, and the final-ranking rule."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nomos.retrieval.base import Hit
from nomos.retrieval.llm.replies import parse_json_object
from nomos.retrieval.prompts import render


@dataclass(frozen=True)
class Candidate:
    """One article a round's BM25 returned: id, title, full text and its BM25 rank (1-based)."""

    id: str
    title: str
    text: str
    rank: int


def estimate_tokens(text: str, chars_per_token: float = 2.5) -> int:
    """A tokenizer-free estimate (Greek runs ~2–3 characters per token in common BPE vocabularies); erring
    high keeps batches under the endpoint's real context."""
    return math.ceil(len(text) / chars_per_token)


def candidate_block(c: Candidate) -> str:
    """What one candidate adds to the observer prompt (as the template renders it, near enough)."""
    return f"\n=== [{c.id}] {c.title} ===\n{c.text}\n"


def batch_candidates(
    candidates: Sequence[Candidate], budget: int, overhead: int, chars_per_token: float = 2.5
) -> tuple[list[list[Candidate]], list[str]]:
    """Split candidates, in rank order, into batches whose estimated prompt (``overhead`` + blocks) fits ``budget``.

    Greedy: a candidate joins the current batch if it fits, else starts a new one. A candidate too large for
    any batch is cut to fit and sent alone. Returns the batches and the ids that were cut.
    """
    room = budget - overhead
    if room <= 0:
        raise ValueError(f"observer budget {budget} leaves no room after a {overhead}-token prompt")
    batches: list[list[Candidate]] = []
    current: list[Candidate] = []
    used = 0
    cut: list[str] = []
    for c in candidates:
        cost = estimate_tokens(candidate_block(c), chars_per_token)
        if cost > room:
            header = len(candidate_block(replace(c, text="")))
            keep_chars = max(0, int(room * chars_per_token) - header)
            c = replace(c, text=c.text[:keep_chars])
            cost = estimate_tokens(candidate_block(c), chars_per_token)
            cut.append(c.id)
        if current and used + cost > room:
            batches.append(current)
            current, used = [], 0
        current.append(c)
        used += cost
    if current:
        batches.append(current)
    return batches, cut


def observer_overhead(query: str, chars_per_token: float = 2.5, prompt_set: str = "neutral") -> int:
    """Estimated tokens of an observer prompt of ``prompt_set`` without its candidates (instructions + the case)."""
    messages = render("observer", prompt_set, query=query, candidates=[], batch=99, batches=99, round=99)
    return estimate_tokens("".join(m["content"] for m in messages), chars_per_token)


def parse_planner(text: str) -> tuple[str | None, str | None, dict[str, Any] | None]:
    """(query, thought, issue): the planner's query, or None with the issue ("planner_empty"/"planner_format")."""
    if not text.strip():
        return None, None, {"kind": "planner_empty"}
    obj = parse_json_object(text)
    query = obj.get("query", obj.get("ερώτημα")) if obj else None
    if not isinstance(query, str) or not query.strip():
        return None, None, {"kind": "planner_format", "reply": text[:500]}
    thought = obj.get("thought") if obj else None
    return " ".join(query.split()), thought if isinstance(thought, str) else None, None


def parse_observer(text: str, batch_ids: Sequence[str]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The kept ids of one batch with their reasons, and the issues found (empty, malformed, unknown ids)."""
    if not text.strip():
        return {}, [{"kind": "observer_empty"}]
    obj = parse_json_object(text)
    items = obj.get("keep") if obj else None
    if not isinstance(items, list):
        return {}, [{"kind": "observer_format", "reply": text[:500]}]
    allowed = set(batch_ids)
    kept: dict[str, str] = {}
    unknown: list[str] = []
    for item in items:
        if isinstance(item, dict):
            doc, reason = item.get("id"), item.get("reason", "")
        else:
            doc, reason = item, ""
        if not isinstance(doc, str):
            continue
        doc = doc.strip().strip("[]").strip()
        if doc in allowed:
            kept.setdefault(doc, reason if isinstance(reason, str) else str(reason))
        else:
            unknown.append(doc)
    issues = [{"kind": "unknown_ids", "ids": unknown}] if unknown else []
    return kept, issues


def normalize_query(q: str) -> str:
    """For repeat detection: case- and accent-folded words without punctuation."""
    folded = unicodedata.normalize("NFD", q.casefold())
    folded = "".join(ch for ch in folded if unicodedata.category(ch) != "Mn")
    return " ".join(re.findall(r"\w+", folded))


@dataclass
class KeptStats:
    """What the final ranking needs about one kept article."""

    rounds: list[int] = field(default_factory=list)
    best_rank: int = 10**9

    def add(self, round_no: int, bm25_rank: int) -> None:
        if round_no not in self.rounds:
            self.rounds.append(round_no)
        self.best_rank = min(self.best_rank, bm25_rank)


def final_ranking(kept: Mapping[str, KeptStats], k: int = 100) -> list[Hit]:
    """Kept articles by (rounds kept desc, earliest round kept asc, best BM25 rank asc, id asc), cut to ``k``.

    Scores are rank-derived (n, n-1, …) so any consumer sorting by (score desc, id) keeps this order.
    """
    order = sorted(kept.items(), key=lambda kv: (-len(kv[1].rounds), min(kv[1].rounds), kv[1].best_rank, kv[0]))[:k]
    n = len(order)
    return [
        Hit(doc, float(n - i), details={"rounds_kept": len(s.rounds), "first_round": min(s.rounds), "best_rank": s.best_rank})
        for i, (doc, s) in enumerate(order)
    ]


def fallback_query(original: str, previous: Sequence[str], kept_titles: Sequence[str]) -> str:
    """A deterministic query when the planner gives none or repeats itself: the case itself, else the titles
    of the kept articles, else both; the first not asked before (the case itself if all were)."""
    titles = " ".join(dict.fromkeys(t for t in kept_titles if t))
    options = [original] + ([titles, f"{original} {titles}"] if titles else [])
    asked = {normalize_query(p) for p in previous}
    for o in options:
        if normalize_query(o) not in asked:
            return o
    return original
