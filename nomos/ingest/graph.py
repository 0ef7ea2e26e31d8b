"""The legal graph of a whole corpus: every article's references, resolved against every article id of it.

Ingest computes the same edges article by article while indexing (``ingest/bulk.article_document``); this reads
them for the corpus at once, for ``graph export`` and the benchmarks, with no node: the index holds exactly what
the extractor gives for the same text and ``references_version``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from nomos.ingest.records import Article
from nomos.mappings.citations import IdResolver
from nomos.mappings.references import Reference, extract_references


def own_source(article: Article) -> str:
    """The law an article's bare references point into: its ``source``, else its id's prefix."""
    return article.source or article.id.split("::", 1)[0]


def corpus_references(articles: Sequence[Article], resolver: IdResolver | None = None) -> Iterator[Reference]:
    """Every reference of every article, in corpus order, then reading order."""
    resolver = resolver or IdResolver.from_ids(a.id for a in articles)
    for a in articles:
        yield from extract_references(a.id, a.text, resolver, own_source(a))


def count_kinds(references: Iterable[Reference]) -> dict[str, dict[str, int]]:
    """Edges per kind, resolved (target in the corpus) and not."""
    resolved: Counter[str] = Counter()
    unresolved: Counter[str] = Counter()
    for r in references:
        (resolved if r.target else unresolved)[r.kind] += 1
    return {"resolved": dict(sorted(resolved.items())), "unresolved": dict(sorted(unresolved.items()))}
