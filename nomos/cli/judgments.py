"""``judgments``: the relevance judgments readers gave in the portal, exported as qrels for ``eval --qrels``."""

from __future__ import annotations

from pathlib import Path

import click

from nomos.cli.main import cli
from nomos.cli.options import emit_json, json_option
from nomos.settings import Settings


@cli.group("judgments")
def judgments_group() -> None:
    """The relevance judgments readers gave in the portal (0, 1, 2 per result), kept next to the articles index."""


@judgments_group.command("export")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="TREC qrels file (query_id 0 article_id grade); default: judgments/judgments.qrels in the runs folder "
                   "(NOMOS_RUNS_DIR), never the checkout.")
@click.option("--queries-out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="BEIR queries file of the judged queries (default: <out stem>.queries.jsonl beside --out).")
@click.option("--min-grade", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Leave out (aggregated) judgments below this grade.")
@click.option("--user", default=None, help="Only this user's judgments (default: every user's, aggregated: rounded mean, halves up).")
@json_option
@click.pass_obj
def judgments_export(settings: Settings, out: Path | None, queries_out: Path | None, min_grade: int, user: str | None, as_json: bool) -> None:
    """Write the judgments as qrels plus the judged queries, for `eval --qrels OUT --queries QUERIES`."""
    from nomos.stages.judgments import export_judgments

    out = out or settings.runs_dir / "judgments" / "judgments.qrels"
    out.parent.mkdir(parents=True, exist_ok=True)
    r = export_judgments(settings, out, queries_out, min_grade=min_grade, user=user)
    doc = {"qrels": str(r.qrels), "queries": str(r.queries), "n_queries": r.n_queries, "n_judgments": r.n_judgments,
           "n_stored": r.n_stored, "skipped_queries": list(r.skipped_queries)}
    if as_json:
        emit_json(doc)
        return
    click.echo(f"{r.n_judgments} judgments of {r.n_queries} queries (from {r.n_stored} stored) -> {r.qrels}, {r.queries}")
    if r.skipped_queries:
        click.echo(f"{len(r.skipped_queries)} judged queries left out: no article graded relevant: {', '.join(r.skipped_queries)}")
