"""The eval stage: every query of a dataset through a method, scored with ranx, written as a results folder."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from opensearchpy import OpenSearch

from nomos.errors import DataError
from nomos.eval.fusion_diagnosis import diagnose
from nomos.eval.manifest import build_manifest
from nomos.eval.metrics import METRICS, Evaluation, evaluate
from nomos.eval.results import write_results
from nomos.eval.runs import Run, atomic_write_json, atomic_write_text, write_trec
from nomos.ingest.indexer import index_meta
from nomos.ingest.records import Dataset
from nomos.opensearch.client import cluster_version, make_client
from nomos.retrieval.base import SCORE_KINDS, Hit, Progress, SearchResult
from nomos.retrieval.case_reading import DEFAULT_QUESTION_BOOST, DEFAULT_QUESTION_WEIGHT
from nomos.retrieval.fusion_config import DEFAULT_WHERE, FusionConfig
from nomos.retrieval.llm import LLMDegraded, issue_report
from nomos.retrieval.registry import (
    AMENDMENT_DEFAULTS,
    RERANK_DEFAULTS,
    MethodOptions,
    make_retriever,
    method_spec,
    require_llm,
    resolved_options,
)
from nomos.stages.index_motion import check_still, moving_text
from nomos.stages.settings import StageSettings

log = logging.getLogger(__name__)


class IndexMismatch(DataError):
    """The live index was built from another dataset than the one being evaluated."""


@dataclass(frozen=True)
class EvalOutcome:
    evaluation: Evaluation
    paths: dict[str, Path]
    seconds: float
    run_name: str
    extra: dict[str, Any] | None = None  # LLM methods: per-round metrics ("rounds") and the cost table ("cost")


def check_index_matches(meta: dict[str, Any], dataset: Dataset, alias: str) -> None:
    """Refuse to score a dataset against an index built from another corpus (a silent wrong number). Only the
    corpus counts (new queries or judgments over the same articles need no re-index); an index built before the
    corpus had a fingerprint of its own is compared on the whole dataset's."""
    built = meta.get("dataset", {})
    if built.get("corpus_fingerprint"):
        same = built["corpus_fingerprint"] == dataset.corpus_key
    else:
        same = built.get("fingerprint") == dataset.fingerprint
    if not same:
        name = built.get("name", "unknown data")
        shown = str(built.get("corpus_fingerprint") or built.get("fingerprint"))[:12]
        raise IndexMismatch(
            f"index {alias!r} was built from the corpus of {name!r} (fingerprint {shown}), not from the corpus of "
            f"{dataset.name!r} ({dataset.corpus_key[:12]}): run `python cli.py index --dataset …` with this corpus "
            "first (new queries or judgments over the same corpus need no re-index: pass them with --queries/--qrels)"
        )


def check_judged(dataset: Dataset) -> None:
    """``eval`` needs queries with judgments; a corpus indexed on its own has none, and the message says how."""
    if not dataset.queries or not dataset.qrels:
        missing = "queries" if not dataset.queries else "judgments"
        raise DataError(
            f"dataset {dataset.name!r} has no {missing} to evaluate", hint="pass --queries FILE (BEIR jsonl) and "
            "--qrels FILE (BEIR TSV or TREC qrels), e.g. from the portal's judgments (`python cli.py judgments "
            "export`), or put queries.jsonl and qrels/test.tsv beside the corpus; `search --topics FILE` ranks "
            "queries without judgments")


def default_run_name(method: str, options: MethodOptions) -> str:
    """A results folder name that says what differs from the defaults (bm25, knn-exact, rrf-client…); only
    options the method honours (its spec's ``options``) count, so an ignored flag does not rename the folder."""
    takes = method_spec(method).options
    parts = [method]
    if "analysis" in takes and options.analysis != "stemmed":
        parts.append(options.analysis)
    if "embedder" in takes and options.embedder:
        parts.append(options.embedder.replace(":", "_").replace("/", "_"))
    if "exact" in takes and options.exact:
        parts.append("exact")
    if "fusion_where" in takes and options.fusion.where and options.fusion.where != DEFAULT_WHERE.get(method):
        parts.append(options.fusion.where)  # hybrid-server, hybrid-client, rrf-client…
    if "fusion_where" in takes and options.fusion.resolved_where == "pool" and method == "hybrid":
        default = FusionConfig()
        if options.fusion.pool_ranking != default.pool_ranking:
            parts.append(options.fusion.pool_ranking)  # hybrid-minmax
        elif options.fusion.head != default.head:
            parts.append(f"head{options.fusion.head}")  # hybrid-head10
        if options.fusion.pool_ranking == "rrf-head" and options.fusion.admit != default.admit:
            parts.append(f"admit{options.fusion.admit}")  # hybrid-admit20
    if "question_weight" in takes and options.question_weight is not None and options.question_weight != DEFAULT_QUESTION_WEIGHT:
        parts.append(f"qw{options.question_weight:g}")  # knn-qw0.3
    if "question_boost" in takes and options.question_boost is not None and options.question_boost != DEFAULT_QUESTION_BOOST:
        parts.append(f"qb{options.question_boost:g}")  # bm25-qb2
    stage = options.second_stage
    if options.rerank == "none":  # a method's default second stage switched off: "hybrid-rerank-none"
        parts.append("rerank-none")
    elif stage and stage != RERANK_DEFAULTS.get(method):  # "-rerank-llm", "-rerank-cross-encoder_<model>"…
        kind, _, model = stage.partition(":")
        judge = f"{kind}_{Path(model).name}" if model else kind
        parts.append(f"rerank-{judge}{'' if options.rerank_depth == 20 else options.rerank_depth}")
    if options.amendments and options.amendments != AMENDMENT_DEFAULTS.get(method, "off"):  # "-amend-follow"
        parts.append("amend-" + options.amendments.replace(":", "_"))
    return "-".join(parts)


def evaluate_method(
    settings: StageSettings,
    dataset: Dataset,
    method: str = "bm25",
    analysis: str | None = None,
    k: int = 100,
    run_name: str | None = None,
    client: OpenSearch | None = None,
    options: MethodOptions | None = None,
    resume: bool = False,
    on_progress: Progress | None = None,
    metrics: Sequence[str] = METRICS,
    write: bool = True,
    while_indexing: bool = False,
) -> EvalOutcome:
    """Run every query through ``method``, score with ranx, write the results folder under ``runs_dir``.

    LLM methods also checkpoint each finished query in the folder (``resume=True`` skips those) and write their
    traces, per-round metrics and cost table. ``on_progress`` is called once per finished query (a progress bar).
    ``metrics``: what ranx scores (default: the paper's five; per-round LLM metrics stay the five).
    Everything written comes from the one :class:`SearchResult` the retriever returns. ``analysis`` (None: the
    options', else stemmed) names BM25's analyzer and overrides ``options.analysis``. ``write`` False: score only,
    nothing written (``paths`` is empty; an LLM method's checkpoint is not kept either). While the index's vectors
    are being written it refuses (:class:`~nomos.stages.index_motion.IndexMoving`), or with ``while_indexing`` runs,
    warns and records it in the manifest (``index.moving``).
    """
    check_judged(dataset)
    spec = method_spec(method)
    settings = require_llm(settings, method)  # a running local LLM server counts
    client = client or make_client(settings.cluster)
    version = cluster_version(client, settings.cluster)
    meta = index_meta(client, settings.index_alias)
    check_index_matches(meta, dataset, settings.index_alias)
    moving = check_still(client, settings.index_alias, meta, while_indexing)
    if moving is not None:
        log.warning("index %s: %s: this run's scores may not repeat (recorded in its manifest as index.moving)",
                    settings.index_alias, moving_text(moving))
    options = options or MethodOptions()
    if analysis is not None:
        options = replace(options, analysis=analysis)
    options = resolved_options(settings, options, method)  # NOMOS_RERANK counts
    retriever = make_retriever(settings, method, client, options)
    run_name = run_name or default_run_name(method, options)
    folder = settings.runs_dir / dataset.name / run_name
    checkpoint = folder / "checkpoint.jsonl" if spec.needs_llm and write else None
    started = time.perf_counter()
    result = retriever.search_many({q.id: q.case_text for q in dataset.queries}, k, checkpoint=checkpoint, resume=resume,
                                   on_progress=on_progress)
    seconds = time.perf_counter() - started
    run: Run = {qid: [(h.doc_id, h.score) for h in hs] for qid, hs in result.hits.items()}
    evaluation = evaluate(run, dataset.qrels, tuple(metrics))
    llm_extra = llm_outputs(result, dataset.qrels)
    if llm_extra.get("cost"):
        report = issue_report(llm_extra["cost"], settings.llm_issue_threshold)
        if report is not None:
            llm_extra["cost"] = {**llm_extra["cost"], "llm_issues": report}
            for line in report["warnings"]:
                log.warning("LLM degradation above %.0f%% of calls: %s", 100 * settings.llm_issue_threshold, line)
    in_sample = _in_sample(retriever, [q.case_text for q in dataset.queries])
    manifest = build_manifest(
        dataset=dataset.describe(),
        method={**retriever.describe(), "k": k, "score": SCORE_KINDS[retriever.score_kind]},
        index={
            "alias": settings.index_alias,
            "version": meta.get("index_version"),
            "bm25": meta.get("bm25"),
            "analyzer_chain": meta.get("analyzers", {}).get(options.analysis),
            "vectors": meta.get("vectors", {}),
            **({"moving": moving} if moving is not None else {}),
        },
        opensearch_version=version,
        metrics=evaluation.mean,
        extra={"query_phase_seconds": seconds, "queries": len(dataset.queries), **in_sample,
               **({"prompts_hash": retriever.describe().get("prompts", {}).get("hash"),
                   "prompts_set": retriever.describe().get("prompts", {}).get("set"),
                   "rounds": llm_extra.get("rounds"), "cost": {k: v for k, v in llm_extra["cost"].items() if k != "per_query"}}
                  if llm_extra else {})},
    )
    clauses = result.clause_rankings
    fusion_diag = diagnose(clauses["bm25"], clauses["knn"], result.hits, dataset.qrels, k) if clauses else None
    if fusion_diag:
        manifest["fusion_diagnosis"] = {**fusion_diag["total"], "k": k, **clause_recall(clauses, dataset.qrels, k)}
    extra = {**llm_extra, **({"fusion_diagnosis": manifest["fusion_diagnosis"]} if fusion_diag else {})}
    if not write:
        return EvalOutcome(evaluation, {}, seconds, run_name, extra or None)
    details = result_details(result, fusion_diag)
    paths = write_results(folder, run, evaluation, manifest, tag=run_name, details=details if any(details.values()) else None)
    if llm_extra:
        paths.update(write_llm_outputs(folder, result, llm_extra))
    return EvalOutcome(evaluation, paths, seconds, run_name, extra or None)


def _in_sample(retriever: Any, texts: list[str]) -> dict[str, Any]:
    """The manifest's note where a learned ranker was trained on some of these queries (the stand-in's dev sets
    are its training set): those figures are in-sample, and a warning says so; held out: docs/benchmarks.md."""
    while retriever is not None and not hasattr(retriever, "in_sample"):  # the amended-first stage wraps the ranker
        retriever = getattr(retriever, "first", None)
    count = getattr(retriever, "in_sample", None)
    n = count(texts) if callable(count) else 0
    if not n:
        return {}
    log.warning("%d of these %d queries were among the learned ranker's training queries: its figures on them are "
                "in-sample, not a held-out measure (held out by cross-validation: docs/benchmarks.md)", n, len(texts))
    return {"ranker_trained_on": {"queries": n, "of": len(texts)}}


def check_degradation(outcome: EvalOutcome) -> None:
    """``eval --strict``: raise :class:`LLMDegraded` naming every kind of LLM degradation above the threshold (the
    run's files are already written, so nothing is lost; the exit status says the numbers are suspect)."""
    report = ((outcome.extra or {}).get("cost") or {}).get("llm_issues")
    if report and report.get("warnings"):
        raise LLMDegraded(
            f"--strict: LLM degradation above {100 * report['threshold']:g}% of calls in run {outcome.run_name!r}: "
            + "; ".join(report["warnings"])
            + f" (results written to {outcome.paths['manifest'].parent}; see traces.jsonl and cost.json; the threshold "
            "is NOMOS_LLM_ISSUE_THRESHOLD)"
        )


def result_details(result: SearchResult, fusion_diagnosis: dict[str, Any] | None = None) -> dict[str, Any]:
    """details.json: how long queries were sent, each fused hit's clause ranks and scores, the PRF expansions
    and the fusion diagnosis (empty sections where the method has none)."""
    return {
        "query_notes": result.query_notes,
        "clauses": result.clause_evidence,
        "expansions": result.expansions,
        "fusion_diagnosis": fusion_diagnosis or {},
    }


def clause_recall(clauses: dict[str, dict[str, list[Hit]]], qrels: Any, k: int) -> dict[str, float]:
    """Recall@k of each clause alone, beside the fused run's: the yardstick a fusion must reach."""
    out = {}
    for name, hits in clauses.items():
        run: Run = {q: [(h.doc_id, h.score) for h in hs[:k]] for q, hs in hits.items()}
        out[f"{name}_recall@{k}"] = evaluate(run, qrels, (f"recall@{k}",)).mean[f"recall@{k}"]
    return out


def llm_outputs(result: SearchResult, qrels: Any) -> dict[str, Any]:
    """Per-round metrics (snapshots of the final ranking and of the candidate pool) and the cost table, for
    results that carry them (LLM methods); empty for the others."""
    out: dict[str, Any] = {}
    if result.costs:
        out["cost"] = result.costs
    snapshots: dict[int, Run] = result.snapshots
    pools: dict[int, Run] = result.pools
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


def write_llm_outputs(folder: Path, result: SearchResult, extra: dict[str, Any]) -> dict[str, Path]:
    """traces.jsonl (one JSON line per query), rounds.json / rounds.tsv (the curve), cost.json."""
    paths: dict[str, Path] = {}
    traces = result.traces
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


def evaluate_repeated(
    settings: StageSettings,
    dataset: Dataset,
    method: str,
    repeat: int,
    seed: int = 0,
    k: int = 100,
    run_name: str | None = None,
    options: MethodOptions | None = None,
    on_progress: Progress | None = None,
    metrics: Sequence[str] = METRICS,
    while_indexing: bool = False,
) -> tuple[dict[str, Any], list[EvalOutcome]]:
    """Run ``method`` ``repeat`` times, repetition i with LLM seed ``seed + i`` (a new cache key, so new
    samples), into ``<run>-seed<S>`` folders, and write ``<run>-repeat/summary.json`` with mean, sample std, min
    and max of each metric. The paper ran each LLM method once; this shows how much one run can be trusted.
    ``on_progress`` is called once per finished query of every repetition."""
    import statistics

    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    options = resolved_options(settings, options or MethodOptions(), method)
    base = run_name or default_run_name(method, options)
    outcomes = []
    seeds = [seed + i for i in range(repeat)]
    for s in seeds:
        outcomes.append(evaluate_method(settings.with_overrides(llm_seed=s), dataset, method=method, k=k, run_name=f"{base}-seed{s}",
                                        options=options, on_progress=on_progress, metrics=metrics,
                                        while_indexing=while_indexing))
    metrics = outcomes[0].evaluation.metrics
    summary: dict[str, Any] = {
        "method": method, "run": base, "repeat": repeat, "seeds": seeds, "runs": [o.run_name for o in outcomes],
        "stochastic": method_spec(method).stochastic,
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


def search_topics(settings: StageSettings, topics: Mapping[str, str], out: Path, method: str = "bm25", k: int = 100,
                  options: MethodOptions | None = None, tag: str | None = None,
                  on_progress: Progress | None = None) -> tuple[Path, int]:
    """Batch search without judgments (Pyserini's ``search --topics … --output run.trec``): every topic through
    the same retriever and ``search_many`` path as :func:`evaluate_method`, written with the same TREC writer as a
    results folder's run.trec. Returns the file and how many lines it holds."""
    settings = require_llm(settings, method)
    client = make_client(settings.cluster)
    cluster_version(client, settings.cluster)
    options = resolved_options(settings, options or MethodOptions(), method)
    retriever = make_retriever(settings, method, client, options)
    result = retriever.search_many(dict(topics), k, on_progress=on_progress)
    run: Run = {qid: [(h.doc_id, h.score) for h in hs] for qid, hs in result.hits.items()}
    write_trec(Path(out), run, tag or default_run_name(method, options))
    return Path(out), sum(len(r) for r in run.values())
