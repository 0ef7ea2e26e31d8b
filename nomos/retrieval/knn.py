"""Dense retrieval inside OpenSearch: HNSW k-NN on a per-encoder ``knn_vector`` field, or exact scoring.

``exact=True`` scores every article with the k-NN plugin's ``knn_score`` script, so the recall that HNSW gives up
can be measured against the same vectors on the same cluster. :meth:`KnnRetriever.search_faceted` answers a
results page (ranking, facets over the candidates, highlighted snippets, a source filter) in one request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from opensearchpy import OpenSearch

from nomos.mappings import vector_field_name
from nomos.retrieval.base import Hit, Progress, SearchResult, rank, tick
from nomos.retrieval.bm25 import PAGE_FILTER, FacetedHits, SearchError, snippet_highlight
from nomos.retrieval.bm25 import _hit as page_hit
from nomos.vectors.cache import VectorCache, encode_cached
from nomos.vectors.encoders import Encoder, slug

# The k of a dense results page's knn clause: the depth the portal filtered dense lists to before, and the pool
# depth of hybrid's fusion (the lucene engine matches max(k, ef_search) candidates: search_faceted).
FACET_DEPTH = 100
SNIPPET_FALLBACK_CHARS = 180  # a dense hit need not contain any query word: then its text's start is the snippet


@dataclass
class KnnRetriever:
    client: OpenSearch
    index: str
    encoder: Encoder
    ef_search: int = 256
    exact: bool = False
    cache: VectorCache | None = None
    batch_size: int = 32
    name: str = field(init=False, default="knn")

    @property
    def field(self) -> str:
        return vector_field_name(slug(self.encoder.spec))

    def query_vectors(self, texts: list[str]) -> np.ndarray:
        """Query embeddings, through the cache (the same queries are embedded once across runs)."""
        vectors, _ = encode_cached(self.encoder, texts, "query", self.cache)
        return vectors

    def clause(self, vector: np.ndarray, k: int) -> dict[str, Any]:
        """The query clause for one vector (also used inside ``hybrid``)."""
        values = [float(x) for x in vector]
        if self.exact:
            return {
                "script_score": {
                    "query": {"match_all": {}},
                    "script": {
                        "source": "knn_score",
                        "lang": "knn",
                        "params": {"field": self.field, "query_value": values, "space_type": "cosinesimil"},
                    },
                }
            }
        return {"knn": {self.field: {"vector": values, "k": k, "method_parameters": {"ef_search": max(self.ef_search, k)}}}}

    def body(self, vector: np.ndarray, k: int) -> dict[str, Any]:
        return {
            "size": k,
            "query": self.clause(vector, k),
            "sort": [{"_score": "desc"}, {"article_id": "asc"}],
            "track_scores": True,
            "stored_fields": "_none_",
        }

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_faceted(self, query: str, k: int, aggs: Mapping[str, Any], post_filter: Mapping[str, Any] | None = None,
                       *, depth: int = FACET_DEPTH) -> FacetedHits:
        """A dense results page in one request: the top ``k`` with titles and snippets, and ``aggs`` over kNN's
        candidates.

        The query is one ``knn`` clause with ``k`` = ``max(depth, k)``. What it matches, and so what the facet
        counts (and ``matching``) describe, is kNN's candidate set, not "every article about this" (a dense query
        scores every article, so there is no matching set to count): on the lucene engine the HNSW search keeps
        ``max(k, ef_search)`` nearest articles (256 at the default ef_search, per shard) and all of them match.
        ``post_filter`` (a legal source) picks the page among the same candidates; the facets stay unfiltered.
        The top ``k`` is the ranking :meth:`search` gives: the same vector, and the same HNSW search, which
        explores ``max(k, ef_search)`` either way. With ``exact=True`` every article is a candidate (the script
        scores them all), so the facets count the whole index. Snippets highlight the query's words with the
        ``match`` BM25 uses (a ``highlight_query``: the ranking stays dense); a hit that contains none of them
        shows its text's start."""
        vector = self.query_vectors([query])[0]
        depth = max(depth, k)
        body: dict[str, Any] = {
            **page_parts(query, k, aggs, post_filter),
            "query": self.clause(vector, depth),
            "sort": [{"_score": "desc"}, {"article_id": "asc"}],
            "track_scores": True,
        }
        try:
            resp = self.client.search(index=self.index, body=body, params={"filter_path": PAGE_FILTER})
        except Exception as exc:  # opensearch-py raises TransportError subclasses with the server's reason
            raise SearchError(f"the k-NN results page failed: {exc}") from None
        return faceted_page(resp, k)

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """Query vectors (through the cache), then ``_msearch`` in batches. No LLM: ``checkpoint`` is ignored."""
        items = list(queries.items())
        vectors = self.query_vectors([t for _, t in items])
        out: dict[str, list[Hit]] = {}
        for start in range(0, len(items), self.batch_size):
            lines: list[dict[str, Any]] = []
            for i in range(start, min(start + self.batch_size, len(items))):
                lines.extend([{"index": self.index}, self.body(vectors[i], k)])
            resp = self.client.msearch(body=lines)
            for (qid, _), r in zip(items[start : start + self.batch_size], resp["responses"], strict=True):
                out[qid] = self.hits_of(r, qid, k)
                tick(on_progress)
        return SearchResult(out)

    def request(self, vector: np.ndarray, k: int) -> list[dict[str, Any]]:
        """The two ``_msearch`` lines (header, body) of one query vector, as :meth:`search_many` sends them."""
        return [{"index": self.index}, self.body(vector, k)]

    @staticmethod
    def hits_of(response: Mapping[str, Any], qid: str, k: int) -> list[Hit]:
        """The ranked hits of one ``_msearch`` item; an item OpenSearch refused raises, naming the query."""
        if "error" in response:
            raise SearchError(f"query {qid!r}: OpenSearch refused the k-NN query: {response['error']}")
        return rank([Hit(str(h["sort"][1]), float(h["sort"][0])) for h in response["hits"]["hits"]], k)

    def describe(self) -> dict[str, Any]:
        return {"method": self.name, "index": self.index, "field": self.field, "encoder": self.encoder.describe(),
                "ef_search": self.ef_search, "exact": self.exact}


def page_parts(query: str, k: int, aggs: Mapping[str, Any], post_filter: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a results page adds to its ranking query (kNN's and the fused pages): the hits' fields and snippets (the
    query's words with BM25's ``match``, the text's start where none occurs), the aggregations, the count of
    candidates (``_matching``, read back by :func:`faceted_page`) and the page's filter."""
    body: dict[str, Any] = {
        "size": k,
        "_source": ["title", "law", "source"],
        "highlight": snippet_highlight(query, no_match_size=SNIPPET_FALLBACK_CHARS),
        "aggs": {**aggs, "_matching": {"filter": {"match_all": {}}}},
    }
    if post_filter:
        body["post_filter"] = dict(post_filter)
    return body


def faceted_page(resp: Mapping[str, Any], k: int) -> FacetedHits:
    """A results page's response (``PAGE_FILTER``'d, with a ``_matching`` filter aggregation counting what the
    query matched) as :class:`FacetedHits`, read as :meth:`BM25Retriever.search_faceted` reads its own."""
    aggregations = dict(resp.get("aggregations") or {})
    matching = int(aggregations.pop("_matching", {}).get("doc_count", 0))
    return FacetedHits(rank([page_hit(h) for h in resp.get("hits", {}).get("hits", [])], k), aggregations, matching)


def index_has_vectors(client: OpenSearch, index: str, embedder: str) -> bool:
    """Whether ``index`` (an alias or name) holds the k-NN field of ``embedder``: decides which methods it serves."""
    name = vector_field_name(slug(embedder))
    mapping = client.indices.get_mapping(index=index)
    return any(name in m.get("mappings", {}).get("properties", {}) for m in mapping.values())
