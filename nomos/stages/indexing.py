"""The index stage: a validated dataset into the versioned articles index behind the alias, with vector fields."""

from __future__ import annotations

from typing import Callable

from opensearchpy import OpenSearch

from nomos.ingest.indexer import IndexReport, VectorPlan, build_index
from nomos.ingest.records import Dataset
from nomos.mappings import ANALYZERS, analyzer_chain, articles_index_body
from nomos.opensearch.client import INDEXING_RETRIES, cluster_version, make_client
from nomos.retrieval.registry import encoder_for, vector_cache
from nomos.settings import Settings


def index_dataset(
    settings: Settings,
    dataset: Dataset,
    on_progress: Callable[[int], None] | None = None,
    client: OpenSearch | None = None,
    embedders: tuple[str, ...] = (),
    on_vector_progress: Callable[[int], None] | None = None,
    on_published: Callable[[str], None] | None = None,
) -> IndexReport:
    """Build (or resume) the versioned articles index for ``dataset``, add one vector field per embedder, and
    point the alias at it."""
    client = client or make_client(settings, retries=INDEXING_RETRIES)
    cluster_version(client, settings)
    body = articles_index_body(settings.bm25_k1, settings.bm25_b, settings.shards, settings.replicas)
    meta = {
        "bm25": {"k1": settings.bm25_k1, "b": settings.bm25_b},
        "analyzers": {name: analyzer_chain(body, a) for name, a in ANALYZERS.items()},
    }
    plan = VectorPlan(
        encoders=tuple(encoder_for(settings, e) for e in embedders),
        cache=vector_cache(settings) if embedders else None,
        m=settings.hnsw_m,
        ef_construction=settings.hnsw_ef_construction,
        expunge_wait_s=settings.expunge_wait_seconds,
        windows=settings.article_windows,
    )
    return build_index(
        client, dataset, settings.index_alias, body, meta,
        on_progress=on_progress, vectors=plan, on_vector_progress=on_vector_progress,
        on_published=on_published,
    )
