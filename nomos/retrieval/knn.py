"""Dense retrieval inside OpenSearch: HNSW k-NN on a per-encoder ``knn_vector`` field, or exact scoring.

``exact=True`` scores every article with the k-NN plugin's ``knn_score`` script, so the recall that HNSW gives up
can be measured against the same vectors on the same cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from opensearchpy import OpenSearch

from nomos.mappings import vector_field_name
from nomos.retrieval.base import Hit, Progress, SearchResult, rank, tick
from nomos.retrieval.bm25 import SearchError
from nomos.vectors.cache import VectorCache, encode_cached
from nomos.vectors.encoders import Encoder, slug


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
                if "error" in r:
                    raise SearchError(f"query {qid!r}: OpenSearch refused the k-NN query: {r['error']}")
                out[qid] = rank([Hit(str(h["sort"][1]), float(h["sort"][0])) for h in r["hits"]["hits"]], k)
                tick(on_progress)
        return SearchResult(out)

    def describe(self) -> dict[str, Any]:
        return {"method": self.name, "index": self.index, "field": self.field, "encoder": self.encoder.describe(),
                "ef_search": self.ef_search, "exact": self.exact}


def index_has_vectors(client: OpenSearch, index: str, embedder: str) -> bool:
    """Whether ``index`` (an alias or name) holds the k-NN field of ``embedder``: decides which methods it serves."""
    name = vector_field_name(slug(embedder))
    mapping = client.indices.get_mapping(index=index)
    return any(name in m.get("mappings", {}).get("properties", {}) for m in mapping.values())
