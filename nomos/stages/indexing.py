"""The index stage: a validated dataset into the versioned articles index behind the alias, with vector fields."""

from __future__ import annotations

from typing import Callable

from opensearchpy import OpenSearch

from nomos.ingest.indexer import IndexReport, VectorPlan, alias_targets, build_index
from nomos.ingest.records import Dataset
from nomos.mappings import ANALYZERS, analyzer_chain, articles_index_body
from nomos.opensearch.client import INDEXING_RETRIES, cluster_version, make_client
from nomos.opensearch.stored_scripts import store_scripts
from nomos.retrieval.registry import encoder_for, vector_cache
from nomos.stages.settings import StageSettings


def index_dataset(
    settings: StageSettings,
    dataset: Dataset,
    on_progress: Callable[[int], None] | None = None,
    client: OpenSearch | None = None,
    embedders: tuple[str, ...] = (),
    on_vector_progress: Callable[[int], None] | None = None,
    on_published: Callable[[str], None] | None = None,
    on_vector_skip: Callable[[int], None] | None = None,
) -> IndexReport:
    """Build (or resume) the versioned articles index for ``dataset``, add one vector field per embedder, and
    point the alias at it (``on_vector_skip``: articles a vectors pass found done, as build_index says)."""
    client = client or make_client(settings.cluster, retries=INDEXING_RETRIES)
    cluster_version(client, settings.cluster)
    store_scripts(client)  # the searches of this index send the project's scripts by id (stored_scripts)
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
        on_published=on_published, on_vector_skip=on_vector_skip,
    )


def index_status(settings: StageSettings) -> dict[str, str]:
    """What ``server status`` says of the index a search would use: the alias and the index behind it, how many
    articles, how far the embedder's vectors are, and which method a search that names none uses now. A missing
    alias says what to run; a cluster that does not answer raises typed (the caller says so)."""
    from nomos.errors import IndexNotFound
    from nomos.retrieval.registry import MethodOptions, resolved_options
    from nomos.stages.search_types import readiness_note
    from nomos.stages.searching import SearchStage, cluster_errors

    searcher = SearchStage(settings)
    alias = settings.index_alias
    with cluster_errors(settings, f"the index {alias}"):
        try:
            targets = alias_targets(searcher.client, alias)
            progress = searcher.readiness()
        except IndexNotFound:
            return {"index": f"{alias}: none yet (run `python cli.py index`)"}
    if progress.complete:
        vectors = f"{settings.embedder} complete"
    elif progress.in_progress:
        vectors = f"{settings.embedder} {readiness_note(progress)} ({progress.done:,} of {progress.total:,} articles)"
    else:
        vectors = f"none (BM25 only; `python cli.py index --embedder {settings.embedder}` adds them)"
    method = searcher.default_method()
    stage = resolved_options(settings, MethodOptions(), method).second_stage  # hybrid's learned ranker, NOMOS_RERANK
    return {"index": f"{alias} -> {', '.join(targets) or '?'} ({progress.total:,} articles)", "vectors": vectors,
            "search uses": f"{method}, re-ranked by {'the learned ranker' if stage == 'ltr' else stage}" if stage else method}
