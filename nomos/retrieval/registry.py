"""Method name → retriever: the one place every entry point (CLI, portal, eval, benchmarks) builds retrievers."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from opensearchpy import OpenSearch

from nomos.opensearch.client import make_client
from nomos.retrieval.base import Retriever
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.fusion import FusionConfig, FusionRetriever
from nomos.retrieval.knn import KnnRetriever
from nomos.retrieval.llm import LLMNotConfigured, make_llm_client, not_configured_message, resolve_llm_settings
from nomos.retrieval.prf import RocchioRetriever, TfidfPrfRetriever
from nomos.settings import Settings
from nomos.vectors.cache import VectorCache
from nomos.vectors.encoders import Encoder, make_encoder

LLM_METHODS = ("reform-bm25", "reform-knn", "reform-hybrid", "react")


METHODS = ("bm25", "bm25-prf", "knn", "knn-rocchio", "hybrid", "rrf", *LLM_METHODS)


DENSE_METHODS = ("knn", "knn-rocchio", "hybrid", "rrf")


@dataclass(frozen=True)
class MethodOptions:
    """Everything besides the method name that changes a ranking (one object, so entry points agree)."""

    analysis: str = "stemmed"
    embedder: str | None = None  # None: settings.embedder
    exact: bool = False
    ef_search: int | None = None  # None: settings.knn_ef_search
    fusion: FusionConfig = FusionConfig()
    highlight: bool = False
    filters: tuple[dict[str, Any], ...] = ()  # bm25 only: filter clauses (no scoring), e.g. one legal source


def encoder_for(settings: Settings, spec: str) -> Encoder:
    """Build an encoder with the endpoint settings (only ``openai:`` specs use them)."""
    return make_encoder(spec, base_url=settings.embed_base_url, api_key=settings.embed_api_key)


def vector_cache(settings: Settings) -> VectorCache:
    return VectorCache(settings.cache_dir / "embeddings.sqlite")


def require_llm(settings: Settings, method: str) -> None:
    """LLM methods fail at once, naming the settings, when no endpoint or model is configured."""
    if method in LLM_METHODS and not (settings.llm_base_url and settings.llm_model):
        settings = resolve_llm_settings(settings)  # a running local server (cli.py llm start) counts
    if method in LLM_METHODS and not (settings.llm_base_url and settings.llm_model):
        raise LLMNotConfigured(not_configured_message(method))


def _knn(settings: Settings, client: OpenSearch, options: MethodOptions) -> KnnRetriever:
    return KnnRetriever(
        client,
        settings.index_alias,
        encoder_for(settings, options.embedder or settings.embedder),
        ef_search=options.ef_search or settings.knn_ef_search,
        exact=options.exact,
        cache=vector_cache(settings),
    )


def _llm_retriever(settings: Settings, method: str, client: OpenSearch, options: MethodOptions) -> Retriever:
    from nomos.retrieval.react import ReActConfig, ReActRetriever
    from nomos.retrieval.reformulate import ReformRetriever

    llm = make_llm_client(settings, method)
    # Queries run concurrently and search from threads: give them a connection pool that size (make_client's
    # default pool keeps one connection, so every concurrent request would open and drop a new one).
    client = make_client(settings, pool_maxsize=max(settings.llm_concurrency, 1) + 4)
    # the loop searches for itself: no highlighting, ids and scores only
    bm25 = BM25Retriever(client, settings.index_alias, analysis=options.analysis, search_type=settings.search_type,
                         retry_seconds=settings.retry_seconds)
    if method == "react":
        config = ReActConfig(rounds=settings.react_rounds, concurrency=settings.llm_concurrency)
        if getattr(settings, "react_observer_budget", None):  # small-context local models need smaller batches
            config = replace(config, observer_budget=settings.react_observer_budget)
        return ReActRetriever(bm25, llm, config)
    knn = _knn(settings, client, options) if method in ("reform-knn", "reform-hybrid") else None
    return ReformRetriever(method, llm, bm25=bm25, knn=knn, fusion=_fusion(settings, options.fusion), concurrency=settings.llm_concurrency)


def _fusion(settings: Settings, fusion: FusionConfig) -> FusionConfig:
    """Weights left unset take the settings' (NOMOS_FUSION_WEIGHTS), so CLI, portal and benchmarks agree."""
    return fusion if fusion.weights is not None else replace(fusion, weights=settings.fusion_weights)


def make_retriever(settings: Settings, method: str, client: OpenSearch, options: MethodOptions = MethodOptions()) -> Retriever:
    """The retriever for a method name; every entry point (CLI, portal, benchmarks) builds retrievers here."""
    if method in LLM_METHODS:
        require_llm(settings, method)
        return _llm_retriever(settings, method, client, options)
    bm25 = BM25Retriever(client, settings.index_alias, analysis=options.analysis, highlight=options.highlight,
                         filters=options.filters, search_type=settings.search_type, retry_seconds=settings.retry_seconds)
    if method == "bm25":
        return bm25
    if method == "bm25-prf":
        return TfidfPrfRetriever(bm25)
    if method not in DENSE_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    knn = _knn(settings, client, options)
    if method == "knn":
        return knn
    if method == "knn-rocchio":
        return RocchioRetriever(knn)
    config = replace(_fusion(settings, options.fusion), kind="rrf" if method == "rrf" else "hybrid")
    return FusionRetriever(client, settings.index_alias, bm25, knn, config)
