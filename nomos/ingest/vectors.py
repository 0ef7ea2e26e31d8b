"""The vector stage of indexing: one ``knn_vector`` field per encoder, filled only where it is missing.

Documents are updated in place (partial updates), and a stage interrupted half-way resumes with the documents
still lacking the field. ``_source`` leaves vectors out (the mapping's ``_source.excludes``) and an update
rebuilds the document from ``_source``, so each update re-sends the document's other vector fields, read from the
index (:func:`~nomos.vectors.stored.stored_vectors`): adding a second encoder keeps the first one's vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from opensearchpy import OpenSearch, helpers

from nomos.ingest.bulk import BulkError, BulkFailure, item_failure
from nomos.ingest.records import Article
from nomos.mappings import VECTOR_PREFIX, MappingError, knn_vector_mapping, vector_field_name
from nomos.vectors.cache import EncodeStats, VectorCache, encode_cached
from nomos.vectors.encoders import Encoder, slug
from nomos.vectors.stored import stored_vectors


@dataclass(frozen=True)
class VectorReport:
    field: str
    encoder: dict[str, Any]
    filled: int
    stats: EncodeStats | None


def ids_missing_field(client: OpenSearch, index: str, field: str) -> set[str]:
    """Article ids (``_id``) whose document lacks ``field``, read with ``helpers.scan`` (a set: no order needed)."""
    query = {"query": {"bool": {"must_not": {"exists": {"field": field}}}}, "_source": False}
    return {str(h["_id"]) for h in helpers.scan(client, query=query, index=index, size=1000)}


def _properties(client: OpenSearch, index: str) -> dict[str, Any]:
    return next(iter(client.indices.get_mapping(index=index).values()))["mappings"].get("properties", {})


def ensure_vector_field(client: OpenSearch, index: str, encoder: Encoder, m: int, ef_construction: int) -> str:
    """Add the encoder's field to the mapping, or check that an existing one has the same shape."""
    field = vector_field_name(slug(encoder.spec))
    wanted = knn_vector_mapping(encoder.dim, m=m, ef_construction=ef_construction)
    props = _properties(client, index)
    if field in props:
        have = props[field]
        if int(have.get("dimension", -1)) != encoder.dim or have.get("method", {}).get("parameters") != wanted["method"]["parameters"]:
            raise MappingError(
                f"{index} already has {field} with dimension {have.get('dimension')} and {have.get('method', {}).get('parameters')}; "
                f"asked for {encoder.dim} and {wanted['method']['parameters']}: re-index under a new version (--rebuild)"
            )
        return field
    client.indices.put_mapping(index=index, body={"properties": {field: wanted}})
    return field


def _updates(index: str, field: str, ids: list[str], vectors: Any,
             others: dict[str, dict[str, list[float]]]) -> Iterator[dict[str, Any]]:
    """One partial update per document: this field's vector, and the document's ``others`` (its other vector
    fields, which the update would otherwise drop: they are not in ``_source``)."""
    for doc_id, vec in zip(ids, vectors, strict=True):
        yield {"_op_type": "update", "_index": index, "_id": doc_id,
               "doc": {**others.get(doc_id, {}), field: [round(float(x), 7) for x in vec]}}


def fill_vectors(
    client: OpenSearch,
    index: str,
    articles: list[Article],
    encoder: Encoder,
    cache: VectorCache | None,
    m: int = 16,
    ef_construction: int = 128,
    on_progress: Callable[[int], None] | None = None,
) -> VectorReport:
    """Encode (through the cache) the articles whose document lacks this encoder's field, and add the vectors."""
    field = ensure_vector_field(client, index, encoder, m, ef_construction)
    client.indices.refresh(index=index)
    missing = ids_missing_field(client, index, field)
    todo = [a for a in articles if a.id in missing]
    if not todo:
        return VectorReport(field, encoder.describe(), 0, None)
    other_fields = sorted(f for f, spec in _properties(client, index).items()
                          if f != field and f.startswith(VECTOR_PREFIX) and spec.get("type") == "knn_vector")
    stats: EncodeStats | None = None
    failures: list[BulkFailure] = []
    for start in range(0, len(todo), 256):  # encode and send in slices: a crash loses at most one slice of updates
        part = todo[start : start + 256]
        vectors, part_stats = encode_cached(encoder, [a.passage for a in part], "passage", cache, on_progress=on_progress)
        stats = part_stats if stats is None else EncodeStats(
            stats.texts + part_stats.texts, stats.from_cache + part_stats.from_cache, stats.encoded + part_stats.encoded,
            stats.cut + part_stats.cut, stats.seconds + part_stats.seconds,
        )
        ids = [a.id for a in part]
        others = stored_vectors(client, index, other_fields, ids) if other_fields else {}
        for ok, item in helpers.streaming_bulk(
            client, _updates(index, field, ids, vectors, others), chunk_size=200, raise_on_error=False, max_retries=5
        ):
            if not ok:
                failures.append(item_failure(item))
    if failures:
        raise BulkError(failures, len(todo))
    return VectorReport(field, encoder.describe(), len(todo), stats)
