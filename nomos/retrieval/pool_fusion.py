"""Fusion that never loses the stronger clause's recall: re-score its candidate pool with the weaker clause.

Score fusion over two ranked lists (min-max sums, RRF) lets the weaker clause's wrong candidates displace the
stronger clause's right ones: on the stand-in, BM25's top 100 adds almost nothing kNN lacks, so every such fusion
traded kNN's Recall@100 for a better top 10. Here the *pool* is the stronger clause's top ``depth`` and nothing
else can enter it; the other clause only re-orders it, as a feature. Each pool article gets the other clause's
exact score for that article (BM25: the same match query restricted to the pool's ids, so an article outside
BM25's own top 100 still gets its real BM25 score; 0 when it matches no query term), both scores are min-max
normalised within the pool, and the weighted sum ranks it. With ``depth`` = k the fused list is a permutation
of the pool clause's top k: its Recall@k is exactly that clause's, and only the order (nDCG, MAP) can change.

Which clause is stronger and the weight are data-dependent (on the paper's real data BM25 is about as good as
small dense models): ``bench/fusion_study.py`` chooses both by k-fold cross-validation over the queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nomos.retrieval.base import Hit, rank
from nomos.retrieval.bm25 import BM25Retriever


def minmax(scores: Sequence[float]) -> list[float]:
    """Scores scaled to [0, 1] within one list; a constant list maps to all ones (no information, no penalty)."""
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    if hi - lo <= 1e-12:
        return [1.0 for _ in scores]
    return [(s - lo) / (hi - lo) for s in scores]


def bm25_scores_in_pool(bm25: BM25Retriever, queries: Mapping[str, str], pools: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """Each pool article's BM25 score for its query: the retriever's own query, filtered to the pool's ids, every
    query of a batch in one ``_msearch`` (filters do not score, so these are the scores an unfiltered search
    would give)."""
    out: dict[str, dict[str, float]] = {q: {} for q, ids in pools.items() if not ids}
    todo = [(q, list(ids)) for q, ids in pools.items() if ids]
    for start in range(0, len(todo), bm25.batch_size):
        batch = todo[start : start + bm25.batch_size]
        lines: list[dict[str, Any]] = []
        for qid, ids in batch:
            header, body = bm25.request(queries[qid], len(ids))
            body["query"] = {"bool": {"must": [body["query"]], "filter": [{"ids": {"values": ids}}]}}
            lines.extend([header, body])
        responses = bm25.msearch(lines, labels=[qid for qid, _ in batch])
        for (qid, ids), r in zip(batch, responses, strict=True):
            out[qid] = {h.doc_id: h.score for h in bm25.hits_of(r, qid, len(ids))}
    return {q: out[q] for q in pools}


def bm25_pool_page(bm25: BM25Retriever, query: str, ids: Sequence[str], aggs: Mapping[str, Any],
                   post_filter: Mapping[str, Any] | None = None) -> tuple[dict[str, float], dict[str, Any], set[str] | None]:
    """What a results page needs from BM25 besides the ranking, in one request: each pool article's BM25 score
    (as :func:`bm25_scores_in_pool` gives it), ``aggs`` over the whole pool, and the pool ids ``post_filter``
    keeps (None without one).

    The BM25 clause is a ``should`` beside the ids filter, so every pool article matches (aggregations count the
    pool) and one that matches no query word scores 0, as pool fusion counts it; the filter does not score, so
    the others get the scores the restricted search gives."""
    if not ids:
        return {}, {}, (set() if post_filter else None)
    clause = bm25.filtered(bm25.query_clause(query))  # the filters decide which pool articles BM25 scores
    body: dict[str, Any] = {
        "size": len(ids),
        "query": {"bool": {"should": [clause], "filter": [{"ids": {"values": list(ids)}}]}},
        "stored_fields": "_none_",
        "track_scores": True,
        "sort": [{"_score": "desc"}, {"article_id": "asc"}],
        "aggs": dict(aggs),
    }
    if post_filter:
        body["aggs"]["_kept"] = {"filter": dict(post_filter), "aggs": {"ids": {"terms": {"field": "article_id", "size": len(ids)}}}}
    search_type = bm25.effective_search_type()  # dfs on 2+ shards: the scores search_many gives
    resp = bm25.transport.search(bm25.index, body, what="BM25 scores of the pool", search_type=search_type)
    scores = {str(h["sort"][1]): float(h["sort"][0]) for h in resp["hits"]["hits"] if float(h["sort"][0]) > 0}
    aggregations = dict(resp.get("aggregations") or {})
    kept = aggregations.pop("_kept", None)
    allowed = {b["key"] for b in kept["ids"]["buckets"]} if kept is not None else None
    return scores, aggregations, allowed


def pool_fuse(pool: Mapping[str, Sequence[Hit]], other: Mapping[str, Mapping[str, float]], weights: tuple[float, float],
              k: int, pool_clause: str = "knn") -> dict[str, list[Hit]]:
    """Rank each query's pool by ``w_pool * minmax(pool score) + w_other * minmax(other score)``.

    ``weights`` is (bm25, knn) like every fusion setting; ``pool_clause`` says which of the two the pool came from.
    Articles the other clause does not score get 0 there. Ties: (score desc, doc id), as :func:`rank` orders."""
    w_bm25, w_knn = weights
    w_pool, w_other = (w_knn, w_bm25) if pool_clause == "knn" else (w_bm25, w_knn)
    other_name = "bm25" if pool_clause == "knn" else "knn"
    out: dict[str, list[Hit]] = {}
    for qid, hits in pool.items():
        scores = other.get(qid, {})
        p = minmax([h.score for h in hits])
        o = minmax([scores.get(h.doc_id, 0.0) for h in hits])
        fused = []
        for i, h in enumerate(hits):
            evidence: dict[str, Any] = {f"{pool_clause}_rank": i + 1, f"{pool_clause}_score": h.score,
                                        f"{other_name}_score": scores.get(h.doc_id)}
            fused.append(Hit(h.doc_id, w_pool * p[i] + w_other * o[i], details=evidence))
        out[qid] = rank(fused, k)
    return out
