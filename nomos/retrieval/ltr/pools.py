"""The first-stage lists a learned ranker re-orders: what each query's pool is made of.

``hybrid`` (where the index holds the embedder's vectors) gives its fused top 100 and kNN's and BM25's own lists in
one call (its ``clause_rankings``); without vectors, BM25's list alone. Two lists are added either way: the anchor
clause's top :data:`~nomos.retrieval.ltr.features.ANCHOR_DEPTH` (the articles that citing sentences describe in the
query's words) and the lemma BM25's top :data:`~nomos.retrieval.ltr.features.LEMMA_DEPTH` (the statute's words
reached through the query's dictionary forms), which neither first-stage list may hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from nomos.retrieval.base import Hit, SearchResult
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.ltr.dense_bridge import DenseBridge
from nomos.retrieval.ltr.features import ANCHOR_DEPTH, LEMMA_DEPTH

Lists = dict[str, dict[str, list[Hit]]]  # query id -> list name -> hits


def side_lists(bm25: BM25Retriever, queries: Mapping[str, str], bridge: DenseBridge | None = None,
               adapted: Mapping[str, np.ndarray] | None = None, anchor_depth: int = ANCHOR_DEPTH,
               lemma_depth: int = LEMMA_DEPTH) -> tuple[dict[str, list[Hit]], dict[str, list[Hit]], Lists]:
    """Each query's top ``anchor_depth`` by the anchors field alone and top ``lemma_depth`` by BM25 over the lemmas
    (the same query and question as the first stage's BM25, on the ``lemmas`` field) and, where ``bridge`` and ``adapted`` (query id -> the
    adapted query vector) are given, the dense bridge's two lists, all in one ``_msearch`` a batch: the ranker's side
    thread makes one round trip while the first stage runs (two in a row had made it outlast the first stage). All keep
    ``bm25``'s filters (one legal source…), so the pool holds only what the first stage may."""
    return side_requests(bm25, queries, bridge, adapted, anchor_depth, lemma_depth).send()


@dataclass(frozen=True)
class SideRequests:
    """:func:`side_lists`' ``_msearch`` lines, made (:func:`side_requests`) before they are sent (:meth:`send`): the
    ranker makes them in its own thread and only sends and reads them in the side thread, so that the side thread's
    Python does not hold the GIL while the first stage starts (a thread that computes keeps the other waiting up to
    the interpreter's 5 ms switch interval)."""

    bm25: BM25Retriever
    lemma: BM25Retriever
    batches: list[tuple[list[str], list[dict[str, Any]], list[str]]]  # each batch's query ids, lines and labels
    bridged: frozenset[str]  # the queries whose lines hold the dense bridge's two lists
    bridge: DenseBridge | None
    anchor_depth: int
    lemma_depth: int

    def send(self) -> tuple[dict[str, list[Hit]], dict[str, list[Hit]], Lists]:
        """One ``_msearch`` a batch; each query's anchors', lemmas' and (where bridged) dense bridge's lists."""
        anchors: dict[str, list[Hit]] = {}
        lemmas: dict[str, list[Hit]] = {}
        dense: Lists = {}
        for qids, lines, labels in self.batches:
            responses = self.bm25.msearch(lines, labels=labels)
            at = 0
            for q in qids:
                anchors[q] = self.bm25.hits_of(responses[at], q, self.anchor_depth)
                lemmas[q] = self.lemma.hits_of(responses[at + 1], q, self.lemma_depth)
                at += 2
                if self.bridge is not None and q in self.bridged:
                    dense[q] = self.bridge.read(self.bm25, q, responses[at : at + 2])
                    at += 2
        return anchors, lemmas, dense


def side_requests(bm25: BM25Retriever, queries: Mapping[str, str], bridge: DenseBridge | None = None,
                  adapted: Mapping[str, np.ndarray] | None = None, anchor_depth: int = ANCHOR_DEPTH,
                  lemma_depth: int = LEMMA_DEPTH) -> SideRequests:
    """The lines :func:`side_lists` sends, made and not yet sent."""
    # the search type ``bm25`` resolved (a copy would ask the node for the shard count again, every query)
    lemma = replace(bm25, analysis="lemma", anchor_boost=0.0, context_boost=0.0, lemma_boost=0.0,
                    search_type=bm25.effective_search_type())
    batches: list[tuple[list[str], list[dict[str, Any]], list[str]]] = []
    bridged: set[str] = set()
    items = list(queries.items())
    for start in range(0, len(items), bm25.batch_size):
        batch = items[start : start + bm25.batch_size]
        lines: list[dict[str, Any]] = []
        labels: list[str] = []
        for q, text in batch:
            lines += [*bm25.clause_request(bm25.text_clause(text, field="anchors"), anchor_depth),
                      *lemma.request(text, lemma_depth)]
            labels += [f"{q} (anchors)", f"{q} (lemmas)"]
            if bridge is not None and adapted is not None and q in adapted:
                lines += bridge.requests(bm25, adapted[q])
                labels += [f"{q} (adapted)", f"{q} (anchor vectors)"]
                bridged.add(q)
        batches.append(([q for q, _ in batch], lines, labels))
    return SideRequests(bm25, lemma, batches, frozenset(bridged), bridge, anchor_depth, lemma_depth)


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
