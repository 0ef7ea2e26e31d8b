"""The dense bridge's stage of indexing: every anchor text as a vector beside its article, and the query adapter.

Anchors (:mod:`nomos.ingest.anchors`) reach BM25 as a field of words. For dense retrieval they are extra passages
of their article: each anchor text embedded as a passage, one nested document each in the encoder's anchors field
(:func:`~nomos.mappings.anchor_vectors_field_name`), so a ``nested`` k-NN query with ``score_mode: max`` scores an
article by its best anchor. And the same pairs teach the query side (:mod:`nomos.vectors.adapter`): each anchor text
and each title embedded as a query, mapped towards its article's start vector.

Run after the encoder's single vectors, on the live index (hybrid serves meanwhile; the learned ranker reads the
bridge once ``_meta.bridge`` lists it). Like the windows, an update rebuilds the document from ``_source``, which
leaves vectors out, so each update re-sends the document's other vector fields (:class:`Resend`). Resumable: only
the articles that have anchors and lack their vectors are encoded; the adapter is fitted again whenever any were.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from opensearchpy import OpenSearch

from nomos.ingest.anchors import NO_ANCHORS, Anchors
from nomos.ingest.bulk import BulkError, BulkFailure
from nomos.ingest.records import Article
from nomos.ingest.vectors import (
    Resend,
    VectorReport,
    add_stats,
    anchor_docs,
    ids_missing_windows,
    partial_updates,
    properties_of,
    send_updates,
)
from nomos.mappings import WINDOW_VECTOR, anchor_vectors_field_name, vector_field_name, windows_mapping
from nomos.vectors.adapter import ADAPTER_BODY, QueryAdapter, adapter_index
from nomos.vectors.cache import EncodeStats, VectorCache, encode_cached
from nomos.vectors.encoders import Encoder, slug

SLICE = 256  # articles encoded and sent at a time: a crash loses at most one slice of updates


def lacking_anchor_vectors(client: OpenSearch, index: str, field_name: str) -> int:
    """How many articles have anchor texts (``anchor_count`` > 0) but no vector in ``field_name``: an update of
    another vector field drops them (they are not in ``_source``), and the bridge is then incomplete."""
    has = {"nested": {"path": field_name, "query": {"exists": {"field": f"{field_name}.{WINDOW_VECTOR}"}}}}
    query = {"query": {"bool": {"filter": [{"range": {"anchor_count": {"gt": 0}}}], "must_not": [has]}}}
    return int(client.count(index=index, body=query)["count"])


def fill_anchor_vectors(client: OpenSearch, index: str, articles: list[Article], anchors: Mapping[str, Anchors],
                        encoder: Encoder, cache: VectorCache | None, resend: Resend, m: int = 16,
                        ef_construction: int = 128,
                        on_progress: Callable[[int], None] | None = None) -> VectorReport:
    """Every anchored article's anchor vectors where its document lacks them (``on_progress`` counts articles)."""
    name = anchor_vectors_field_name(slug(encoder.spec))
    props = properties_of(client, index)
    if name not in props:
        client.indices.put_mapping(index=index, body={"properties": {name: windows_mapping(encoder.dim, m, ef_construction)}})
        props = properties_of(client, index)
    client.indices.refresh(index=index)
    missing = ids_missing_windows(client, index, name)
    todo = [a for a in articles if a.id in missing and anchors.get(a.id, NO_ANCHORS).texts]
    stats: EncodeStats | None = None
    failures: list[BulkFailure] = []
    for start in range(0, len(todo), SLICE):
        part = todo[start : start + SLICE]
        docs, part_stats = anchor_docs(encoder, part, anchors, cache)
        stats = add_stats(stats, part_stats)
        ids = [a.id for a in part]
        others = resend.others(client, index, props, part, name)
        failures += send_updates(client, partial_updates(index, name, ids, [docs[i] for i in ids], others))
        if on_progress:
            on_progress(len(part))
    if failures:
        raise BulkError(failures, len(todo))
    return VectorReport(name, encoder.describe(), len(todo), stats)


def fit_query_adapter(encoder: Encoder, articles: list[Article], anchors: Mapping[str, Anchors],
                      cache: VectorCache | None) -> QueryAdapter:
    """The adapter from the corpus's pairs: each anchor text and each title, embedded as a query, towards its
    article's start vector (the passage the single vector was made from: a cache hit)."""
    owners = [(i, t) for i, a in enumerate(articles) for t in anchors.get(a.id, NO_ANCHORS).texts]
    titles = [(i, a.title) for i, a in enumerate(articles) if a.title.strip()]
    starts, _ = encode_cached(encoder, [a.passage for a in articles], "passage", cache)
    pairs = owners + titles
    queries, _ = encode_cached(encoder, [t for _, t in pairs], "query", cache)
    return QueryAdapter.fit(np.asarray(queries), np.asarray(starts)[[i for i, _ in pairs]])


def store_adapter(client: OpenSearch, index: str, encoder: Encoder, adapter: QueryAdapter) -> str:
    """The adapter of ``encoder``'s vectors of ``index`` into its one-document index (made on first use); the
    document's id is the encoder's vector field. Returns that index's name."""
    name = adapter_index(index)
    if not client.indices.exists(index=name):
        client.indices.create(index=name, body=ADAPTER_BODY)
    client.index(index=name, id=vector_field_name(slug(encoder.spec)), body=adapter.to_doc(encoder.describe()),
                 refresh=True)
    return name


def fill_bridge(client: OpenSearch, index: str, articles: list[Article], anchors: Mapping[str, Anchors],
                encoder: Encoder, cache: VectorCache | None, resend: Resend, m: int = 16, ef_construction: int = 128,
                refit: bool = False) -> tuple[VectorReport, QueryAdapter | None]:
    """The anchor vectors where missing, the check that every anchored article has them, and the adapter fitted
    and stored again when anything was filled (or ``refit``). Returns the report and the new adapter (None: the
    stored one still holds)."""
    report = fill_anchor_vectors(client, index, articles, anchors, encoder, cache, resend, m, ef_construction)
    client.indices.refresh(index=index)
    if lacking := lacking_anchor_vectors(client, index, report.field):
        raise RuntimeError(f"{index}: {lacking} anchored articles lack {report.field}; re-run `index` to finish")
    if not (report.filled or refit):
        return report, None
    adapter = fit_query_adapter(encoder, articles, anchors, cache)
    store_adapter(client, index, encoder, adapter)
    return report, adapter


def bridge_entry(encoder: Encoder, anchors: Mapping[str, Anchors], adapter: QueryAdapter) -> dict[str, object]:
    """The index's ``_meta.bridge`` entry of one encoder's anchors field: what was embedded and fitted."""
    return {"encoder": encoder.describe(), "anchored_articles": sum(1 for a in anchors.values() if a.texts),
            "anchor_texts": sum(len(a.texts) for a in anchors.values()),
            "adapter": {"alpha": adapter.alpha, "ridge": adapter.ridge, "pairs": adapter.pairs}}
