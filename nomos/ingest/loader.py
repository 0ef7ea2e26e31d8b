"""One entry point for every dataset spec the CLI accepts: ``greekbar`` or a BEIR folder path; and the judged
queries a library grew in the portal (``cli.py judgments export``) in place of a dataset's own."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from nomos.ingest.beir import DEFAULT_MAX_ARTICLE_BYTES, fingerprint, load_beir, read_qrels, read_queries
from nomos.ingest.huggingface import load_greekbar
from nomos.ingest.records import Dataset, DatasetError
from nomos.ingest.validate import check_references

GREEKBAR = "greekbar"


def load_dataset(spec: str, corpus_file: str = "corpus.jsonl", cache_dir: Path | None = None,
                 max_article_bytes: int | None = DEFAULT_MAX_ARTICLE_BYTES) -> Dataset:
    """``greekbar`` (the default) loads the Hub benchmark; anything else is a path to a BEIR folder, whose articles
    may hold at most ``max_article_bytes`` bytes of text (``NOMOS_MAX_ARTICLE_BYTES``)."""
    if spec == GREEKBAR:
        return replace(load_greekbar(cache_dir=str(cache_dir / "hf") if cache_dir else None), location=GREEKBAR)
    where = str(Path(spec).resolve()) + ("" if corpus_file == "corpus.jsonl" else f"#{corpus_file}")
    return replace(load_beir(Path(spec), corpus_file=corpus_file, max_article_bytes=max_article_bytes), location=where)


def replace_judgments(dataset: Dataset, qrels_file: Path, queries_file: Path | None = None) -> Dataset:
    """``dataset`` with the judgments of ``qrels_file`` (BEIR TSV or TREC qrels) instead of its own, and the queries
    of ``queries_file`` (BEIR jsonl) instead of its own; without ``queries_file``, the dataset's queries that the
    file judges. Errors name the file and line: a judgment of an unknown query or article, a bad line, a query
    with no relevant article.

    The corpus stays, and with it the fingerprint ``eval`` compares with the index's (the index is the same). The
    name gains ``+<qrels file stem>``, so the runs go to a folder of their own (``runs/<name>+judgments/…``), and
    the revision records the files' hash, so a manifest says which judgments a number was measured on."""
    qrels_file = _beside(dataset, Path(qrels_file))
    queries_file = _beside(dataset, Path(queries_file)) if queries_file is not None else None
    qrels, where = read_qrels(qrels_file)
    if not qrels:
        raise DatasetError(str(qrels_file), "there are no judgments")
    if queries_file is not None:
        queries = tuple(q for _, q in read_queries(queries_file))
    else:
        queries = tuple(q for q in dataset.queries if q.id in qrels)
    check_references(dataset.articles, queries, qrels, where, str(queries_file or qrels_file))
    files = [qrels_file] + ([queries_file] if queries_file is not None else [])
    return replace(dataset, name=f"{dataset.name}+{qrels_file.stem}", queries=queries, qrels=qrels,
                   revision=f"{dataset.revision}; judgments {fingerprint(files)[:12]}",
                   judgment_files=(str(qrels_file.resolve()),) + ((str(queries_file.resolve()),) if queries_file else ()))


def _beside(dataset: Dataset, path: Path) -> Path:
    """``path`` as given when it is a file, else the dataset folder's file of that relative path."""
    if path.is_file():
        return path
    folder = Path(dataset.location.split("#", 1)[0]) if dataset.location else None
    if folder is not None and not path.is_absolute() and folder.is_dir() and (folder / path).is_file():
        return folder / path
    where = f" (nor in the dataset's folder {folder})" if folder is not None and folder.is_dir() and not path.is_absolute() else ""
    raise DatasetError(str(path), f"file is missing{where}")


def dataset_of_manifest(manifest: Mapping[str, Any], cache_dir: Path | None = None) -> Dataset | None:
    """The dataset a results folder was measured on, loaded again from where its manifest says (and with the
    judgments that replaced its own); None when the manifest predates the record or the data is no longer there."""
    described = manifest.get("dataset") or {}
    location, _, corpus_file = str(described.get("location") or "").partition("#")
    if not location or (location != GREEKBAR and not Path(location).is_dir()):
        return None
    data = load_dataset(location, corpus_file=corpus_file or "corpus.jsonl", cache_dir=cache_dir)
    files = [Path(f) for f in described.get("judgment_files") or ()]
    if files:
        data = replace_judgments(data, files[0], files[1] if len(files) > 1 else None)
    return data
