"""Paired significance for IR runs: the two-sided paired randomization (permutation) test and Holm's correction.

Why not ranx's ``fisher`` test: it draws permutations in numba threads (not reproducible across machines and
thread counts), can return p = 0, and corrects nothing for multiple comparisons. This one flips the signs of the
per-query differences with a seeded numpy generator, in chunks (memory stays flat at 100,000 permutations), adds
one to numerator and denominator (the observed assignment is one of the permutations, so p is never 0), and
enumerates every sign assignment exactly when there are few enough non-zero differences.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_PERMUTATIONS = 100_000
DEFAULT_SEED = 42
_EPS = 1e-12  # float noise when comparing permuted and observed mean differences


def randomization_test(
    a: Sequence[float], b: Sequence[float], n_permutations: int = DEFAULT_PERMUTATIONS, seed: int = DEFAULT_SEED,
    chunk: int = 10_000,
) -> float:
    """Two-sided p-value of H0 "a and b are exchangeable per query" for paired scores ``a[i]``, ``b[i]``.

    Under H0 the sign of each difference b[i] - a[i] is a coin flip; p is the share of sign assignments whose
    |mean difference| reaches the observed one. Identical runs give p = 1.
    """
    x = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if x.ndim != 1:
        raise ValueError("randomization_test expects two equally long 1-d score lists")
    d = x[np.abs(x) > _EPS]  # zero differences are unchanged by a sign flip
    if d.size == 0:
        return 1.0
    n = x.size
    observed = abs(d.sum()) / n
    m = d.size
    if 2**m <= n_permutations:  # exact: every sign assignment once
        signs = ((np.arange(2**m)[:, None] >> np.arange(m)) & 1) * 2 - 1
        means = np.abs(signs @ d) / n
        return float(np.mean(means >= observed - _EPS))
    rng = np.random.default_rng(seed)
    hits = 0
    left = n_permutations
    while left:
        size = min(chunk, left)
        signs = rng.integers(0, 2, size=(size, m), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) / n >= observed - _EPS))
        left -= size
    return (hits + 1) / (n_permutations + 1)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the input order: each ≥ its raw p, monotone in the raw p's order,
    capped at 1. Rejecting where adjusted p ≤ alpha controls the family-wise error rate at alpha."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adjusted_sorted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    out = np.empty(m)
    out[order] = adjusted_sorted
    return [float(v) for v in out]
