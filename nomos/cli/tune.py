"""``tune``: BM25 k1 × b swept on a clone of the live index, chosen by k-fold cross-validation."""

from __future__ import annotations

from pathlib import Path

import click

from nomos.cli.main import cli
from nomos.cli.options import analysis_choice, corpus_option, dataset_option, emit_json, json_option, load
from nomos.cli.output import print_tune
from nomos.errors import ConfigError
from nomos.settings import Settings


def _floats(text: str, name: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{name} must be comma-separated numbers, got {text!r}") from None


@cli.command("tune")
@dataset_option
@corpus_option
@click.option("--metric", default="recall@100", show_default=True, help="What to maximise (any metric ranx knows, e.g. ndcg@10).")
@click.option("--k1", "k1s", default="0.6,0.9,1.2,1.5,1.8,2.1", show_default=True, help="k1 grid.")
@click.option("--b", "bs", default="0.3,0.4,0.5,0.6,0.7,0.75,0.8,0.9,1.0", show_default=True, help="b grid.")
@click.option("--folds", type=int, default=4, show_default=True, help="Cross-validation folds over the queries.")
@click.option("--seed", type=int, default=42, show_default=True, help="Seed of the query shuffle.")
@analysis_choice
@click.option("--runs-dir", type=click.Path(path_type=Path), default=None, help="Where the JSON goes (default runs/).")
@json_option
@click.pass_obj
def tune_cmd(settings: Settings, dataset: str, corpus_file: str, metric: str, k1s: str, bs: str, folds: int, seed: int,
             analysis: str, runs_dir: Path | None, as_json: bool) -> None:
    """Sweep BM25 k1 and b with k-fold cross-validation over the queries; print the cross-validated choice and
    score beside the oracle (best on all queries, what a test-set sweep reports)."""
    from nomos.cli.progress import progress
    from nomos.stages.tuning import tune_bm25

    settings = settings.with_overrides(runs_dir=runs_dir)
    data = load(settings, dataset, corpus_file)
    grid_k1, grid_b = _floats(k1s, "--k1"), _floats(bs, "--b")
    with progress(len(grid_k1) * len(grid_b), "sweep", "setting", settings.progress_seconds) as bar:
        try:
            out = tune_bm25(settings, data, metric=metric, k1s=grid_k1, bs=grid_b, folds=folds, seed=seed, analysis=analysis,
                            on_progress=bar.update)
        except ValueError as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(str(exc)) from None
    if as_json:
        emit_json(out)  # what runs/<dataset>/tune-bm25-<metric>.json holds, with its path
        return
    print_tune(out, metric, folds, seed)
