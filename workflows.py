"""The stages the CLI and the portal run, composed from the packages: index a dataset, search, evaluate.

``cli.py`` only parses options and calls these; the portal calls the same functions, so a query is answered the
same way wherever it comes from.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from opensearchpy import OpenSearch

from eval.manifest import build_manifest
from eval.metrics import METRICS, Evaluation, evaluate
from eval.results import write_results
from eval.runs import Run
from ingest.indexer import IndexReport, VectorPlan, build_index, index_meta
from ingest.loader import load_dataset
from ingest.records import Dataset
from ingest.vector_cache import VectorCache
from mappings import ANALYZERS, analyzer_chain, articles_index_body
from opensearch.client import cluster_version, make_client
from retrieval.base import Hit, Retriever
from retrieval.bm25 import BM25Retriever
from retrieval.encoders import Encoder, make_encoder
from retrieval.fusion import FusionConfig, FusionRetriever
from retrieval.knn import KnnRetriever
from retrieval.prf import RocchioRetriever, TfidfPrfRetriever
from settings import Settings

METHODS = ("bm25", "bm25-prf", "knn", "knn-rocchio", "hybrid", "rrf")
DENSE_METHODS = ("knn", "knn-rocchio", "hybrid", "rrf")


@dataclass(frozen=True)
class MethodOptions:
    """Everything besides the method name that changes a ranking (one object, so entry points agree)."""

    analysis: str = "stemmed"
    embedder: str | None = None  # None: settings.embedder
    exact: bool = False
    ef_search: int | None = None  # None: settings.knn_ef_search
    fusion: FusionConfig = FusionConfig()
    highlight: bool = False


def encoder_for(settings: Settings, spec: str) -> Encoder:
    """Build an encoder with the endpoint settings (only ``openai:`` specs use them)."""
    return make_encoder(spec, base_url=settings.embed_base_url, api_key=settings.embed_api_key)


def vector_cache(settings: Settings) -> VectorCache:
    return VectorCache(settings.cache_dir / "embeddings.sqlite")


class IndexMismatch(RuntimeError):
    """The live index was built from another dataset than the one being evaluated."""


def index_dataset(
    settings: Settings,
    dataset: Dataset,
    on_progress: Callable[[int], None] | None = None,
    client: OpenSearch | None = None,
    embedders: tuple[str, ...] = (),
    on_vector_progress: Callable[[int], None] | None = None,
) -> IndexReport:
    """Build (or resume) the versioned articles index for ``dataset``, add one vector field per embedder, and
    point the alias at it."""
    client = client or make_client(settings)
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
    )
    return build_index(
        client, dataset, settings.index_alias, body, meta,
        on_progress=on_progress, vectors=plan, on_vector_progress=on_vector_progress,
    )


def make_retriever(settings: Settings, method: str, client: OpenSearch, options: MethodOptions = MethodOptions()) -> Retriever:
    """The retriever for a method name; every entry point (CLI, portal, benchmarks) builds retrievers here."""
    bm25 = BM25Retriever(client, settings.index_alias, analysis=options.analysis, highlight=options.highlight)
    if method == "bm25":
        return bm25
    if method == "bm25-prf":
        return TfidfPrfRetriever(bm25)
    if method not in DENSE_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    knn = KnnRetriever(
        client,
        settings.index_alias,
        encoder_for(settings, options.embedder or settings.embedder),
        ef_search=options.ef_search or settings.knn_ef_search,
        exact=options.exact,
        cache=vector_cache(settings),
    )
    if method == "knn":
        return knn
    if method == "knn-rocchio":
        return RocchioRetriever(knn)
    config = replace(options.fusion, kind="rrf" if method == "rrf" else "hybrid")
    return FusionRetriever(client, settings.index_alias, bm25, knn, config)


def search(settings: Settings, query: str, method: str = "bm25", k: int = 10, options: MethodOptions = MethodOptions()) -> list[Hit]:
    """One query, with highlighted snippets: what ``cli.py search`` and the portal show."""
    client = make_client(settings)
    cluster_version(client, settings)
    retriever = make_retriever(settings, method, client, replace(options, highlight=True))
    hits = retriever.search(query, k)
    if method in ("bm25",):
        return hits
    # dense and fused rankings carry no titles or snippets: fetch them for the ranked ids
    return _decorate(client, settings.index_alias, hits, query)


def _decorate(client: OpenSearch, index: str, hits: list[Hit], query: str) -> list[Hit]:
    if not hits:
        return hits
    resp = client.search(
        index=index,
        body={
            "size": len(hits),
            "query": {"ids": {"values": [h.doc_id for h in hits]}},
            "_source": ["title", "law", "source"],
            "highlight": {
                "pre_tags": ["<mark>"], "post_tags": ["</mark>"], "encoder": "html",
                "fields": {"text": {"fragment_size": 180, "number_of_fragments": 2, "no_match_size": 180,
                                    "highlight_query": {"match": {"text": {"query": query[:5000]}}}}},
            },
        },
    )
    by_id = {h["_id"]: h for h in resp["hits"]["hits"]}
    out = []
    for h in hits:
        src = by_id.get(h.doc_id, {})
        s = src.get("_source", {})
        out.append(replace(h, title=s.get("title", ""), law=s.get("law", ""), source=s.get("source", ""),
                           highlights=tuple(src.get("highlight", {}).get("text", ()))))
    return out


@dataclass(frozen=True)
class EvalOutcome:
    evaluation: Evaluation
    paths: dict[str, Path]
    seconds: float
    run_name: str


def check_index_matches(meta: dict[str, Any], dataset: Dataset, alias: str) -> None:
    """Refuse to score a dataset against an index built from different data (a silent wrong number)."""
    built = meta.get("dataset", {}).get("fingerprint")
    if built != dataset.fingerprint:
        name = meta.get("dataset", {}).get("name", "unknown data")
        raise IndexMismatch(
            f"index {alias!r} was built from {name!r} (fingerprint {str(built)[:12]}), not from {dataset.name!r} "
            f"({dataset.fingerprint[:12]}): run `python cli.py index --dataset …` with the same dataset first"
        )


def default_run_name(method: str, options: MethodOptions) -> str:
    """A results folder name that says what differs from the defaults (bm25, knn-exact, rrf-client…)."""
    parts = [method]
    if options.analysis != "stemmed":
        parts.append(options.analysis)
    if method in DENSE_METHODS and options.embedder:
        parts.append(options.embedder.replace(":", "_").replace("/", "_"))
    if options.exact:
        parts.append("exact")
    if method in ("hybrid", "rrf") and options.fusion.where == "client":
        parts.append("client")
    return "-".join(parts)


def evaluate_method(
    settings: Settings,
    dataset: Dataset,
    method: str = "bm25",
    analysis: str = "stemmed",
    k: int = 100,
    run_name: str | None = None,
    client: OpenSearch | None = None,
    options: MethodOptions | None = None,
) -> EvalOutcome:
    """Run every query through ``method``, score with ranx, write the results folder under ``runs_dir``."""
    client = client or make_client(settings)
    version = cluster_version(client, settings)
    meta = index_meta(client, settings.index_alias)
    check_index_matches(meta, dataset, settings.index_alias)
    options = options or MethodOptions(analysis=analysis)
    retriever = make_retriever(settings, method, client, options)
    started = time.perf_counter()
    hits = retriever.search_many({q.id: q.text for q in dataset.queries}, k)
    seconds = time.perf_counter() - started
    run: Run = {qid: [(h.doc_id, h.score) for h in hs] for qid, hs in hits.items()}
    evaluation = evaluate(run, dataset.qrels, METRICS)
    run_name = run_name or default_run_name(method, options)
    manifest = build_manifest(
        dataset=dataset.describe(),
        method={**retriever.describe(), "k": k},
        index={
            "alias": settings.index_alias,
            "version": meta.get("index_version"),
            "bm25": meta.get("bm25"),
            "analyzer_chain": meta.get("analyzers", {}).get(options.analysis),
            "vectors": meta.get("vectors", {}),
        },
        opensearch_version=version,
        metrics=evaluation.mean,
        extra={"query_phase_seconds": seconds, "queries": len(dataset.queries)},
    )
    details = {
        "query_notes": getattr(getattr(retriever, "bm25", retriever), "last_notes", {}),
        "clauses": getattr(retriever, "last_details", {}),
        "expansions": getattr(retriever, "last_expansions", {}),
    }
    folder = settings.runs_dir / dataset.name / run_name
    paths = write_results(folder, run, evaluation, manifest, tag=run_name, details=details if any(details.values()) else None)
    return EvalOutcome(evaluation, paths, seconds, run_name)


__all__ = [
    "index_dataset", "evaluate_method", "search", "make_retriever", "load_dataset", "METHODS", "MethodOptions", "IndexMismatch",
]
