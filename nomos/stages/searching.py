"""The search stage: one query, ranked and decorated, as ``cli.py search`` and the portal show it."""

from __future__ import annotations

from dataclasses import replace

from opensearchpy import OpenSearch

from nomos.opensearch.client import cluster_version, make_client
from nomos.retrieval.base import Hit, Retriever
from nomos.retrieval.decorate import decorate
from nomos.retrieval.knn import index_has_vectors
from nomos.retrieval.registry import MethodOptions, best_method, make_retriever, method_spec, require_llm
from nomos.settings import Settings


def default_method(settings: Settings, client: OpenSearch | None = None) -> str:
    """The best method the live index serves (hybrid where it holds the embedder's vectors, else BM25): what
    ``search`` and the portal use when no method is named."""
    client = client or make_client(settings)
    return best_method(index_has_vectors(client, settings.index_alias, settings.embedder))


def search(settings: Settings, query: str, method: str = "bm25", k: int = 10, options: MethodOptions = MethodOptions()) -> list[Hit]:
    """One query, with highlighted snippets: what ``cli.py search`` and the portal show."""
    settings = require_llm(settings, method)  # a running local LLM server counts
    client = make_client(settings)
    cluster_version(client, settings)
    return search_with(settings, client, query, method, k, options)


def search_with(settings: Settings, client: OpenSearch, query: str, method: str = "bm25", k: int = 10,
                options: MethodOptions = MethodOptions(), retriever: Retriever | None = None) -> list[Hit]:
    """``search`` on a client the caller keeps (the portal: one per app); ``retriever`` may be prebuilt (one the
    caller keeps, e.g. per thread)."""
    retriever = retriever or make_retriever(settings, method, client, replace(options, highlight=True))
    hits = retriever.search(query, k)
    if method_spec(method).snippets:
        return hits
    # dense and fused rankings carry no titles or snippets: fetch them for the ranked ids
    return decorate(client, settings.index_alias, hits, query)
