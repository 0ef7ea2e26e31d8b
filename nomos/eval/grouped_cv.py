"""Choices made by grouped k-fold cross-validation over several dev sets at once.

Every quality choice of the bridge (anchor and heading boosts, the learned ranker) is made this way: the folds are
built from whole groups (the questions of one case file share its facts word for word, so they never straddle
training and held-out), every dev set is split alike, each fold chooses on its training queries only, and the
held-out queries are scored with that fold's choice. Repeats reshuffle the groups (seeded). What is reported per set
is the mean of each query's held-out scores: an estimate of what the choice buys on queries it never saw, beside
the oracle (the best configuration on everything), which is what a sweep on the test set would report.

Numbers only: per-query metric tables in, folds and means out (no OpenSearch, no model), so the fold logic is
tested on its own (tests/test_grouped_cv.py).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

PerQuery = Mapping[str, Mapping[str, float]]  # query id -> metric -> value (ranx's per-query scores)


def grouped_folds(groups: Mapping[str, str], k: int, rng: random.Random) -> list[set[str]]:
    """``k`` folds of query ids with every group whole in one fold (groups dealt round-robin after a shuffle of
    their sorted names, so a seed gives the same folds on every machine)."""
    names = sorted(set(groups.values()))
    if not 2 <= k <= len(names):
        raise ValueError(f"folds must be between 2 and the number of groups ({len(names)}), got {k}")
    rng.shuffle(names)
    fold_of = {g: i % k for i, g in enumerate(names)}
    out: list[set[str]] = [set() for _ in range(k)]
    for qid, g in groups.items():
        out[fold_of[g]].add(qid)
    return out


def mean(per_query: PerQuery, qids: Iterable[str], metric: str) -> float:
    """The mean of ``metric`` over ``qids`` (0 for none)."""
    values = [per_query[q][metric] for q in qids]
    return sum(values) / len(values) if values else 0.0


def objective(per_query: PerQuery, qids: Sequence[str], metrics: Sequence[str],
              members: Mapping[str, Sequence[str]] | None = None) -> tuple[float, ...]:
    """What a fold maximises: each metric's mean over ``qids`` in order (ties of the first broken by the next).
    With ``members`` (set name -> its query ids), each set weighs the same whatever its size: the mean of the
    per-set means over the training queries of each set."""
    out = []
    for m in metrics:
        if members:
            parts = [mean(per_query, [q for q in qids if q in set(ids)], m) for ids in members.values()]
            parts = [p for p, ids in zip(parts, members.values(), strict=True) if any(q in set(ids) for q in qids)]
            out.append(round(sum(parts) / len(parts), 6) if parts else 0.0)
        else:
            out.append(round(mean(per_query, qids, m), 6))
    return tuple(out)


@dataclass
class CVResult:
    """Held-out scores of a choice made by grouped CV: per query the mean of its held-out values per metric, how
    often each configuration was chosen, and the number of fold choices made."""

    held: dict[str, dict[str, float]]
    chosen: Counter[str] = field(default_factory=Counter)
    folds: int = 0

    def mean(self, qids: Iterable[str], metric: str) -> float:
        return mean(self.held, [q for q in qids if q in self.held], metric)


def cross_validate(configs: Mapping[str, PerQuery], groups: Mapping[str, str], metrics: Sequence[str], *,
                   k: int = 5, repeats: int = 10, seed: int = 13, members: Mapping[str, Sequence[str]] | None = None,
                   prefer: Callable[[str], tuple] | None = None) -> CVResult:
    """Choose one of ``configs`` (name -> per-query metrics) per fold by :func:`objective` over ``metrics`` on the
    training queries and score the held-out ones with it (every metric the tables hold), ``repeats`` times over reshuffled grouped folds. ``prefer``: a tie-break
    key, larger preferred (e.g. the simpler configuration); by default the name in reverse order, so ties are
    settled the same way every run."""
    names = sorted(configs)
    judged = set.intersection(*(set(configs[n]) for n in names)) & set(groups)
    rng = random.Random(seed)
    sums: dict[str, dict[str, float]] = {}
    counts: Counter[str] = Counter()
    chosen: Counter[str] = Counter()
    n_folds = 0
    for _ in range(repeats):
        for fold in grouped_folds({q: g for q, g in groups.items() if q in judged}, k, rng):
            train = sorted(judged - fold)
            pick = max(names, key=lambda n: (objective(configs[n], train, metrics, members),
                                             *(prefer(n) if prefer else ()), [-ord(c) for c in n]))
            chosen[pick] += 1
            n_folds += 1
            for q in fold:
                row = sums.setdefault(q, {m: 0.0 for m in configs[pick][q]})
                for m in row:
                    row[m] += configs[pick][q][m]
                counts[q] += 1
    held = {q: {m: v / counts[q] for m, v in row.items()} for q, row in sums.items()}
    return CVResult(held, chosen, n_folds)
