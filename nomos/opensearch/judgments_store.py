"""Relevance judgments in OpenSearch: what a law library's readers said about the articles a search returned.

One document per (query, article, user), in an index of its own next to the articles (:func:`index_name`), created
on the first write with a strict mapping (an unexpected field is refused by OpenSearch, not silently mapped).
The document ``_id`` is a hash of the normalised query, the article and the user, so grading the same article for
the same case again overwrites the earlier grade (``created`` is kept, ``updated`` moves).

Plain data in and out (:class:`Judgment`, dicts of summaries), like ``results_store.py``: checking what a person
typed is the portal's job (``nomos/portal/judgments.py``), turning judgments into qrels the export stage's
(``nomos/stages/judgments.py``). This module never imports ``nomos.eval``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import NotFoundError

from nomos.query_text import MAX_QUERY_CHARS  # noqa: F401 - judged queries: the search box's bound

# Not "<alias>-judgments": the indexer prunes old article versions with the pattern "<alias>-*", which would
# delete the library's judgments on the next re-index.
SUFFIX = "_judgments"
# a judged query is a case as the search box takes it; its keyword (exact lookups) is kept up to 8,191 characters,
# since Lucene refuses a term over 32,766 bytes (a UTF-8 character takes up to 4)
KEYWORD_CHARS = 8191
MAX_NOTE_CHARS = 1000
MAX_LIST = 10_000  # OpenSearch's default index.max_result_window: one page of judgments for one query
MAX_QUERIES = 1000  # judged queries the summary lists (the most recently updated first)

MAPPING: dict[str, Any] = {
    "settings": {
        "index": {"number_of_shards": 1, "auto_expand_replicas": "0-1"},  # a copy on a second node where there is one
    },
    "mappings": {
        "dynamic": "strict",
        "properties": {
            "query": {"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": KEYWORD_CHARS}}},
            "query_id": {"type": "keyword"},
            "article_id": {"type": "keyword"},
            "grade": {"type": "byte"},
            "note": {"type": "text"},
            "user": {"type": "keyword"},
            "method": {"type": "keyword"},
            "created": {"type": "date"},
            "updated": {"type": "date"},
        },
    },
}


def index_name(alias: str) -> str:
    """The judgments index of an articles alias: ``nomos-articles`` → ``nomos-articles_judgments``."""
    return alias + SUFFIX


_SPACE = re.compile(r"\s+")


def normalise_query(text: str) -> str:
    """What makes two typed cases the same query: Unicode NFC, case folded (Greek final sigma included), runs of
    white space as one space, trimmed. The analyzers ignore case and spacing too, so such queries get the same
    ranking and should share their judgments."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text).casefold()).strip()


def query_id(text: str) -> str:
    """A stable id of the normalised query (16 hex digits of its SHA-256): the same on every machine and run, so an
    exported qrels file can be compared with a later export."""
    return hashlib.sha256(normalise_query(text).encode("utf-8")).hexdigest()[:16]


def judgment_id(query: str, article_id: str, user: str) -> str:
    """The document ``_id``: one judgment per (query, article, user), so re-grading overwrites."""
    key = "\x1f".join((query_id(query), article_id, user))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class Judgment:
    """One stored judgment. ``grade``: 0 not relevant, 1 relevant, 2 highly relevant."""

    id: str
    query: str
    query_id: str
    article_id: str
    grade: int
    user: str
    created: str
    updated: str
    note: str | None = None
    method: str | None = None  # the retrieval method whose result list the article was graded in

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _from_source(doc_id: str, src: dict[str, Any]) -> Judgment:
    return Judgment(id=doc_id, query=src["query"], query_id=src["query_id"], article_id=src["article_id"],
                    grade=int(src["grade"]), user=src["user"], created=src["created"], updated=src["updated"],
                    note=src.get("note"), method=src.get("method"))


def ensure_index(client: OpenSearch, alias: str) -> str:
    """Create the judgments index if it does not exist yet (a concurrent creation is no error); returns its name."""
    name = index_name(alias)
    if not client.indices.exists(index=name):
        client.indices.create(index=name, body=MAPPING, params={"ignore": 400})
    return name


def article_exists(client: OpenSearch, alias: str, article_id: str) -> bool:
    """Whether the articles alias holds this article (a judgment must name a real one)."""
    return bool(client.exists(index=alias, id=article_id))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def put_judgment(client: OpenSearch, alias: str, *, query: str, article_id: str, grade: int, user: str,
                 note: str | None = None, method: str | None = None) -> tuple[Judgment, bool]:
    """Store (or overwrite) the judgment of ``user`` on ``article_id`` for ``query``; returns it and whether it
    was new. Refreshes the index, so the list and page show it at once (judgments come at a person's pace).

    One ``update`` with an ``upsert``: ``created`` is written only the first time, everything else is replaced
    (a re-grade without a note clears the old note)."""
    name = ensure_index(client, alias)
    now = _now()
    doc = {"query": query, "query_id": query_id(query), "article_id": article_id, "grade": int(grade), "user": user,
           "note": note, "method": method, "updated": now}
    doc_id = judgment_id(query, article_id, user)
    resp = client.update(index=name, id=doc_id, body={"doc": doc, "upsert": {**doc, "created": now}},
                         params={"refresh": "true", "retry_on_conflict": 3, "_source": "true"})
    return _from_source(doc_id, resp["get"]["_source"]), resp.get("result") == "created"


def _search(client: OpenSearch, alias: str, body: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return client.search(index=index_name(alias), body=body)
    except NotFoundError:
        return None  # nothing judged yet: the index is made on the first write


def list_judgments(client: OpenSearch, alias: str, *, query: str | None = None, qid: str | None = None,
                   user: str | None = None, limit: int = MAX_LIST) -> list[Judgment]:
    """The judgments of one query (by its text or its id), optionally of one user, ordered by article id then user."""
    filters: list[dict[str, Any]] = []
    if query is not None:
        filters.append({"term": {"query_id": query_id(query)}})
    if qid is not None:
        filters.append({"term": {"query_id": qid}})
    if user is not None:
        filters.append({"term": {"user": user}})
    body = {"query": {"bool": {"filter": filters}}, "size": min(limit, MAX_LIST),
            "sort": [{"article_id": "asc"}, {"user": "asc"}]}
    resp = _search(client, alias, body)
    return [] if resp is None else [_from_source(h["_id"], h["_source"]) for h in resp["hits"]["hits"]]


def query_summaries(client: OpenSearch, alias: str, limit: int = MAX_QUERIES, offset: int = 0) -> list[dict[str, Any]]:
    """One row per judged query, the most recently updated first (a page of ``limit`` rows after ``offset``): its
    id and text, how many articles and users, how many judgments of each grade, and the last update. A page lies
    within the first :data:`MAX_LIST` queries."""
    offset = max(0, min(offset, MAX_LIST - 1))
    limit = max(1, min(limit, MAX_LIST - offset))
    body = {
        "size": 0,
        "aggs": {"queries": {
            "terms": {"field": "query_id", "size": offset + limit, "order": [{"last": "desc"}, {"_key": "asc"}]},
            "aggs": {
                "page": {"bucket_sort": {"from": offset, "size": limit}},
                "last": {"max": {"field": "updated"}},
                "articles": {"cardinality": {"field": "article_id"}},
                "users": {"cardinality": {"field": "user"}},
                "grades": {"terms": {"field": "grade", "size": 3}},
                "text": {"top_hits": {"size": 1, "sort": [{"updated": "desc"}], "_source": ["query"]}},
            },
        }},
    }
    resp = _search(client, alias, body)
    if resp is None:
        return []
    rows = []
    for b in resp["aggregations"]["queries"]["buckets"]:
        grades = {int(g["key"]): int(g["doc_count"]) for g in b["grades"]["buckets"]}
        rows.append({
            "query_id": b["key"], "query": b["text"]["hits"]["hits"][0]["_source"]["query"],
            "articles": int(b["articles"]["value"]), "users": int(b["users"]["value"]), "judgments": int(b["doc_count"]),
            "grades": {g: grades.get(g, 0) for g in (0, 1, 2)}, "updated": b["last"]["value_as_string"],
        })
    return rows


def judged_queries(client: OpenSearch, alias: str) -> int:
    """How many queries have judgments (OpenSearch's cardinality: exact below 3,000): the pager's total."""
    resp = _search(client, alias, {"size": 0, "aggs": {"n": {"cardinality": {"field": "query_id",
                                                                            "precision_threshold": 3000}}}})
    return 0 if resp is None else int(resp["aggregations"]["n"]["value"])


def all_judgments(client: OpenSearch, alias: str, user: str | None = None) -> Iterator[Judgment]:
    """Every stored judgment (optionally of one user), in no particular order: the export sorts."""
    name = index_name(alias)
    if not client.indices.exists(index=name):
        return
    query: dict[str, Any] = {"query": {"term": {"user": user}} if user is not None else {"match_all": {}}}
    for h in helpers.scan(client, query=query, index=name):
        yield _from_source(h["_id"], h["_source"])
