"""The learned ranker's features: what the system already knows about a (query, article) pair, as numbers.

A candidate pool (hybrid's fused top 100, BM25's top 100, the anchor clause's top :data:`ANCHOR_DEPTH` and the
lemma BM25's top :data:`LEMMA_DEPTH`) is scored here with evidence the two first-stage lists do not carry on their own: BM25 per field (title, text, text in force,
anchors, headings, lemmas, the case file's question), the exact cosine of every pool article (not only kNN's top 100), the
article's length and place in the legal graph, and how well its legal area agrees with the query's best hits. A
quick trial showed why (issue 46): LambdaMART over the lists' own ranks and scores lost nDCG@10 held out.

Every feature is computed through OpenSearch, for training (bench/ltr_study.py, ``cli.py ltr train``) and at query
time alike, by the same code, so a model never meets a feature computed another way. Missing values (an article
outside a list) are :data:`MISSING_RANK` for ranks and 0 for scores, never NaN: the model file says what it read.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nomos.errors import ConfigError
from nomos.opensearch.stored_scripts import KNN_SCORE
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.case_reading import read_case

# the bump of every feature-list change: a model trained on another version is refused (model.check_features)
FEATURES_VERSION = "3"
FIELDS = ("title", "text", "in_force_text", "anchors", "context", "lemmas")
LISTS = ("bm25", "knn", "fused", "anchors", "lemmas")  # the first-stage lists a pool is made of, and their rank features
ANCHOR_DEPTH = 20
LEMMA_DEPTH = 50  # BM25 over the lemmas alone (nomos.legal.text.lemmas): the irregular forms the stems miss
MISSING_RANK = 101  # the rank feature of an article a list does not hold (lists are at most 100 deep)
DOC_VALUES = ("anchor_count", "cited_by_count", "text_words", "area", "cites")
# what the features read of each response (ids, sort values, doc values, errors): a fraction of the whole answer
FEATURE_FILTER = ",".join(["responses.error", "responses.status"]
                          + [f"responses.hits.hits.{f}" for f in ("_id", "sort", "fields")])
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


@dataclass(frozen=True)
class PoolFeatures:
    """One query's pool in a fixed order (best first-stage rank first, then id) and its feature matrix."""

    ids: list[str]
    matrix: np.ndarray  # len(ids) x len(FEATURES), float32


def check_index(transport: Transport, index: str) -> None:
    """The index must hold every field the features read: an index built before them would give zeros where the
    model expects evidence, a silent misranking. One clear error instead."""
    mapping = transport.get_mapping(index, what="the index's mapping")
    for name, m in mapping.items():
        have = set(m.get("mappings", {}).get("properties", {}))
        missing = [f for f in INDEX_FIELDS if f not in have]
        if missing:
            raise ConfigError(f"learned ranker: index {name} has no {', '.join(missing)} (built before the ranker's "
                              f"features v{FEATURES_VERSION})", hint="re-index it with this version: `cli.py index`")


def pool_of(lists: Mapping[str, Sequence[Hit]]) -> list[str]:
    """The pool: every article of every list, ordered by its best rank in any list, then by id (deterministic)."""
    best: dict[str, int] = {}
    for hits in lists.values():
        for rank, h in enumerate(hits, start=1):
            best[h.doc_id] = min(best.get(h.doc_id, rank), rank)
    return sorted(best, key=lambda d: (best[d], d))


def _ids_filtered(query: dict[str, Any], ids: Sequence[str]) -> dict[str, Any]:
    return {"bool": {"must": [query], "filter": [{"ids": {"values": list(ids)}}]}}


def _scores_body(query: dict[str, Any], ids: Sequence[str]) -> dict[str, Any]:
    return {"size": len(ids), "query": _ids_filtered(query, ids), "_source": False, "stored_fields": "_none_",
            "track_scores": True, "sort": [{"_score": "desc"}, {"article_id": "asc"}]}


def _scores(response: Mapping[str, Any]) -> dict[str, float]:
    return {str(h["sort"][1]): float(h["sort"][0]) for h in response.get("hits", {}).get("hits", [])}


@dataclass
class FeatureReader:
    """Reads the features of many queries' pools, a batch of queries per ``_msearch`` (each query sends one item
    per field, one for its question, one for the exact cosine where there is a query vector, one for the doc
    values)."""

    bm25: BM25Retriever
    vector_field: str | None = None  # the knn_vector field the cosines are read from (None: no dense features)
    batch_size: int = 8

    def requests(self, text: str, ids: Sequence[str], vector: np.ndarray | None) -> list[dict[str, Any]]:
        """The ``_msearch`` bodies of one query's pool, in the order :meth:`read` expects them."""
        index = self.bm25.index
        bodies = [_scores_body(self.bm25.query_clause(text), ids)]
        bodies += [_scores_body(self.bm25.text_clause(text, field=f), ids) for f in FIELDS]
        reading = read_case(text)
        question = self.bm25.text_clause(reading.question) if reading.has_question else {"match_none": {}}
        bodies.append(_scores_body(question, ids))
        bodies.append({"size": len(ids), "query": {"ids": {"values": list(ids)}}, "_source": False,
                       "docvalue_fields": list(DOC_VALUES)})
        if vector is not None and self.vector_field:
            values = np.asarray(vector, dtype=np.float64).tolist()
            script = KNN_SCORE.ref({"field": self.vector_field, "query_value": values, "space_type": "cosinesimil"})
            bodies.append(_scores_body({"script_score": {"query": {"match_all": {}}, "script": script}}, ids))
        lines: list[dict[str, Any]] = []
        for body in bodies:
            lines += [{"index": index}, body]
        return lines

    def read(self, queries: Mapping[str, str], lists: Mapping[str, Mapping[str, Sequence[Hit]]],
             vectors: Mapping[str, np.ndarray] | None = None) -> dict[str, PoolFeatures]:
        """``lists``: query id -> list name (of :data:`LISTS`) -> that list's hits. Returns each query's pool and
        features."""
        out: dict[str, PoolFeatures] = {}
        items = [(q, pool_of(lists[q])) for q in queries]
        for start in range(0, len(items), self.batch_size):
            batch = [(q, ids) for q, ids in items[start : start + self.batch_size] if ids]
            lines: list[dict[str, Any]] = []
            counts: list[int] = []
            for q, ids in batch:
                req = self.requests(queries[q], ids, (vectors or {}).get(q))
                lines += req
                counts.append(len(req) // 2)
            labels = [q for (q, _), n in zip(batch, counts, strict=True) for _ in range(n)]
            responses = self.bm25.transport.msearch(lines, labels=labels, what="the learned ranker's features",
                                                    filter_path=FEATURE_FILTER) if lines else []
            at = 0
            for (q, ids), n in zip(batch, counts, strict=True):
                out[q] = PoolFeatures(ids, self._matrix(queries[q], ids, lists[q], responses[at : at + n]))
                at += n
        for q, _ in items:
            out.setdefault(q, PoolFeatures([], np.zeros((0, len(FEATURES)), dtype=np.float32)))
        return out

    def _matrix(self, text: str, ids: Sequence[str], lists: Mapping[str, Sequence[Hit]],
                responses: Sequence[Mapping[str, Any]]) -> np.ndarray:
        content, *fields = (_scores(r) for r in responses[: 1 + len(FIELDS)])
        question = _scores(responses[1 + len(FIELDS)])
        docs = {str(h["_id"]): h.get("fields", {}) for h in responses[2 + len(FIELDS)].get("hits", {}).get("hits", [])}
        cosine = _scores(responses[3 + len(FIELDS)]) if len(responses) > 3 + len(FIELDS) else {}
        ranks = {name: {h.doc_id: r for r, h in enumerate(lists.get(name, ()), start=1)} for name in LISTS}
        depth = {name: MISSING_RANK for name in LISTS}
        fused = lists.get("fused") or lists.get("bm25") or ()
        top_areas = Counter(_first(docs.get(h.doc_id, {}).get("area")) for h in fused[:10])
        reading = read_case(text)
        words = len(text.split())
        rows = []
        for d in ids:
            doc = docs.get(d, {})
            area = _first(doc.get("area"))
            rows.append([
                *(float(ranks[name].get(d, depth[name])) for name in LISTS),
                content.get(d, 0.0),
                2.0 * cosine[d] - 1.0 if d in cosine else 0.0,  # the script's (1 + cos) / 2 back to the cosine
                question.get(d, 0.0),
                *(f.get(d, 0.0) for f in fields),
                float(_first(doc.get("anchor_count")) or 0), float(_first(doc.get("cited_by_count")) or 0),
                float(len(doc.get("cites", []))), math.log1p(float(_first(doc.get("text_words")) or 0)),
                top_areas[area] / 10.0 if area else 0.0,
                float(words), float(reading.has_question),
                float(sum(d in ranks[name] for name in LISTS)),
            ])
        raw = np.asarray(rows, dtype=np.float64).reshape(len(ids), len(FEATURES) - len(RELATIVE) - 1)
        return np.concatenate([raw, _relative(raw)], axis=1).astype(np.float32)


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


def _first(value: Any) -> Any:
    """A doc value's first element (doc values come as lists)."""
    if isinstance(value, list):
        return value[0] if value else None
    return value
