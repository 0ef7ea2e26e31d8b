"""The stages the CLI and the portal run, composed from the packages: index a dataset, search, evaluate.

``cli.py`` only parses options and calls these; the portal calls the same functions, so a query is answered the
same way wherever it comes from.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from opensearchpy import OpenSearch

from eval.manifest import build_manifest
from eval.metrics import METRICS, Evaluation, evaluate
from eval.results import write_results
from eval.runs import Run
from ingest.indexer import IndexReport, build_index, index_meta
from ingest.loader import load_dataset
from ingest.records import Dataset
from mappings import ANALYZERS, analyzer_chain, articles_index_body
from opensearch.client import cluster_version, make_client
from retrieval.base import Hit, Retriever
from retrieval.bm25 import BM25Retriever
from settings import Settings

METHODS = ("bm25",)


class IndexMismatch(RuntimeError):
    """The live index was built from another dataset than the one being evaluated."""


def index_dataset(
    settings: Settings,
    dataset: Dataset,
    on_progress: Callable[[int], None] | None = None,
    client: OpenSearch | None = None,
) -> IndexReport:
    """Build (or resume) the versioned articles index for ``dataset`` and point the alias at it."""
    client = client or make_client(settings)
    cluster_version(client, settings)
    body = articles_index_body(settings.bm25_k1, settings.bm25_b, settings.shards, settings.replicas)
    meta = {
        "bm25": {"k1": settings.bm25_k1, "b": settings.bm25_b},
        "analyzers": {name: analyzer_chain(body, a) for name, a in ANALYZERS.items()},
    }
    return build_index(client, dataset, settings.index_alias, body, meta, on_progress=on_progress)


def make_retriever(settings: Settings, method: str, client: OpenSearch, *, analysis: str = "stemmed", highlight: bool = False) -> Retriever:
    """The retriever for a method name; every entry point builds retrievers here."""
    if method == "bm25":
        return BM25Retriever(client, settings.index_alias, analysis=analysis, highlight=highlight)
    raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")


def search(settings: Settings, query: str, method: str = "bm25", k: int = 10, analysis: str = "stemmed") -> list[Hit]:
    """One query, with highlighted snippets: what ``cli.py search`` and the portal show."""
    client = make_client(settings)
    cluster_version(client, settings)
    return make_retriever(settings, method, client, analysis=analysis, highlight=True).search(query, k)


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


def evaluate_method(
    settings: Settings,
    dataset: Dataset,
    method: str = "bm25",
    analysis: str = "stemmed",
    k: int = 100,
    run_name: str | None = None,
    client: OpenSearch | None = None,
) -> EvalOutcome:
    """Run every query through ``method``, score with ranx, write the results folder under ``runs_dir``."""
    client = client or make_client(settings)
    version = cluster_version(client, settings)
    meta = index_meta(client, settings.index_alias)
    check_index_matches(meta, dataset, settings.index_alias)
    retriever = make_retriever(settings, method, client, analysis=analysis)
    started = time.perf_counter()
    hits = retriever.search_many({q.id: q.text for q in dataset.queries}, k)
    seconds = time.perf_counter() - started
    run: Run = {qid: [(h.doc_id, h.score) for h in hs] for qid, hs in hits.items()}
    evaluation = evaluate(run, dataset.qrels, METRICS)
    run_name = run_name or (method if analysis == "stemmed" else f"{method}-{analysis}")
    manifest = build_manifest(
        dataset=dataset.describe(),
        method={**retriever.describe(), "k": k},
        index={
            "alias": settings.index_alias,
            "version": meta.get("index_version"),
            "bm25": meta.get("bm25"),
            "analyzer_chain": meta.get("analyzers", {}).get(analysis),
        },
        opensearch_version=version,
        metrics=evaluation.mean,
        extra={"query_phase_seconds": seconds, "queries": len(dataset.queries)},
    )
    details = {"query_notes": getattr(retriever, "last_notes", {})}
    folder = settings.runs_dir / dataset.name / run_name
    paths = write_results(folder, run, evaluation, manifest, tag=run_name, details=details if details["query_notes"] else None)
    return EvalOutcome(evaluation, paths, seconds, run_name)


__all__ = ["index_dataset", "evaluate_method", "search", "make_retriever", "load_dataset", "METHODS", "IndexMismatch"]
