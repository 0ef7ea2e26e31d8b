"""Reformulation methods: one LLM call rewrites the case, then an ordinary retriever searches with the rewrite.

* ``reform-bm25``: the sparse prompt asks for 20–30 Greek legal keywords and statutory headings (irrelevant facts
  dropped); BM25 searches with them. The paper's largest single gain (+0.23 Recall@100 over BM25).
* ``reform-knn``: the dense prompt asks for one paragraph in statutory language; kNN searches with its embedding.
* ``reform-hybrid``: both rewrites (two calls): BM25 on the keywords, kNN on the paragraph, fused in Python with
  ranx (RRF or normalised weighted sum, as ``--fusion client``), since the two sides use different texts.

An empty reply falls back to the original case (noted in the trace), so a bad reply costs recall, never the run.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nomos.retrieval.base import Hit
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.fusion import FusionConfig, clause_details, client_fuse
from nomos.retrieval.knn import KnnRetriever
from nomos.retrieval.llm import Checkpoint, Cost, LLMClient, cost_table, run_bounded
from nomos.retrieval.prompts import prompts_info, render

REFORM_METHODS = ("reform-bm25", "reform-knn", "reform-hybrid")
_BULLET = re.compile(r"^\s*(?:[-•*]|\d+[.)])\s*")
_LABEL = re.compile(r"^\s*(λέξεις[- ]κλειδιά|όροι|keywords|ερώτημα|παράγραφος)\s*:\s*", re.I)


def clean_reply(text: str) -> str:
    """Strip code fences, quotes and a leading label ("Λέξεις-κλειδιά: …") from a reformulation."""
    s = text.strip()
    s = re.sub(r"^```\w*\s*|\s*```$", "", s).strip()
    s = _LABEL.sub("", s).strip().strip("\"'«»“”").strip()
    return s


def parse_sparse(text: str) -> tuple[str | None, list[str], dict[str, Any] | None]:
    """(query, terms, issue): keywords joined into one BM25 query; None with an issue when there are none."""
    s = clean_reply(text)
    if not s:
        return None, [], {"kind": "empty"}
    terms = [_BULLET.sub("", t).strip(" .;·") for t in re.split(r"[,\n;]", s)]
    terms = [t for t in dict.fromkeys(terms) if t]
    if not terms:
        return None, [], {"kind": "format", "reply": text[:500]}
    issue = None if 10 <= len(terms) <= 40 else {"kind": "term_count", "terms": len(terms)}
    return " ".join(terms), terms, issue


def parse_dense(text: str) -> tuple[str | None, dict[str, Any] | None]:
    s = " ".join(clean_reply(text).split())
    return (s, None) if s else (None, {"kind": "empty"})


@dataclass
class ReformRetriever:
    """One of :data:`REFORM_METHODS`; needs ``bm25`` for the sparse side and ``knn`` for the dense side."""

    method: str
    llm: LLMClient
    bm25: BM25Retriever | None = None
    knn: KnnRetriever | None = None
    fusion: FusionConfig = field(default_factory=FusionConfig)
    concurrency: int = 16
    checkpoint_path: Path | None = None
    resume: bool = False
    name: str = field(init=False, default="")
    last_traces: dict[str, dict[str, Any]] = field(init=False, default_factory=dict)
    last_costs: dict[str, Any] = field(init=False, default_factory=dict)
    last_details: dict[str, dict[str, dict[str, Any]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        if self.method not in REFORM_METHODS:
            raise ValueError(f"unknown reformulation method {self.method!r}")
        self.name = self.method
        if self.sparse and self.bm25 is None:
            raise ValueError(f"{self.method} needs a BM25 retriever")
        if self.dense and self.knn is None:
            raise ValueError(f"{self.method} needs a kNN retriever")

    @property
    def sparse(self) -> bool:
        return self.method in ("reform-bm25", "reform-hybrid")

    @property
    def dense(self) -> bool:
        return self.method in ("reform-knn", "reform-hybrid")

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k)["q"]

    def describe(self) -> dict[str, Any]:
        d: dict[str, Any] = {"method": self.name, "llm": self.llm.config.describe(), "prompts": prompts_info(),
                             "prompts_used": [p for p, on in (("sparse", self.sparse), ("dense", self.dense)) if on]}
        if self.bm25 is not None:
            d["bm25"] = self.bm25.describe()
        if self.knn is not None:
            d["knn"] = self.knn.describe()
        if self.method == "reform-hybrid":
            cfg = self._fusion()
            d["fusion"] = {"kind": cfg.kind, "where": "client", "depth": cfg.depth, **(
                {"rank_constant": cfg.rank_constant} if cfg.kind == "rrf" else
                {"normalization": cfg.normalization, "combination": cfg.combination, "weights": list(cfg.bm25_knn_weights)})}
        return d

    def _fusion(self) -> FusionConfig:
        return replace(self.fusion, where="client")

    def signature(self) -> str:
        d = self.describe()
        d["llm"] = {k: v for k, v in d["llm"].items() if k not in ("concurrency", "timeout", "retries", "cache", "base_url")}
        for key in ("bm25", "knn", "fusion"):  # searching is redone anyway; only rewrites are checkpointed
            d.pop(key, None)
        return hashlib.sha256(json.dumps(d, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]

    async def _rewrite(self, qid: str, text: str) -> dict[str, Any]:
        started = time.perf_counter()
        cost = Cost()
        trace: dict[str, Any] = {"query_id": qid, "issues": []}
        jobs = [("sparse", self.sparse), ("dense", self.dense)]
        kinds = [k for k, on in jobs if on]
        replies = await asyncio.gather(*(self.llm.chat(render(k, query=text), f"reform-{k}") for k in kinds))
        out: dict[str, Any] = {"query_id": qid, "text_sha": _sha(text)}
        for kind, reply in zip(kinds, replies, strict=True):
            cost.add(reply, f"reform-{kind}")
            if kind == "sparse":
                q, terms, issue = parse_sparse(reply.text)
                trace["terms"] = terms
            else:
                q, issue = parse_dense(reply.text)
            if issue:
                trace["issues"].append({**issue, "prompt": kind})
            if q is None:
                q = text
                trace[f"{kind}_source"] = "fallback (original query)"
            out[kind] = trace[kind] = q
        seconds = time.perf_counter() - started
        trace.update(cost.to_dict(), seconds=round(seconds, 4))
        out.update(trace=trace, cost={**cost.to_dict(), "seconds": round(seconds, 4)})
        return out

    async def _rewrite_all(self, queries: dict[str, str]) -> tuple[dict[str, dict[str, Any]], int]:
        sig = self.signature()
        ckpt = Checkpoint(self.checkpoint_path, self.resume)
        for qid in list(ckpt.done):
            if ckpt.done[qid].get("signature") != sig or ckpt.done[qid].get("text_sha") != _sha(queries.get(qid, "")):
                del ckpt.done[qid]
        todo = [(q, t) for q, t in queries.items() if q not in ckpt.done]

        async def work(item: tuple[str, str]) -> None:
            rec = await self._rewrite(*item)
            rec["signature"] = sig
            ckpt.add(rec)

        try:
            await run_bounded(todo, work, self.concurrency)
        finally:
            await self.llm.aclose()
        return {q: ckpt.done[q] for q in queries}, len(queries) - len(todo)

    def search_many(self, queries: Mapping[str, str], k: int) -> dict[str, list[Hit]]:
        started = time.perf_counter()
        rewrites, resumed = asyncio.run(self._rewrite_all(dict(queries)))
        depth = max(self._fusion().depth, k) if self.method == "reform-hybrid" else k
        bm25 = self.bm25.search_many({q: r["sparse"] for q, r in rewrites.items()}, depth) if self.sparse and self.bm25 else {}
        knn = self.knn.search_many({q: r["dense"] for q, r in rewrites.items()}, depth) if self.dense and self.knn else {}
        if self.method == "reform-bm25":
            out = bm25
        elif self.method == "reform-knn":
            out = knn
        else:
            out = client_fuse(bm25, knn, self._fusion(), k)
            self.last_details = {}
            for qid, hits in out.items():
                evidence = clause_details(bm25.get(qid, []), knn.get(qid, []))
                self.last_details[qid] = {h.doc_id: evidence.get(h.doc_id, {}) for h in hits}
                out[qid] = [Hit(h.doc_id, h.score, details=evidence.get(h.doc_id, {})) for h in hits]
        self.last_traces = {q: r["trace"] for q, r in rewrites.items()}
        self.last_costs = cost_table({q: r["cost"] for q, r in rewrites.items()}, time.perf_counter() - started)
        self.last_costs["resumed_queries"] = resumed
        self.last_costs["paid_calls_this_run"] = self.llm.paid_calls
        self.last_costs["retries_this_run"] = self.llm.retried
        return {q: out.get(q, []) for q in queries}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
