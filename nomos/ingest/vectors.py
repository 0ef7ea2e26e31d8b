"""The vector stages of indexing: one ``knn_vector`` field per encoder, then its article windows in a nested field
(:mod:`nomos.vectors.windows`), each filled only where it is missing.

Documents are updated in place (partial updates), and a stage interrupted half-way resumes with the documents
still lacking the field. ``_source`` leaves vectors out (the mapping's ``_source.excludes``) and an update
rebuilds the document from ``_source``, so each update re-sends the document's other vector fields, read from the
index (:func:`~nomos.vectors.stored.stored_vectors`): adding a second encoder keeps the first one's vectors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Callable, Iterator

from opensearchpy import OpenSearch, helpers

from nomos.ingest.anchors import NO_ANCHORS, Anchors
from nomos.ingest.bulk import BulkError, BulkFailure, item_failure
from nomos.ingest.records import Article
from nomos.mappings import (
    VECTOR_PREFIX,
    WINDOW_VECTOR,
    MappingError,
    anchor_vectors_field_name,
    knn_vector_mapping,
    vector_field_name,
    windows_field_name,
    windows_mapping,
)
from nomos.opensearch.transport import Transport
from nomos.vectors.cache import EncodeStats, VectorCache, encode_cached
from nomos.vectors.encoders import Encoder, slug
from nomos.vectors.stored import stored_vectors
from nomos.vectors.windows import article_windows, fits_window


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


def properties_of(client: OpenSearch, index: str) -> dict[str, Any]:
    return next(iter(client.indices.get_mapping(index=index).values()))["mappings"].get("properties", {})


def ensure_vector_field(client: OpenSearch, index: str, encoder: Encoder, m: int, ef_construction: int) -> str:
    """Add the encoder's field to the mapping, or check that an existing one has the same shape."""
    field = vector_field_name(slug(encoder.spec))
    wanted = knn_vector_mapping(encoder.dim, m=m, ef_construction=ef_construction)
    props = properties_of(client, index)
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


def as_vector(vec: Any) -> list[float]:  # a numpy row
    return [round(float(x), 7) for x in vec]


def partial_updates(index: str, field: str, ids: list[str], values: Any,
             others: dict[str, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One partial update per document: this field's value (a vector, or a windows field's nested documents), and
    the document's ``others`` (its other vector fields, which the update would otherwise drop: they are not in
    ``_source``)."""
    for doc_id, value in zip(ids, values, strict=True):
        yield {"_op_type": "update", "_index": index, "_id": doc_id, "doc": {**others.get(doc_id, {}), field: value}}


def add_stats(stats: EncodeStats | None, more: EncodeStats) -> EncodeStats:
    if stats is None:
        return more
    return EncodeStats(stats.texts + more.texts, stats.from_cache + more.from_cache, stats.encoded + more.encoded,
                       stats.cut + more.cut, stats.seconds + more.seconds)


def fill_vectors(
    client: OpenSearch,
    index: str,
    articles: list[Article],
    encoder: Encoder,
    cache: VectorCache | None,
    m: int = 16,
    ef_construction: int = 128,
    on_progress: Callable[[int], None] | None = None,
    on_skip: Callable[[int], None] | None = None,
) -> VectorReport:
    """Encode (through the cache) the articles whose document lacks this encoder's field, and add the vectors.
    ``on_skip`` hears how many already have theirs (a resumed run: the log's time left counts only the rest)."""
    field = ensure_vector_field(client, index, encoder, m, ef_construction)
    client.indices.refresh(index=index)
    missing = ids_missing_field(client, index, field)
    todo = [a for a in articles if a.id in missing]
    if on_skip and len(todo) < len(articles):
        on_skip(len(articles) - len(todo))
    if not todo:
        return VectorReport(field, encoder.describe(), 0, None)
    other_fields = sorted(f for f, spec in properties_of(client, index).items()
                          if f != field and f.startswith(VECTOR_PREFIX) and spec.get("type") == "knn_vector")
    stats: EncodeStats | None = None
    failures: list[BulkFailure] = []
    for start in range(0, len(todo), 256):  # encode and send in slices: a crash loses at most one slice of updates
        part = todo[start : start + 256]
        vectors, part_stats = encode_cached(encoder, [a.passage for a in part], "passage", cache, on_progress=on_progress)
        stats = add_stats(stats, part_stats)
        ids = [a.id for a in part]
        others = stored_vectors(Transport(client, retry_seconds=0.0), index, other_fields, ids) if other_fields else {}
        failures += send_updates(client, partial_updates(index, field, ids, [as_vector(v) for v in vectors], others))
    if failures:
        raise BulkError(failures, len(todo))
    return VectorReport(field, encoder.describe(), len(todo), stats)


def send_updates(client: OpenSearch, actions: Iterator[dict[str, Any]]) -> list[BulkFailure]:
    failures = []
    for ok, item in helpers.streaming_bulk(client, actions, chunk_size=200, raise_on_error=False, max_retries=5):
        if not ok:
            failures.append(item_failure(item))
    return failures


def ids_missing_windows(client: OpenSearch, index: str, field: str) -> set[str]:
    """Article ids whose document has no window in the nested ``field``."""
    has = {"nested": {"path": field, "query": {"exists": {"field": f"{field}.{WINDOW_VECTOR}"}}}}
    query = {"query": {"bool": {"must_not": has}}, "_source": False}
    return {str(h["_id"]) for h in helpers.scan(client, query=query, index=index, size=1000)}


def windows_of(encoder: Encoder, articles: list[Article], cache: VectorCache | None,
               on_progress: Callable[[int], None] | None = None) -> tuple[dict[str, list[dict[str, list[float]]]], EncodeStats]:
    """Each article's windows (:func:`~nomos.vectors.windows.article_windows`) as the nested documents of its
    windows field, encoded through the cache (window 1 is the single vector's passage: a cache hit).
    ``on_progress`` counts articles."""
    fits = fits_window(encoder)
    texts = [article_windows(a.title, a.text, fits) for a in articles]
    flat = [t for ts in texts for t in ts]
    vectors, stats = encode_cached(encoder, flat, "passage", cache)
    out: dict[str, list[dict[str, list[float]]]] = {}
    start = 0
    for a, ts in zip(articles, texts, strict=True):
        out[a.id] = [{WINDOW_VECTOR: as_vector(v)} for v in vectors[start : start + len(ts)]]
        start += len(ts)
    if on_progress:
        on_progress(len(articles))
    return out, stats


def fill_windows(
    client: OpenSearch,
    index: str,
    articles: list[Article],
    encoder: Encoder,
    cache: VectorCache | None,
    m: int = 16,
    ef_construction: int = 128,
    on_progress: Callable[[int], None] | None = None,
    resend: Resend | None = None,
    on_skip: Callable[[int], None] | None = None,
) -> VectorReport:
    """The second vector stage: every article's windows in the encoder's nested field, where it lacks them.

    Run after the single vectors (hybrid already serves with those). An update drops whatever is not in
    ``_source``, so it re-sends what ``resend`` names (:class:`Resend`: the single vectors, read from the index, and
    the plan's encoders' other windows and anchor vectors, recomputed from the cache); windows of any other encoder
    are dropped for the updated articles (the indexer then lists that field incomplete, and retrieval uses that
    encoder's single vectors)."""
    field = windows_field_name(slug(encoder.spec))
    props = properties_of(client, index)
    if field not in props:
        client.indices.put_mapping(index=index, body={"properties": {field: windows_mapping(encoder.dim, m, ef_construction)}})
    client.indices.refresh(index=index)
    missing = ids_missing_windows(client, index, field)
    todo = [a for a in articles if a.id in missing]
    if on_skip and len(todo) < len(articles):  # as fill_vectors: the windows a resumed run finds done
        on_skip(len(articles) - len(todo))
    if not todo:
        return VectorReport(field, encoder.describe(), 0, None)
    resend = resend or Resend(cache=cache)
    stats: EncodeStats | None = None
    failures: list[BulkFailure] = []
    for start in range(0, len(todo), 64):  # encode and send in slices: a crash loses at most one slice of updates
        part = todo[start : start + 64]
        windows, part_stats = windows_of(encoder, part, cache, on_progress)
        stats = add_stats(stats, part_stats)
        ids = [a.id for a in part]
        others = resend.others(client, index, props, part, field)
        failures += send_updates(client, partial_updates(index, field, ids, [windows[i] for i in ids], others))
    if failures:
        raise BulkError(failures, len(todo))
    return VectorReport(field, encoder.describe(), len(todo), stats)


def anchor_docs(encoder: Encoder, articles: list[Article], anchors: Mapping[str, Anchors],
                cache: VectorCache | None) -> tuple[dict[str, list[dict[str, list[float]]]], EncodeStats]:
    """Each article's anchor texts (:mod:`nomos.ingest.anchors`) as the nested documents of its anchors field, encoded
    as passages through the cache; articles without anchors are left out."""
    texts = {a.id: anchors.get(a.id, NO_ANCHORS).texts for a in articles}
    vectors, stats = encode_cached(encoder, [t for ts in texts.values() for t in ts], "passage", cache)
    out: dict[str, list[dict[str, list[float]]]] = {}
    start = 0
    for doc_id, ts in texts.items():
        if ts:
            out[doc_id] = [{WINDOW_VECTOR: as_vector(v)} for v in vectors[start : start + len(ts)]]
        start += len(ts)
    return out, stats


@dataclass(frozen=True)
class Resend:
    """What a partial update must send again besides its own field, since ``_source`` leaves vectors out: every
    single vector (read from the index), and the windows and anchor vectors of ``encoders`` where the index has
    those fields (recomputed through the cache: nested vectors cannot be read back)."""

    encoders: tuple[Encoder, ...] = ()
    cache: VectorCache | None = None
    anchors: Mapping[str, Anchors] = dataclass_field(default_factory=dict)

    def others(self, client: OpenSearch, index: str, props: Mapping[str, Any], part: list[Article],
               own: str) -> dict[str, dict[str, Any]]:
        singles = sorted(f for f, spec in props.items()
                         if f != own and f.startswith(VECTOR_PREFIX) and spec.get("type") == "knn_vector")
        ids = [a.id for a in part]
        out: dict[str, dict[str, Any]] = \
            stored_vectors(Transport(client, retry_seconds=0.0), index, singles, ids) if singles else {}
        for encoder in self.encoders:
            windows, anchored = windows_field_name(slug(encoder.spec)), anchor_vectors_field_name(slug(encoder.spec))
            if windows != own and windows in props:
                for doc_id, docs in windows_of(encoder, part, self.cache)[0].items():
                    out.setdefault(doc_id, {})[windows] = docs
            if anchored != own and anchored in props and self.anchors:
                for doc_id, docs in anchor_docs(encoder, part, self.anchors, self.cache)[0].items():
                    out.setdefault(doc_id, {})[anchored] = docs
        return out
