"""Bulk requests for articles: one action per article, the article id as the document id.

Using the article id as ``_id`` makes loading idempotent: a re-run or a resumed run overwrites, never duplicates.
Each document carries its legal-graph edges (``cites``, ``amends``, ``references``, ``references_version``), read
from its text at load time against the ids of the whole corpus (:mod:`nomos.legal.graph.references`), and, where corpus
articles amend it, its text in force beside the original (``in_force``, ``in_force_text``, ``in_force_version``:
:mod:`nomos.ingest.in_force`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from opensearchpy import OpenSearch, helpers

from nomos.errors import ClusterError
from nomos.ingest.bridge import NO_BRIDGE, Bridge
from nomos.ingest.graph import CorpusReading, own_source
from nomos.ingest.in_force import CorpusInForce, in_force_fields
from nomos.ingest.records import Article
from nomos.legal.graph.edges import REFERENCES_VERSION, edge_fields
from nomos.legal.text.lemmas import VERSION as LEMMAS_VERSION
from nomos.legal.text.lemmas import lemma_text


@dataclass(frozen=True)
class BulkFailure:
    """One document OpenSearch refused, with its reason as OpenSearch gave it."""

    article_id: str
    status: int
    reason: str


class BulkError(ClusterError):
    """Some documents were not indexed; lists each article id and OpenSearch's reason."""

    def __init__(self, failures: list[BulkFailure], total: int) -> None:
        shown = "\n".join(f"  {f.article_id}: [{f.status}] {f.reason}" for f in failures[:20])
        more = f"\n  … and {len(failures) - 20} more" if len(failures) > 20 else ""
        super().__init__(f"{len(failures)} of {total} articles were not indexed:\n{shown}{more}")
        self.failures = failures


def content_sha(article: Article, reference_source: str | None = None, in_force: str = "", bridge: str = "") -> str:
    """A hash of what is indexed about an article, to verify content after a crash and re-run. The area is part of
    it: a changed area table (or corpus field) re-sends exactly the articles whose area moved. So are the reference
    extractor's version and the law the article's bare references point into (its own, or the host law of a chapter
    it belongs to, which its neighbours' text decides: :class:`~nomos.ingest.graph.CorpusReading`): its edges
    change only when one of those does, and then they are recomputed (the ids they resolve against are the
    corpus's, which names the index itself). ``in_force``: the digest of the article's text in force
    (:func:`~nomos.ingest.in_force.in_force_key`), "" for an article nothing amends (whose hash is then what it
    always was); an amending article's changed text re-sends the article it amends."""
    h = hashlib.sha256()
    for part in (article.id, article.title, article.text, article.source, article.law, article.area,
                 REFERENCES_VERSION, reference_source or own_source(article), LEMMAS_VERSION):
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    if in_force:
        h.update(b"in_force\x00" + in_force.encode("utf-8"))
    if bridge:  # anchors and headings (nomos.ingest.bridge.Bridge.key): "" where the article has neither
        h.update(b"bridge\x00" + bridge.encode("utf-8"))
    return h.hexdigest()


def article_document(article: Article, reading: CorpusReading | None = None, bridge: Bridge = NO_BRIDGE,
                     in_force_of: CorpusInForce | None = None) -> dict[str, Any]:
    """The ``_source`` of an article document (``content`` is filled by ``copy_to``), with its graph edges read
    by ``reading`` (the whole corpus's; None: the article alone, so only unresolved edges), its anchors and
    headings from ``bridge`` (the whole corpus's; none by default) and its text in force from ``in_force_of`` (the
    whole corpus's, computed once; None: computed here over the corpus ``reading`` read)."""
    reading = reading or CorpusReading.of([article])
    corpus_in_force = in_force_of or CorpusInForce.of(reading.articles, reading)
    in_force = corpus_in_force.get(article)
    in_force_part = in_force_fields(in_force)
    restates = corpus_in_force.restates(article)  # the articles whose new wording it mostly is (search's precede)
    return {
        "article_id": article.id,
        "title": article.title,
        "text": article.text,
        "source": article.source,
        "law": article.law,
        "area": article.area,
        "number": article.number,
        "text_words": len(article.text.split()),  # the learned ranker's length feature (nomos.retrieval.ltr)
        "content_sha": content_sha(article, reading.source(article), corpus_in_force.digest(article),
                                  bridge.key(article)),
        **edge_fields(reading.references(article)),
        **in_force_part,
        **({"restates": restates} if restates else {}),
        # an article a later law inserted whole into another law (its corpus id is the inserting law's): the host law
        # (nomos.legal.graph.insertions), which the results list and the article page name (nomos.pages.standing)
        **({"inserted_into": reading.sources[article.id]} if article.id in reading.sources else {}),
        **bridge.fields(article),
        # the words' dictionary forms, as BM25's lemma clause reads them (nomos.legal.text.lemmas), over what `content`
        # holds: the title, the text and the text in force
        "lemmas": lemma_text(" ".join((article.title, article.text, str(in_force_part.get("in_force_text", ""))))),
    }


def bulk_actions(articles: Iterable[Article], index: str, reading: CorpusReading,
                 bridge: Bridge = NO_BRIDGE, in_force_of: CorpusInForce | None = None) -> Iterator[dict[str, object]]:
    """Index actions (not ``create``): overwriting by id is what makes re-runs safe."""
    in_force_of = in_force_of or CorpusInForce.of(reading.articles, reading)
    for a in articles:
        yield {"_op_type": "index", "_index": index, "_id": a.id,
               "_source": article_document(a, reading, bridge, in_force_of)}


def item_failure(item: dict) -> BulkFailure:
    """A bulk response item that failed, as a :class:`BulkFailure` (id, status, OpenSearch's reason)."""
    return BulkFailure(*_reason(item))


def _reason(item: dict) -> tuple[str, int, str]:
    (op,) = item.values()
    err = op.get("error", {})
    if isinstance(err, dict):
        reason = f"{err.get('type', 'error')}: {err.get('reason', '')}"
        if isinstance(err.get("caused_by"), dict):
            reason += f" (caused by {err['caused_by'].get('type')}: {err['caused_by'].get('reason')})"
    else:
        reason = str(err)
    return str(op.get("_id")), int(op.get("status", 0)), reason


def load_articles(
    client: OpenSearch,
    articles: list[Article],
    index: str,
    chunk_size: int = 500,
    on_progress: Callable[[int], None] | None = None,
    reading: CorpusReading | None = None,
    bridge: Bridge = NO_BRIDGE,
    in_force_of: CorpusInForce | None = None,
) -> int:
    """Bulk-index articles; raises :class:`BulkError` naming every refused article. Returns the count sent.

    ``reading`` reads the edges: the whole corpus's (a resumed load sends only some articles, but they cite all of
    them, and a chapter's host law is read off its neighbours); None: that of ``articles``. ``in_force_of``: the
    texts in force, the whole corpus's likewise; None: over the corpus ``reading`` read."""
    failures: list[BulkFailure] = []
    reading = reading or CorpusReading.of(articles)
    for ok, item in helpers.streaming_bulk(
        client,
        bulk_actions(articles, index, reading, bridge, in_force_of),
        chunk_size=chunk_size,
        max_chunk_bytes=20 * 1024 * 1024,
        raise_on_error=False,
        raise_on_exception=True,
        max_retries=5,
        initial_backoff=1,
    ):
        if not ok:
            failures.append(item_failure(item))
        if on_progress:
            on_progress(1)
    if failures:
        raise BulkError(failures, len(articles))
    return len(articles)
