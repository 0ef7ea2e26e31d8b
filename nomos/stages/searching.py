"""The search stage: one query answered the same way for ``cli.py search`` and for the portal's pages and API.

A :class:`SearchStage` holds one OpenSearch client, the LLM settings (resolved once: a running local server is
probed at most once per ``KEEP_S``), and the retrievers it built, keyed by method and options. ``search`` takes a
:class:`SearchRequest` and returns a :class:`SearchPage`: the hits with titles and snippets, the legal-source and
legal-area facets, the total, the time taken, the method used (and whether it was the index's default), a ReAct
trace and the re-ranker, if any.

The stage chooses the method, checks it can run here and builds its retriever; the page itself is built a floor
below, by :class:`nomos.pages.results.ResultsPage`, on one of two paths chosen by what the method can do
(:attr:`MethodSpec.faceted`): a *results page* in the ranking's own requests (BM25, kNN, hybrid without a
re-ranker), or a *ranking, then its page* (LLM methods, re-ranked or other methods). It comes back up whole.

Both rank exactly as the method's retriever ranks (``Retriever.search``): the tests pin the CLI's and the
portal's rankings to it. Only opensearch-py's transport errors are turned into :mod:`nomos.errors` types here
(:func:`cluster_errors`); anything else is a bug and keeps its stack.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import TransportError

from nomos.errors import ConfigError, NomosError, SearchError, VectorsMissing
from nomos.opensearch.client import bound_searches, make_client
from nomos.opensearch.transport import Transport, make_transport, typed_error
from nomos.pages.facets import law_names
from nomos.pages.results import PageQuery, ResultsPage
from nomos.retrieval.amendments import AmendmentRetriever, parse_amendments
from nomos.retrieval.base import FacetedRetriever, Hit, Progress, Retriever
from nomos.retrieval.case_reading import explain_reading
from nomos.retrieval.knn import FACET_DEPTH, VectorReadiness, index_has_vectors, vector_readiness
from nomos.retrieval.llm import not_configured_message
from nomos.retrieval.registry import (
    MethodOptions,
    MethodSpec,
    best_method,
    make_retriever,
    method_spec,
    resolved_options,
)
from nomos.stages.query_cost import query_words
from nomos.stages.search_types import KEEP_S, Kept, MethodUnavailable, SearchPage, SearchRequest, readiness_note
from nomos.stages.settings import StageSettings

__all__ = ["KEEP_S", "Kept", "MethodUnavailable", "SearchPage", "SearchRequest", "SearchStage",
           "cluster_errors", "default_method", "search", "search_page"]


def unavailable_hint(settings: StageSettings) -> str:
    return "start the local node with `python cli.py server start`" if settings.uses_local_node else "check OPENSEARCH_URL"


@contextmanager
def cluster_errors(settings: StageSettings, what: str) -> Iterator[None]:
    """Inside the block, opensearch-py's transport errors become :mod:`nomos.errors` types (ClusterUnavailable,
    IndexNotFound, SearchError… with status and reason), so callers decide by type. Nothing else is caught: every
    retriever sends through :class:`~nomos.opensearch.transport.Transport`, whose errors are typed already."""
    try:
        yield
    except (TransportError, OSConnectionError) as exc:
        user, variable = settings.opensearch_identity()
        raise typed_error(exc, what, url=settings.url, unavailable_hint=unavailable_hint(settings), user=user,
                          variable=variable) from exc


def _key(method: str, options: MethodOptions) -> tuple[str, str]:
    return method, repr(options)  # options may hold filter dicts (unhashable); their repr is stable


class SearchStage:
    """Searches one index (``settings.index_alias``) on one client; see the module's docstring. Safe to share
    between threads: BM25's retriever is shared (it keeps no per-call state), dense and fused ones are per thread
    (an encoder loads once per thread; the vector cache is per thread), LLM ones are built per search (an LLM
    client belongs to the event loop of one search).

    ``offered``: the methods this searcher runs (the portal's list); None: every method."""

    def __init__(self, settings: StageSettings, client: OpenSearch | None = None, *, offered: Iterable[str] | None = None,
                 keep_s: float = KEEP_S) -> None:
        if settings.search_type == "auto":
            # "auto" would look the index's shard count up (a request) to choose dfs only for several shards;
            # OpenSearch makes that choice itself: a search that hits one shard runs query_then_fetch whatever
            # the type asked (TransportSearchAction), so dfs_query_then_fetch gives the same scores either way.
            settings = settings.with_overrides(search_type="dfs_query_then_fetch")
        self.settings = settings
        # every search it sends, the portal's included, is cut by the node past NOMOS_SEARCH_TIMEOUT_SECONDS
        self.client = bound_searches(client if client is not None else make_client(settings.cluster),
                                     settings.search_timeout_seconds)
        # the page helpers' requests (facets, filters, snippets, the index's state): no retries, so a page while the
        # node is down answers at once (503) instead of waiting NOMOS_RETRY_SECONDS; errors name the cluster
        user, variable = settings.opensearch_identity()  # the portal's own account where it has one (for_portal)
        self.transport = Transport(self.client, retry_seconds=0.0, url=settings.url,
                                   unavailable_hint=unavailable_hint(settings), user=user, user_variable=variable)
        # the floor that builds its pages, their snippets made as this stage's settings say (NOMOS_SNIPPETS)
        self.pages = ResultsPage(self.transport, settings.index_alias, self.laws, snippets=settings.snippets)
        self.offered = None if offered is None else tuple(offered)
        self._keep_s = keep_s
        self._llm: Kept[StageSettings] = Kept(keep_s)
        self._vectors: Kept[bool] = Kept(keep_s)
        self._readiness: Kept[VectorReadiness] = Kept(keep_s)
        self._laws: Kept[dict[str, str]] = Kept(keep_s)
        self._shared: dict[tuple[str, str], Kept[FacetedRetriever]] = {}
        self._local = threading.local()

    @property
    def index(self) -> str:
        return self.settings.index_alias

    # ---------------------------------------------------------------------------------------- what it serves
    def llm_settings(self) -> StageSettings:
        """The settings LLM methods run with: the configured endpoint, else a local server (``cli.py llm start``)
        on NOMOS_LLM_PORT, looked up at most once per ``keep_s`` (one started later shows up)."""
        return self._llm.get(self.settings.with_llm_endpoint)

    @property
    def llm_configured(self) -> bool:
        llm = self.llm_settings()
        return bool(llm.llm_base_url and llm.llm_model)

    def has_vectors(self) -> bool:
        """Whether the index holds the embedder's vectors (kept ``keep_s``); a cluster error propagates typed."""
        def look() -> bool:
            with cluster_errors(self.settings, "the index mapping"):
                return index_has_vectors(self.transport, self.index, self.settings.embedder)

        return self._vectors.get(look)

    def known_offer(self) -> tuple[bool, bool] | None:
        """(the index has the embedder's vectors, an LLM is configured) as last looked up, if both are fresh; None
        otherwise. No request: the portal renders a page's method list with it on the event loop, and hops to a
        worker thread (:meth:`has_vectors`, :meth:`llm_settings`) only when it is None."""
        vectors, llm = self._vectors.peek(), self._llm.peek()
        if vectors is None or llm is None:
            return None
        return vectors, bool(llm.llm_base_url and llm.llm_model)

    def default_method(self) -> str:
        """The best method this index serves: hybrid once every article has the embedder's vector, else BM25."""
        return best_method(self.has_vectors())

    def readiness(self) -> VectorReadiness:
        """How far the embedder's vectors are (kept ``keep_s``): what a page says while BM25 stands in for hybrid."""
        def look() -> VectorReadiness:
            with cluster_errors(self.settings, "the vectors' progress"):
                return vector_readiness(self.transport, self.index, self.settings.embedder)

        return self._readiness.get(look)

    def laws(self) -> dict[str, str]:
        """Legal source -> law name for the facets, looked up at most once per ``keep_s`` (pages then leave the
        name's sub-aggregation out). A source indexed since shows under its code until then."""
        def look() -> dict[str, str]:
            with cluster_errors(self.settings, "the law names"):
                return law_names(self.transport, self.index)

        return self._laws.get(look)

    def check(self, method: str, options: MethodOptions = MethodOptions()) -> MethodSpec:
        """The spec of ``method`` if it can run here; else :class:`MethodUnavailable` (or ConfigError for an
        unknown name). Vectors are not checked here: a method that needs them and fails finds out then."""
        try:
            spec = method_spec(method)
        except ValueError as exc:
            raise ConfigError(f"method: {exc}") from None
        if self.offered is not None and method not in self.offered:
            raise MethodUnavailable(f"method {method} is not offered here", method=method, needs="offer")
        if spec.needs_vectors and (options.embedder or self.settings.embedder) == self.settings.embedder:
            self._check_vectors(method)
        judge = resolved_options(self.settings, options).rerank == "llm"
        if (spec.needs_llm or judge) and not self.llm_configured:
            raise MethodUnavailable(not_configured_message(method if spec.needs_llm else "--rerank llm"), method=method,
                                    needs="llm")
        return spec

    def _check_vectors(self, method: str) -> None:
        """Refuse a method that needs the embedder's vectors while they are still being computed (it would search
        only the articles that have theirs, silently): :class:`MethodUnavailable` with how far they are. An index
        that never got them is :class:`VectorsMissing` when the search runs (the same answer as before)."""
        if self.has_vectors():
            return
        progress = self.readiness()
        if progress.in_progress:
            raise MethodUnavailable(
                f"method {method} needs the {self.settings.embedder} vectors of every article, and they are being "
                f"computed ({readiness_note(progress)})", method=method, needs="vectors", readiness=progress,
                hint="search with --method bm25 meanwhile (or name no method: the best the index serves)")

    # ---------------------------------------------------------------------------------------- search
    def search(self, request: SearchRequest) -> SearchPage:
        started = time.perf_counter()
        method = request.method or self.default_method()
        spec = self.check(method, request.options)
        options = resolved_options(self.settings, request.options, method)
        if not query_words(request.query):  # nothing a method could match (empty, emoji, stop words): no articles,
            return SearchPage(request.query, method, request.k, request.source, [], [], 0, 0.0,  # in every method
                              area=request.area, defaulted=request.method is None)
        ask = PageQuery(request.query, request.k, request.source, request.area, request.facets)
        try:
            with cluster_errors(self.settings, f"the {method} search"):
                one_page = self._one_page(spec, method, options, request.k)
                precede = parse_amendments(options.amendments)
                depth = precede.depth if precede.mode == "precede" else 0
                if one_page:
                    results = self.pages.of_page(self._page_retriever(method, options), ask, fallback=not spec.snippets,
                                                 precede=depth)
                else:
                    ranker = self._ranker(spec, method, options)
                    if depth and isinstance(ranker, AmendmentRetriever) and getattr(ranker.first, "reads_restates", False):
                        ranker = ranker.first  # its ranking carries the restates: the page orders it, scores kept
                    else:
                        depth = 0
                    results = self.pages.of_ranking(ranker, ask, deep=not (spec.needs_llm or options.rerank == "llm"),
                                                    precede=depth)
        except SearchError as exc:
            if spec.needs_vectors and not self.has_vectors():
                raise VectorsMissing(
                    f"method {method} needs the {self.settings.embedder} vectors, and index {self.index} has none",
                    status=exc.status, reason=exc.reason,
                    hint=f"re-index with `python cli.py index --embedder {self.settings.embedder}`") from exc
            raise
        dense_read = self._dense_read(spec, method, options, request.query, one_page)
        ready = eta = None
        if request.method is None and method != "hybrid":
            progress = self.readiness()
            ready, eta = (progress.percent, progress.eta_s) if progress.in_progress else (None, None)
        took = 1000 * (time.perf_counter() - started)
        return SearchPage(request.query, method, request.k, request.source, results.hits, results.facets.sources,
                          results.total, took, results.trace, area=request.area, areas=results.facets.areas,
                          reranked=options.second_stage, defaulted=request.method is None, named=list(results.named),
                          cited=results.cited, missing=list(results.missing), hybrid_ready=ready, hybrid_eta_s=eta,
                          score_kind=results.score_kind, standing=results.standing, dense_read=dense_read)

    def _dense_read(self, spec: MethodSpec, method: str, options: MethodOptions, query: str,
                    one_page: bool) -> tuple[int, int, bool] | None:
        """(windows embedded, windows the text makes, whether its question was embedded apart too) where a dense
        method read a long case in part
        (case_reading.DEFAULT_MAX_WINDOWS: the page says so); None otherwise. Asked of the retriever that ranked,
        whose reading of the text is kept: no second reading."""
        if not spec.needs_vectors or spec.needs_llm or options.rerank == "llm":
            return None
        used = self._page_retriever(method, options) if one_page else self._per_thread(method, options)
        knn = explain_reading(used, query).get("knn") or {}
        return (int(knn["windows"]), int(knn["windows_of"]), "question" in knn) if knn.get("windows_of") else None

    def reading(self, query: str, method: str | None = None, options: MethodOptions = MethodOptions()) -> dict[str, Any]:
        """How ``method`` (None: the index's best) reads ``query``: the question found, BM25's question clause, kNN's
        windows (``search --explain``). LLM methods write their own queries: only the question is reported."""
        method = method or self.default_method()
        if method_spec(method).needs_llm:
            return {"method": method, **explain_reading(None, query)}
        options = resolved_options(self.settings, options, method)
        return {"method": method, **explain_reading(self._build(self.settings, method, options), query)}

    def rank_many(self, queries: dict[str, str], k: int, method: str | None = None,
                  options: MethodOptions = MethodOptions(), on_progress: Progress | None = None) -> dict[str, list[Hit]]:
        """Many queries ranked by ``method`` (None: the index's best) exactly as ``eval`` ranks them: the method's
        ranking alone (no snippets, no named articles pinned). Python's ``nomos.Searcher.batch_search``."""
        method = method or self.default_method()
        spec = self.check(method, options)
        options = resolved_options(self.settings, options, method)
        llm = spec.needs_llm or options.rerank == "llm"
        retriever = self._build(self.llm_settings(), method, options) if llm else self._per_thread(method, options)
        with cluster_errors(self.settings, f"the {method} search"):
            return retriever.search_many(queries, k, on_progress=on_progress).hits

    def _one_page(self, spec: MethodSpec, method: str, options: MethodOptions, k: int) -> bool:
        """Whether the method's results page ranks exactly as its ``search``: a faceted method without a re-ranker
        or an amendment stage (``precede`` where its page retriever ``orders_pages``: hybrid's fusion);
        for kNN also only while the page's HNSW search (``FACET_DEPTH`` candidates) explores what a top-``k``
        search explores, ``max(ef_search, k)`` (a small ``--ef-search`` would otherwise change the ranking)."""
        if not spec.faceted or options.second_stage:
            return False
        amendments = parse_amendments(options.amendments).mode
        if amendments != "off" and not (amendments == "precede" and spec.fused and
                                         getattr(self._page_retriever(method, options), "orders_pages", False)):
            return False
        if spec.needs_vectors and not spec.fused and not options.exact:
            return max(options.ef_search or self.settings.knn_ef_search, k) >= FACET_DEPTH
        return True

    def _ranker(self, spec: MethodSpec, method: str, options: MethodOptions) -> Retriever:
        """The retriever of the rank-then-page path: an LLM method's or judge's is built per search (its LLM client
        belongs to one search's event loop); the others are per thread."""
        if spec.needs_llm or options.rerank == "llm":
            return self._build(self.llm_settings(), method, options)
        return self._per_thread(method, options)

    # ---------------------------------------------------------------------------------------- retrievers
    def _build(self, settings: StageSettings, method: str, options: MethodOptions) -> Retriever:
        try:
            return make_retriever(settings, method, self.client, options)
        except ValueError as exc:  # the registry and the retrievers refuse bad options with ValueError
            if isinstance(exc, NomosError):
                raise
            raise ConfigError(f"{method}: {exc}") from None

    def _build_page(self, method: str, options: MethodOptions) -> FacetedRetriever:
        """The method's retriever as one that serves a results page (``MethodSpec.pages``), on this searcher's
        client, as :meth:`_build` builds it (``_one_page`` has checked that no second stage wraps it)."""
        pages = method_spec(method).pages
        if pages is None:
            raise ConfigError(f"method {method} serves no results page of its own")
        try:
            return pages(self.settings, make_transport(self.settings.cluster, self.client), options)
        except ValueError as exc:  # the registry and the retrievers refuse bad options with ValueError
            if isinstance(exc, NomosError):
                raise
            raise ConfigError(f"{method}: {exc}") from None

    def _page_retriever(self, method: str, options: MethodOptions) -> FacetedRetriever:
        """BM25's is kept ``keep_s`` and shared by threads (a new one per page would redo its set-up); dense and
        fused ones are per thread."""
        if method_spec(method).needs_vectors:
            cache: dict[tuple[str, str], FacetedRetriever] = self._local.__dict__.setdefault("pages", {})
            key = _key(method, options)
            if key not in cache:
                cache[key] = self._build_page(method, options)
            return cache[key]
        kept = self._shared.setdefault(_key(method, options), Kept(self._keep_s))
        return kept.get(lambda: self._build_page(method, options))

    def _per_thread(self, method: str, options: MethodOptions) -> Retriever:
        cache: dict[tuple[str, str], Retriever] = self._local.__dict__.setdefault("retrievers", {})
        key = _key(method, options)
        if key not in cache:
            cache[key] = self._build(self.settings, method, options)
        return cache[key]


# -------------------------------------------------------------------------------------------- the CLI's calls
def default_method(settings: StageSettings, client: OpenSearch | None = None) -> str:
    """The best method the live index serves (hybrid where it holds the embedder's vectors, else BM25): what
    ``search`` and the portal use when no method is named."""
    return SearchStage(settings, client).default_method()


def search_page(settings: StageSettings, request: SearchRequest, client: OpenSearch | None = None) -> SearchPage:
    """One search on a new :class:`SearchStage` (one client): the command line's entry, the portal's path."""
    return SearchStage(settings, client).search(request)


def search(settings: StageSettings, query: str, method: str | None = "bm25", k: int = 10,
           options: MethodOptions = MethodOptions()) -> list[Hit]:
    """One query's hits with titles and highlighted snippets, as ``cli.py search`` shows them (no facets).
    ``method`` None: the best the index serves."""
    return search_page(settings, SearchRequest(query, method, k, options=options, facets=False)).hits
