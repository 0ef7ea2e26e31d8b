"""Retrieval: every method behind one :class:`Retriever` interface, built by :func:`make_retriever`, and the
results-page and article helpers the portal and the CLI share. Import public names from here
(``from nomos.retrieval import make_retriever, Hit``), as ranx exports its own.

The LLM methods (:mod:`~nomos.retrieval.llm`, :mod:`~nomos.retrieval.react`, :mod:`~nomos.retrieval.reformulate`)
are not imported here: the registry loads them when one is built. The names below are loaded on first use
(PEP 562), so ``import nomos.retrieval.registry`` (the CLI's start-up, for its ``--method`` choices) stays as cheap
as it was: no OpenSearch client, no numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nomos.errors import SearchError, VectorsMissing
    from nomos.retrieval.articles import (
        Article,
        ArticleRef,
        article_page,
        citation,
        faceted_search,
        get_article,
        ids_facets,
        law_names,
        matching_ids,
        sources_of,
    )
    from nomos.retrieval.base import (
        Hit,
        Progress,
        Ranking,
        Retriever,
        SearchResult,
        by_score,
        check_k,
        rank,
        score_order,
    )
    from nomos.retrieval.bm25 import BM25Retriever
    from nomos.retrieval.decorate import decorate
    from nomos.retrieval.fusion import FusionRetriever, client_fuse, fused_hits
    from nomos.retrieval.fusion_config import DEFAULT_WEIGHTS, DEFAULT_WHERE, FusionConfig
    from nomos.retrieval.knn import KnnRetriever, index_has_vectors
    from nomos.retrieval.pages import (
        AreaFacet,
        Facet,
        FacetedHits,
        Facets,
        facet_aggs,
        faceted_page,
        page_filter,
        ranking_page_body,
        read_facets,
        snippet_highlight,
    )
    from nomos.retrieval.registry import (
        BEST_WITH_VECTORS,
        DEFAULT_METHOD,
        METHODS,
        MethodOptions,
        MethodSpec,
        best_method,
        encoder_for,
        make_reranker,
        make_retriever,
        method_names,
        method_spec,
        portal_methods,
        require_llm,
        resolved_options,
        vector_cache,
    )
    from nomos.retrieval.texts import clip, fetch_texts

# public name -> the module that defines it (read by __getattr__)
_HOMES: dict[str, str] = {
    **dict.fromkeys((
        "SearchError", "VectorsMissing",
    ), "nomos.errors"),
    **dict.fromkeys((
        "Article", "ArticleRef", "article_page", "citation", "faceted_search", "get_article", "ids_facets",
        "law_names", "matching_ids", "sources_of",
    ), "nomos.retrieval.articles"),
    **dict.fromkeys((
        "Hit", "Progress", "Ranking", "Retriever", "SearchResult", "by_score", "check_k", "rank",
        "score_order",
    ), "nomos.retrieval.base"),
    **dict.fromkeys((
        "BM25Retriever",
    ), "nomos.retrieval.bm25"),
    **dict.fromkeys((
        "decorate",
    ), "nomos.retrieval.decorate"),
    **dict.fromkeys((
        "FusionRetriever", "client_fuse", "fused_hits",
    ), "nomos.retrieval.fusion"),
    **dict.fromkeys((
        "DEFAULT_WEIGHTS", "DEFAULT_WHERE", "FusionConfig",
    ), "nomos.retrieval.fusion_config"),
    **dict.fromkeys((
        "KnnRetriever", "index_has_vectors",
    ), "nomos.retrieval.knn"),
    **dict.fromkeys((
        "AreaFacet", "Facet", "FacetedHits", "Facets", "facet_aggs", "faceted_page", "page_filter",
        "ranking_page_body", "read_facets", "snippet_highlight",
    ), "nomos.retrieval.pages"),
    **dict.fromkeys((
        "BEST_WITH_VECTORS", "DEFAULT_METHOD", "METHODS", "MethodOptions", "MethodSpec", "best_method",
        "encoder_for", "make_reranker", "make_retriever", "method_names", "method_spec", "portal_methods",
        "require_llm", "resolved_options", "vector_cache",
    ), "nomos.retrieval.registry"),
    **dict.fromkeys((
        "clip", "fetch_texts",
    ), "nomos.retrieval.texts"),
}
__all__ = [
    "AreaFacet", "Article", "ArticleRef", "BEST_WITH_VECTORS", "BM25Retriever", "DEFAULT_METHOD", "DEFAULT_WEIGHTS",
    "DEFAULT_WHERE", "Facet", "FacetedHits", "Facets", "FusionConfig", "FusionRetriever", "Hit", "KnnRetriever",
    "METHODS", "MethodOptions", "MethodSpec", "Progress", "Ranking", "Retriever", "SearchError", "SearchResult",
    "VectorsMissing", "article_page", "best_method", "by_score", "check_k", "citation", "client_fuse", "clip",
    "decorate", "encoder_for", "facet_aggs", "faceted_page", "faceted_search", "fetch_texts", "fused_hits",
    "get_article", "ids_facets", "index_has_vectors", "law_names", "make_reranker", "make_retriever",
    "matching_ids", "method_names", "method_spec", "page_filter", "portal_methods", "rank", "ranking_page_body",
    "read_facets", "require_llm", "resolved_options", "score_order", "snippet_highlight", "sources_of",
    "vector_cache"
]


def __getattr__(name: str) -> Any:  # noqa: ANN401 - whatever the named module holds
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'nomos.retrieval' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
