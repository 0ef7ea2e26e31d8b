"""Compare and report inputs from results folders, and pushing results folders into the result indices."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch

from nomos.eval.runs import atomic_write_text
from nomos.ingest.records import Dataset
from nomos.opensearch.client import make_client
from nomos.opensearch.results_store import StoredRun, documents, store
from nomos.stages.settings import StageSettings


def is_run_file(spec: str) -> bool:
    """A run named on the command line that is a TREC run file (made here or elsewhere), not a results folder."""
    return Path(spec).is_file()


def load_run_file(path: Path, dataset: Dataset | None) -> Any:  # eval.compare.RunData
    """A TREC run file scored against the dataset's judgments (the paper's five metrics), as a results folder
    would hold it; read with the runs reader, so a bad line is named by file and line."""
    from nomos.errors import ConfigError
    from nomos.eval.compare import RunData
    from nomos.eval.metrics import METRICS, evaluate
    from nomos.eval.runs import read_trec

    if dataset is None:
        raise ConfigError(f"run file {path}: scoring a TREC run needs its judgments: pass --dataset (greekbar or the BEIR folder)")
    run = read_trec(path)
    per_query = evaluate(run, dataset.qrels, METRICS).per_query
    return RunData(path.stem, path.parent, {"method": {"method": path.stem, "run_file": str(path)}}, per_query, run)


def check_scored_on_paper_metrics(run: Any) -> None:  # eval.compare.RunData
    """compare and report test the paper's five metrics: a folder ``eval --metrics`` scored on others lacks them."""
    from nomos.errors import DataError
    from nomos.eval.metrics import METRICS

    missing = [m for m in METRICS if any(m not in scores for scores in run.per_query.values())]
    if missing:
        raise DataError(f"{run.folder}: the run was scored without {', '.join(missing)} (eval --metrics); compare and report "
                        f"need the five paper metrics: re-run eval without --metrics")


def dataset_of_runs(runs: list[str], runs_dir: Path, cache_dir: Path | None = None) -> Dataset | None:
    """The dataset the first results folder among ``runs`` was measured on, from its manifest (what ``--dataset``
    would have named); None when no run is a results folder with that record."""
    from nomos.eval.compare import resolve_run
    from nomos.ingest.loader import dataset_of_manifest

    for r in runs:
        if is_run_file(r):
            continue
        manifest = resolve_run(r, runs_dir) / "manifest.json"
        if manifest.is_file():
            return dataset_of_manifest(json.loads(manifest.read_text(encoding="utf-8")), cache_dir)
    return None


def comparison_inputs(runs: list[str], runs_dir: Path, dataset: Dataset | None) -> dict[str, Any]:
    """Load the runs named on the command line (results folders, run names, or TREC run files, which are scored
    with the dataset's judgments) and, from the dataset when given, each query's legal area and the sources of its
    gold articles (without it: id prefixes)."""
    from nomos.eval.compare import gold_sources, load_run, resolve_run

    name = dataset.name if dataset else None
    loaded = [load_run_file(Path(r), dataset) if is_run_file(r) else load_run(resolve_run(r, runs_dir, name)) for r in runs]
    for r in loaded:
        check_scored_on_paper_metrics(r)
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


def stored_run(folder: Path, areas: Mapping[str, str] | None = None) -> tuple[StoredRun, dict[str, str]]:
    """Load a results folder into the plain :class:`StoredRun` the result indices
    take, with each of its queries' legal area (the dataset's metadata, else the id's letters): the evaluation layer
    reads the folder, the node layer only writes what it is given."""
    from nomos.eval.compare import load_run, query_area

    r = load_run(folder)
    run = StoredRun(
        name=r.name, dataset=str(r.manifest.get("dataset", {}).get("name", r.folder.parent.name)), method=r.method,
        scripted_llm=r.scripted, manifest=r.manifest, per_query=r.per_query, ranking=r.run, rounds=r.rounds, cost=r.cost,
    )
    return run, {q: query_area(q, (areas or {}).get(q, "")) for q in r.per_query}


def read_traces(folder: Path) -> list[dict[str, Any]]:
    """The ReAct traces of a results folder (``traces.jsonl``, one query per line); none for other methods."""
    path = Path(folder) / "traces.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def store_results(settings: StageSettings, folder: Path, dataset: Dataset, client: OpenSearch | None = None) -> dict[str, int]:
    """Push one results folder into the result indices (``<results_prefix>-per-query`` …) for Dashboards."""
    client = client or make_client(settings.cluster)
    run, areas = stored_run(folder, {q.id: q.area or q.meta.get("area", "") for q in dataset.queries})
    docs = documents(run, dataset.qrels, areas, {a.id: a.source for a in dataset.articles}, read_traces(folder))
    return store(client, settings.results_prefix, docs)
