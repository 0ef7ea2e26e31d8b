"""``eval``: every query of a dataset through a method, scored with ranx, written as a results folder (also
``--repeat N`` for the spread of LLM methods)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import click

from nomos.cli.main import cli
from nomos.cli.options import (
    METHOD_CHOICES,
    analysis_options,
    corpus_option,
    dataset_option,
    emit_json,
    json_option,
    k_option,
    llm_options,
    llm_settings,
    load,
    method_options,
    method_options_from,
    results_prefix_option,
    runs_dir_option,
)
from nomos.cli.output import print_evaluation, print_repeated
from nomos.eval.metrics import METRICS
from nomos.settings import Settings

METRIC_NAMES = ("recall", "precision", "ndcg", "map", "mrr", "hits", "hit_rate", "f1", "r-precision")  # ranx's
_METRIC = re.compile(r"^(?P<name>[a-z_-]+)(@(?P<k>[1-9]\d*))?$")


def parse_metrics(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    """``--metrics recall@10,ndcg@10``: names ranx knows, each with an optional cutoff; duplicates dropped."""
    out: list[str] = []
    for raw in (v.strip().lower() for v in value.split(",")):
        if not raw:
            continue
        m = _METRIC.match(raw)
        if not m or m.group("name") not in METRIC_NAMES or (m.group("name") == "r-precision" and m.group("k")):
            raise click.BadParameter(f"unknown metric {raw!r}; valid: {', '.join(METRIC_NAMES)}, each with an optional "
                                     f"@k cutoff (e.g. recall@100, ndcg@10; r-precision takes none)")
        if raw not in out:
            out.append(raw)
    if not out:
        raise click.BadParameter("name at least one metric, e.g. recall@100")
    return tuple(out)


@dataclass(frozen=True)
class EvalArgs:
    """eval's own options (the method options become MethodOptions, the --llm-* ones settings)."""

    dataset: str
    corpus_file: str
    method: str
    k: int
    metrics: tuple[str, ...]
    run_name: str | None
    overwrite: bool
    runs_dir: Path | None
    resume: bool
    to_opensearch: bool
    results_prefix: str | None
    repeat: int
    seed: int | None
    qrels_file: Path | None
    queries_file: Path | None
    as_json: bool
    strict: bool
    while_indexing: bool

    @classmethod
    def take(cls, kw: dict[str, Any]) -> EvalArgs:
        return cls(**{f.name: kw.pop(f.name) for f in fields(cls)})


@cli.command("eval")
@dataset_option
@corpus_option
@click.option("--method", type=click.Choice(METHOD_CHOICES, case_sensitive=False), default="bm25", show_default=True, help="Retrieval method.")
@analysis_options
@method_options
@k_option(100)
@click.option("--metrics", default=",".join(METRICS), show_default=True, callback=parse_metrics,
              help="Comma-separated ranx metrics to score (recall@10, ndcg@10, map@100, precision@5, mrr, …).")
@click.option("--run-name", default=None, help="Results folder name under runs/<dataset>/ (default: the method).")
@click.option("--overwrite", is_flag=True, help="Replace an existing results folder named by --run-name (refused otherwise).")
@runs_dir_option
@llm_options
@click.option("--resume", is_flag=True, help="LLM methods: keep the queries already checkpointed in the run folder.")
@click.option("--to-opensearch", is_flag=True,
              help="Also write per-query metrics, the run summary, ReAct rounds and traces to the result indices (for Dashboards).")
@results_prefix_option
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="Run N times (LLM methods: a different --seed each time) and report mean and spread.")
@click.option("--seed", type=int, default=None, help="LLM seed (sent as the OpenAI `seed`); with --repeat, repetition i uses seed + i.")
@click.option("--qrels", "qrels_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Judgments (TREC qrels or BEIR TSV) that replace the dataset's, e.g. from `judgments export`.")
@click.option("--queries", "queries_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="With --qrels: queries (BEIR jsonl) that replace the dataset's (default: the dataset's that --qrels judges).")
@click.option("--strict", is_flag=True,
              help="LLM methods: fail (exit 1, after writing the run) when any kind of LLM degradation (format errors, "
                   "unknown ids, truncations, fallbacks…) exceeds NOMOS_LLM_ISSUE_THRESHOLD (5%) of the calls.")
@click.option("--while-indexing", is_flag=True,
              help="Run even while `index` writes the index's vectors (refused otherwise: scores move meanwhile); "
                   "the run's manifest records it (index.moving) and stderr says so.")
@json_option
@click.pass_obj
def eval_cmd(settings: Settings, **kw: Any) -> None:
    """Run every query, score with ranx (default: Recall@10/100, nDCG@10/100, MAP@100) and write the run files."""
    settings = llm_settings(settings, kw)
    options = method_options_from(kw)
    a = EvalArgs.take(kw)
    settings = settings.with_overrides(runs_dir=a.runs_dir, results_prefix=a.results_prefix, llm_seed=a.seed)
    if a.queries_file is not None and a.qrels_file is None:
        raise click.UsageError("--queries replaces the dataset's queries together with its judgments: give --qrels too")
    data = load(settings, a.dataset, a.corpus_file)
    if a.qrels_file is not None:
        from nomos.ingest.loader import replace_judgments

        data = replace_judgments(data, a.qrels_file, a.queries_file)
    if not (a.overwrite or a.resume):  # a default name too: a second eval silently replaced the first (issue 50)
        from nomos.stages.evaluation import default_run_name

        name = a.run_name or default_run_name(a.method, options)
        _refuse_existing(settings.runs_dir / data.name, name if a.repeat == 1 else f"{name}-repeat",
                         named=a.run_name is not None)
    if a.repeat > 1:
        _repeated(settings, data, a, options)
        return
    _single(settings, data, a, options)


def _refuse_existing(parent: Path, run_name: str, named: bool = True) -> None:
    folder = parent / run_name
    if folder.exists() and any(folder.iterdir()):
        what = f"--run-name {run_name!r}" if named else f"run {run_name!r} (the default name for these options)"
        raise click.UsageError(f"{what}: {folder} already holds a run; pass --overwrite to replace it"
                               f"{'' if named else ' or --run-name NAME to keep both'} (or --resume to continue an LLM run)")


def _single(settings: Settings, data: Any, a: EvalArgs, options: Any) -> None:
    from nomos.cli.progress import progress
    from nomos.eval.fusion_diagnosis import fusion_summary
    from nomos.render import evaluation_document
    from nomos.stages.evaluation import check_degradation, evaluate_method

    started = time.perf_counter()
    with progress(len(data.queries), f"eval {a.method}", "queries", settings.progress_seconds) as bar:
        outcome = evaluate_method(settings, data, method=a.method, k=a.k, run_name=a.run_name, options=options,
                                  resume=a.resume, on_progress=bar.update, metrics=a.metrics,
                                  while_indexing=a.while_indexing)
    extra = outcome.extra or {}
    recall = outcome.evaluation.mean.get(f"recall@{a.k}")
    diagnosis = fusion_summary(extra["fusion_diagnosis"], recall) if extra.get("fusion_diagnosis") and recall is not None else None
    folder = outcome.paths["manifest"].parent
    if a.as_json:
        pushed = push(settings, folder, data, quiet=True) if a.to_opensearch else None
        emit_json(evaluation_document(outcome, a.method, data.name, a.k, diagnosis, pushed))
        if a.strict:
            check_degradation(outcome)
        return
    print_evaluation(outcome, diagnosis, total_s=time.perf_counter() - started)
    if a.to_opensearch:
        push(settings, folder, data)
    if a.strict:
        check_degradation(outcome)


def _repeated(settings: Settings, data: Any, a: EvalArgs, options: Any) -> None:
    from nomos.cli.progress import progress
    from nomos.render import repeated_document
    from nomos.stages.evaluation import check_degradation, evaluate_repeated

    with progress(len(data.queries) * a.repeat, f"eval {a.method} ×{a.repeat}", "queries",
                  settings.progress_seconds) as bar:
        summary, outcomes = evaluate_repeated(settings, data, method=a.method, k=a.k, run_name=a.run_name, options=options,
                                              repeat=a.repeat, seed=a.seed if a.seed is not None else 0,
                                              on_progress=bar.update, metrics=a.metrics,
                                              while_indexing=a.while_indexing)
    if a.as_json:
        doc = repeated_document(summary, outcomes)
        if a.to_opensearch:
            doc["result_indices"] = [push(settings, o.paths["manifest"].parent, data, quiet=True) for o in outcomes]
        emit_json(doc)
    else:
        print_repeated(summary, outcomes)
        if a.to_opensearch:
            for o in outcomes:
                push(settings, o.paths["manifest"].parent, data)
    if a.strict:
        for o in outcomes:
            check_degradation(o)


def push(settings: Settings, folder: Path, data: Any, quiet: bool = False) -> dict[str, int]:
    """Write a results folder to the result indices; returns {index name: documents} (printed unless ``quiet``)."""
    from nomos.opensearch.results_store import index_name
    from nomos.stages.reporting import store_results

    counts = {index_name(settings.results_prefix, kind): n for kind, n in store_results(settings, folder, data).items()}
    if not quiet:
        click.echo("result indices: " + ", ".join(f"{name} {n}" for name, n in counts.items()))
    return counts
