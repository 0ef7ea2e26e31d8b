"""Retrieval: every method behind one :class:`Retriever` interface (those that serve a results page in their own
requests behind :class:`FacetedRetriever`), built by :func:`make_retriever`; the pages themselves are made a floor
above, in :mod:`nomos.pages`. Import public names from here
(``from nomos.retrieval import make_retriever, Hit``), as ranx exports its own.

The LLM methods (:mod:`~nomos.retrieval.llm`, :mod:`~nomos.retrieval.react`, :mod:`~nomos.retrieval.reformulate`)
are not imported here: the registry loads them when one is built. The names below are loaded on first use
(:mod:`nomos.exports`), so ``import nomos.retrieval.registry`` (the CLI's start-up, for its ``--method`` choices)
stays as cheap as it was: no OpenSearch client, no numpy.
"""

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "nomos.errors": ("SearchError", "VectorsMissing"),
    ".base": ("FacetedHits", "FacetedRetriever", "Hit", "PageAsk", "Progress", "Ranking", "Retriever", "SearchResult",
              "by_score", "check_k", "rank", "score_order"),
    ".bm25": ("BM25Retriever",),
    ".fusion": ("FusionRetriever", "client_fuse", "fused_hits"),
    ".fusion_config": ("DEFAULT_WEIGHTS", "DEFAULT_WHERE", "FusionConfig"),
    ".knn": ("KnnRetriever", "VectorReadiness", "index_has_vectors", "vector_readiness"),
    ".registry": ("BEST_WITH_VECTORS", "DEFAULT_METHOD", "METHODS", "MethodOptions", "MethodSpec", "best_method",
                  "encoder_for", "make_reranker", "make_retriever", "method_names", "method_spec", "portal_methods",
                  "require_llm", "resolved_options", "vector_cache"),
    ".texts": ("clip", "fetch_texts"),
    ".cited": ("DirectHit", "pin", "with_named"),
})
