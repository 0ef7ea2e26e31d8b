"""Load GreekBarRetrieval from the Hugging Face Hub (``AUEB-NLP/greek-bar-bench`` at a pinned revision).

The ``datasets`` library caches what it downloads, so only the first run needs the network. Machines without
access get a message that says how to point the CLI at a local BEIR folder instead.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable

from nomos.ingest.beir import parse_article, parse_query
from nomos.ingest.records import Dataset, DatasetError, Qrels
from nomos.ingest.validate import check_references, check_unique

GREEKBAR_REPO = "AUEB-NLP/greek-bar-bench"
GREEKBAR_REVISION = "v2.0"
OFFLINE_HINT = (
    "could not load {repo}@{rev} from the Hugging Face Hub ({err}). If this machine is offline, pass a local "
    "BEIR folder instead, e.g. `--dataset ../shared/data/greek-statutes` (corpus.jsonl, queries.jsonl, "
    "qrels/test.tsv), or fill the Hugging Face cache on a connected machine first."
)


def _first_split(repo: str, subset: str, revision: str, cache_dir: str | None) -> list[dict[str, Any]]:
    """All rows of a subset; the benchmark keeps one split per subset, whatever its name."""
    import datasets  # heavy import, only when the Hub is really used

    loaded = datasets.load_dataset(repo, subset, revision=revision, cache_dir=cache_dir)
    split = sorted(loaded.keys())[0]
    return [dict(row) for row in loaded[split]]


def _pick(row: dict[str, Any], *names: str) -> Any:
    for n in names:
        if n in row and row[n] is not None:
            return row[n]
    return None


def rows_to_dataset(
    corpus: Iterable[dict[str, Any]],
    queries: Iterable[dict[str, Any]],
    qrels_rows: Iterable[dict[str, Any]],
    repo: str,
    revision: str,
) -> Dataset:
    """Validate Hub rows exactly like a BEIR folder; locations read ``hf:repo@rev/subset[row]``."""
    base = f"hf:{repo}@{revision}"
    h = hashlib.sha256()
    located_articles = []
    for i, row in enumerate(corpus):
        row = {**row, "_id": _pick(row, "_id", "id", "doc_id", "corpus-id")}
        h.update(json.dumps(row, ensure_ascii=False, sort_keys=True, default=str).encode())
        located_articles.append((f"{base}/corpus[{i}]", parse_article(row, f"{base}/corpus[{i}]")))
    if not located_articles:
        raise DatasetError(f"{base}/corpus", "the corpus is empty")
    check_unique(((w, a.id) for w, a in located_articles), "article")
    located_queries = []
    for i, row in enumerate(queries):
        row = {**row, "_id": _pick(row, "_id", "id", "query_id", "query-id")}
        h.update(json.dumps(row, ensure_ascii=False, sort_keys=True, default=str).encode())
        located_queries.append((f"{base}/queries[{i}]", parse_query(row, f"{base}/queries[{i}]")))
    check_unique(((w, q.id) for w, q in located_queries), "query")
    qrels: Qrels = {}
    where_of: dict[tuple[str, str], str] = {}
    for i, row in enumerate(qrels_rows):
        where = f"{base}/qrels[{i}]"
        qid = _pick(row, "query-id", "query_id", "qid")
        doc_id = _pick(row, "corpus-id", "corpus_id", "doc_id", "docid")
        score = _pick(row, "score", "relevance", "label")
        if qid is None or doc_id is None:
            raise DatasetError(where, f"expected fields 'query-id' and 'corpus-id', got {sorted(row)}")
        h.update(f"{qid}\t{doc_id}\t{score}".encode())
        qrels.setdefault(str(qid), {})[str(doc_id)] = int(score if score is not None else 1)
        where_of[(str(qid), str(doc_id))] = where
    articles = tuple(a for _, a in located_articles)
    queries_t = tuple(q for _, q in located_queries)
    check_references(articles, queries_t, qrels, where_of, f"{base}/queries")
    return Dataset(
        name="greekbar",
        revision=f"{repo}@{revision}",
        fingerprint=h.hexdigest(),
        articles=articles,
        queries=queries_t,
        qrels=qrels,
    )


def load_greekbar(repo: str = GREEKBAR_REPO, revision: str = GREEKBAR_REVISION, cache_dir: str | None = None) -> Dataset:
    """Download (or read from cache) the three subsets and validate them."""
    try:
        corpus = _first_split(repo, "corpus", revision, cache_dir)
        queries = _first_split(repo, "queries", revision, cache_dir)
        qrels = _first_split(repo, "qrels", revision, cache_dir)
    except DatasetError:
        raise
    except Exception as exc:  # the Hub client raises many types (ConnectionError, HfHubHTTPError, OSError…)
        err = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        raise DatasetError(f"hf:{repo}@{revision}", OFFLINE_HINT.format(repo=repo, rev=revision, err=err)) from None
    return rows_to_dataset(corpus, queries, qrels, repo, revision)
