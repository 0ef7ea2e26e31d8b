"""The pool's neighbourhood: what the first stage's best articles say about a candidate's place in the law.

Gold articles come in clusters: in the dev sets 134 of the extended queries' 159 gold articles share their law with
another gold article of the same query (114 of 150 for the case files), and about half sit within five article
numbers of one (theft, its aggravated forms and its mitigations are neighbours in the Penal Code). A candidate's own
features cannot see that; its neighbours in the first stage's top ten can. So every pool article gets, from the
fused list (BM25's where there is no fusion) and the ``cites`` doc values the pool's search already reads:

* ``law_top10``: how many other articles of its law the top ten holds;
* ``law_rr``: the reciprocal ranks of the other articles of its law in the whole list, summed;
* ``near_top10``: log(1 + the distance in article numbers to the nearest other article of its law in the top ten);
* ``cited_by_top10`` / ``cites_top10``: how many top-ten articles cite it, and how many of them it cites.

No request is added: the law and the number are read from the article id (``PK::372``), the citations from the
pool's doc values. Chosen by grouped cross-validation over the three dev sets (docs/benchmarks.md, issue 46).

The law's place in the whole pool (:data:`LAW_FEATURES`, features v6) goes further: where the pool's articles of one
law are many, the ranker should still order them among themselves, and see which law the pool leans to. From the pool's
own order and the columns already read (no request added): the article's place among its law's pool articles, its
law's share of the pool and of the pool's first 30, whether its law is the fused top-1's, and its gap to its law's
best on the fused rank, BM25 and the adapted cosine.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from nomos.retrieval.base import Hit

NEIGHBOUR_FEATURES = ("law_top10", "law_rr", "near_top10", "cited_by_top10", "cites_top10")
LAW_FEATURES = ("law_place", "law_share", "law_share30", "law_is_top1", "law_adapted_gap", "law_bm25_share",
                "law_fused_gap")
HEAD = 30  # the pool's first articles (by their best rank in any list) whose laws law_share30 counts
TOP = 10
FAR = 1000  # the distance of an article with no other article of its law in the top ten
_NUMBER = re.compile(r"\d+")


def law_of(doc_id: str) -> str:
    """The law part of an article id (``PK`` of ``PK::372``, ``N_4624_2019`` of ``N_4624_2019::5``)."""
    return doc_id.split("::", 1)[0]


def number_of(doc_id: str) -> int | None:
    """The article's number without its letter (``386`` of ``PK::386Α``), or None where the id has none."""
    m = _NUMBER.match(doc_id.rsplit("::", 1)[-1])
    return int(m.group()) if m else None


def neighbour_columns(ids: Sequence[str], ranking: Sequence[Hit], cites: Mapping[str, Sequence[str]]) -> np.ndarray:
    """:data:`NEIGHBOUR_FEATURES` of the pool ``ids`` (len(ids) x 5) from the first stage's ``ranking`` and each pool
    article's citations (``cites``: article -> the corpus articles it cites)."""
    top = [h.doc_id for h in ranking[:TOP]]
    top_set = set(top)
    rank_of: dict[str, int] = {}
    rr_of_law: dict[str, float] = {}  # each law's reciprocal ranks summed over the whole list
    top_of_law: dict[str, list[tuple[str, int | None]]] = {}  # each law's top-ten articles and their numbers
    for rank, h in enumerate(ranking, start=1):
        if h.doc_id in rank_of:
            continue
        rank_of[h.doc_id] = rank
        law = law_of(h.doc_id)
        rr_of_law[law] = rr_of_law.get(law, 0.0) + 1.0 / rank
        if rank <= TOP:
            top_of_law.setdefault(law, []).append((h.doc_id, number_of(h.doc_id)))
    cited_by: dict[str, int] = {}
    for d in top:
        for c in set(cites.get(d, ())):
            if c != d:
                cited_by[c] = cited_by.get(c, 0) + 1
    far = math.log1p(FAR)
    rows = []
    for d in ids:  # a pool is ~330 articles: each row reads its law's totals less its own part
        law = law_of(d)
        tops = top_of_law.get(law)
        near_top = [m for e, m in tops if e != d] if tops else []
        distance = far
        if near_top:  # the article's own number only where its law has another top-ten article
            n = number_of(d)
            distances = [abs(m - n) for m in near_top if m is not None and n is not None]
            distance = math.log1p(min(distances)) if distances else far
        own = cites.get(d)
        rows.append([
            float(len(near_top)),
            rr_of_law.get(law, 0.0) - (1.0 / rank_of[d] if d in rank_of else 0.0),
            distance,
            float(cited_by.get(d, 0)),
            float(sum(1 for c in set(own) if c in top_set and c != d)) if own else 0.0,
        ])
    return np.asarray(rows, dtype=np.float64).reshape(len(ids), len(NEIGHBOUR_FEATURES))


def law_columns(ids: Sequence[str], fused_rank: np.ndarray, bm25: np.ndarray, adapted: np.ndarray) -> np.ndarray:
    """:data:`LAW_FEATURES` of the pool ``ids`` (in the pool's order: best rank in any list first; len(ids) x 7) from
    each article's fused rank (a missing rank is past the list's end), BM25 score and adapted cosine."""
    n = len(ids)
    if n == 0:
        return np.zeros((0, len(LAW_FEATURES)))
    laws = [law_of(d) for d in ids]
    # each article's law as a group number (its first appearance in pool order): the per-law loop of numpy calls was
    # ~0.5 ms a pool of ~60 laws; the groups' maxima and minima are exact, so the columns are the same to the bit
    group_of: dict[str, int] = {}
    group = np.fromiter((group_of.setdefault(law, len(group_of)) for law in laws), dtype=np.intp, count=n)
    groups = len(group_of)
    size = np.bincount(group, minlength=groups)
    order = np.argsort(group, kind="stable")  # pool order within each law
    starts = np.concatenate([[0], np.cumsum(size)[:-1]])
    place = np.empty(n)
    place[order] = np.arange(n) - starts[group[order]]  # how many of its law come before it
    best_adapted, best_bm25 = np.full(groups, -np.inf), np.full(groups, -np.inf)
    best_fused = np.full(groups, np.inf)
    np.maximum.at(best_adapted, group, adapted)
    np.maximum.at(best_bm25, group, bm25)
    np.minimum.at(best_fused, group, fused_rank)
    head = np.bincount(group[:HEAD], minlength=groups)
    first = np.flatnonzero(fused_rank == 1)  # the fused top 1 (none where the pool holds no fused list)
    top1 = group[first[0]] if len(first) else -1
    share = size[group] / n
    share30 = head[group] / HEAD
    best = best_bm25[group]
    bm25_share = np.divide(bm25, best, out=np.zeros(n), where=best > 0)
    return np.stack([np.log1p(place), share, share30, (group == top1).astype(np.float64),
                     adapted - best_adapted[group], bm25_share, np.log(fused_rank) - np.log(best_fused[group])], axis=1)
