"""How two rankings are fused (kept apart from :mod:`nomos.retrieval.fusion` so that the method registry, and the
command line that lists its methods, can name a fusion without importing the OpenSearch client)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomos.mappings import normalization_pipeline, pipeline_name, rrf_pipeline
from nomos.retrieval.head_fusion import DEFAULT_ADMIT, DEFAULT_HEAD

# (bm25, knn). Equal weights fell short of kNN alone on the stand-in (Recall@100 0.500 vs 0.597): at 0.5/0.5 the
# fused top 100 is roughly each clause's top 50, so a clause that finds 6 of 38 relevant articles displaces the
# other's relevant ones at ranks 50-100. A seeded 4-fold cross-validation over kNN weights 0.5-0.9
# (bench/fusion_study.py, docs/history/benchmarks-diary.md "Fusion study") chose 0.9 in three folds of four; BM25
# keeps a tenth of the say.
# With an embedder no stronger than BM25 (the paper's BM25 ~ EmbeddingGemma), rerun the study and set
# NOMOS_FUSION_WEIGHTS or --weights.
DEFAULT_WEIGHTS: tuple[float, float] = (0.1, 0.9)


def parse_weights(raw: str) -> tuple[float, float]:
    """"0.1,0.9" -> (0.1, 0.9): the BM25 and kNN weights of hybrid fusion (non-negative, not both zero)."""
    try:
        w = tuple(float(x) for x in raw.split(","))
    except ValueError:
        raise ValueError(f"weights must be two numbers like 0.1,0.9 (BM25,kNN), got {raw!r}") from None
    if len(w) != 2 or min(w) < 0 or sum(w) <= 0:
        raise ValueError(f"weights must be two non-negative numbers, not both zero (BM25,kNN), got {raw!r}")
    return (w[0], w[1])

# hybrid keeps kNN's pool (never below kNN's Recall@k), its top FusionConfig.head ordered by RRF (bench/pool_study.py,
# docs/history/benchmarks-diary.md "Pool fusion");
# rrf fuses in OpenSearch's score-ranker pipeline.
DEFAULT_WHERE = {"hybrid": "pool", "rrf": "server"}


@dataclass(frozen=True)
class FusionConfig:
    """How to fuse: ``kind`` "hybrid" (score normalisation + combination) or "rrf"; ``where``: "server"
    (neural-search pipeline), "client" (ranx over the two lists) or "pool" (the ``pool`` clause's top ``depth``
    re-scored with the other clause's scores: :mod:`nomos.retrieval.pool_fusion`; keeps that clause's recall; its
    results page is two requests: :meth:`nomos.retrieval.fusion.FusionRetriever.search_faceted`)."""

    kind: str = "hybrid"
    where: str | None = None  # None: the kind's default (DEFAULT_WHERE)
    pool: str = "knn"  # where == "pool": the clause whose candidates are kept ("knn" or "bm25")
    normalization: str = "min_max"
    combination: str = "arithmetic_mean"
    weights: tuple[float, float] | None = None  # (bm25, knn); None: the settings' (default DEFAULT_WEIGHTS)
    rank_constant: int = 60
    depth: int = 100  # how many each clause contributes
    # where == "pool": how the pool is ordered. "rrf-head" (the default): its top ``head`` in RRF order of both
    # clauses' own lists, then the pool clause's order (nomos/retrieval/head_fusion.py); "minmax": the weighted
    # min-max sum of the pool clause's score and the other's exact score (nomos/retrieval/pool_fusion.py).
    pool_ranking: str = "rrf-head"
    head: int = DEFAULT_HEAD
    # "rrf-head": how many of the other clause's strongest articles outside the pool enter it, at its end, for a
    # query read in more than one window (so a case file's fused top ``depth`` may hold BM25's finds that kNN's top
    # ``depth`` lacks); 0: none
    admit: int = DEFAULT_ADMIT

    @property
    def resolved_where(self) -> str:
        """Where this fusion runs: as set, else the kind's default (hybrid: the pool, which keeps kNN's recall)."""
        return self.where or DEFAULT_WHERE.get(self.kind, "server")

    @property
    def bm25_knn_weights(self) -> tuple[float, float]:
        return self.weights if self.weights is not None else DEFAULT_WEIGHTS

    def pipeline(self) -> tuple[str, dict[str, Any]]:
        body = rrf_pipeline(self.rank_constant) if self.kind == "rrf" else normalization_pipeline(self.normalization, self.combination, self.bm25_knn_weights)
        return pipeline_name(self.kind, body), body
