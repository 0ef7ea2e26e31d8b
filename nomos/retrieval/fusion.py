"""Hybrid retrieval: BM25 and kNN fused inside OpenSearch (neural-search pipelines) or in Python (ranx).

Server-side, a ``hybrid`` query runs both clauses and a search pipeline fuses them: the normalization processor
(min_max / l2 / z_score; arithmetic / geometric / harmonic mean; weights) or the score-ranker processor (RRF).
Client-side, the same two ranked lists are fused with ranx, for comparison and for clusters without
neural-search. Either way each fused document carries its BM25 and kNN rank and score, so a user can see why it
ranked where it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from opensearchpy import OpenSearch

from nomos.mappings import normalization_pipeline, pipeline_name, rrf_pipeline
from nomos.retrieval.base import Hit, rank
from nomos.retrieval.bm25 import BM25Retriever, SearchError
from nomos.retrieval.knn import KnnRetriever
from nomos.settings import DEFAULT_FUSION_WEIGHTS

RANX_NORMS = {"min_max": "min-max", "z_score": "zmuv"}

# (bm25, knn). Equal weights fell short of kNN alone on the stand-in (Recall@100 0.500 vs 0.597): at 0.5/0.5 the
# fused top 100 is roughly each clause's top 50, so a clause that finds 6 of 38 relevant articles displaces the
# other's relevant ones at ranks 50-100. A seeded 4-fold cross-validation over kNN weights 0.5-0.9
# (bench/fusion_study.py, docs/benchmarks.md) chose 0.9 in three folds of four; BM25 keeps a tenth of the say.
# With an embedder no stronger than BM25 (the paper's BM25 ~ EmbeddingGemma), rerun the study and set
# NOMOS_FUSION_WEIGHTS or --weights.
DEFAULT_WEIGHTS: tuple[float, float] = DEFAULT_FUSION_WEIGHTS


@dataclass(frozen=True)
class FusionConfig:
    """How to fuse: ``kind`` "hybrid" (score normalisation + combination) or "rrf"; where: server or client."""

    kind: str = "hybrid"
    where: str = "server"
    normalization: str = "min_max"
    combination: str = "arithmetic_mean"
    weights: tuple[float, float] | None = None  # (bm25, knn); None: the settings' (default DEFAULT_WEIGHTS)
    rank_constant: int = 60
    depth: int = 100  # how many each clause contributes

    @property
    def bm25_knn_weights(self) -> tuple[float, float]:
        return self.weights if self.weights is not None else DEFAULT_WEIGHTS

    def pipeline(self) -> tuple[str, dict[str, Any]]:
        body = rrf_pipeline(self.rank_constant) if self.kind == "rrf" else normalization_pipeline(self.normalization, self.combination, self.bm25_knn_weights)
        return pipeline_name(self.kind, body), body


def clause_details(bm25: list[Hit], knn: list[Hit]) -> dict[str, dict[str, Any]]:
    """doc id -> BM25 and kNN rank and score (None where a clause did not return the document)."""
    out: dict[str, dict[str, Any]] = {}
    for name, hits in (("bm25", bm25), ("knn", knn)):
        for r, h in enumerate(hits, start=1):
            out.setdefault(h.doc_id, {"bm25_rank": None, "bm25_score": None, "knn_rank": None, "knn_score": None})
            out[h.doc_id][f"{name}_rank"] = r
            out[h.doc_id][f"{name}_score"] = h.score
    return out


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


@dataclass
class FusionRetriever:
    """``hybrid`` / ``rrf`` over a BM25 and a kNN retriever; records per-clause evidence in ``last_details``."""

    client: OpenSearch
    index: str
    bm25: BM25Retriever
    knn: KnnRetriever
    config: FusionConfig = field(default_factory=FusionConfig)
    name: str = field(init=False, default="hybrid")
    last_details: dict[str, dict[str, dict[str, Any]]] = field(init=False, default_factory=dict)
    # each clause's own ranking of the last search_many (depth = max(config.depth, k)): eval's fusion diagnosis
    last_clauses: dict[str, dict[str, list[Hit]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.name = self.config.kind
        if self.config.where not in ("server", "client"):
            raise ValueError(f"fusion must be 'server' or 'client', got {self.config.where!r}")

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k)["q"]

    def _server(self, queries: Mapping[str, str], k: int) -> dict[str, list[Hit]]:
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
        return out

    def search_many(self, queries: Mapping[str, str], k: int) -> dict[str, list[Hit]]:
        depth = max(self.config.depth, k)
        bm25 = self.bm25.search_many(queries, depth)
        knn = self.knn.search_many(queries, depth)
        fused = self._server(queries, k) if self.config.where == "server" else client_fuse(bm25, knn, self.config, k)
        self.last_clauses = {"bm25": bm25, "knn": knn}
        self.last_details = {}
        for qid, hits in fused.items():
            evidence = clause_details(bm25.get(qid, []), knn.get(qid, []))
            self.last_details[qid] = {h.doc_id: evidence.get(h.doc_id, {}) for h in hits}
            fused[qid] = [Hit(h.doc_id, h.score, details=evidence.get(h.doc_id, {})) for h in hits]
        return fused

    def describe(self) -> dict[str, Any]:
        c = self.config
        fusion: dict[str, Any] = {"kind": c.kind, "where": c.where, "depth": c.depth}
        if c.kind == "rrf":
            fusion["rank_constant"] = c.rank_constant
        else:
            fusion.update({"normalization": c.normalization, "combination": c.combination, "weights": list(c.bm25_knn_weights)})
        if c.where == "server":
            fusion["pipeline"] = c.pipeline()[1]
        return {"method": self.name, "index": self.index, "bm25": self.bm25.describe(), "knn": self.knn.describe(), "fusion": fusion}
