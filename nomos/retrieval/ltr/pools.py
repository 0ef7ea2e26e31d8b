"""The first-stage lists a learned ranker re-orders: what each query's pool is made of.

``hybrid`` (where the index holds the embedder's vectors) gives its fused top 100 and kNN's and BM25's own lists in
one call (its ``clause_rankings``); without vectors, BM25's list alone. Two lists are added either way: the anchor
clause's top :data:`~nomos.retrieval.ltr.features.ANCHOR_DEPTH` (the articles that citing sentences describe in the
query's words) and the lemma BM25's top :data:`~nomos.retrieval.ltr.features.LEMMA_DEPTH` (the statute's words
reached through the query's dictionary forms), which neither first-stage list may hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from nomos.retrieval.base import Hit, SearchResult
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.ltr.features import ANCHOR_DEPTH, LEMMA_DEPTH

Lists = dict[str, dict[str, list[Hit]]]  # query id -> list name -> hits


def anchor_lists(bm25: BM25Retriever, queries: Mapping[str, str], depth: int = ANCHOR_DEPTH) -> dict[str, list[Hit]]:
    """Each query's top ``depth`` by the anchors field alone, in ``_msearch`` batches."""
    out: dict[str, list[Hit]] = {}
    items = list(queries.items())
    for start in range(0, len(items), bm25.batch_size):
        batch = items[start : start + bm25.batch_size]
        lines: list[dict[str, Any]] = []
        for _, text in batch:
            lines += [{"index": bm25.index},
                      {"size": depth, "query": bm25.text_clause(text, field="anchors"), "stored_fields": "_none_",
                       "track_scores": True, "sort": [{"_score": "desc"}, {"article_id": "asc"}]}]
        responses = bm25.msearch(lines, labels=[q for q, _ in batch])
        for (qid, _), r in zip(batch, responses, strict=True):
            out[qid] = bm25.hits_of(r, qid, depth)
    return out


def lemma_lists(bm25: BM25Retriever, queries: Mapping[str, str], depth: int = LEMMA_DEPTH) -> dict[str, list[Hit]]:
    """Each query's top ``depth`` by BM25 over the lemmas alone (``bm25`` reads the same query and question as the
    first stage's BM25, on the ``lemmas`` field)."""
    lemma = replace(bm25, analysis="lemma", anchor_boost=0.0, context_boost=0.0, lemma_boost=0.0, highlight=False)
    return lemma.search_many(queries, depth).hits


def lists_of(first: SearchResult, anchors: Mapping[str, Sequence[Hit]],
             lemmas: Mapping[str, Sequence[Hit]] | None = None) -> Lists:
    """The lists of each query: ``fused`` (the first stage's own ranking), ``bm25`` and ``knn`` where the first
    stage fused them (else its ranking is BM25's), ``anchors`` and ``lemmas``."""
    out: Lists = {}
    for q, hits in first.hits.items():
        rankings = {name: list(first.clause_rankings.get(name, {}).get(q, [])) for name in ("bm25", "knn")}
        lists = {name: hits_ for name, hits_ in rankings.items() if hits_}
        if "knn" in lists:
            lists["fused"] = list(hits)
        else:
            lists["bm25"] = list(hits)
        lists["anchors"] = list(anchors.get(q, []))
        lists["lemmas"] = list((lemmas or {}).get(q, []))
        out[q] = lists
    return out


def order(ids: Sequence[str], scores: np.ndarray) -> list[tuple[str, float]]:
    """Pool ids by the model's score, ties by id (the project's one tie rule)."""
    return sorted(zip(ids, (float(s) for s in scores), strict=True), key=lambda p: (-p[1], p[0]))
