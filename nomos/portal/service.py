"""What the portal's pages and API ask of the retrieval packages: a search with facets (and a react trace), an
article page. Plain synchronous functions; the app runs them in worker threads.

Retrievers come from :func:`nomos.retrieval.registry.make_retriever`, exactly as the CLI builds them; nothing here writes a
BM25 query of its own.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Mapping, Protocol, TypeVar, cast

from opensearchpy import OpenSearch

from nomos.errors import ConfigError
from nomos.retrieval.articles import (
    AreaFacet,
    Article,
    Facet,
    article_page,
    faceted_search,
    ids_facets,
    law_names,
    matching_ids,
)
from nomos.retrieval.base import Hit, Retriever
from nomos.retrieval.bm25 import BM25Retriever, FacetedHits
from nomos.retrieval.decorate import decorate
from nomos.retrieval.knn import index_has_vectors
from nomos.retrieval.llm import resolve_llm_settings
from nomos.retrieval.registry import (
    BEST_WITH_VECTORS,
    DEFAULT_METHOD,
    MethodOptions,
    best_method,
    make_retriever,
    method_spec,
    portal_methods,
)
from nomos.settings import Settings

# The methods a person can choose (the registry's portal methods), in the order the page lists them, with their
# Greek labels.
METHOD_LABELS: dict[str, str] = {s.name: s.label for s in portal_methods()}
FILTER_DEPTH = 100  # methods that cannot filter inside OpenSearch: filter this many candidates, keep k
RETRIEVER_TTL_S = 60.0  # the BM25 retriever (and the search type it looked up for the index) is rebuilt this often
T = TypeVar("T")


class FacetedRetriever(Protocol):
    """A retriever that answers a results page with its facets and snippets folded into its ranking's requests
    (``MethodSpec.faceted``: BM25 and kNN one request, hybrid's pool fusion three)."""

    def search_faceted(self, query: str, k: int, aggs: Mapping[str, Any],
                       post_filter: Mapping[str, Any] | None = None) -> FacetedHits: ...


class MethodUnavailable(ConfigError):
    """The method exists but this portal cannot run it (no LLM endpoint, or no vectors in the index)."""


@dataclass
class SearchOutcome:
    query: str
    method: str
    k: int
    source: str | None
    hits: list[Hit]
    facets: list[Facet]
    total: int  # articles matching (bm25), candidates ranked (knn, hybrid: kNN's top 100) or hits ranked (LLM methods)
    took_ms: float
    trace: list[dict[str, Any]] | None = None
    area: str | None = None
    areas: list[AreaFacet] = field(default_factory=list)  # the legal-area facet, beside ``facets`` (sources)
    reranked: str | None = None  # the judge that re-ordered the top (NOMOS_RERANK), shown on the page


@dataclass
class Kept(Generic[T]):
    """A value looked up at most once per ``ttl`` seconds (the portal's lookups of what changes rarely: law names,
    the LLM endpoint, which methods the index serves, the BM25 retriever). A lookup that raises keeps nothing.
    Worker threads may race to refresh it; both look up the same thing, and the last one is kept."""

    ttl: float = RETRIEVER_TTL_S
    _at: float | None = None
    _value: T | None = None

    def get(self, load: Callable[[], T]) -> T:
        now = time.monotonic()
        if self._at is None or now - self._at > self.ttl:
            self._value, self._at = load(), now
        return cast(T, self._value)


@dataclass
class Portal:
    """The portal's state, kept on ``app.state.portal``: settings, the one OpenSearch client, and caches."""

    settings: Settings
    client: OpenSearch
    llm_deadline: float = 90.0
    _methods: Kept[dict[str, bool]] = field(default_factory=lambda: Kept(), repr=False)
    _local: threading.local = field(default_factory=threading.local, repr=False)
    _faceted: dict[str, Kept[BM25Retriever]] = field(default_factory=dict, repr=False)
    _llm: Kept[Settings] = field(default_factory=lambda: Kept(), repr=False)
    _laws: Kept[dict[str, str]] = field(default_factory=lambda: Kept(), repr=False)

    def laws(self) -> dict[str, str]:
        """Legal source -> law name for the facets (:func:`law_names`), looked up at most once a minute: pages
        then leave the name's sub-aggregation out. A source indexed since shows under its code until then."""
        return self._laws.get(lambda: law_names(self.client, self.index))

    def llm_settings(self) -> Settings:
        """The settings LLM methods run with: the configured endpoint, else a local server (``cli.py llm
        start``) found on NOMOS_LLM_PORT, looked up at most once a minute (one started later shows up)."""
        return self._llm.get(lambda: resolve_llm_settings(self.settings))

    @property
    def llm_configured(self) -> bool:
        llm = self.llm_settings()
        return bool(llm.llm_base_url and llm.llm_model)

    @property
    def index(self) -> str:
        return self.settings.index_alias

    def has_vectors(self) -> bool:
        return index_has_vectors(self.client, self.index, self.settings.embedder)

    def methods(self) -> dict[str, bool]:
        """Which methods this portal can run now (cached for a minute; unknown while the node is down)."""
        try:
            return self._methods.get(lambda: self._available(self.has_vectors()))
        except Exception:  # noqa: BLE001 - the node may be down; the page still renders and says so elsewhere
            return self._available(False)  # not kept: asked again on the next page

    def _available(self, vectors: bool) -> dict[str, bool]:
        return {s.name: (vectors or not s.needs_vectors) and (self.llm_configured or not s.needs_llm) for s in portal_methods()}

    def default_method(self) -> str:
        """The best method this index can serve (hybrid with vectors, else BM25): what a search without a method
        gets, and the page says so."""
        return best_method(bool(self.methods().get(BEST_WITH_VECTORS)))

    def check_method(self, method: str) -> None:
        spec = method_spec(method)
        if not spec.portal:
            raise MethodUnavailable(f"η μέθοδος {method} δεν προσφέρεται στην πύλη")
        if spec.needs_llm and not self.llm_configured:
            raise MethodUnavailable(
                f"η μέθοδος {method} χρειάζεται LLM: ο διαχειριστής ορίζει NOMOS_LLM_BASE_URL και NOMOS_LLM_MODEL "
                "ή ξεκινά τον τοπικό διακομιστή (python cli.py llm start)")
        if spec.needs_vectors and not self.methods().get(method):
            raise MethodUnavailable(f"η μέθοδος {method} χρειάζεται διανύσματα ({self.settings.embedder}) στο ευρετήριο")

    def faceted(self, method: str) -> FacetedRetriever:
        """The page's retriever for a faceted method, built by :func:`make_retriever` as the CLI's ``search``
        builds it. BM25's is kept for ``RETRIEVER_TTL_S`` and shared by worker threads (a new one per page would
        look up the index's shard count, its search type, on every search; searching keeps no per-call state on
        it). Dense and fused ones are per thread (:meth:`_cached`: the encoder loads once, the vector cache is
        per thread)."""
        if method_spec(method).needs_vectors:
            return cast(FacetedRetriever, self._cached(method))
        kept = self._faceted.setdefault(method, Kept())
        return kept.get(lambda: cast(BM25Retriever, make_retriever(self.settings, method, self.client, MethodOptions(highlight=True))))

    def _cached(self, method: str) -> Retriever:
        """One retriever per worker thread for the methods without an LLM (a dense encoder loads once; its vector
        cache is per thread)."""
        cache = self._local.__dict__.setdefault("retrievers", {})
        if method not in cache:
            cache[method] = make_retriever(self.settings, method, self.client, MethodOptions())
        return cache[method]

    # --------------------------------------------------------------------------------------------- search
    def search(self, query: str, method: str = DEFAULT_METHOD, k: int = 10, source: str | None = None,
               area: str | None = None) -> SearchOutcome:
        self.check_method(method)
        spec = method_spec(method)
        started = time.perf_counter()
        trace = None
        if spec.faceted and not self.settings.rerank:
            # ranking, snippets and facets together (BM25, kNN: one request; hybrid: two); the source and area
            # filters restrict the hits, not the facets. faceted_search calls only search_faceted, which all of them have
            hits, both, total = faceted_search(cast(BM25Retriever, self.faceted(method)), query, k, source, area=area,
                                               laws=self.laws())
        else:
            # LLM methods and re-ranked pages (NOMOS_RERANK) rank outside OpenSearch: the ranking, then its facets,
            # sources and snippets (3-4 requests). An LLM retriever or judge is built per search (its LLM client
            # belongs to the event loop of one search)
            llm = spec.needs_llm or self.settings.rerank == "llm"
            retriever = make_retriever(self.llm_settings(), method, self.client) if llm else self._cached(method)
            result = retriever.search_many({"q": query}, max(k, FILTER_DEPTH) if source or area else k)
            ranked = result.hits["q"]
            rounds = result.traces.get("q", {}).get("rounds")  # a round-by-round trace (react) is shown
            if rounds is not None:
                trace = list(rounds)
            both = ids_facets(self.client, self.index, [h.doc_id for h in ranked], source=source, area=area, laws=self.laws())
            total = len(ranked)
            if source or area:
                keep = matching_ids(self.client, self.index, [h.doc_id for h in ranked], source, area)
                ranked = [h for h in ranked if h.doc_id in keep]
            hits = decorate(self.client, self.index, ranked[:k], query)
        took = 1000 * (time.perf_counter() - started)
        return SearchOutcome(query, method, k, source, hits, both.sources, total, took, trace, area=area, areas=both.areas,
                             reranked=self.settings.rerank)

    def article(self, article_id: str, query: str | None = None) -> Article | None:
        return article_page(self.client, self.index, article_id, query=query or None)

    def health(self) -> dict[str, Any]:
        count = self.client.count(index=self.index)["count"]
        return {"status": "ok", "index": self.index, "articles": int(count), "methods": self.methods()}

