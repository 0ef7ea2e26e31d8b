"""``dashboards``: OpenSearch Dashboards' saved objects, and results folders pushed into the result indices."""

from __future__ import annotations

from pathlib import Path

import click

from nomos.cli.evaluate import push
from nomos.cli.main import cli
from nomos.cli.options import corpus_option, load, results_prefix_option, runs_dir_option
from nomos.settings import Settings


@cli.group()
def dashboards() -> None:
    """OpenSearch Dashboards: load the index patterns and visualisations of the result indices."""


@dashboards.command("import")
@click.option("--dashboards-url", envvar="NOMOS_DASHBOARDS_URL", default="http://localhost:5601", show_default=True,
              help="The running Dashboards to import into (env NOMOS_DASHBOARDS_URL).")
@click.option("--results-prefix", default=None, help="Result index prefix the index patterns should name (default nomos-results).")
@click.pass_obj
def dashboards_import(settings: Settings, dashboards_url: str, results_prefix: str | None) -> None:
    """Import opensearch/dashboards/nomos-results.ndjson into a running Dashboards (overwrites same ids)."""
    from nomos.opensearch.dashboards_import import import_saved_objects

    answer = import_saved_objects(dashboards_url, results_prefix or settings.results_prefix)
    click.echo(f"imported {answer.get('successCount', 0)} saved objects into {dashboards_url} (dashboard: 'nomos: evaluation results')")


@dashboards.command("push")
@click.argument("runs", nargs=-1, required=True)
@click.option("--dataset", default=None,
              help="The runs' dataset (greekbar or a BEIR folder); default: the one each run's manifest names.")
@corpus_option
@runs_dir_option
@results_prefix_option
@click.pass_obj
def dashboards_push(settings: Settings, runs: tuple[str, ...], dataset: str | None, corpus_file: str, runs_dir: Path | None,
                    results_prefix: str | None) -> None:
    """Write existing results folders to the result indices (what eval --to-opensearch does for a new run)."""
    from nomos.eval.compare import resolve_run
    from nomos.stages.reporting import dataset_of_runs

    settings = settings.with_overrides(runs_dir=runs_dir, results_prefix=results_prefix)
    given = load(settings, dataset, corpus_file) if dataset else None
    for r in runs:
        data = given or dataset_of_runs([r], settings.runs_dir, settings.cache_dir)
        if data is None:
            raise click.UsageError(f"run {r!r}: its manifest does not say where its dataset is: pass --dataset")
        folder = resolve_run(r, settings.runs_dir, data.name)
        click.echo(f"{folder}: ", nl=False)
        push(settings, folder, data)
