"""Compare and report inputs from results folders, and pushing results folders into the result indices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch

from nomos.eval.runs import atomic_write_text
from nomos.ingest.records import Dataset
from nomos.opensearch.client import make_client
from nomos.settings import Settings


def comparison_inputs(runs: list[str], runs_dir: Path, dataset: Dataset | None) -> dict[str, Any]:
    """Load the runs named on the command line and, from the dataset when given, each query's legal area and the
    sources of its gold articles (without it: id prefixes)."""
    from nomos.eval.compare import gold_sources, load_run, resolve_run

    name = dataset.name if dataset else None
    loaded = [load_run(resolve_run(r, runs_dir, name)) for r in runs]
    areas = {q.id: q.area or q.meta.get("area", "") for q in dataset.queries} if dataset else {}
    sources = gold_sources(dataset.qrels, {a.id: a.source for a in dataset.articles}) if dataset else {}
    if not dataset:  # no qrels to hand: no gold-source breakdown
        sources = {}
    return {"runs": loaded, "areas": areas, "sources": sources}


def write_report(comparison: Any, dataset: Dataset, out: Path, command: str = "") -> Path:
    """Render the HTML report of ``comparison`` with the dataset's judgments, query texts and gold titles."""
    from nomos.eval.report import render_report

    gold = {d for docs in dataset.qrels.values() for d in docs}
    titles = {a.id: a.title for a in dataset.articles if a.id in gold}
    html = render_report(comparison, dataset.qrels, dataset.describe(), {q.id: q.text for q in dataset.queries}, titles, command)
    atomic_write_text(out, html)
    return out


def store_results(settings: Settings, folder: Path, dataset: Dataset, client: OpenSearch | None = None) -> dict[str, int]:
    """Push one results folder into the result indices (``<results_prefix>-per-query`` …) for Dashboards."""
    from nomos.eval.compare import load_run
    from nomos.opensearch.results_store import documents, read_traces, store

    client = client or make_client(settings)
    run = load_run(folder)
    areas = {q.id: q.area or q.meta.get("area", "") for q in dataset.queries}
    docs = documents(run, dataset.qrels, areas, {a.id: a.source for a in dataset.articles}, read_traces(folder))
    return store(client, settings.results_prefix, docs)
