"""Hybrid ranking that keeps kNN's recall and RRF's first page: the "rrf head" of the pool.

Every score fusion of two lists lets the weaker clause's wrong candidates displace the stronger clause's right
ones somewhere in the top 100 (on the stand-in: RRF Recall@100 0.521 against kNN's 0.618), while the pool fusion
of :mod:`nomos.retrieval.pool_fusion` keeps kNN's recall but, under cross-validation, orders the first page worse
than RRF (nDCG@10 0.074 against 0.081). This ranking does both, by position:

* ranks 1..``head``: the pool's articles in RRF order (reciprocal rank fusion of BM25's and kNN's own top
  ``depth``; an article BM25 did not return has only its kNN term). RRF's strength is agreement at the top.
* ranks ``head``+1..k: the rest of the pool in the pool clause's own order (kNN): the recall.

With ``admit`` = 0 nothing outside the pool enters, so the fused top k is a permutation of the pool clause's top k
(when ``depth`` >= k): its Recall@k is exactly that clause's. ``admit`` = m lets the other clause's m strongest
articles that the pool lacks in, in place of the pool's last m: on long case files, where BM25 finds what kNN's
top 100 misses, the fused list then holds more than either clause alone (cross-validated: 20, for queries read in
more than one window; a short query keeps kNN's top 100 whole, where admitting cost Recall@100). ``head`` = 0 is the pool clause alone; ``head`` >= k is RRF
restricted to the pool. The head size was chosen by k-fold cross-validation (``bench/pool_study.py --family
'rrf-in-pool head'``, docs/history/benchmarks-diary.md "Pool fusion"): 5 in 29 of 40 folds.

Pure functions over ranked lists: the two clauses' searches are the caller's (:mod:`nomos.retrieval.fusion`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nomos.retrieval.base import Hit, by_score

DEFAULT_HEAD = 5  # cross-validated (see the module docstring); one results page is 10
# how many of the other clause's strongest articles outside the pool enter it (at its end): cross-validated over the
# case-file and extended dev sets (bench/case_study.py, docs/history/benchmarks-diary.md "Reading the question")
DEFAULT_ADMIT = 20  # hybrid's, to queries read in more than one window (FusionRetriever.admitted); the functions: 0


def rrf_scores(lists: Mapping[str, Sequence[Hit]], rank_constant: int = 60) -> dict[str, float]:
    """Reciprocal rank fusion: ``sum over lists of 1 / (rank_constant + rank)`` per article, ranks from 1."""
    out: dict[str, float] = {}
    for hits in lists.values():
        for i, h in enumerate(hits):
            out[h.doc_id] = out.get(h.doc_id, 0.0) + 1.0 / (rank_constant + i + 1)
    return out


def head_fuse_one(pool: Sequence[Hit], other: Sequence[Hit], k: int, head: int = DEFAULT_HEAD, rank_constant: int = 60,
                  pool_clause: str = "knn", other_clause: str = "bm25", admit: int = 0) -> list[Hit]:
    """One query: the candidates' top ``head`` by RRF of (pool, other), then the rest of the pool in its own order,
    then the ``admit`` articles the other clause ranks highest among those the pool lacks, cut to ``k``. Scores are
    rank-derived (k - position) so that every consumer keeps the order; the clause ranks, the RRF score and the
    part ("head", "tail", "admitted") are in each hit's details. Ties in RRF: (score desc, doc id).

    Admitted articles take the places of the pool's last ones, so the list stays ``k`` long: with a pool as deep as
    ``k`` they displace the pool clause's ranks k - admit + 1 .. k, the ones it is least sure of."""
    pool = list(pool)
    in_pool = {h.doc_id for h in pool}
    extra = [h for h in other if h.doc_id not in in_pool][: max(admit, 0)]
    rrf = rrf_scores({pool_clause: pool, other_clause: other}, rank_constant)
    pool_rank = {h.doc_id: i + 1 for i, h in enumerate(pool)}
    other_rank = {h.doc_id: i + 1 for i, h in enumerate(other)}
    candidates = [*pool_rank, *(h.doc_id for h in extra)]
    top = [d for d, _ in by_score((d, rrf[d]) for d in candidates)][: max(head, 0)]
    chosen = set(top)
    room = max(k - len(top) - sum(1 for h in extra if h.doc_id not in chosen), 0)
    tail = [h.doc_id for h in pool if h.doc_id not in chosen][:room]
    order = [*top, *tail, *(h.doc_id for h in extra if h.doc_id not in chosen)][:k]
    admitted = {h.doc_id for h in extra}
    out = []
    for pos, doc in enumerate(order):
        part = "head" if doc in chosen else "admitted" if doc in admitted else "tail"
        details: dict[str, Any] = {f"{pool_clause}_rank": pool_rank.get(doc), f"{other_clause}_rank": other_rank.get(doc),
                                   "rrf": rrf[doc], "part": part}
        out.append(Hit(doc, float(len(order) - pos), details=details))
    return out


def head_fuse(pool: Mapping[str, Sequence[Hit]], other: Mapping[str, Sequence[Hit]], k: int, head: int = DEFAULT_HEAD,
              rank_constant: int = 60, pool_clause: str = "knn", admit: int | Mapping[str, int] = 0
              ) -> dict[str, list[Hit]]:
    """:func:`head_fuse_one` for every query of ``pool`` (a query the other clause has no list for gets its pool
    order: the RRF of one list is that list's order); ``admit`` one number for all, or per query (absent: 0)."""
    other_clause = "bm25" if pool_clause == "knn" else "knn"
    return {q: head_fuse_one(hits, other.get(q, ()), k, head, rank_constant, pool_clause, other_clause,
                             admit if isinstance(admit, int) else admit.get(q, 0))
            for q, hits in pool.items()}
