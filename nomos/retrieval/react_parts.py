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
from nomos.retrieval.llm.ids import IdMatcher, read_id_items, read_id_lines
from nomos.retrieval.llm.replies import clean_reply, parse_json_list, parse_json_object
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


_SECTION = re.compile(r"^\W*(?P<label>query|ερώτημα|ερωτημα|thought|σκέψη|σκεψη|[A-ZΑ-Ω][A-ZΑ-Ω _]{2,20})[\s*_]*:[\s*_]*(?P<rest>.*)$",
                      re.I)
_QUERY_LABELS = ("query", "ερώτημα", "ερωτημα")
_THOUGHT_LABELS = ("thought", "reason", "σκέψη", "σκεψη")  # REASON: the paper notebook's planner section
MAX_PLAIN_QUERY_WORDS = 120  # a plain reply longer than this is prose, not a keyword query


def _sections(text: str) -> dict[str, str]:
    """``LABEL: text`` sections (a label line, then its lines up to a blank line or the next label)."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m and (m.group("label").casefold() in _QUERY_LABELS + _THOUGHT_LABELS or m.group("label").isupper()):
            current = out.setdefault(m.group("label").casefold(), [])
            if m.group("rest").strip():
                current.append(m.group("rest").strip())
        elif current is not None:
            if not line.strip():
                current = None if any(current) else current
            else:
                current.append(line.strip())
    return {k: " ".join(v) for k, v in out.items()}


def _plain_query(text: str) -> str | None:
    """A reply that is just the keywords (the notebook's planner): its words, bullets and quotes dropped."""
    if "{" in text or "}" in text:
        return None
    lines = [re.sub(r"^\s*(?:[-•*]|\d+[.)])\s+", "", ln).strip() for ln in text.splitlines()]
    q = " ".join(ln for ln in lines if ln).strip(" \"'«»“”`")
    return q if q and len(q.split()) <= MAX_PLAIN_QUERY_WORDS else None


def parse_planner(text: str) -> tuple[str | None, str | None, dict[str, Any] | None]:
    """(query, thought, issue): the planner's query, or None with the issue ("planner_empty"/"planner_format").

    Read leniently, in this order: JSON (``query``/``ερώτημα``, with ``thought``), a ``QUERY:`` section (the paper
    notebook's, after its ``REASON:``, which becomes the thought), or a plain keyword reply of at most
    :data:`MAX_PLAIN_QUERY_WORDS` words. Thinking text and fences are removed first (:func:`clean_reply`)."""
    s = clean_reply(text).text
    if not s:
        return None, None, {"kind": "planner_empty"}
    obj = parse_json_object(s)
    if obj is not None:
        query = obj.get("query", obj.get("ερώτημα"))
        thought = obj.get("thought")
        if isinstance(query, list):
            query = " ".join(str(x) for x in query)
        if isinstance(query, str) and query.strip():
            return " ".join(query.split()), thought if isinstance(thought, str) else None, None
        return None, None, {"kind": "planner_format", "reply": text[:500]}
    sections = _sections(s)
    query = next((sections[k] for k in _QUERY_LABELS if sections.get(k)), None)
    if query:
        thought = next((sections[k] for k in _THOUGHT_LABELS if sections.get(k)), None)
        return " ".join(query.split()), thought, None
    if not sections:
        plain = _plain_query(s)
        if plain:
            return " ".join(plain.split()), None, None
    return None, None, {"kind": "planner_format", "reply": text[:500]}


def parse_observer(text: str, batch_ids: Sequence[str]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The kept ids of one batch with their reasons, and the issues found (empty, malformed, unknown or ambiguous
    ids).

    Read leniently: JSON (``{"keep": [...]}``, ``{"relevant": [...]}`` or a bare list, of ids or ``{"id",
    "reason"}``), or the paper notebook's lines ``<id> | reason`` and ``RELEVANT: NONE``, or plain lines/lists of
    ids or citations. Ids are matched against this batch's only, and kept only when the match is unique
    (:class:`IdMatcher`)."""
    s = clean_reply(text).text
    if not s:
        return {}, [{"kind": "observer_empty"}]
    matcher = IdMatcher(batch_ids)
    obj = parse_json_object(s)
    items = None
    if obj is not None:
        items = next((obj[k] for k in ("keep", "relevant", "ids", "kept") if isinstance(obj.get(k), list)), None)
        if items is None:
            return {}, [{"kind": "observer_format", "reply": text[:500]}]
    else:
        items = parse_json_list(s)
    found = read_id_items(items, matcher) if items is not None else read_id_lines(s, matcher)
    if not found.read:
        return {}, [{"kind": "observer_format", "reply": text[:500]}]
    return found.ids, found.issues()


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
