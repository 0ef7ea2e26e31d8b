"""The tune stage: BM25 k1 × b swept on a clone of the live index, chosen by k-fold cross-validation."""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from opensearchpy import OpenSearch

from nomos.eval.manifest import code_commit
from nomos.eval.metrics import evaluate
from nomos.eval.runs import Run, atomic_write_json
from nomos.ingest.indexer import index_meta
from nomos.ingest.records import Dataset
from nomos.opensearch.admin import set_bm25
from nomos.opensearch.client import cluster_version, make_client
from nomos.opensearch.transport import make_transport
from nomos.retrieval.bm25 import BM25Retriever
from nomos.stages.evaluation import check_index_matches
from nomos.stages.settings import StageSettings

K1_GRID = (0.6, 0.9, 1.2, 1.5, 1.8, 2.1)


B_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0)


def tune_bm25(
    settings: StageSettings,
    dataset: Dataset,
    metric: str = "recall@100",
    k1s: tuple[float, ...] = K1_GRID,
    bs: tuple[float, ...] = B_GRID,
    folds: int = 4,
    seed: int = 42,
    analysis: str = "stemmed",
    client: OpenSearch | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Sweep k1 × b on a copy of the live index's text (the alias and its index are never closed, changed or
    blocked), score every query at every setting, then cross-validate the choice over the queries
    (``eval.tuning``).

    The copy is made once (:func:`text_copy`), and each grid point then costs one close/update/open plus one
    ``_msearch`` of all queries. Writes ``<runs_dir>/<dataset>/tune-bm25-<metric>.json`` with provenance and
    returns its content.
    """
    import uuid

    from nomos.eval.tuning import cross_validate

    client = client or make_client(settings.cluster)
    version = cluster_version(client, settings.cluster)
    meta = index_meta(client, settings.index_alias)
    check_index_matches(meta, dataset, settings.index_alias)
    source = next(iter(client.indices.get_alias(index=settings.index_alias)))
    tmp = f"{settings.index_alias}-tune-{uuid.uuid4().hex[:8]}"
    queries = {q.id: q.case_text for q in dataset.queries}
    scores: dict[tuple[float, float], dict[str, float]] = {}
    started = time.perf_counter()
    try:
        text_copy(client, source, tmp)
        bm25 = BM25Retriever(make_transport(settings.cluster, client), tmp, analysis=analysis)
        for k1 in k1s:
            for b in bs:
                set_bm25(client, tmp, k1, b)
                hits = bm25.search_many(queries, 100).hits
                run: Run = {q: [(h.doc_id, h.score) for h in hs] for q, hs in hits.items()}
                per_query = evaluate(run, dataset.qrels, (metric,)).per_query
                scores[(k1, b)] = {q: v[metric] for q, v in per_query.items()}
                if on_progress:
                    on_progress(1)
    finally:
        client.indices.delete(index=tmp, ignore_unavailable=True)
    result = cross_validate(scores, metric, k=folds, seed=seed, default=(settings.bm25_k1, settings.bm25_b))
    out = {
        **result.to_dict(),
        "folds": folds, "seed": seed, "queries": len(queries), "analysis": analysis,
        "note": ("k-fold cross-validation over queries; on small query sets the folds are tiny and the cross-validated "
                 "score is noisy. The oracle is the best setting on all queries (a sweep on the test set)."),
        "per_query": {f"{k1}/{b}": s for (k1, b), s in sorted(scores.items())},
        "provenance": {"dataset": dataset.describe(), "index": {"alias": settings.index_alias, "version": meta.get("index_version")},
                       "opensearch_version": version, "code": code_commit(), "seconds": round(time.perf_counter() - started, 2),
                       "method": "a copy of the live index's text (scroll and bulk, no vectors); per setting: close, update "
                                 "index.similarity, open"},
    }
    path = settings.runs_dir / dataset.name / f"tune-bm25-{analysis}-{metric.replace('@', '')}.json"
    atomic_write_json(path, out)
    out["path"] = str(path)
    return out


def text_copy(client: OpenSearch, source: str, target: str) -> None:
    """``target``: a new index with ``source``'s analysis, similarity and text fields, its articles copied (a
    scroll and bulk writes: the local node has no reindex module; vectors left out: BM25 reads none). Never a
    ``_clone``: that needs ``index.blocks.write`` on the live index, and a block while ``index`` writes vectors
    would refuse the indexer's writes (issue 50). The copy is merged to one segment as ``index`` leaves the live
    one, so BM25's statistics are the live index's."""
    got = client.indices.get(index=source)[source]
    index_settings = got["settings"]["index"]
    mappings = dict(got["mappings"])
    # vector fields, and the windows' nested ones that hold vectors
    vectors = sorted(f for f, spec in mappings.get("properties", {}).items() if "knn_vector" in json.dumps(spec))
    mappings["properties"] = {f: spec for f, spec in mappings["properties"].items() if f not in vectors}
    body = {"settings": {"index": {"number_of_shards": index_settings.get("number_of_shards", "1"), "number_of_replicas": 0,
                                   "analysis": index_settings.get("analysis", {}),
                                   "similarity": index_settings.get("similarity", {})}},
            "mappings": mappings}
    client.indices.create(index=target, body=body)
    from opensearchpy.helpers import bulk, scan

    docs = scan(client, index=source, query={"query": {"match_all": {}}}, size=500, _source_excludes=vectors or None,
                preserve_order=False)
    bulk(client, ({"_index": target, "_id": d["_id"], "_source": d["_source"]} for d in docs), chunk_size=500,
         request_timeout=600, raise_on_error=True)
    client.indices.forcemerge(index=target, params={"max_num_segments": "1", "request_timeout": 600})
    client.indices.refresh(index=target)
    client.cluster.health(index=target, wait_for_status="yellow")
