"""Cross-file checks a loader runs once every file has parsed: the benchmark's hygiene rules."""

from __future__ import annotations

from typing import Iterable

from nomos.ingest.records import Article, DatasetError, Qrels, Query


def check_unique(ids: Iterable[tuple[str, str]], what: str) -> None:
    """Fail on the first id seen twice; ``ids`` yields (location, id) pairs."""
    first_seen: dict[str, str] = {}
    for where, item_id in ids:
        if item_id in first_seen:
            raise DatasetError(where, f"duplicate {what} id {item_id!r} (first seen at {first_seen[item_id]})")
        first_seen[item_id] = where


def check_references(
    articles: Iterable[Article],
    queries: Iterable[Query],
    qrels: Qrels,
    qrels_where: dict[tuple[str, str], str],
    queries_where: str,
) -> None:
    """Every judgment names a known article and query, and every query has at least one judgment."""
    article_ids = {a.id for a in articles}
    query_list = list(queries)
    query_ids = {q.id for q in query_list}
    for qid, docs in qrels.items():
        for doc_id in docs:
            where = qrels_where.get((qid, doc_id), "qrels")
            if qid not in query_ids:
                raise DatasetError(where, f"judgment names unknown query {qid!r}")
            if doc_id not in article_ids:
                raise DatasetError(where, f"judgment for query {qid!r} names unknown article {doc_id!r}")
    unjudged = [q.id for q in query_list if not any(g > 0 for g in qrels.get(q.id, {}).values())]
    if unjudged:
        shown = ", ".join(unjudged[:10]) + (" …" if len(unjudged) > 10 else "")
        raise DatasetError(queries_where, f"{len(unjudged)} queries have no relevant judgment: {shown}")
