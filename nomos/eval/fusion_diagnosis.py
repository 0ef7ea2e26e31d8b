"""Account for every relevant article in a fused run: which clause found it, and whether fusion kept it.

A fused top k can only hold what the clauses returned, and it has room for k of their (up to) 2k candidates. When
one clause is much weaker, its confident but wrong candidates push the other clause's relevant articles below
rank k: that shows up here as ``lost_from_knn`` (or ``lost_from_bm25``), per query and in total, and it is the
"why" behind a fused run that scores below its better clause.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence


def _ids(hits: Sequence[Any], k: int) -> list[str]:
    """Doc ids of the first k hits, whether hits are Hit objects or (doc_id, score) pairs."""
    return [h.doc_id if hasattr(h, "doc_id") else h[0] for h in hits[:k]]


def diagnose(
    bm25: Mapping[str, Sequence[Any]],
    knn: Mapping[str, Sequence[Any]],
    fused: Mapping[str, Sequence[Any]],
    qrels: Mapping[str, Mapping[str, int]],
    k: int = 100,
) -> dict[str, Any]:
    """Per query and in total: relevant articles found by BM25 only / kNN only / both (each within its top k),
    how many the fused top k keeps, and how many each clause found that the fused top k lost."""
    per_query: dict[str, dict[str, int]] = {}
    for qid in sorted(qrels):
        rel = {d for d, g in qrels[qid].items() if g > 0}
        if not rel:
            continue
        b = set(_ids(bm25.get(qid, []), k)) & rel
        n = set(_ids(knn.get(qid, []), k)) & rel
        f = set(_ids(fused.get(qid, []), k)) & rel
        per_query[qid] = {
            "relevant": len(rel),
            "bm25_only": len(b - n),
            "knn_only": len(n - b),
            "both": len(b & n),
            "fused": len(f),
            "lost_from_knn": len(n - f),
            "lost_from_bm25": len(b - f),
        }
    keys = ("relevant", "bm25_only", "knn_only", "both", "fused", "lost_from_knn", "lost_from_bm25")
    total = {key: sum(row[key] for row in per_query.values()) for key in keys}
    return {"k": k, "total": total, "per_query": per_query}


def fusion_summary(d: Mapping[str, Any], fused_recall: float | None) -> str:
    """Where the relevant articles went (``d``: the run's ``fusion_diagnosis`` totals with ``k`` and each
    clause's Recall@k), and a plain warning when the fusion scores below its better clause."""
    k = d["k"]
    best = max(("bm25", "knn"), key=lambda c: d.get(f"{c}_recall@{k}", 0.0))
    line = (f"fusion: of {d['relevant']} relevant articles, BM25's top {k} found {d['bm25_only'] + d['both']}, "
            f"kNN's {d['knn_only'] + d['both']} ({d['both']} by both); the fused top {k} keeps {d['fused']}, "
            f"losing {d['lost_from_knn']} of kNN's and {d['lost_from_bm25']} of BM25's")
    if fused_recall is not None and fused_recall < d.get(f"{best}_recall@{k}", 0.0) - 1e-9:
        line += (f"\nfusion falls short of {best} alone (Recall@{k} {fused_recall:.4f} vs {d[f'{best}_recall@{k}']:.4f}): "
                 f"the weaker clause's candidates displace the stronger one's; weight {best} up (--weights) or use {best}. "
                 "Per query: details.json, fusion_diagnosis")
    return line
