"""A second stage over any method's ranked list: re-order its top ``depth`` by a stronger, slower judge.

First-stage methods (BM25, kNN, fusion) score query and article independently; a re-ranker reads them together.
Two judges sit behind one small :class:`Reranker` interface:

* :class:`CrossEncoderReranker`: a sentence-transformers ``CrossEncoder`` (a model id or a local folder), batched,
  on CUDA in fp16 where there is a GPU, else on the CPU.
* :class:`LLMListwiseReranker`: one listwise prompt per query (``prompts/rerank.j2``) over the same
  OpenAI-protocol client as the LLM methods (bounded, retried, cached, accounted), so a re-ranked run costs one
  LLM call per query, whatever the depth.

:class:`RerankRetriever` wraps the first stage. Only the top ``depth`` are re-ordered and the rest keep their
places below them, so Recall@k for k ≥ depth is exactly the first stage's: re-ranking can only move relevant
articles up or down inside the window, never lose them. Scores become rank-derived (strictly descending, no ties)
and every hit keeps its first-stage rank and score and the judge's score in ``details``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from nomos.retrieval.base import Hit, Progress, Retriever, SearchResult, by_score, check_k
from nomos.retrieval.llm import Cost, LLMClient, cost_table, note_issues, run_bounded
from nomos.retrieval.llm.ids import IdMatcher, IdsFound, read_id_items, read_id_lines
from nomos.retrieval.llm.replies import clean_reply, parse_json_list, parse_json_object
from nomos.retrieval.prompts import prompts_info, render
from nomos.retrieval.texts import clip

Texts = Mapping[str, tuple[str, str]]  # article id -> (title, text)


@dataclass(frozen=True)
class Judged:
    """A judge's verdict: per query, the window's ids best first with the judge's score; and what it cost (the
    LLM cost table; empty for a local model)."""

    orders: dict[str, list[tuple[str, float]]]
    costs: dict[str, Any] = field(default_factory=dict)


class Reranker(Protocol):
    """Scores (query, article) pairs; higher is more relevant. ``order`` returns each window's new order."""

    name: str

    def order(self, queries: Mapping[str, str], windows: Mapping[str, Sequence[str]], texts: Texts) -> Judged:
        """For each query id, its window's ids re-ordered best first, each with the judge's score."""
        ...

    def describe(self) -> dict[str, Any]:
        ...


# --------------------------------------------------------------------------------------------------- cross-encoder
@dataclass
class CrossEncoderReranker:
    """A sentence-transformers cross-encoder over "title. text" passages (truncated to the model's window)."""

    model: str
    batch_size: int = 32
    max_length: int = 512
    name: str = "cross-encoder"
    _model: Any = field(init=False, default=None, repr=False)

    def _load(self) -> Any:
        if self._model is None:
            import torch
            from sentence_transformers import CrossEncoder

            cuda = torch.cuda.is_available()
            self._model = CrossEncoder(self.model, max_length=self.max_length, device="cuda" if cuda else "cpu",
                                       model_kwargs={"torch_dtype": torch.float16} if cuda else None)
        return self._model

    def order(self, queries: Mapping[str, str], windows: Mapping[str, Sequence[str]], texts: Texts) -> Judged:
        model = self._load()
        started = time.perf_counter()
        pairs: list[tuple[str, str]] = []
        owners: list[tuple[str, str]] = []
        for qid, ids in windows.items():
            for d in ids:
                if d in texts:
                    title, text = texts[d]
                    pairs.append((queries[qid], f"{title}. {text}"))
                    owners.append((qid, d))
        scores = model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False) if pairs else []
        out: dict[str, list[tuple[str, float]]] = {q: [] for q in windows}
        for (qid, d), s in zip(owners, scores, strict=True):
            out[qid].append((d, float(s)))
        seconds = time.perf_counter() - started
        return Judged({q: by_score(v) for q, v in out.items()},
                      {"pairs": len(pairs), "wall_seconds": round(seconds, 3),
                       "ms_per_query": round(1000 * seconds / max(len(windows), 1), 1)})

    def describe(self) -> dict[str, Any]:
        return {"kind": "cross-encoder", "model": self.model, "max_length": self.max_length}


# --------------------------------------------------------------------------------------------------- LLM listwise
def parse_ranking(text: str, window: Sequence[str]) -> list[str]:
    """The ids of ``window`` in the order the model gave; ids it invented are dropped, ids it left out follow in
    their first-stage order (so a bad reply degrades to the first stage, never to a shorter list)."""
    return read_ranking(text, window)[0]


def read_ranking(text: str, window: Sequence[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """:func:`parse_ranking` with the issues found: read leniently (JSON ``{"ranking": [...]}`` or a bare list, of
    ids or ``{"id"}``; else plain lines or comma lists of ids or citations), ids matched to the window's only and
    kept when the match is unique (:class:`IdMatcher`). A reply with no usable id is a ``rerank_format`` issue (the
    first-stage order stands: a fallback)."""
    s = clean_reply(text).text
    matcher = IdMatcher(window)
    obj = parse_json_object(s)
    given: Any = obj.get("ranking", obj.get("ids")) if obj is not None else None
    if obj is None:
        given = parse_json_list(s)
    if isinstance(given, list):
        found = read_id_items(given, matcher)
    elif obj is None:
        found = read_id_lines(s.replace(",", "\n").replace(">", "\n"), matcher)
    else:
        found = IdsFound()
    seen = list(found.ids)
    issues = ([] if seen else [{"kind": "rerank_empty" if not s else "rerank_format", "reply": text[:500]}]) + found.issues()
    return seen + [d for d in window if d not in seen], issues


@dataclass
class LLMListwiseReranker:
    """One listwise prompt per query: the window's articles (titles and clipped texts), answer a JSON ranking."""

    llm: LLMClient
    chars_per_article: int = 700
    concurrency: int = 16
    name: str = "llm-listwise"
    prompt_set: str = "neutral"  # retrieval/prompts/<set>/ (NOMOS_PROMPTS)

    def order(self, queries: Mapping[str, str], windows: Mapping[str, Sequence[str]], texts: Texts) -> Judged:
        out: dict[str, list[tuple[str, float]]] = {}
        costs: dict[str, Cost] = {}
        started = time.perf_counter()

        async def one(qid: str) -> None:
            window = [d for d in windows[qid] if d in texts]
            cost = costs.setdefault(qid, Cost())
            if not window:
                out[qid] = []
                return
            cands = [{"id": d, "title": texts[d][0], "text": clip(texts[d][1], self.chars_per_article, collapse_spaces=True)} for d in window]
            reply = await self.llm.chat(render("rerank", self.prompt_set, query=queries[qid], candidates=cands), purpose="rerank")
            cost.add(reply, "rerank")
            ranking, issues = read_ranking(reply.text, window)
            if reply.problem in ("length", "content_filter"):  # cut or refused even after the retry: first stage
                ranking, issues = list(window), [{"kind": f"rerank_{reply.problem}", "reply": reply.text[:500]}]
            note_issues(cost, issues)
            out[qid] = [(d, float(len(ranking) - i)) for i, d in enumerate(ranking)]

        async def run_all() -> None:
            try:
                await run_bounded(sorted(windows), one, self.concurrency)
            finally:
                await self.llm.aclose()

        asyncio.run(run_all())
        table = cost_table({q: c.to_dict() for q, c in costs.items()}, time.perf_counter() - started)
        table["paid_calls_this_run"] = self.llm.paid_calls
        return Judged(out, table)

    def describe(self) -> dict[str, Any]:
        return {"kind": "llm-listwise", "llm": self.llm.config.describe(), "chars_per_article": self.chars_per_article,
                "prompts": prompts_info(self.prompt_set)}


# --------------------------------------------------------------------------------------------------- the stage
@dataclass
class RerankRetriever:
    """Any retriever, then a re-ranker over its top ``depth`` (texts fetched by ``mget``)."""

    first: Retriever
    reranker: Reranker
    fetch: Callable[[Sequence[str]], Texts]
    depth: int = 20
    name: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.name = f"{self.first.name}+rerank"

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """The first stage (with its own checkpoint and progress), then one re-ranking pass over every window; the
        first stage's evidence is kept and the judge's cost is added under ``costs["rerank"]``."""
        check_k(k)
        first = self.first.search_many(queries, max(k, self.depth), checkpoint=checkpoint, resume=resume,
                                       on_progress=on_progress)
        hits, judged = self.rerank(queries, first.hits, k)
        costs = {"rerank": judged.costs} if judged.costs else {}
        return SearchResult(hits=hits, costs=costs).merge(first)

    def rerank(self, queries: Mapping[str, str], firsts: Mapping[str, Sequence[Hit]], k: int) -> tuple[dict[str, list[Hit]], Judged]:
        """Re-order each list's top ``depth``; the rest follows unchanged. Scores: ``len - position`` (descending)."""
        windows = {q: [h.doc_id for h in hs[: self.depth]] for q, hs in firsts.items()}
        texts = self.fetch(sorted({d for ids in windows.values() for d in ids}))
        verdict = self.reranker.order({q: queries[q] for q in windows}, windows, texts)
        out: dict[str, list[Hit]] = {}
        for q, hs in firsts.items():
            by_id = {h.doc_id: (i, h) for i, h in enumerate(hs)}
            judged = [(d, s) for d, s in verdict.orders.get(q, []) if d in by_id]
            in_window = {d for d, _ in judged}
            # window articles the judge could not read (no text) keep their first-stage order after the judged ones
            rest_window = [h.doc_id for h in hs[: self.depth] if h.doc_id not in in_window]
            order = [d for d, _ in judged] + rest_window + [h.doc_id for h in hs[self.depth:]]
            judge = dict(judged)
            n = len(order)
            out[q] = [replace(by_id[d][1], score=float(n - i),
                              details={**by_id[d][1].details, "first_rank": by_id[d][0] + 1,
                                       "first_score": by_id[d][1].score,
                                       **({"rerank_score": judge[d]} if d in judge else {})})
                      for i, d in enumerate(order)][:k]
        return out, verdict

    @property
    def score_kind(self) -> str:
        return "rank"

    def describe(self) -> dict[str, Any]:
        return {**self.first.describe(), "rerank": {**self.reranker.describe(), "depth": self.depth}}
