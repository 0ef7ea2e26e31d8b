"""The legal graph of a whole corpus: every article's references, resolved against every article id of it.

Ingest computes the same edges article by article while indexing (``ingest/bulk.article_document``), with the one
:class:`CorpusReading` of the corpus; this reads them for the corpus at once, for ``graph export`` and the
benchmarks, with no node: the index holds exactly what the extractor gives for the same text and
``references_version``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from nomos.ingest.records import Article
from nomos.legal.graph.edges import Reference
from nomos.legal.graph.insertions import inserted_runs
from nomos.legal.graph.references import extract_references
from nomos.legal.text.ids import IdResolver


def own_source(article: Article) -> str:
    """The law an article belongs to: its ``source``, else its id's prefix."""
    return article.source or article.id.split("::", 1)[0]


@dataclass(frozen=True)
class CorpusReading:
    """What reading one article's references needs from the whole corpus: the resolver over its ids, and the law
    each article's bare references point into.

    That law is the article's own, except for the articles that are a chapter another law inserts («Μετά από το
    άρθρο 108 του ν. 4442/2016 προστίθεται Κεφάλαιο ΙΘ’ ως εξής: «…», split by the corpus into articles of the
    amending law, :mod:`nomos.legal.graph.insertions`): theirs is the host law's, and the host law's number for each
    (``N_4442_2016::111``) resolves to the corpus article that holds its text (``N_4796_2021::111``). Both depend on
    neighbouring articles, so a resumed load builds this over the whole corpus too."""

    resolver: IdResolver
    sources: Mapping[str, str]
    # the corpus read (the text in force, :class:`nomos.ingest.in_force.CorpusInForce`, is computed over it) and
    # what was read already: each article's references, read once for ingest and the text in force alike
    articles: tuple[Article, ...] = ()
    _read: dict[tuple[str, str, str, str], list[Reference]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, articles: Sequence[Article]) -> CorpusReading:
        inserted = dict(inserted_runs((a.id, own_source(a), a.text) for a in articles))
        aliases = {f"{host}::{article_id.split('::', 1)[1]}": article_id for article_id, host in inserted.items()}
        return cls(IdResolver.from_ids((a.id for a in articles), aliases), inserted, tuple(articles))

    def source(self, article: Article) -> str:
        """The law ``article``'s bare references («του άρθρου 7», «του παρόντος») point into."""
        return self.sources.get(article.id) or own_source(article)

    def references(self, article: Article) -> list[Reference]:
        key = (article.id, article.text, self.source(article), article.title)
        if key not in self._read:
            self._read[key] = extract_references(article.id, article.text, self.resolver, self.source(article),
                                                 article.title)
        return list(self._read[key])


def corpus_references(articles: Sequence[Article], reading: CorpusReading | None = None) -> Iterator[Reference]:
    """Every reference of every article, in corpus order, then reading order."""
    reading = reading or CorpusReading.of(articles)
    for a in articles:
        yield from reading.references(a)


def count_kinds(references: Iterable[Reference]) -> dict[str, dict[str, int]]:
    """Edges per kind, resolved (target in the corpus) and not."""
    resolved: Counter[str] = Counter()
    unresolved: Counter[str] = Counter()
    for r in references:
        (resolved if r.target else unresolved)[r.kind] += 1
    return {"resolved": dict(sorted(resolved.items())), "unresolved": dict(sorted(unresolved.items()))}
