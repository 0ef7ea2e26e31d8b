"""Hybrid retrieval: BM25 and kNN fused inside OpenSearch (neural-search pipelines) or in Python (ranx).

Server-side, a ``hybrid`` query runs both clauses and a search pipeline fuses them: the normalization processor
(min_max / l2 / z_score; arithmetic / geometric / harmonic mean; weights) or the score-ranker processor (RRF).
Client-side, the same two ranked lists are fused with ranx, for comparison and for clusters without
neural-search. Either way each fused document carries its BM25 and kNN rank and score, so a user can see why it
ranked where it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from opensearchpy import OpenSearch

from nomos.retrieval.base import Hit, Progress, SearchResult, rank, tick
from nomos.retrieval.bm25 import BM25Retriever, SearchError
from nomos.retrieval.fusion_config import DEFAULT_WEIGHTS, FusionConfig
from nomos.retrieval.knn import KnnRetriever
from nomos.retrieval.pool_fusion import bm25_scores_in_pool, pool_fuse

__all__ = ["DEFAULT_WEIGHTS", "FusionConfig", "FusionRetriever", "clause_details", "client_fuse", "fused_hits"]

RANX_NORMS = {"min_max": "min-max", "z_score": "zmuv"}

def clause_details(bm25: list[Hit], knn: list[Hit]) -> dict[str, dict[str, Any]]:
    """doc id -> BM25 and kNN rank and score (None where a clause did not return the document)."""
    out: dict[str, dict[str, Any]] = {}
    for name, hits in (("bm25", bm25), ("knn", knn)):
        for r, h in enumerate(hits, start=1):
            out.setdefault(h.doc_id, {"bm25_rank": None, "bm25_score": None, "knn_rank": None, "knn_score": None})
            out[h.doc_id][f"{name}_rank"] = r
            out[h.doc_id][f"{name}_score"] = h.score
    return out


def fused_hits(fused: Mapping[str, list[Hit]], bm25: Mapping[str, list[Hit]], knn: Mapping[str, list[Hit]]
               ) -> tuple[dict[str, list[Hit]], dict[str, dict[str, dict[str, Any]]]]:
    """The fused rankings with each hit's clause ranks and scores in ``details``, and the same evidence as query
    id -> doc id -> ranks and scores (what a results folder's details.json records)."""
    hits: dict[str, list[Hit]] = {}
    evidence: dict[str, dict[str, dict[str, Any]]] = {}
    for qid, ranked in fused.items():
        per_doc = clause_details(bm25.get(qid, []), knn.get(qid, []))
        # a fusion's own evidence (pool fusion: the exact BM25 score of every pool article) wins over the lists'
        merged = {h.doc_id: {**per_doc.get(h.doc_id, {}), **h.details} for h in ranked}
        evidence[qid] = merged
        hits[qid] = [Hit(h.doc_id, h.score, details=merged[h.doc_id]) for h in ranked]
    return hits, evidence


def client_fuse(bm25: Mapping[str, list[Hit]], knn: Mapping[str, list[Hit]], cfg: FusionConfig, k: int) -> dict[str, list[Hit]]:
    """Fuse two runs with ranx: RRF, or weighted sum of normalised scores (arithmetic mean)."""
    from ranx import Run, fuse

    from nomos.numba_quiet import ignore_unsafe_cast_warning

    ignore_unsafe_cast_warning()  # ranx's first compile warns of a harmless cast (nomos/numba_quiet.py)

    if cfg.kind != "rrf" and (cfg.combination != "arithmetic_mean" or cfg.normalization not in RANX_NORMS):
        raise ValueError(
            "client-side fusion supports rrf and arithmetic_mean over min_max or z_score; "
            f"got {cfg.normalization}/{cfg.combination}: use --fusion server"
        )
    qids = sorted(set(bm25) | set(knn))

    def to_run(hits: Mapping[str, list[Hit]], name: str) -> Run:
        # ranx needs every query present; an empty list becomes a zero-score placeholder it ignores
        return Run({q: ({h.doc_id: h.score for h in hits.get(q, [])} or {"__none__": 0.0}) for q in qids}, name=name)

    runs = [to_run(bm25, "bm25"), to_run(knn, "knn")]
    if cfg.kind == "rrf":
        fused = fuse(runs, norm=None, method="rrf", params={"k": cfg.rank_constant})
    else:
        weights = cfg.bm25_knn_weights
        fused = fuse(runs, norm=RANX_NORMS[cfg.normalization], method="wsum", params={"weights": [w / sum(weights) for w in weights]})
    out: dict[str, list[Hit]] = {}
    for q in qids:
        scores = fused.to_dict().get(q, {})
        out[q] = rank([Hit(d, float(s)) for d, s in scores.items() if d != "__none__"], k)
    return out


WHERES = ("server", "client", "pool")


@dataclass
class FusionRetriever:
    """``hybrid`` / ``rrf`` over a BM25 and a kNN retriever; each fused hit carries its clause ranks and scores,
    and the result carries each clause's own ranking too."""

    client: OpenSearch
    index: str
    bm25: BM25Retriever
    knn: KnnRetriever
    config: FusionConfig = field(default_factory=FusionConfig)
    name: str = field(init=False, default="hybrid")

    def __post_init__(self) -> None:
        self.name = self.config.kind
        self.config = replace(self.config, where=self.config.resolved_where)
        if self.config.where not in WHERES:
            raise ValueError(f"fusion must be one of {', '.join(WHERES)}, got {self.config.where!r}")
        if self.config.where == "pool" and (self.config.kind != "hybrid" or self.config.pool not in ("knn", "bm25")):
            raise ValueError(f"pool fusion re-scores a 'knn' or 'bm25' pool with weights (hybrid), got {self.config.kind}/{self.config.pool}")

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def _server(self, queries: Mapping[str, str], k: int, on_progress: Progress | None) -> dict[str, list[Hit]]:
        name, body = self.config.pipeline()
        self.client.transport.perform_request("PUT", f"/_search/pipeline/{name}", body=body)
        items = list(queries.items())
        vectors = self.knn.query_vectors([t for _, t in items])
        depth = max(self.config.depth, k)
        out: dict[str, list[Hit]] = {}
        for i, (qid, text) in enumerate(items):
            request = {
                "size": k,
                "query": {"hybrid": {"queries": [self.bm25.query_clause(text), self.knn.clause(vectors[i], depth)]}},
                "_source": False,
            }
            # Never dfs_query_then_fetch here, even on multi-shard indices: neural-search 2.19 runs the normalization
            # processor only after a QUERY phase, and DFS_QUERY skips it, returning unnormalised sub-query scores
            # without an error (opensearch-project/neural-search#1490; later versions reject the combination).
            # So the server-side hybrid's BM25 clause scores with per-shard statistics; `--fusion client` fuses the
            # BM25 list that was fetched with dfs instead.
            try:
                resp = self.client.search(index=self.index, body=request, params={"search_pipeline": name})
            except Exception as exc:  # opensearch-py raises TransportError subclasses with the server's reason
                raise SearchError(f"query {qid!r}: hybrid search failed: {exc}") from None
            out[qid] = rank([Hit(h["_id"], float(h["_score"])) for h in resp["hits"]["hits"]], k)
            tick(on_progress)
        return out

    def _pool(self, queries: Mapping[str, str], bm25: Mapping[str, list[Hit]], knn: Mapping[str, list[Hit]], k: int) -> dict[str, list[Hit]]:
        """The pool clause's top ``depth``, re-ranked with the other clause's score as a feature. A kNN pool gets each
        article's exact BM25 score (the same query restricted to the pool's ids); a BM25 pool gets kNN's scores
        from kNN's own top ``depth`` (0 outside it)."""
        depth = max(self.config.depth, k)
        if self.config.pool == "knn":
            pool = {q: hs[:depth] for q, hs in knn.items()}
            other = bm25_scores_in_pool(self.bm25, queries, {q: [h.doc_id for h in hs] for q, hs in pool.items()})
        else:
            pool = {q: hs[:depth] for q, hs in bm25.items()}
            other = {q: {h.doc_id: h.score for h in hs} for q, hs in knn.items()}
        return pool_fuse(pool, other, self.config.bm25_knn_weights, k, pool_clause=self.config.pool)

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """Both clauses to ``max(config.depth, k)``, then the fusion; ``clause_rankings`` holds each clause's own
        ranking (the fusion diagnosis compares them with the fused one). No LLM: ``checkpoint`` is ignored."""
        depth = max(self.config.depth, k)
        bm25 = self.bm25.search_many(queries, depth)
        knn = self.knn.search_many(queries, depth)
        if self.config.where == "server":
            fused = self._server(queries, k, on_progress)
        elif self.config.where == "pool":
            fused = self._pool(queries, bm25.hits, knn.hits, k)
            for _ in fused:
                tick(on_progress)
        else:
            fused = client_fuse(bm25.hits, knn.hits, self.config, k)
            for _ in fused:
                tick(on_progress)
        hits, evidence = fused_hits(fused, bm25.hits, knn.hits)
        own = SearchResult(hits, clause_evidence=evidence, clause_rankings={"bm25": bm25.hits, "knn": knn.hits})
        return own.merge(bm25, knn)

    def describe(self) -> dict[str, Any]:
        c = self.config
        fusion: dict[str, Any] = {"kind": c.kind, "where": c.where, "depth": c.depth}
        if c.where == "pool":
            fusion["pool"] = c.pool
        if c.kind == "rrf":
            fusion["rank_constant"] = c.rank_constant
        else:
            fusion.update({"normalization": c.normalization, "combination": c.combination, "weights": list(c.bm25_knn_weights)})
        if c.where == "server":
            fusion["pipeline"] = c.pipeline()[1]
        return {"method": self.name, "index": self.index, "bm25": self.bm25.describe(), "knn": self.knn.describe(), "fusion": fusion}
