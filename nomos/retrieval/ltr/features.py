"""The learned ranker's features: what the system already knows about a (query, article) pair, as numbers.

A candidate pool (hybrid's fused top 100, BM25's top 100, the anchor clause's top :data:`ANCHOR_DEPTH` and the
lemma BM25's top :data:`LEMMA_DEPTH`) is scored here with evidence the two first-stage lists do not carry on their own: BM25 per field (title, text, text in force,
anchors, headings, lemmas, the case file's question), the exact cosine of every pool article (not only kNN's top 100), the
article's length and place in the legal graph, and how well its legal area agrees with the query's best hits. A
quick trial showed why (issue 46): LambdaMART over the lists' own ranks and scores lost nDCG@10 held out.

Every feature is computed through OpenSearch, for training (bench/ltr_study.py) and at query
time alike, by the same code, so a model never meets a feature computed another way. Missing values (an article
outside a list) are :data:`MISSING_RANK` for ranks and 0 for scores, never NaN: the model file says what it read.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nomos.errors import ConfigError
from nomos.opensearch.stored_scripts import KNN_SCORE
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.case_reading import read_case
from nomos.retrieval.ltr.dense_bridge import BRIDGE_FEATURES, DenseBridge
from nomos.retrieval.ltr.neighbours import LAW_FEATURES, NEIGHBOUR_FEATURES, law_columns, neighbour_columns

# the bump of every feature-list change: a model trained on another version is refused (model.check_features)
FEATURES_VERSION = "3"
FIELDS = ("title", "text", "in_force_text", "anchors", "context", "lemmas")
LISTS = ("bm25", "knn", "fused", "anchors", "lemmas")  # the first-stage lists a pool is made of, and their rank features
ANCHOR_DEPTH = 20
LEMMA_DEPTH = 50  # BM25 over the lemmas alone (nomos.legal.text.lemmas): the irregular forms the stems miss
MISSING_RANK = 101  # the rank feature of an article a list does not hold (lists are at most 100 deep)
DOC_VALUES = ("anchor_count", "cited_by_count", "text_words", "area", "cites")
# what the features read of a pool's response (ids, each named clause's score, doc values): a fraction of it
FEATURE_FILTER = ",".join(f"hits.hits.{f}" for f in ("matched_queries", "fields"))
# a hit's ``matched_queries`` as a map of each clause to its score: a URL parameter of ``_search`` that OpenSearch
# 2.19's ``_msearch`` refuses (and ignores in a body), so a pool is one ``_search`` of its own
NAMED_SCORES = {"include_named_queries_score": "true", "filter_path": FEATURE_FILTER}
WORKERS = 4  # a batch's pools in flight at once (eval's many queries; a page has one)
# the index fields the features read that older indices lack (checked before a ranker is built: check_index)
INDEX_FIELDS = ("anchors", "context", "lemmas", "anchor_count", "cited_by_count", "text_words")

FEATURES: tuple[str, ...] = (
    *(f"{name}_rank" for name in LISTS),
    "bm25_score", "knn_cosine", "question_score",
    *(f"field_{f}" for f in FIELDS),
    "anchor_count", "cited_by_count", "cites_count", "log_text_words",
    "area_share_top10", "query_words", "has_question", "in_lists",
)
# Scores relative to the pool's best, per query: a long case file's BM25 scores are ten times a short query's, so a
# model that reads only raw scores learns thresholds that fit one kind of query (the case files lost nDCG@10 held
# out with raw scores alone, features v2). BM25s as a share of the pool's highest, the cosine as its distance below.
RELATIVE = ("bm25_score", "question_score", *(f"field_{f}" for f in FIELDS))
FEATURES = (*FEATURES, *(f"rel_{f}" for f in RELATIVE), "rel_knn_cosine")
# with the dense bridge (nomos.retrieval.ltr.dense_bridge) where the index holds it, and the pool's neighbourhood
# (nomos.retrieval.ltr.neighbours: v5) and its law's place in the pool (v6): a model reads one list or the other, as
# its card says (model.check_features)
BRIDGED_FEATURES = (*FEATURES, *BRIDGE_FEATURES, *NEIGHBOUR_FEATURES, *LAW_FEATURES)
BRIDGED_VERSION = "6"


@dataclass(frozen=True)
class PoolFeatures:
    """One query's pool in a fixed order (best first-stage rank first, then id) and its feature matrix."""

    ids: list[str]
    matrix: np.ndarray  # len(ids) x len(FEATURES), float32
    # article -> the articles it restates (the ``restates`` doc values the pool's search reads beside the features:
    # the amendment stage's ``precede`` orders the ranking with them and asks the node nothing more, issue 49)
    restates: dict[str, list[str]] = field(default_factory=dict)


def check_index(transport: Transport, index: str) -> dict[str, Any]:
    """The index must hold every field the features read: an index built before them would give zeros where the
    model expects evidence, a silent misranking. One clear error instead. Returns the mapping read (the dense
    bridge's lookup reads it too: one request at the first search)."""
    mapping = transport.get_mapping(index, what="the index's mapping")
    for name, m in mapping.items():
        have = set(m.get("mappings", {}).get("properties", {}))
        missing = [f for f in INDEX_FIELDS if f not in have]
        if missing:
            raise ConfigError(f"learned ranker: index {name} has no {', '.join(missing)} (built before the ranker's "
                              f"features v{FEATURES_VERSION})", hint="re-index it with this version: `cli.py index`")
    return mapping


def pool_of(lists: Mapping[str, Sequence[Hit]]) -> list[str]:
    """The pool: every article of every list, ordered by its best rank in any list, then by id (deterministic)."""
    best: dict[str, int] = {}
    for hits in lists.values():
        for rank, h in enumerate(hits, start=1):
            best[h.doc_id] = min(best.get(h.doc_id, rank), rank)
    return sorted(best, key=lambda d: (best[d], d))


def _pool_body(clauses: Mapping[str, dict[str, Any]], ids: Sequence[str]) -> dict[str, Any]:
    """One query's whole pool in one search: every article of ``ids`` (the filter), each named clause scored on it
    (``include_named_queries_score``: a hit's ``matched_queries`` maps each clause it matches to that clause's own
    score, the score the clause alone would give it) and the doc values. One item instead of one per clause: the
    clauses run only on the pool's articles, and the node parses one request.

    The hits come in index order (``sort: _doc``), not by score: a clause's score in ``matched_queries`` is computed
    in the fetch phase (each named clause scored again on each hit), so scoring the whole ``should`` in the query
    phase as well was spent for nothing; unscored, the query phase only walks the ids (Lucene drops optional
    clauses beside a filter when no score is needed). Same scores, about half the node's time (issue 46)."""
    should = [{"bool": {"should": [clause], "_name": name}} for name, clause in clauses.items()]
    # the id from doc values, not the stored _id: loading stored fields for 200 hits was half the request (13 ms)
    return {"size": len(ids), "query": {"bool": {"should": should, "filter": [{"ids": {"values": list(ids)}}]}},
            "sort": ["_doc"], "track_total_hits": False,
            "stored_fields": "_none_", "docvalue_fields": ["article_id", *DOC_VALUES, "restates"]}


@dataclass
class FeatureReader:
    """Reads the features of many queries' pools, one ``_search`` a pool (:func:`_pool_body`: a named clause per
    score, the exact cosine where there is a query vector, the doc values), :data:`WORKERS` at a time. Ten items of
    one ``_msearch`` a query before (one per clause, each its own search): a median 28 ms a page, now one search."""

    bm25: BM25Retriever
    vector_field: str | None = None  # the knn_vector field the cosines are read from (None: no dense features)
    bridge: DenseBridge | None = None  # the dense bridge's clauses and columns (read where ``adapted`` is given)

    def body(self, text: str, ids: Sequence[str], vector: np.ndarray | None,
             adapted: np.ndarray | None = None) -> dict[str, Any]:
        """The search of one query's pool: a named clause per score (with the bridge's where ``adapted``, the query
        vector through the bridge's adapter, is given)."""
        clauses = {"content": self.bm25.query_clause(text)}
        clauses |= {f"field_{f}": self.bm25.text_clause(text, field=f) for f in FIELDS}
        reading = read_case(text)
        if reading.has_question:
            clauses["question"] = self.bm25.text_clause(reading.question)
        if vector is not None and self.vector_field:
            values = np.asarray(vector, dtype=np.float64).tolist()
            script = KNN_SCORE.ref({"field": self.vector_field, "query_value": values, "space_type": "cosinesimil"})
            clauses["cosine"] = {"script_score": {"query": {"match_all": {}}, "script": script}}
        if adapted is not None and self.bridge is not None:
            clauses |= self.bridge.clauses(adapted)
        return _pool_body(clauses, ids)

    def read(self, queries: Mapping[str, str], lists: Mapping[str, Mapping[str, Sequence[Hit]]],
             vectors: Mapping[str, np.ndarray] | None = None,
             adapted: Mapping[str, np.ndarray] | None = None) -> dict[str, PoolFeatures]:
        """``lists``: query id -> list name (of :data:`LISTS`, and the bridge's) -> that list's hits. Returns each
        query's pool and features: :data:`FEATURES`, then :data:`BRIDGE_FEATURES` where ``adapted`` (query id ->
        the adapted vector) is given."""
        width = len(BRIDGED_FEATURES if adapted is not None else FEATURES)
        items = [(q, pool_of(lists[q])) for q in queries]

        def features(item: tuple[str, list[str]]) -> PoolFeatures:
            q, ids = item
            if not ids:
                return PoolFeatures([], np.zeros((0, width), dtype=np.float32))
            bridged = adapted.get(q) if adapted is not None else None
            body = self.body(queries[q], ids, (vectors or {}).get(q), bridged)
            response = self.bm25.transport.search(self.bm25.index, body, params=NAMED_SCORES,
                                                  what=f"the learned ranker's features of query {q!r}")
            return PoolFeatures(ids, self._matrix(queries[q], ids, lists[q], response, bridged is not None),
                                _restates(response))

        if len(items) == 1:  # a page: no thread to start
            return {items[0][0]: features(items[0])}
        with ThreadPoolExecutor(WORKERS) as pool:
            return dict(zip((q for q, _ in items), pool.map(features, items), strict=True))

    def _matrix(self, text: str, ids: Sequence[str], lists: Mapping[str, Sequence[Hit]],
                response: Mapping[str, Any], bridged: bool = False) -> np.ndarray:
        """The pool's feature matrix, column by column: a pool is ~330 articles and a page's ranker read them row by
        row in Python, 4.6 ms a query (issue 51's CPU per page); each column is now one pass over the ids. Every value
        is computed by the same float operations as before, so the matrix is the same to the bit (bench/ltr_same.py)."""
        n = len(ids)
        docs: dict[str, Mapping[str, Any]] = {}
        named: dict[str, dict[str, float]] = {}  # clause name -> article -> the clause's score (absent: no match)
        for h in response.get("hits", {}).get("hits", []):  # the response read once: doc values and clause scores
            doc = h["fields"]
            d = str(_first(doc["article_id"]))
            docs[d] = doc
            for name, score in (h.get("matched_queries") or {}).items():
                named.setdefault(name, {})[d] = float(score)
        content, question, cosine = (named.get(c, {}) for c in ("content", "question", "cosine"))
        fused = lists.get("fused") or lists.get("bm25") or ()
        top_areas = Counter(_first(docs.get(h.doc_id, {}).get("area")) for h in fused[:10])
        reading = read_case(text)

        def column(values: Any) -> np.ndarray:
            return np.fromiter(values, dtype=np.float64, count=n)

        raw = np.empty((n, len(FEATURES) - len(RELATIVE) - 1))
        at = 0
        in_lists = np.zeros(n)
        for name in LISTS:
            ranks = {h.doc_id: r for r, h in enumerate(lists.get(name, ()), start=1)}
            raw[:, at] = column(float(ranks.get(d, MISSING_RANK)) for d in ids)
            in_lists += column(d in ranks for d in ids)
            at += 1
        raw[:, at] = column(content.get(d, 0.0) for d in ids)
        raw[:, at + 1] = column(2.0 * cosine[d] - 1.0 if d in cosine else 0.0 for d in ids)  # (1 + cos) / 2 back
        raw[:, at + 2] = column(question.get(d, 0.0) for d in ids)
        at += 3
        for f in FIELDS:
            scores = named.get(f"field_{f}", {})
            raw[:, at] = column(scores.get(d, 0.0) for d in ids)
            at += 1
        pool_docs = [docs.get(d, {}) for d in ids]
        raw[:, at] = column(float(_first(doc.get("anchor_count")) or 0) for doc in pool_docs)
        raw[:, at + 1] = column(float(_first(doc.get("cited_by_count")) or 0) for doc in pool_docs)
        raw[:, at + 2] = column(float(len(doc.get("cites", []))) for doc in pool_docs)
        raw[:, at + 3] = column(math.log1p(float(_first(doc.get("text_words")) or 0)) for doc in pool_docs)
        areas = (_first(doc.get("area")) for doc in pool_docs)
        raw[:, at + 4] = column(top_areas[area] / 10.0 if area else 0.0 for area in areas)
        raw[:, at + 5] = float(len(text.split()))
        raw[:, at + 6] = float(reading.has_question)
        raw[:, at + 7] = in_lists
        parts = [raw, _relative(raw)]
        if bridged and self.bridge is not None:
            anchored = [bool(_first(doc.get("anchor_count")) or 0) for doc in pool_docs]
            bridge = self.bridge.columns(ids, named, lists, anchored)
            parts.append(bridge)
            parts.append(neighbour_columns(ids, fused, {d: doc.get("cites", []) for d, doc in docs.items()}))
            parts.append(law_columns(ids, raw[:, FEATURES.index("fused_rank")], raw[:, FEATURES.index("bm25_score")],
                                     bridge[:, BRIDGE_FEATURES.index("x_adapted_cos")]))
        return np.concatenate(parts, axis=1).astype(np.float32)


def _relative(raw: np.ndarray) -> np.ndarray:
    """The :data:`RELATIVE` columns over their pool's maximum (0 where the pool has no positive score) and the
    cosine minus the pool's highest."""
    if raw.shape[0] == 0:
        return np.zeros((0, len(RELATIVE) + 1))
    cols = [FEATURES.index(f) for f in RELATIVE]
    top = raw[:, cols].max(axis=0)
    shares = np.where(top > 0, raw[:, cols] / np.where(top > 0, top, 1.0), 0.0)
    cosine = raw[:, FEATURES.index("knn_cosine")]
    return np.concatenate([shares, (cosine - cosine.max())[:, None]], axis=1)


def _restates(response: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each pool article that restates others (its ``restates`` doc values), by id."""
    hits = response.get("hits", {}).get("hits", [])
    return {str(_first(h["fields"]["article_id"])): list(h["fields"]["restates"]) for h in hits
            if h.get("fields", {}).get("restates")}


def _first(value: Any) -> Any:
    """A doc value's first element (doc values come as lists)."""
    if isinstance(value, list):
        return value[0] if value else None
    return value
