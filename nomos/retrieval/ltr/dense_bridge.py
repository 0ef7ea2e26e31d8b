"""The dense bridge inside the learned ranker: the adapted query against every article's start and its anchors.

Where the index holds an encoder's anchor vectors and query adapter (:mod:`nomos.ingest.anchor_vectors`, listed in
``_meta.bridge``), the ranker reads the query vector through the adapter (:mod:`nomos.vectors.adapter`) and adds:

* two lists to the pool: the adapted query's top :data:`ADAPTED_DEPTH` by start vector, and the top
  :data:`ANCHOR_LIST_DEPTH` articles by their best anchor (a ``nested`` k-NN query, ``score_mode: max``), both in one
  ``_msearch`` and both keeping the first stage's filters;
* :data:`BRIDGE_FEATURES` for every pool article: the adapted cosine and the best anchor's cosine (exact, as named
  clauses of the pool's one search), whether it has anchors, start + :data:`LAMBDA` × the best anchor's excess over
  it, both lists' ranks, and that score less the pool's best.

Simulated offline first (exact cosine over the vector cache, issue 46), this was adopted by the same nested grouped
cross-validation as the ranker: held out, every dev set gained on Recall@10, Recall@100 and nDCG@10, and only with
both parts (the anchors alone lost the case files; the adapter alone gained only everyday recall).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nomos.mappings import WINDOW_VECTOR, anchor_vectors_field_name, vector_field_name
from nomos.opensearch.stored_scripts import KNN_SCORE
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit
from nomos.retrieval.bm25 import BM25Retriever
from nomos.vectors.adapter import QueryAdapter, load_adapter
from nomos.vectors.encoders import slug

BRIDGE_LISTS = ("x_adapted", "x_anchor")
BRIDGE_FEATURES = ("x_adapted_cos", "x_best_anchor", "x_has_anchor", "x_bridge", "x_adapted_rank", "x_anchor_rank",
                   "x_rel_bridge")
ADAPTED_DEPTH = 200  # the adapted query's list: 200 deep with the neighbourhood's features (docs/benchmarks.md)
ANCHOR_LIST_DEPTH = 50
LAMBDA = 0.5  # the best anchor's excess over the start vector, added (bench/dense_bridge_study.py)
MISSING = 101  # the rank of an article a list does not hold (features.MISSING_RANK), or one past a deeper list's end
RECHECK_S = 60.0  # how long a ranker trusts that an index has no bridge (the indexer may finish it meanwhile)


def _cosine_clause(name: str, vector: np.ndarray) -> dict[str, Any]:
    """Exact cosine of every matching document (the k-NN plugin's script: (1 + cos) / 2)."""
    script = KNN_SCORE.ref({"field": name, "query_value": np.asarray(vector, dtype=np.float64).tolist(),
                            "space_type": "cosinesimil"})
    return {"script_score": {"query": {"match_all": {}}, "script": script}}


@dataclass(frozen=True)
class DenseBridge:
    """One encoder's bridge in one index: its start field, its anchors field and the adapter."""

    start_field: str
    anchors_field: str
    adapter: QueryAdapter
    adapted_depth: int = ADAPTED_DEPTH
    anchor_depth: int = ANCHOR_LIST_DEPTH

    def adapt(self, vectors: np.ndarray) -> np.ndarray:
        return self.adapter.apply(vectors)

    def requests(self, bm25: BM25Retriever, vector: np.ndarray) -> list[dict[str, Any]]:
        """One query's two list searches (:data:`BRIDGE_LISTS`) as ``_msearch`` lines, filtered as ``bm25`` filters:
        the ranker sends them in the same ``_msearch`` as the anchors' and lemmas' lists (one round trip)."""
        values = np.asarray(vector, dtype=np.float64).tolist()
        start = {"knn": {self.start_field: {"vector": values, "k": self.adapted_depth}}}
        inner = {"knn": {f"{self.anchors_field}.{WINDOW_VECTOR}": {"vector": values, "k": self.anchor_depth}}}
        anchors = {"nested": {"path": self.anchors_field, "score_mode": "max", "query": inner}}
        return [*bm25.clause_request(start, self.adapted_depth), *bm25.clause_request(anchors, self.anchor_depth)]

    def read(self, bm25: BM25Retriever, q: str, responses: Sequence[Mapping[str, Any]]) -> dict[str, list[Hit]]:
        """The two lists of query ``q`` from the responses to its :meth:`requests`, in order."""
        return {"x_adapted": bm25.hits_of(responses[0], q, self.adapted_depth),
                "x_anchor": bm25.hits_of(responses[1], q, self.anchor_depth)}

    def clauses(self, adapted: np.ndarray) -> dict[str, dict[str, Any]]:
        """The pool search's named clauses: the adapted cosine on the start vector, the best anchor's cosine."""
        inner = _cosine_clause(f"{self.anchors_field}.{WINDOW_VECTOR}", adapted)
        return {"x_cos": _cosine_clause(self.start_field, adapted),
                "x_anchor": {"nested": {"path": self.anchors_field, "score_mode": "max", "query": inner}}}

    def columns(self, ids: Sequence[str], named: Mapping[str, Mapping[str, float]], lists: Mapping[str, Sequence[Hit]],
                anchored: Sequence[bool]) -> np.ndarray:
        """:data:`BRIDGE_FEATURES` of a pool (``named``: each clause's score per article)."""
        if not ids:
            return np.zeros((0, len(BRIDGE_FEATURES)))
        cos, anchor = named.get("x_cos", {}), named.get("x_anchor", {})
        base = np.asarray([2.0 * cos[d] - 1.0 if d in cos else 0.0 for d in ids])
        best = np.asarray([2.0 * anchor[d] - 1.0 if d in anchor else -1.0 for d in ids])
        has = np.asarray(anchored, dtype=np.float64)
        best = np.where(has > 0, best, -1.0)
        score = base + LAMBDA * np.maximum(best - base, 0.0)
        ranks = {name: {h.doc_id: r for r, h in enumerate(lists.get(name, ()), start=1)} for name in BRIDGE_LISTS}
        missing = max(MISSING, self.adapted_depth + 1, self.anchor_depth + 1)  # below every list's last rank
        return np.stack([base, np.maximum(best, 0.0), has, score,
                         [float(ranks["x_adapted"].get(d, missing)) for d in ids],
                         [float(ranks["x_anchor"].get(d, missing)) for d in ids],
                         score - score.max()], axis=1)


def load_bridge(transport: Transport, index: str, embedder: str,
                mapping: Mapping[str, Any] | None = None) -> DenseBridge | None:
    """The bridge of ``embedder`` in ``index`` (an alias or name), or None where the index's ``_meta.bridge`` does not
    list it complete or no adapter is stored for it (an index built before the bridge, or still encoding it).
    ``mapping``: the index's mapping where the caller has just read it."""
    anchors = anchor_vectors_field_name(slug(embedder))
    start = vector_field_name(slug(embedder))
    for name, m in (mapping or transport.get_mapping(index, what="the index's mapping")).items():
        if anchors in (m.get("mappings", {}).get("_meta", {}).get("bridge") or {}):
            adapter = load_adapter(transport, name, start)
            if adapter is not None:
                return DenseBridge(start, anchors, adapter)
    return None


@dataclass
class BridgeWatch:
    """Whether an index has a bridge, asked at the first search and again every :data:`RECHECK_S` while it has none
    (a portal's ranker lives long; the indexer completes the bridge while it serves)."""

    transport: Transport
    index: str
    embedder: str
    _found: DenseBridge | None = field(init=False, default=None)
    _asked: float | None = field(init=False, default=None)

    def get(self, mapping: Mapping[str, Any] | None = None) -> DenseBridge | None:
        """The bridge, or None; ``mapping``: the index's mapping where the caller has just read it."""
        now = time.monotonic()
        if self._found is None and (self._asked is None or now - self._asked > RECHECK_S):
            self._asked = now
            self._found = load_bridge(self.transport, self.index, self.embedder, mapping)
        return self._found
