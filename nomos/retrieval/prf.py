"""Pseudo-relevance feedback baselines from the paper: TF-IDF expansion for BM25, Rocchio for dense vectors.

Both take the top documents of a first pass as if they were relevant. The paper found they add little (≤ 0.05
Recall@100); they are here so that claim can be checked on any dataset.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from nomos.errors import ConfigError
from nomos.retrieval.base import Hit, Progress, SearchResult, by_score, check_k, rank, tick
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.knn import KnnRetriever
from nomos.vectors.stored import stored_vectors

# Fields whose term vectors feed the expansion, per analysis chain (generated on the fly from _source).
PRF_FIELDS = {"stemmed": ("title", "text"), "folded": ("title.folded", "text.folded")}


def tfidf_terms(term_vectors: list[dict[str, Any]], n_docs: int, top_terms: int, exclude: set[str]) -> list[tuple[str, float]]:
    """Terms of the feedback documents ranked by summed tf·idf (idf = ln(1 + N/df)), ties by term."""
    weights: dict[str, float] = defaultdict(float)
    for doc in term_vectors:
        for fields in (doc.get("term_vectors") or {}).values():
            for term, stats in fields.get("terms", {}).items():
                df = max(int(stats.get("doc_freq", 1)), 1)
                weights[term] += float(stats.get("term_freq", 1)) * math.log(1 + n_docs / df)
    ranked = by_score((t, w) for t, w in weights.items() if t not in exclude and not t.isdigit())
    return ranked[:top_terms]


@dataclass
class TfidfPrfRetriever:
    """BM25, then the original query plus the top TF-IDF terms of the first ``feedback_docs`` results."""

    bm25: BM25Retriever
    feedback_docs: int = 10
    expansion_terms: int = 20
    expansion_weight: float = 0.5
    name: str = field(init=False, default="bm25-prf")

    def __post_init__(self) -> None:
        if self.bm25.analysis not in PRF_FIELDS:
            raise ConfigError(f"bm25-prf does not support --analysis {self.bm25.analysis!r}",
                              hint=f"pseudo-relevance feedback reads term vectors of the chains {', '.join(sorted(PRF_FIELDS))}")

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """First pass, expansion terms per query (in ``expansions``), second pass. No LLM: ``checkpoint`` is ignored."""
        check_k(k)
        transport = self.bm25.transport
        first = self.bm25.search_many(queries, self.feedback_docs)
        n_docs = transport.count(self.bm25.index, what="the index's article count")
        out: dict[str, list[Hit]] = {}
        expansions: dict[str, list[tuple[str, float]]] = {}
        for qid, text in queries.items():
            ids = [h.doc_id for h in first.hits.get(qid, [])]
            own = set(self.bm25.analyze(text)) if ids else set()
            terms: list[tuple[str, float]] = []
            if ids:
                resp = transport.mtermvectors(
                    self.bm25.index, {"ids": ids}, what=f"query {qid!r}: feedback term vectors",
                    params={"fields": ",".join(PRF_FIELDS[self.bm25.analysis]), "term_statistics": "true",
                            "field_statistics": "false", "positions": "false", "offsets": "false"},
                )
                terms = tfidf_terms(resp.get("docs", []), n_docs, self.expansion_terms, own)
            expansions[qid] = terms
            top = terms[0][1] if terms else 1.0
            should = [self.bm25.query_clause(text)] + [
                {"term": {self.bm25.field: {"value": t, "boost": self.expansion_weight * w / top}}} for t, w in terms
            ]
            body = {"size": k, "query": {"bool": {"should": should}}, "sort": [{"_score": "desc"}, {"article_id": "asc"}],
                    "track_scores": True, "stored_fields": "_none_"}
            hits = transport.search(self.bm25.index, body, what=f"query {qid!r}: expanded search",
                                    params={"search_type": self.bm25.effective_search_type()})["hits"]["hits"]
            out[qid] = rank([Hit(str(h["sort"][1]), float(h["sort"][0])) for h in hits], k)
            tick(on_progress)
        return SearchResult(out, expansions=expansions).merge(first)

    @property
    def score_kind(self) -> str:
        return "bm25"  # BM25 of the expanded query

    def describe(self) -> dict[str, Any]:
        return {"method": self.name, "bm25": self.bm25.describe(), "feedback_docs": self.feedback_docs,
                "expansion_terms": self.expansion_terms, "expansion_weight": self.expansion_weight, "idf": "ln(1 + N/df)"}


def rocchio(query: np.ndarray, feedback: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """alpha·q + beta·mean(feedback), L2-normalised (no negative feedback: none is known)."""
    v = alpha * query + (beta * feedback.mean(axis=0) if len(feedback) else 0.0)
    norm = float(np.linalg.norm(v))
    return v / norm if norm else v


@dataclass
class RocchioRetriever:
    """k-NN, then k-NN again from the query vector moved towards the top ``feedback_docs`` article vectors."""

    knn: KnnRetriever
    feedback_docs: int = 10
    alpha: float = 1.0
    beta: float = 0.5
    name: str = field(init=False, default="knn-rocchio")

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """First pass, Rocchio's moved vector, second pass. No LLM: ``checkpoint`` is ignored."""
        check_k(k)
        transport = self.knn.transport
        items = list(queries.items())
        vectors = self.knn.query_vectors([t for _, t in items])
        first = self.knn.search_many(queries, self.feedback_docs)
        out: dict[str, list[Hit]] = {}
        for i, (qid, _) in enumerate(items):
            ids = [h.doc_id for h in first.hits.get(qid, [])]
            stored = stored_vectors(transport, self.knn.index, [self.knn.field], ids)  # not in _source
            fb = np.array([stored[d][self.knn.field] for d in ids if self.knn.field in stored.get(d, {})],
                          dtype=np.float32).reshape(-1, vectors.shape[1])
            moved = rocchio(vectors[i], fb, self.alpha, self.beta)
            with self.knn.vectors_needed():
                hits = transport.search(self.knn.index, self.knn.body(moved, k),
                                        what=f"query {qid!r}: Rocchio's second search")["hits"]["hits"]
            out[qid] = rank([Hit(str(h["sort"][1]), float(h["sort"][0])) for h in hits], k)
            tick(on_progress)
        return SearchResult(out)

    @property
    def score_kind(self) -> str:
        return "similarity"  # of the moved query vector

    def describe(self) -> dict[str, Any]:
        return {"method": self.name, "knn": self.knn.describe(), "feedback_docs": self.feedback_docs, "alpha": self.alpha, "beta": self.beta}
