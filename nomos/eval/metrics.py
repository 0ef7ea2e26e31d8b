"""The paper's five metrics through ranx, with MAP@k normalised exactly as the paper does.

ranx divides average precision by |relevant|; the paper divides by min(|relevant|, k). The two agree whenever a
query has at most k relevant articles (always, in this benchmark); :func:`evaluate` rescales ranx's per-query
AP by |R| / min(|R|, k) so they agree everywhere.

ranx is handed rank-derived scores (n - rank), so its internal sort cannot reorder ties differently from ours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from nomos.eval.runs import Run

METRICS: tuple[str, ...] = ("recall@10", "recall@100", "ndcg@10", "ndcg@100", "map@100")
_MAP = re.compile(r"^map@(\d+)$")


@dataclass(frozen=True)
class Evaluation:
    """Mean scores and the per-query scores they average (same query order as ``queries``)."""

    metrics: tuple[str, ...]
    queries: tuple[str, ...]
    per_query: dict[str, dict[str, float]]

    @property
    def mean(self) -> dict[str, float]:
        n = len(self.queries)
        return {m: (sum(self.per_query[q][m] for q in self.queries) / n if n else 0.0) for m in self.metrics}


def evaluate(run: Run, qrels: Mapping[str, Mapping[str, int]], metrics: Sequence[str] = METRICS) -> Evaluation:
    """Score ``run`` against ``qrels``; queries missing from the run count as empty rankings (all zeros)."""
    from ranx import Qrels as RQrels
    from ranx import Run as RRun
    from ranx import evaluate as ranx_evaluate

    from nomos.numba_quiet import ignore_unsafe_cast_warning

    ignore_unsafe_cast_warning()  # ranx's first compile on a machine warns of a harmless cast (see that module)

    qids = tuple(sorted(q for q, docs in qrels.items() if any(g > 0 for g in docs.values())))
    if not qids:
        raise ValueError("no query has a relevant judgment: nothing to evaluate")
    rank_scores = {q: {d: float(len(run.get(q, [])) - i) for i, (d, _) in enumerate(run.get(q, []))} for q in qids}
    if not any(rank_scores.values()):  # every ranking empty (ranx cannot build such a run): all zeros
        return Evaluation(tuple(metrics), qids, {q: {m: 0.0 for m in metrics} for q in qids})
    rq = RQrels({q: {d: int(g) for d, g in qrels[q].items()} for q in qids})
    rr = RRun(rank_scores)
    scores = ranx_evaluate(rq, rr, list(metrics), return_mean=False, make_comparable=True)
    if len(metrics) == 1:
        scores = {metrics[0]: scores}
    per_query = {q: {m: float(scores[m][i]) for m in metrics} for i, q in enumerate(qids)}
    for m in metrics:
        match = _MAP.match(m)
        if not match:
            continue
        k = int(match.group(1))
        for q in qids:
            n_rel = sum(1 for g in qrels[q].values() if g > 0)
            if n_rel > k:
                per_query[q][m] *= n_rel / k
    return Evaluation(tuple(metrics), qids, per_query)
