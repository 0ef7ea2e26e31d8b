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

Prompts fit the context (:mod:`retrieval.react_context`): each query's characters-per-token ratio is measured
(the server's ``/tokenize`` on the case, then every reply's ``usage.prompt_tokens``), the observer's batches and
the later planner's prompt are sized by it under ``observer_budget``, and a batch the server still refuses as
too long (HTTP 400, context length) is split in two and re-sent; one article that alone does not fit stops the
run with a message naming NOMOS_REACT_OBSERVER_BUDGET.
"""


from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nomos.retrieval.base import Hit, Progress, SearchResult
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.cited import with_named
from nomos.retrieval.llm import (
    CheckpointedRun,
    Cost,
    LLMClient,
    LLMContextExceeded,
    Reply,
    note_issues,
    run_checkpointed,
)
from nomos.retrieval.llm.replies import parse_json_object
from nomos.retrieval.prompts import prompts_info, render
from nomos.retrieval.react_context import (
    DEFAULT_CHARS_PER_TOKEN,
    ServerTokenizer,
    TokenRatio,
    does_not_fit_message,
    estimate_prompt,
    prompt_chars,
)
from nomos.retrieval.react_parts import (
    Candidate,
    KeptStats,
    batch_candidates,
    candidate_block,
    estimate_tokens,
    fallback_query,
    final_ranking,
    normalize_query,
    observer_overhead,
    parse_observer,
    parse_planner,
)
from nomos.retrieval.react_trace import Observation, Plan, QueryTrace, Round, RoundCost, Search
from nomos.retrieval.texts import clip, fetch_texts

SNAPSHOTS = (1, 2, 3, 5, 10)
Ranking = list[tuple[str, float]]

__all__ = [
    "SNAPSHOTS", "Candidate", "KeptStats", "ReActConfig", "ReActRetriever", "batch_candidates", "candidate_block",
    "estimate_tokens", "fallback_query", "final_ranking", "normalize_query", "observer_overhead", "parse_json_object",
    "parse_observer", "parse_planner",
]


@dataclass(frozen=True)
class ReActConfig:
    rounds: int = 10
    depth: int = 100
    observer_budget: int = 84_000  # estimated input tokens per observer call (the notebooks' ~84k)
    chars_per_token: float = DEFAULT_CHARS_PER_TOKEN  # before a query's prompts are measured (react_context)
    planner_kept: int = 27  # kept articles a later planner sees (the paper's ~27)
    planner_article_chars: int = 1500  # of each kept article's text shown to the planner
    planner_history: int = 10  # the most recent earlier queries a later planner sees
    prompts: str = "neutral"  # the prompt set (retrieval/prompts/<set>/)
    local_ctx: int | None = None  # the local server's context, when that is the endpoint (named in errors)
    snapshots: tuple[int, ...] = SNAPSHOTS
    concurrency: int = 16  # queries in flight

    def snapshot_rounds(self) -> list[int]:
        return sorted({s for s in self.snapshots if s <= self.rounds} | {self.rounds})


@dataclass
class QueryState:
    """What one query's loop carries from round to round: the case, every query asked, the kept articles, the
    pool of every candidate seen (id -> (best rank, first round seen)), the rounds so far, the snapshots and the
    running cost."""

    text: str
    ratio: TokenRatio = field(default_factory=TokenRatio)
    cost: Cost = field(default_factory=Cost)
    previous: list[str] = field(default_factory=list)
    kept: dict[str, KeptStats] = field(default_factory=dict)
    pool: dict[str, tuple[int, int]] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)
    snapshots: dict[str, Ranking] = field(default_factory=dict)
    pools: dict[str, Ranking] = field(default_factory=dict)

    def is_repeat(self, query: str) -> bool:
        return normalize_query(query) in {normalize_query(p) for p in self.previous}

    def add_to_pool(self, candidates: Sequence[Candidate], round_no: int) -> None:
        for cand in candidates:
            best, first = self.pool.get(cand.id, (cand.rank, round_no))
            self.pool[cand.id] = (min(best, cand.rank), first)

    def keep(self, kept_ids: Sequence[str], candidates: Sequence[Candidate], round_no: int) -> None:
        rank_of = {x.id: x.rank for x in candidates}
        for d in kept_ids:
            self.kept.setdefault(d, KeptStats()).add(round_no, rank_of[d])

    def snapshot(self, round_no: int, k: int) -> None:
        """The final ranking and the pool (by best rank, first round seen, id) as they stand after this round."""
        self.snapshots[str(round_no)] = [(h.doc_id, h.score) for h in final_ranking(self.kept, k)]
        ordered = sorted(self.pool.items(), key=lambda kv: (kv[1][0], kv[1][1], kv[0]))
        self.pools[str(round_no)] = [(d, float(len(ordered) - i)) for i, (d, _) in enumerate(ordered)]


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
    _tokenizer: ServerTokenizer | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        cfg = self.llm.config
        self._tokenizer = ServerTokenizer(cfg.base_url, cfg.model, cfg.api_key)

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        return asyncio.run(self._run(dict(queries), k, checkpoint, resume, on_progress))

    @property
    def score_kind(self) -> str:
        return "rank"

    def describe(self) -> dict[str, Any]:
        c = self.config
        return {
            "method": self.name,
            "bm25": self.bm25.describe(),
            "llm": self.llm.config.describe(),
            "prompts": prompts_info(c.prompts),
            "rounds": c.rounds, "depth": c.depth, "observer_budget_tokens": c.observer_budget,
            "chars_per_token": c.chars_per_token,
            "calibration": "per query: the server's /tokenize on the case, then usage.prompt_tokens of each reply",
            "local_ctx": c.local_ctx, "planner_kept": c.planner_kept, "planner_history": c.planner_history,
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

        async def work(qid: str, text: str) -> dict[str, Any]:
            return await self._query(qid, text, k)

        run = await run_checkpointed(queries, work, signature=self.signature(), llm=self.llm, checkpoint=checkpoint,
                                     resume=resume, concurrency=self.config.concurrency, on_progress=on_progress)
        return _result(run, run.costs(self.llm, time.perf_counter() - started))

    async def _query(self, qid: str, text: str, k: int) -> dict[str, Any]:
        """One query's rounds; its checkpoint record (ranking, snapshots, pools, trace, cost)."""
        started = time.perf_counter()
        q = QueryState(text, TokenRatio(self.config.chars_per_token))
        counted = await asyncio.to_thread(self._tokenizer.count, text) if self._tokenizer else None
        if counted:
            q.ratio.observe(len(text), counted, "tokenize")
        for r in range(1, self.config.rounds + 1):
            q.rounds.append(await self._round(q, r))
            if r in self.config.snapshot_rounds():
                q.snapshot(r, k)
        final = final_ranking(q.kept, k)
        trace = QueryTrace(qid, q.rounds, [h.doc_id for h in final], q.cost, time.perf_counter() - started)
        return {
            "ranking": [[h.doc_id, h.score, dict(h.details)] for h in final],
            "snapshots": q.snapshots,
            "pools": q.pools,
            "trace": trace.to_dict(),
            "cost": trace.cost_dict(),
        }

    async def _round(self, q: QueryState, r: int) -> Round:
        """Plan a query, search it, let the observer read what came back, keep what it kept."""
        started = time.perf_counter()
        before = replace(q.cost)
        plan, planner_wait = await self._plan(q, r)
        q.previous.append(plan.query)
        search, candidates = await self._search(plan.query)
        q.add_to_pool(candidates, r)
        observation, observer_wait = await self._observe(q, candidates, r)
        q.keep(observation.kept, candidates, r)
        cost = RoundCost.between(before, q.cost, time.perf_counter() - started, planner_wait + observer_wait)
        return Round(r, plan, search, observation, cost)

    async def _plan(self, q: QueryState, r: int) -> tuple[Plan, float]:
        """The planner's query, or a deterministic fallback when it gave none or repeated an earlier one; and the
        seconds spent waiting for the LLM."""
        messages = await asyncio.to_thread(self._planner_messages, q.text, r, q.previous, q.kept, q.ratio.chars_per_token)
        t = time.perf_counter()
        try:
            reply = await self.llm.chat(messages, "planner")
        except LLMContextExceeded as exc:  # trimmed to the budget already: the budget is over the context
            what = f"the planner prompt of round {r}"
            raise LLMContextExceeded(f"{does_not_fit_message(what, self.config.observer_budget, self.config.local_ctx)} "
                                     f"({exc})") from None
        waited = time.perf_counter() - t
        q.cost.add(reply, "planner")
        q.ratio.observe(prompt_chars(messages), reply.prompt_size, "usage")
        query, thought, issue = parse_planner(reply.text)
        if reply.problem in ("length", "content_filter"):  # cut or refused even after the retry: not a query
            query, thought, issue = None, None, {"kind": f"planner_{reply.problem}", "reply": reply.text[:500]}
        if issue is None and query is not None and q.is_repeat(query):
            issue = {"kind": "planner_repeat", "query": query}
        if issue is None and query is not None:
            return Plan(query, thought, reasoning=reply.reasoning), waited
        note_issues(q.cost, [issue] if issue is not None else [])
        q.cost.note("fallbacks")
        titles = [self._articles.get(h.doc_id, ("", ""))[0] for h in final_ranking(q.kept, self.config.planner_kept)]
        return Plan(fallback_query(q.text, q.previous, titles), issue=issue, reasoning=reply.reasoning), waited

    async def _search(self, query: str) -> tuple[Search, list[Candidate]]:
        """BM25's top ``depth`` for the query, the articles it cites first (cited.with_named: «άρθρο 914 ΑΚ
        αδικοπραξία» also retrieves AK::914), with each article's title and full text."""
        t = time.perf_counter()
        hits = await asyncio.to_thread(self._bm25_and_cited, query)
        search_ms = round(1000 * (time.perf_counter() - t), 2)
        t = time.perf_counter()
        ids = [h.doc_id for h in hits]
        arts = await asyncio.to_thread(self._fetch, ids)
        fetch_ms = round(1000 * (time.perf_counter() - t), 2)
        candidates = [Candidate(d, arts[d][0], arts[d][1], i) for i, d in enumerate(ids, start=1)]
        return Search(ids, search_ms, fetch_ms), candidates

    async def _observe(self, q: QueryState, candidates: list[Candidate], r: int) -> tuple[Observation, float]:
        """The observer's verdict on the candidates, in batches under the token budget (read concurrently); and
        the seconds spent waiting for the LLM."""
        c = self.config
        cpt = q.ratio.chars_per_token
        overhead = observer_overhead(q.text, cpt, c.prompts)
        batches, cut = batch_candidates(candidates, c.observer_budget, overhead, cpt)
        splits: list[dict[str, Any]] = []
        t = time.perf_counter()
        answered = await asyncio.gather(*(self._ask_observer(q, b, i, len(batches), r, splits)
                                          for i, b in enumerate(batches, start=1)))
        waited = time.perf_counter() - t
        # the halves are asked concurrently: the splits in rank order, so the trace is the same on every run
        issues = sorted(splits, key=lambda s: (s["batch"], s["first_rank"], -s["size"]))
        reasons: dict[str, str] = {}
        sent: list[int] = []
        reasoning: list[str] = []
        for i, pairs in enumerate(answered, start=1):
            for b, rep, messages in pairs:
                sent.append(len(b))
                q.cost.add(rep, "observer")
                q.ratio.observe(prompt_chars(messages), rep.prompt_size, "usage")
                kept_b, found = parse_observer(rep.text, [x.id for x in b])
                if rep.problem in ("length", "content_filter"):  # a cut last line may name another id: keep nothing
                    kept_b, found = {}, [{"kind": f"observer_{rep.problem}", "reply": rep.text[-500:]}]
                issues.extend({**iss, "batch": i} for iss in found)
                note_issues(q.cost, found)
                reasons.update(kept_b)
                reasoning.append(rep.reasoning)
        rank_of = {x.id: x.rank for x in candidates}
        kept_ids = sorted(reasons, key=lambda d: rank_of[d])
        return Observation(sent, cut, kept_ids, {d: reasons[d] for d in kept_ids}, issues, reasoning), waited

    def _bm25_and_cited(self, query: str) -> list[Hit]:
        depth = self.config.depth
        return with_named(self.bm25.transport, self.bm25.index, query, self.bm25.search(query, depth), depth)

    async def _ask_observer(self, q: QueryState, batch: list[Candidate], i: int, n: int, r: int,
                            issues: list[dict[str, Any]]) -> list[tuple[list[Candidate], Reply, list[dict[str, str]]]]:
        """The observer's reply to one batch; a batch the server refuses as longer than its context is split in
        two and each half asked again (recorded as a ``context_split`` issue). One article that alone does not
        fit stops the run, naming the setting to change."""
        messages = render("observer", self.config.prompts, query=q.text, candidates=[vars(x) for x in batch],
                          batch=i, batches=n, round=r)
        try:
            return [(batch, await self.llm.chat(messages, "observer"), messages)]
        except LLMContextExceeded as exc:
            if len(batch) == 1:
                what = f"the observer prompt for {batch[0].id} alone"
                raise LLMContextExceeded(f"{does_not_fit_message(what, self.config.observer_budget, self.config.local_ctx)} "
                                         f"({exc})") from None
            half = (len(batch) + 1) // 2
            issues.append({"kind": "context_split", "batch": i, "size": len(batch), "into": [half, len(batch) - half],
                           "first_rank": batch[0].rank, "estimated_tokens": estimate_prompt(messages, q.ratio.chars_per_token)})
            first, second = await asyncio.gather(self._ask_observer(q, batch[:half], i, n, r, issues),
                                                 self._ask_observer(q, batch[half:], i, n, r, issues))
            return first + second

    def _fetch(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Title and full text of each id by ``mget``; texts already fetched in this run are reused."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._articles]
        if missing:
            self._articles.update(fetch_texts(self.bm25.transport, self.bm25.index, missing))
        return {i: self._articles.get(i, ("", "")) for i in ids}

    def _planner_messages(self, text: str, round_no: int, previous: list[str], kept: Mapping[str, KeptStats],
                          chars_per_token: float) -> list[dict[str, str]]:
        """The planner's prompt; a later round's shows the last ``planner_history`` queries and the top
        ``planner_kept`` kept articles, fewer of each (articles first, then the oldest queries) until its estimate
        fits ``observer_budget``, so the planner's prompt fits the same context as the observer's."""
        c = self.config
        if round_no == 1:
            return render("planner_first", c.prompts, query=text, rounds=c.rounds)
        top = [h.doc_id for h in final_ranking(kept, c.planner_kept)]
        arts = self._fetch(top)
        view = [{"id": d, "title": arts[d][0], "text": clip(arts[d][1], c.planner_article_chars)} for d in top]
        shown = previous[-c.planner_history:] if c.planner_history > 0 else []

        def messages() -> list[dict[str, str]]:
            return render("planner_next", c.prompts, query=text, previous=shown, previous_total=len(previous), kept=view,
                          kept_total=len(kept), round=round_no, rounds=c.rounds)

        out = messages()
        while estimate_prompt(out, chars_per_token) > c.observer_budget and (view or len(shown) > 1):
            if view:
                view = view[:-1]
            else:
                shown = shown[1:]
            out = messages()
        return out


def _result(run: CheckpointedRun, costs: dict[str, Any]) -> SearchResult:
    """The hits, traces, snapshots and pools of every query's record (fresh or resumed), with the cost table."""
    out: dict[str, list[Hit]] = {}
    traces: dict[str, dict[str, Any]] = {}
    snapshots: dict[int, dict[str, Ranking]] = {}
    pools: dict[int, dict[str, Ranking]] = {}
    for qid, rec in run.records.items():
        out[qid] = [Hit(d, float(s), details=det) for d, s, det in rec["ranking"]]
        traces[qid] = rec["trace"]
        for r, pairs in rec["snapshots"].items():
            snapshots.setdefault(int(r), {})[qid] = [(d, float(s)) for d, s in pairs]
        for r, pairs in rec["pools"].items():
            pools.setdefault(int(r), {})[qid] = [(d, float(s)) for d, s in pairs]
    return SearchResult(out, traces=traces, costs=costs, snapshots=snapshots, pools=pools)
