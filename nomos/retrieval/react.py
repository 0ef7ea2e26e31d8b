"""ReAct-BM25, the paper's main method: an LLM plans BM25 queries and reads what they return, for up to N rounds.

Each round: a planner writes a Greek keyword query (round 1 from the case alone; later rounds also see the earlier
queries and up to ``planner_kept`` kept articles); BM25 returns the top ``depth`` (100) articles of the whole
pool; an observer reads the original case and those articles' full text, in batches under a token budget, and
says which to keep. The final ranking orders kept articles by (rounds kept desc, earliest round kept asc, best
BM25 rank when kept asc, id) and keeps at most ``k``. Snapshots of that ranking after rounds 1, 2, 3, 5 and 10
are kept too, so one run gives the whole curve.

Bad LLM output never stops a run: an empty or malformed planner reply, or one that repeats an earlier query,
gets a deterministic fallback query; an observer reply that cannot be read keeps nothing from its batch; ids
the observer invents are ignored. Every such event is written to the query's trace. Only an endpoint that is
dead or refuses requests (:class:`retrieval.llm.LLMUnavailable`) stops the run, after the finished queries
were checkpointed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nomos.retrieval.base import Hit, Progress, SearchResult, tick
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.llm import Checkpoint, Cost, LLMClient, cost_table, run_bounded
from nomos.retrieval.prompts import prompts_info, render
from nomos.retrieval.texts import clip, fetch_texts

SNAPSHOTS = (1, 2, 3, 5, 10)


# --------------------------------------------------------------------------------------------------- pure parts
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


def observer_overhead(query: str, chars_per_token: float = 2.5) -> int:
    """Estimated tokens of an observer prompt without its candidates (instructions + the case)."""
    messages = render("observer", query=query, candidates=[], batch=99, batches=99, round=99)
    return estimate_tokens("".join(m["content"] for m in messages), chars_per_token)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply: the whole reply, or inside a ``` fence, or from the first ``{`` to the last ``}``."""
    s = text.strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", s, re.S)
    tries = [s] + ([fence.group(1).strip()] if fence else [])
    if "{" in s and "}" in s:
        tries.append(s[s.index("{") : s.rindex("}") + 1])
    for t in tries:
        try:
            obj = json.loads(t)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(obj, dict):
            return obj
    return None


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


# --------------------------------------------------------------------------------------------------- retriever
@dataclass(frozen=True)
class ReActConfig:
    rounds: int = 10
    depth: int = 100
    observer_budget: int = 84_000  # estimated input tokens per observer call (the notebooks' ~84k)
    chars_per_token: float = 2.5
    planner_kept: int = 27  # kept articles a later planner sees (the paper's ~27)
    planner_article_chars: int = 1500  # of each kept article's text shown to the planner
    snapshots: tuple[int, ...] = SNAPSHOTS
    concurrency: int = 16  # queries in flight

    def snapshot_rounds(self) -> list[int]:
        return sorted({s for s in self.snapshots if s <= self.rounds} | {self.rounds})


@dataclass
class ReActRetriever:
    """The ReAct-BM25 loop behind the :class:`retrieval.base.Retriever` interface.

    ``search_many`` returns, besides the hits, each query's trace, the snapshots and pools (round -> query ->
    ranking) and the cost table. With ``checkpoint`` every finished query is appended there; ``resume`` skips
    the queries already in it (those recorded under the same signature and query text).
    """

    bm25: BM25Retriever
    llm: LLMClient
    config: ReActConfig = field(default_factory=ReActConfig)
    name: str = field(init=False, default="react")
    _articles: dict[str, tuple[str, str]] = field(init=False, default_factory=dict, repr=False)

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        return asyncio.run(self._run(dict(queries), k, checkpoint, resume, on_progress))

    def describe(self) -> dict[str, Any]:
        c = self.config
        return {
            "method": self.name,
            "bm25": self.bm25.describe(),
            "llm": self.llm.config.describe(),
            "prompts": prompts_info(),
            "rounds": c.rounds, "depth": c.depth, "observer_budget_tokens": c.observer_budget,
            "chars_per_token": c.chars_per_token, "planner_kept": c.planner_kept,
            "planner_article_chars": c.planner_article_chars, "snapshots": c.snapshot_rounds(),
            "concurrency": c.concurrency,
            "final_ranking": "rounds kept desc, earliest round kept asc, best BM25 rank when kept asc, id asc",
        }

    def signature(self) -> str:
        """Hash of everything that changes a query's outcome; checkpointed queries with another one are redone."""
        d = self.describe()
        d["llm"] = {k: v for k, v in d["llm"].items() if k not in ("concurrency", "timeout", "retries", "cache", "base_url")}
        d.pop("concurrency")
        return hashlib.sha256(json.dumps(d, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]

    # ----------------------------------------------------------------------------------------------- run
    async def _run(self, queries: dict[str, str], k: int, checkpoint: Path | None, resume: bool,
                   on_progress: Progress | None) -> SearchResult:
        started = time.perf_counter()
        sig = self.signature()
        ckpt = Checkpoint(checkpoint, resume)
        for qid in list(ckpt.done):
            rec = ckpt.done[qid]
            if rec.get("signature") != sig or rec.get("text_sha") != _sha(queries.get(qid, "")):
                del ckpt.done[qid]
        todo = [(q, t) for q, t in queries.items() if q not in ckpt.done]
        for _ in range(len(queries) - len(todo)):
            tick(on_progress)  # resumed from the checkpoint: finished already

        async def work(item: tuple[str, str]) -> None:
            rec = await self._query(item[0], item[1], k)
            rec["signature"] = sig
            ckpt.add(rec)
            tick(on_progress)

        try:
            await run_bounded(todo, work, self.config.concurrency)
        finally:
            await self.llm.aclose()
        out: dict[str, list[Hit]] = {}
        traces: dict[str, dict[str, Any]] = {}
        snapshots: dict[int, dict[str, list[tuple[str, float]]]] = {}
        pools: dict[int, dict[str, list[tuple[str, float]]]] = {}
        per_query_cost: dict[str, dict[str, Any]] = {}
        for qid in queries:
            rec = ckpt.done[qid]
            out[qid] = [Hit(d, float(s), details=det) for d, s, det in rec["ranking"]]
            traces[qid] = rec["trace"]
            per_query_cost[qid] = rec["cost"]
            for r, pairs in rec["snapshots"].items():
                snapshots.setdefault(int(r), {})[qid] = [(d, float(s)) for d, s in pairs]
            for r, pairs in rec["pools"].items():
                pools.setdefault(int(r), {})[qid] = [(d, float(s)) for d, s in pairs]
        costs = cost_table(per_query_cost, time.perf_counter() - started)
        costs["resumed_queries"] = len(queries) - len(todo)
        costs["paid_calls_this_run"] = self.llm.paid_calls
        costs["retries_this_run"] = self.llm.retried
        return SearchResult(out, traces=traces, costs=costs, snapshots=snapshots, pools=pools)

    def _fetch(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Title and full text of each id by ``mget``; texts already fetched in this run are reused."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._articles]
        if missing:
            self._articles.update(fetch_texts(self.bm25.client, self.bm25.index, missing))
        return {i: self._articles.get(i, ("", "")) for i in ids}

    def _planner_messages(self, text: str, round_no: int, previous: list[str], kept: Mapping[str, KeptStats]) -> list[dict[str, str]]:
        c = self.config
        if round_no == 1:
            return render("planner_first", query=text, rounds=c.rounds)
        top = [h.doc_id for h in final_ranking(kept, c.planner_kept)]
        arts = self._fetch(top)
        view = [{"id": d, "title": arts[d][0], "text": clip(arts[d][1], c.planner_article_chars)} for d in top]
        return render("planner_next", query=text, previous=previous, kept=view, kept_total=len(kept), round=round_no, rounds=c.rounds)

    async def _query(self, qid: str, text: str, k: int) -> dict[str, Any]:
        c = self.config
        q_started = time.perf_counter()
        cost = Cost()
        kept: dict[str, KeptStats] = {}
        pool: dict[str, tuple[int, int]] = {}  # id -> (best rank, first round seen)
        previous: list[str] = []
        rounds: list[dict[str, Any]] = []
        snapshots: dict[str, list[tuple[str, float]]] = {}
        pools: dict[str, list[tuple[str, float]]] = {}
        for r in range(1, c.rounds + 1):
            r_started = time.perf_counter()
            waited = 0.0
            calls_before, in_before, out_before = cost.calls, cost.input_tokens, cost.output_tokens
            trace: dict[str, Any] = {"round": r, "issues": []}

            messages = await asyncio.to_thread(self._planner_messages, text, r, previous, kept)
            t = time.perf_counter()
            reply = await self.llm.chat(messages, "planner")
            waited += time.perf_counter() - t
            cost.add(reply, "planner")
            query, thought, issue = parse_planner(reply.text)
            if issue is None and query is not None and normalize_query(query) in {normalize_query(p) for p in previous}:
                issue = {"kind": "planner_repeat", "query": query}
            if issue is not None:
                trace["issues"].append(issue)
                titles = [self._articles.get(h.doc_id, ("", ""))[0] for h in final_ranking(kept, c.planner_kept)]
                query = fallback_query(text, previous, titles)
                trace["query_source"] = "fallback"
            else:
                trace["query_source"] = "planner"
                trace["thought"] = thought
            assert query is not None
            previous.append(query)
            trace["query"] = query

            t = time.perf_counter()
            hits = await asyncio.to_thread(self.bm25.search, query, c.depth)
            trace["search_ms"] = round(1000 * (time.perf_counter() - t), 2)
            t = time.perf_counter()
            ids = [h.doc_id for h in hits]
            arts = await asyncio.to_thread(self._fetch, ids)
            trace["fetch_ms"] = round(1000 * (time.perf_counter() - t), 2)
            candidates = [Candidate(d, arts[d][0], arts[d][1], i) for i, d in enumerate(ids, start=1)]
            for cand in candidates:
                best, first = pool.get(cand.id, (cand.rank, r))
                pool[cand.id] = (min(best, cand.rank), first)

            overhead = observer_overhead(text, c.chars_per_token)
            batches, cut = batch_candidates(candidates, c.observer_budget, overhead, c.chars_per_token)
            if cut:
                trace["truncated_for_budget"] = cut
            t = time.perf_counter()
            replies = await asyncio.gather(*(
                self.llm.chat(render("observer", query=text, candidates=[vars(x) for x in b], batch=i, batches=len(batches), round=r), "observer")
                for i, b in enumerate(batches, start=1)
            ))
            waited += time.perf_counter() - t
            reasons: dict[str, str] = {}
            for i, (b, rep) in enumerate(zip(batches, replies, strict=True), start=1):
                cost.add(rep, "observer")
                kept_b, issues = parse_observer(rep.text, [x.id for x in b])
                trace["issues"].extend({**iss, "batch": i} for iss in issues)
                reasons.update(kept_b)
            rank_of = {x.id: x.rank for x in candidates}
            kept_ids = sorted(reasons, key=lambda d: rank_of[d])
            for d in kept_ids:
                kept.setdefault(d, KeptStats()).add(r, rank_of[d])

            trace.update({
                "candidates": ids,
                "kept": kept_ids,
                "reasons": {d: reasons[d] for d in kept_ids},
                "batches": [len(b) for b in batches],
                "calls": cost.calls - calls_before,
                "input_tokens": cost.input_tokens - in_before,
                "output_tokens": cost.output_tokens - out_before,
                "seconds": round(time.perf_counter() - r_started, 4),
                "llm_wait_seconds": round(waited, 4),
            })
            trace["overhead_ms"] = round(1000 * (trace["seconds"] - waited), 2)
            rounds.append(trace)
            if r in c.snapshot_rounds():
                snapshots[str(r)] = [(h.doc_id, h.score) for h in final_ranking(kept, k)]
                ordered = sorted(pool.items(), key=lambda kv: (kv[1][0], kv[1][1], kv[0]))
                pools[str(r)] = [(d, float(len(ordered) - i)) for i, (d, _) in enumerate(ordered)]

        final = final_ranking(kept, k)
        seconds = time.perf_counter() - q_started
        return {
            "query_id": qid,
            "text_sha": _sha(text),
            "ranking": [[h.doc_id, h.score, dict(h.details)] for h in final],
            "snapshots": snapshots,
            "pools": pools,
            "trace": {"query_id": qid, "rounds": rounds, "final": [h.doc_id for h in final],
                      **cost.to_dict(), "seconds": round(seconds, 4)},
            "cost": {**cost.to_dict(), "seconds": round(seconds, 4)},
        }


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
