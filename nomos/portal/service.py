"""The portal's state and what its pages ask of the packages: a search (through the same
:class:`~nomos.stages.searching.SearchStage` as ``cli.py search``), an article page, the methods on offer and the
node's health. Plain synchronous methods; the routes run them in worker threads (:func:`nomos.portal.web.run`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio
from opensearchpy import OpenSearch

from nomos.errors import ClusterError
from nomos.legal.inforce.versions import Version
from nomos.opensearch.transport import Transport
from nomos.pages.articles import Article, ArticleRef, article_page
from nomos.pages.graph import ArticleGraph, article_graph, law_contents
from nomos.pages.in_force import (
    ArticleInForce,
    ArticleVersions,
    article_in_force,
    article_versions,
    versions_of_many,
)
from nomos.pages.named import by_id
from nomos.portal.heap import HeapFreeze
from nomos.portal.settings import PortalConfig
from nomos.retrieval.registry import BEST_WITH_VECTORS, best_method, portal_methods
from nomos.stages.searching import MethodUnavailable, SearchPage, SearchRequest, SearchStage
from nomos.stages.settings import StageSettings

# The methods a person can choose (the registry's portal methods), in the order the page lists them, with their
# Greek labels.
METHOD_LABELS: dict[str, str] = {s.name: s.label for s in portal_methods()}

__all__ = ["METHOD_LABELS", "MethodUnavailable", "Portal"]


@dataclass
class Portal:
    """The portal's state, kept on ``app.state.portal`` (routes get it with ``Depends(get_portal)``): settings,
    the one OpenSearch client and its :class:`SearchStage`, and the LLM methods' deadline and slots (LLM searches
    run on a few threads of their own, so a slow LLM never holds up BM25 pages)."""

    settings: PortalConfig
    client: OpenSearch
    llm_deadline: float = 90.0
    llm_slots: int = 4
    heap: HeapFreeze = field(default_factory=HeapFreeze)  # enabled where the portal is served (nomos.portal.heap)
    deadline: float = field(init=False)  # every other request's, from settings.portal_deadline_seconds
    searcher: SearchStage = field(init=False, repr=False)
    llm_limiter: anyio.CapacityLimiter = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.searcher = SearchStage(self.settings, self.client, offered=METHOD_LABELS)
        self.client = self.searcher.client
        self.llm_limiter = anyio.CapacityLimiter(self.llm_slots)
        self.deadline = self.settings.portal_deadline_seconds

    @property
    def index(self) -> str:
        return self.settings.index_alias

    @property
    def transport(self) -> Transport:
        """The searcher's transport: every read of a page goes through it, with no retries (a page while the node is
        down answers 503 at once, inside its deadline) and typed errors."""
        return self.searcher.transport

    def laws(self) -> dict[str, str]:
        return self.searcher.laws()

    def llm_settings(self) -> StageSettings:
        return self.searcher.llm_settings()

    @property
    def llm_configured(self) -> bool:
        return self.searcher.llm_configured

    def methods(self) -> dict[str, bool]:
        """Which methods this portal can run now. While the node cannot say whether the index holds vectors, the
        ones that need none (asked again on the next page)."""
        try:
            vectors = self.searcher.has_vectors()
        except ClusterError:
            vectors = False  # the page still renders its form; a search reports the failure itself
        return _offer(vectors, self.llm_configured)

    def known_methods(self) -> dict[str, bool] | None:
        """:meth:`methods` from what was looked up within the searcher's keep time, else None; sends nothing (a
        page renders its method list with it without a second trip to a worker thread)."""
        known = self.searcher.known_offer()
        return None if known is None else _offer(*known)

    def default_method(self) -> str:
        """The best method this index can serve (hybrid with vectors, else BM25): what the empty form selects."""
        return best_method(bool(self.methods().get(BEST_WITH_VECTORS)))

    def check_method(self, method: str) -> None:
        """Refuse a method this portal does not offer or cannot run (no LLM): :class:`MethodUnavailable`."""
        self.searcher.check(method)

    def search(self, query: str, method: str | None = None, k: int = 10, source: str | None = None,
               area: str | None = None) -> SearchPage:
        """One results page; ``method`` None: the best the index serves (the page says so)."""
        page = self.searcher.search(SearchRequest(query, method, k, source, area))
        self.heap.after_search(page.method)
        return page

    def article(self, article_id: str, query: str | None = None, full: bool = False) -> Article | None:
        """The article's page; an id typed another way (any case, Latin look-alike letters: «PK::386A») finds the
        one article it can only mean (:func:`~nomos.pages.named.by_id`). Unless ``full``, a text longer than
        ``NOMOS_PORTAL_ARTICLE_CHARS`` is cut to its start (the page links to the rest)."""
        cap = None if full else self.settings.portal_article_chars
        found = article_page(self.transport, self.index, article_id, query=query or None, max_chars=cap)
        if found is None:
            named = by_id(self.transport, self.index, article_id)
            if named:
                found = article_page(self.transport, self.index, named[0].doc_id, query=query or None, max_chars=cap)
        return found

    def graph(self, article_id: str, text: str | None = None) -> ArticleGraph | None:
        """The article's references, who cites it and what amends it (:func:`~nomos.pages.graph.article_graph`);
        None for an unknown id."""
        return article_graph(self.transport, self.index, article_id, text)

    def article_and_graph(self, article_id: str, query: str | None = None, full: bool = False
                          ) -> tuple[Article, ArticleGraph] | None:
        """An article page's two parts, the graph of the article the id was found as (its links past a cut text's
        end are not shown: :func:`~nomos.portal.links.linked_text` keeps only spans inside the text it is given)."""
        art = self.article(article_id, query, full)
        if art is None:
            return None
        graph = self.graph(art.id, art.text)  # the page's text (cut or whole): not fetched a second time
        return art, graph or ArticleGraph(art.id)

    def in_force(self, article_id: str) -> ArticleInForce | None:
        """The article's text in force as stored at ingest (:func:`~nomos.pages.in_force.article_in_force`);
        an id typed another way finds the one article it can only mean, as the article page does; None: unknown."""
        found = article_in_force(self.transport, self.index, article_id)
        if found is None:
            named = by_id(self.transport, self.index, article_id)
            if named:
                found = article_in_force(self.transport, self.index, named[0].doc_id)
        return found

    def versions(self, article_id: str) -> ArticleVersions | None:
        """Every stored version of the article (:func:`~nomos.pages.in_force.article_versions`), the id
        found as :meth:`in_force` finds it; None: unknown."""
        found = article_versions(self.transport, self.index, article_id)
        if found is None:
            named = by_id(self.transport, self.index, article_id)
            if named:
                found = article_versions(self.transport, self.index, named[0].doc_id)
        return found

    def versions_of(self, ids: list[str]) -> dict[str, tuple[Version, ...]]:
        """The stored versions of the amended articles among ``ids`` (one ``mget``): a search's wording as of a
        law (:mod:`nomos.portal.versions`)."""
        return versions_of_many(self.transport, self.index, ids)

    def law(self, source: str) -> tuple[str, list[ArticleRef]]:
        """A law's table of contents: its name and articles in article-number order (empty: unknown source)."""
        return law_contents(self.transport, self.index, source)

    def health(self) -> dict[str, Any]:
        count = self.transport.count(self.index, what="the articles")
        return {"status": "ok", "index": self.index, "articles": int(count), "methods": self.methods()}


def _offer(vectors: bool, llm: bool) -> dict[str, bool]:
    """Which portal methods run with (or without) the embedder's vectors and a configured LLM."""
    return {s.name: (vectors or not s.needs_vectors) and (llm or not s.needs_llm) for s in portal_methods()}
