"""The stages the CLI and the portal run, composed from the packages: index a dataset, search, evaluate.

``cli.py`` only parses options and calls these; the portal calls the same functions, so a query is answered the
same way wherever it comes from.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from opensearchpy import OpenSearch

from eval.manifest import build_manifest
from eval.metrics import METRICS, Evaluation, evaluate
from eval.results import write_results
from eval.runs import Run, atomic_write_json, atomic_write_text
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
from retrieval.llm import LLMNotConfigured, make_llm_client, not_configured_message
from retrieval.prf import RocchioRetriever, TfidfPrfRetriever
from settings import Settings

LLM_METHODS = ("reform-bm25", "reform-knn", "reform-hybrid", "react")
METHODS = ("bm25", "bm25-prf", "knn", "knn-rocchio", "hybrid", "rrf", *LLM_METHODS)
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


def require_llm(settings: Settings, method: str) -> None:
    """LLM methods fail at once, naming the settings, when no endpoint or model is configured."""
    if method in LLM_METHODS and not (settings.llm_base_url and settings.llm_model):
        raise LLMNotConfigured(not_configured_message(method))


def _knn(settings: Settings, client: OpenSearch, options: MethodOptions) -> KnnRetriever:
    return KnnRetriever(
        client,
        settings.index_alias,
        encoder_for(settings, options.embedder or settings.embedder),
        ef_search=options.ef_search or settings.knn_ef_search,
        exact=options.exact,
        cache=vector_cache(settings),
    )


def _llm_retriever(settings: Settings, method: str, client: OpenSearch, options: MethodOptions) -> Retriever:
    from retrieval.react import ReActConfig, ReActRetriever
    from retrieval.reformulate import ReformRetriever

    llm = make_llm_client(settings, method)
    # Queries run concurrently and search from threads: give them a connection pool that size (make_client's
    # default pool keeps one connection, so every concurrent request would open and drop a new one).
    client = make_client(settings, pool_maxsize=max(settings.llm_concurrency, 1) + 4)
    # the loop searches for itself: no highlighting, ids and scores only
    bm25 = BM25Retriever(client, settings.index_alias, analysis=options.analysis, search_type=settings.search_type,
                         retry_seconds=settings.retry_seconds)
    if method == "react":
        config = ReActConfig(rounds=settings.react_rounds, concurrency=settings.llm_concurrency)
        return ReActRetriever(bm25, llm, config)
    knn = _knn(settings, client, options) if method in ("reform-knn", "reform-hybrid") else None
    return ReformRetriever(method, llm, bm25=bm25, knn=knn, fusion=options.fusion, concurrency=settings.llm_concurrency)


def make_retriever(settings: Settings, method: str, client: OpenSearch, options: MethodOptions = MethodOptions()) -> Retriever:
    """The retriever for a method name; every entry point (CLI, portal, benchmarks) builds retrievers here."""
    if method in LLM_METHODS:
        require_llm(settings, method)
        return _llm_retriever(settings, method, client, options)
    bm25 = BM25Retriever(client, settings.index_alias, analysis=options.analysis, highlight=options.highlight,
                         search_type=settings.search_type, retry_seconds=settings.retry_seconds)
    if method == "bm25":
        return bm25
    if method == "bm25-prf":
        return TfidfPrfRetriever(bm25)
    if method not in DENSE_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    knn = _knn(settings, client, options)
    if method == "knn":
        return knn
    if method == "knn-rocchio":
        return RocchioRetriever(knn)
    config = replace(options.fusion, kind="rrf" if method == "rrf" else "hybrid")
    return FusionRetriever(client, settings.index_alias, bm25, knn, config)


def search(settings: Settings, query: str, method: str = "bm25", k: int = 10, options: MethodOptions = MethodOptions()) -> list[Hit]:
    """One query, with highlighted snippets: what ``cli.py search`` and the portal show."""
    require_llm(settings, method)
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
    extra: dict[str, Any] | None = None  # LLM methods: per-round metrics ("rounds") and the cost table ("cost")


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
    resume: bool = False,
) -> EvalOutcome:
    """Run every query through ``method``, score with ranx, write the results folder under ``runs_dir``.

    LLM methods also checkpoint each finished query in the folder (``resume=True`` skips those) and write their
    traces, per-round metrics and cost table.
    """
    require_llm(settings, method)
    client = client or make_client(settings)
    version = cluster_version(client, settings)
    meta = index_meta(client, settings.index_alias)
    check_index_matches(meta, dataset, settings.index_alias)
    options = options or MethodOptions(analysis=analysis)
    retriever = make_retriever(settings, method, client, options)
    run_name = run_name or default_run_name(method, options)
    folder = settings.runs_dir / dataset.name / run_name
    if hasattr(retriever, "checkpoint_path"):
        retriever.checkpoint_path = folder / "checkpoint.jsonl"  # type: ignore[attr-defined]
        retriever.resume = resume  # type: ignore[attr-defined]
    started = time.perf_counter()
    hits = retriever.search_many({q.id: q.text for q in dataset.queries}, k)
    seconds = time.perf_counter() - started
    run: Run = {qid: [(h.doc_id, h.score) for h in hs] for qid, hs in hits.items()}
    evaluation = evaluate(run, dataset.qrels, METRICS)
    llm_extra = llm_outputs(retriever, dataset.qrels)
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
        extra={"query_phase_seconds": seconds, "queries": len(dataset.queries),
               **({"prompts_hash": retriever.describe().get("prompts", {}).get("hash"),
                   "rounds": llm_extra.get("rounds"), "cost": {k: v for k, v in llm_extra["cost"].items() if k != "per_query"}}
                  if llm_extra else {})},
    )
    details = {
        "query_notes": getattr(getattr(retriever, "bm25", retriever), "last_notes", {}),
        "clauses": getattr(retriever, "last_details", {}),
        "expansions": getattr(retriever, "last_expansions", {}),
    }
    paths = write_results(folder, run, evaluation, manifest, tag=run_name, details=details if any(details.values()) else None)
    if llm_extra:
        paths.update(write_llm_outputs(folder, retriever, llm_extra))
    return EvalOutcome(evaluation, paths, seconds, run_name, llm_extra or None)


def llm_outputs(retriever: Retriever, qrels: Any) -> dict[str, Any]:
    """Per-round metrics (snapshots of the final ranking and of the candidate pool) and the cost table, for
    retrievers that expose them; empty for the others."""
    out: dict[str, Any] = {}
    costs = getattr(retriever, "last_costs", None)
    if costs:
        out["cost"] = costs
    snapshots: dict[int, Run] = getattr(retriever, "last_snapshots", None) or {}
    pools: dict[int, Run] = getattr(retriever, "last_pools", None) or {}
    if snapshots:
        rounds: dict[str, Any] = {}
        for r in sorted(snapshots):
            ev = evaluate(snapshots[r], qrels, METRICS)
            row: dict[str, Any] = {"metrics": ev.mean, "mean_kept": sum(len(v) for v in snapshots[r].values()) / max(len(snapshots[r]), 1)}
            if r in pools:
                depth = max((len(v) for v in pools[r].values()), default=1) or 1
                pool_ev = evaluate(pools[r], qrels, (f"recall@{depth}",))
                row["pool_recall"] = pool_ev.mean[f"recall@{depth}"]
                row["mean_pool"] = sum(len(v) for v in pools[r].values()) / max(len(pools[r]), 1)
            rounds[str(r)] = row
        out["rounds"] = rounds
    return out


def write_llm_outputs(folder: Path, retriever: Retriever, extra: dict[str, Any]) -> dict[str, Path]:
    """traces.jsonl (one JSON line per query), rounds.json / rounds.tsv (the curve), cost.json."""
    paths: dict[str, Path] = {}
    traces = getattr(retriever, "last_traces", None) or {}
    if traces:
        paths["traces"] = folder / "traces.jsonl"
        atomic_write_text(paths["traces"], "".join(json.dumps(traces[q], ensure_ascii=False) + "\n" for q in sorted(traces)))
    if "rounds" in extra:
        paths["rounds"] = folder / "rounds.json"
        atomic_write_json(paths["rounds"], extra["rounds"])
        cols = list(METRICS) + ["pool_recall", "mean_kept", "mean_pool"]
        lines = ["round\t" + "\t".join(cols)]
        for r, row in extra["rounds"].items():
            vals = [row["metrics"][m] for m in METRICS] + [row.get(c, float("nan")) for c in cols[len(METRICS):]]
            lines.append(r + "\t" + "\t".join(f"{v:.6f}" for v in vals))
        paths["rounds_tsv"] = folder / "rounds.tsv"
        atomic_write_text(paths["rounds_tsv"], "\n".join(lines) + "\n")
    if "cost" in extra:
        paths["cost"] = folder / "cost.json"
        atomic_write_json(paths["cost"], extra["cost"])
    return paths


__all__ = [
    "index_dataset", "evaluate_method", "search", "make_retriever", "load_dataset", "METHODS", "MethodOptions", "IndexMismatch",
]
