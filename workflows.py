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

from eval.fusion_diagnosis import diagnose
from eval.manifest import build_manifest, code_commit
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
from retrieval.bm25 import BM25Retriever, snippet_highlight
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
    filters: tuple[dict[str, Any], ...] = ()  # bm25 only: filter clauses (no scoring), e.g. one legal source


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
    return ReformRetriever(method, llm, bm25=bm25, knn=knn, fusion=_fusion(settings, options.fusion), concurrency=settings.llm_concurrency)


def _fusion(settings: Settings, fusion: FusionConfig) -> FusionConfig:
    """Weights left unset take the settings' (NOMOS_FUSION_WEIGHTS), so CLI, portal and benchmarks agree."""
    return fusion if fusion.weights is not None else replace(fusion, weights=settings.fusion_weights)


def make_retriever(settings: Settings, method: str, client: OpenSearch, options: MethodOptions = MethodOptions()) -> Retriever:
    """The retriever for a method name; every entry point (CLI, portal, benchmarks) builds retrievers here."""
    if method in LLM_METHODS:
        require_llm(settings, method)
        return _llm_retriever(settings, method, client, options)
    bm25 = BM25Retriever(client, settings.index_alias, analysis=options.analysis, highlight=options.highlight,
                         filters=options.filters, search_type=settings.search_type, retry_seconds=settings.retry_seconds)
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
    config = replace(_fusion(settings, options.fusion), kind="rrf" if method == "rrf" else "hybrid")
    return FusionRetriever(client, settings.index_alias, bm25, knn, config)


def search(settings: Settings, query: str, method: str = "bm25", k: int = 10, options: MethodOptions = MethodOptions()) -> list[Hit]:
    """One query, with highlighted snippets: what ``cli.py search`` and the portal show."""
    require_llm(settings, method)
    client = make_client(settings)
    cluster_version(client, settings)
    return search_with(settings, client, query, method, k, options)


def search_with(settings: Settings, client: OpenSearch, query: str, method: str = "bm25", k: int = 10,
                options: MethodOptions = MethodOptions(), retriever: Retriever | None = None) -> list[Hit]:
    """``search`` on a client the caller keeps (the portal: one per app); ``retriever`` may be prebuilt (the
    portal keeps one to read a react trace afterwards)."""
    retriever = retriever or make_retriever(settings, method, client, replace(options, highlight=True))
    hits = retriever.search(query, k)
    if method in ("bm25",):
        return hits
    # dense and fused rankings carry no titles or snippets: fetch them for the ranked ids
    return decorate(client, settings.index_alias, hits, query)


def decorate(client: OpenSearch, index: str, hits: list[Hit], query: str) -> list[Hit]:
    """Titles, laws and highlighted snippets for a ranked list that carries only ids and scores."""
    if not hits:
        return hits
    resp = client.search(
        index=index,
        body={
            "size": len(hits),
            "query": {"ids": {"values": [h.doc_id for h in hits]}},
            "_source": ["title", "law", "source"],
            "highlight": snippet_highlight(query, no_match_size=180),
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
    clauses = getattr(retriever, "last_clauses", None)
    fusion_diag = diagnose(clauses["bm25"], clauses["knn"], hits, dataset.qrels, k) if clauses else None
    if fusion_diag:
        manifest["fusion_diagnosis"] = {**fusion_diag["total"], "k": k, **clause_recall(clauses, dataset.qrels, k)}
    details = {
        "query_notes": getattr(getattr(retriever, "bm25", retriever), "last_notes", {}),
        "clauses": getattr(retriever, "last_details", {}),
        "expansions": getattr(retriever, "last_expansions", {}),
        "fusion_diagnosis": fusion_diag or {},
    }
    paths = write_results(folder, run, evaluation, manifest, tag=run_name, details=details if any(details.values()) else None)
    if llm_extra:
        paths.update(write_llm_outputs(folder, retriever, llm_extra))
    extra = {**llm_extra, **({"fusion_diagnosis": manifest["fusion_diagnosis"]} if fusion_diag else {})}
    return EvalOutcome(evaluation, paths, seconds, run_name, extra or None)


def clause_recall(clauses: dict[str, dict[str, list[Hit]]], qrels: Any, k: int) -> dict[str, float]:
    """Recall@k of each clause alone, beside the fused run's: the yardstick a fusion must reach."""
    out = {}
    for name, hits in clauses.items():
        run: Run = {q: [(h.doc_id, h.score) for h in hs[:k]] for q, hs in hits.items()}
        out[f"{name}_recall@{k}"] = evaluate(run, qrels, (f"recall@{k}",)).mean[f"recall@{k}"]
    return out


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
    "index_dataset", "evaluate_method", "search", "search_with", "make_retriever", "load_dataset", "METHODS", "MethodOptions", "IndexMismatch",
]


# --------------------------------------------------------------------------------------------------- compare / report
def comparison_inputs(runs: list[str], runs_dir: Path, dataset: Dataset | None) -> dict[str, Any]:
    """Load the runs named on the command line and, from the dataset when given, each query's legal area and the
    sources of its gold articles (without it: id prefixes)."""
    from eval.compare import gold_sources, load_run, resolve_run

    name = dataset.name if dataset else None
    loaded = [load_run(resolve_run(r, runs_dir, name)) for r in runs]
    areas = {q.id: q.area or q.meta.get("area", "") for q in dataset.queries} if dataset else {}
    sources = gold_sources(dataset.qrels, {a.id: a.source for a in dataset.articles}) if dataset else {}
    if not dataset:  # no qrels to hand: no gold-source breakdown
        sources = {}
    return {"runs": loaded, "areas": areas, "sources": sources}


def write_report(comparison: Any, dataset: Dataset, out: Path, command: str = "") -> Path:
    """Render the HTML report of ``comparison`` with the dataset's judgments, query texts and gold titles."""
    from eval.report import render_report

    gold = {d for docs in dataset.qrels.values() for d in docs}
    titles = {a.id: a.title for a in dataset.articles if a.id in gold}
    html = render_report(comparison, dataset.qrels, dataset.describe(), {q.id: q.text for q in dataset.queries}, titles, command)
    atomic_write_text(out, html)
    return out


def store_results(settings: Settings, folder: Path, dataset: Dataset, client: OpenSearch | None = None) -> dict[str, int]:
    """Push one results folder into the result indices (``<results_prefix>-per-query`` …) for Dashboards."""
    from eval.compare import load_run
    from opensearch.results_store import documents, read_traces, store

    client = client or make_client(settings)
    run = load_run(folder)
    areas = {q.id: q.area or q.meta.get("area", "") for q in dataset.queries}
    docs = documents(run, dataset.qrels, areas, {a.id: a.source for a in dataset.articles}, read_traces(folder))
    return store(client, settings.results_prefix, docs)


def evaluate_repeated(
    settings: Settings,
    dataset: Dataset,
    method: str,
    repeat: int,
    seed: int = 0,
    k: int = 100,
    run_name: str | None = None,
    options: MethodOptions | None = None,
) -> tuple[dict[str, Any], list[EvalOutcome]]:
    """Run ``method`` ``repeat`` times, repetition i with LLM seed ``seed + i`` (a new cache key, so new
    samples), into ``<run>-seed<S>`` folders, and write ``<run>-repeat/summary.json`` with mean, sample std, min
    and max of each metric. The paper ran each LLM method once; this shows how much one run can be trusted."""
    import statistics

    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    options = options or MethodOptions()
    base = run_name or default_run_name(method, options)
    outcomes = []
    seeds = [seed + i for i in range(repeat)]
    for s in seeds:
        outcomes.append(evaluate_method(replace(settings, llm_seed=s), dataset, method=method, k=k, run_name=f"{base}-seed{s}",
                                        options=options))
    metrics = outcomes[0].evaluation.metrics
    summary: dict[str, Any] = {
        "method": method, "run": base, "repeat": repeat, "seeds": seeds, "runs": [o.run_name for o in outcomes],
        "stochastic": method in LLM_METHODS,
        "metrics": {},
        "note": "std is the sample standard deviation (ddof=1); methods without an LLM are deterministic, so their spread is 0",
    }
    for m in metrics:
        vals = [o.evaluation.mean[m] for o in outcomes]
        summary["metrics"][m] = {"mean": statistics.fmean(vals), "std": statistics.stdev(vals) if len(vals) > 1 else 0.0,
                                 "min": min(vals), "max": max(vals), "values": vals}
    folder = settings.runs_dir / dataset.name / f"{base}-repeat"
    first = json.loads(outcomes[0].paths["manifest"].read_text(encoding="utf-8"))
    summary["provenance"] = {k: first.get(k) for k in ("dataset", "code", "opensearch_version", "index") if k in first}
    summary["provenance"]["llm"] = first.get("method", {}).get("llm")
    path = folder / "summary.json"
    atomic_write_json(path, summary)
    summary["path"] = str(path)
    return summary, outcomes


# --------------------------------------------------------------------------------------------------- tune
K1_GRID = (0.6, 0.9, 1.2, 1.5, 1.8, 2.1)
B_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0)


def _set_bm25(client: OpenSearch, index: str, k1: float, b: float) -> None:
    """BM25's k1 and b are read at search time (Lucene stores only term frequencies and length norms), so a new
    setting needs no reindexing: close the index, update its similarity, open it, wait until it is searchable."""
    from mappings import SIMILARITY

    client.indices.close(index=index)
    try:
        client.indices.put_settings(index=index, body={"index": {"similarity": {SIMILARITY: {"type": "BM25", "k1": k1, "b": b}}}})
    finally:
        client.indices.open(index=index)
        client.cluster.health(index=index, wait_for_status="yellow")


def tune_bm25(
    settings: Settings,
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
    """Sweep k1 × b on a clone of the live index (the alias and its index are never closed or changed), score
    every query at every setting, then cross-validate the choice over the queries (``eval.tuning``).

    A clone is hard links to the same segments: cheaper than reindexing the corpus per setting, and each grid
    point then costs one close/update/open plus one ``_msearch`` of all queries. Writes
    ``<runs_dir>/<dataset>/tune-bm25-<metric>.json`` with provenance and returns its content.
    """
    import uuid

    from eval.tuning import cross_validate

    client = client or make_client(settings)
    version = cluster_version(client, settings)
    meta = index_meta(client, settings.index_alias)
    check_index_matches(meta, dataset, settings.index_alias)
    source = next(iter(client.indices.get_alias(index=settings.index_alias)))
    tmp = f"{settings.index_alias}-tune-{uuid.uuid4().hex[:8]}"
    client.indices.put_settings(index=source, body={"index.blocks.write": True})  # _clone requires it, briefly
    try:
        client.indices.clone(index=source, target=tmp, body={"settings": {"index.blocks.write": None}}, params={"wait_for_active_shards": "1"})
    finally:
        client.indices.put_settings(index=source, body={"index.blocks.write": None})
    queries = {q.id: q.text for q in dataset.queries}
    scores: dict[tuple[float, float], dict[str, float]] = {}
    started = time.perf_counter()
    try:
        client.cluster.health(index=tmp, wait_for_status="yellow")
        bm25 = BM25Retriever(client, tmp, analysis=analysis)
        for k1 in k1s:
            for b in bs:
                _set_bm25(client, tmp, k1, b)
                hits = bm25.search_many(queries, 100)
                run: Run = {q: [(h.doc_id, h.score) for h in hs] for q, hs in hits.items()}
                scores[(k1, b)] = evaluate(run, dataset.qrels, (metric,)).per_query
                scores[(k1, b)] = {q: v[metric] for q, v in scores[(k1, b)].items()}
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
                       "method": "clone of the live index; per setting: close, update index.similarity, open"},
    }
    path = settings.runs_dir / dataset.name / f"tune-bm25-{analysis}-{metric.replace('@', '')}.json"
    atomic_write_json(path, out)
    out["path"] = str(path)
    return out
