"""What ingest adds to an article beyond its own words, to bridge everyday language and the statute's.

Two fields, both read over the whole corpus (they depend on other articles), built once per ``index`` run:

* ``anchors`` (:mod:`nomos.ingest.anchors`): what citing articles say around their citations of it;
* ``context`` (:mod:`nomos.ingest.structure`): its law's title and the headings of the part, chapter and section it
  sits in, which the corpus glues to the end of the article before them.

Their digest is part of the article's content hash (:func:`nomos.ingest.bulk.content_sha`), so a re-run re-sends an
article whose anchors or headings changed and nothing else. An article with no anchors and no headings hashes as it
always did.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from nomos.ingest.anchors import NO_ANCHORS, Anchors, anchor_counts, anchors_key, corpus_anchors
from nomos.ingest.graph import CorpusReading
from nomos.ingest.records import Article
from nomos.ingest.structure import law_context


@dataclass(frozen=True)
class Bridge:
    """The corpus-wide anchors and structural contexts, by article id."""

    anchors: Mapping[str, Anchors] = field(default_factory=dict)
    contexts: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, articles: Sequence[Article], reading: CorpusReading) -> Bridge:
        return cls(corpus_anchors(articles, reading), law_context(articles))

    def fields(self, article: Article) -> dict[str, object]:
        """The article document's bridge fields (``mappings/articles.json``)."""
        return {**self.anchors.get(article.id, NO_ANCHORS).fields(),
                "context": self.contexts.get(article.id, article.law)}

    def key(self, article: Article) -> str:
        """A digest of the bridge fields ("" when they hold nothing the hash does not already have: no anchors,
        and a context that is the law's title alone)."""
        anchors = anchors_key(self.anchors.get(article.id, NO_ANCHORS))
        context = self.contexts.get(article.id, article.law)
        headings = "" if " ".join(context.split()) == " ".join(article.law.split()) else context
        if not anchors and not headings:
            return ""
        return hashlib.sha256(f"{anchors}\x00{headings}".encode()).hexdigest()[:16]

    def counts(self, articles: Sequence[Article]) -> dict[str, int]:
        """What ``index`` reports: articles with anchors, anchor texts, articles under a heading."""
        headed = sum(1 for a in articles if " ".join(self.contexts.get(a.id, a.law).split()) != " ".join(a.law.split()))
        return {**anchor_counts(self.anchors, articles), "with_headings": headed}


NO_BRIDGE = Bridge()
