"""Honest BM25 tuning: choose k1/b by k-fold cross-validation over the queries and report the held-out score
beside the oracle (the best setting on all queries, which is what a sweep on the test set reports).

The search side (one ranking per grid point) lives in ``nomos.stages.tuning.tune_bm25``; this module only sees a matrix of
per-query scores, so the fold logic is testable without OpenSearch. With few queries (the stand-in has 24) the
folds are tiny and the cross-validated score is noisy: read it as "roughly what tuning buys", not a precise number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Params = tuple[float, float]  # (k1, b)


def folds(queries: Sequence[str], k: int, seed: int) -> list[list[str]]:
    """``k`` disjoint folds of a seeded shuffle of the (sorted) queries, sizes differing by at most one."""
    if not 2 <= k <= len(queries):
        raise ValueError(f"folds must be between 2 and the number of queries ({len(queries)}), got {k}")
    order = sorted(queries)
    np.random.default_rng(seed).shuffle(order)
    return [sorted(order[i::k]) for i in range(k)]


def best(params: Sequence[Params], scores: Mapping[Params, Mapping[str, float]], queries: Sequence[str]) -> tuple[Params, float]:
    """The setting with the highest mean over ``queries``; ties go to the smaller (k1, b), so results are stable."""
    def mean(p: Params) -> float:
        return float(np.mean([scores[p][q] for q in queries]))

    chosen = max(sorted(params), key=lambda p: (round(mean(p), 12), -p[0], -p[1]))
    return chosen, mean(chosen)


@dataclass
class TuneResult:
    metric: str
    params: list[Params]
    folds: list[dict[str, Any]]
    cv_score: float  # mean over queries of the held-out score (each query scored once, by its fold's choice)
    cv_fold_std: float  # spread of the fold means
    oracle: Params
    oracle_score: float
    default: Params | None
    default_score: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "cross_validated": {"score": self.cv_score, "fold_std": self.cv_fold_std, "folds": self.folds},
            "oracle": {"k1": self.oracle[0], "b": self.oracle[1], "score": self.oracle_score},
            "default": None if self.default is None else {"k1": self.default[0], "b": self.default[1], "score": self.default_score},
            "grid": [{"k1": p[0], "b": p[1]} for p in self.params],
        }


def cross_validate(
    scores: Mapping[Params, Mapping[str, float]],
    metric: str,
    k: int = 4,
    seed: int = 42,
    default: Params | None = (1.5, 0.75),
) -> TuneResult:
    """k-fold CV over queries: per fold, pick the best setting on the other folds and score it on this one."""
    params = sorted(scores)
    queries = sorted(next(iter(scores.values())))
    held_out: dict[str, float] = {}
    fold_rows: list[dict[str, Any]] = []
    for i, test in enumerate(folds(queries, k, seed)):
        train = [q for q in queries if q not in set(test)]
        chosen, train_score = best(params, scores, train)
        test_score = float(np.mean([scores[chosen][q] for q in test]))
        for q in test:
            held_out[q] = scores[chosen][q]
        fold_rows.append({"fold": i + 1, "k1": chosen[0], "b": chosen[1], "train": train_score, "test": test_score,
                          "test_queries": test})
    oracle, oracle_score = best(params, scores, queries)
    d_score = float(np.mean([scores[default][q] for q in queries])) if default is not None and default in scores else None
    return TuneResult(metric, params, fold_rows, float(np.mean(list(held_out.values()))),
                      float(np.std([f["test"] for f in fold_rows])), oracle, oracle_score,
                      default if default in scores else None, d_score)
