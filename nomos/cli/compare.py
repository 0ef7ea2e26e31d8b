"""``compare`` and ``report``: runs side by side with significance tests, as a table or a self-contained HTML page.
A run is a results folder, a run name under --runs-dir, or a TREC run file (made here or by another toolkit)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from nomos.cli.main import cli
from nomos.cli.options import compare_options, load
from nomos.errors import ConfigError
from nomos.settings import Settings

RUNS_HELP = "RUN: a results folder, a run name under --runs-dir, or a TREC run file (.trec/.txt; scored with --dataset's qrels)."


def _comparison(settings: Settings, runs: tuple[str, ...], kw: dict[str, Any]):
    from nomos.eval.compare import compare
    from nomos.stages.reporting import comparison_inputs, dataset_of_runs

    settings = settings.with_overrides(runs_dir=kw["runs_dir"])
    if kw["dataset"]:
        data = load(settings, kw["dataset"], kw["corpus_file"])
    else:  # the dataset the runs' manifests name
        data = dataset_of_runs(list(runs), settings.runs_dir, settings.cache_dir)
    inputs = {**comparison_inputs(list(runs), settings.runs_dir, data), "dataset": data}
    try:
        return compare(inputs["runs"], baseline=kw["baseline"], areas=inputs["areas"], sources=inputs["sources"],
                       n_permutations=kw["permutations"], seed=kw["seed"], alpha=kw["alpha"], family=kw["family"]), inputs
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


@cli.command("compare", epilog=RUNS_HELP)
@click.argument("runs", nargs=-1, required=True)
@compare_options
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Also write the comparison as JSON here.")
@click.pass_obj
def compare_cmd(settings: Settings, runs: tuple[str, ...], json_out: Path | None, **kw: Any) -> None:
    """Runs side by side with paired randomization tests against a baseline (Holm-corrected), per-query
    wins/ties/losses, and breakdowns by legal area and gold-article source."""
    from nomos.eval.compare import format_comparison
    from nomos.eval.runs import atomic_write_json

    comparison, _ = _comparison(settings, runs, kw)
    click.echo(format_comparison(comparison))
    if json_out:
        atomic_write_json(json_out, comparison.to_dict())
        click.echo(f"written: {json_out}")


@cli.command("report", epilog=RUNS_HELP)
@click.argument("runs", nargs=-1, required=True)
@compare_options
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="The HTML file to write (default: report.html in the runs folder, NOMOS_RUNS_DIR; never the checkout).")
@click.pass_obj
def report_cmd(settings: Settings, runs: tuple[str, ...], out: Path | None, **kw: Any) -> None:
    """One self-contained HTML report: comparison table with significance, Recall@k curves, ReAct rounds,
    cost against quality, breakdowns and a per-query drill-down. Needs --dataset (the judgments)."""
    from nomos.stages.reporting import write_report

    comparison, inputs = _comparison(settings, runs, kw)
    if inputs["dataset"] is None:
        raise click.UsageError("report needs --dataset (greekbar or the BEIR folder the runs were made on): it reads the "
                               "judgments, and the runs' manifests do not say where their dataset is")
    out = out or settings.with_overrides(runs_dir=kw["runs_dir"]).runs_dir / "report.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    path = write_report(comparison, inputs["dataset"], out, command="python cli.py report " + " ".join(sys.argv[2:]))
    click.echo(f"written: {path} ({path.stat().st_size / 1024:.0f} KiB)")
