"""The learned ranker by grouped k-fold cross-validation over every dev set: does LambdaMART earn its place?

For every query of the three dev sets (bench/dev_sets.py) the pool is built as the ranker builds it at query time
(:mod:`nomos.retrieval.ltr.pools`: hybrid's fused top 100 with BM25's and kNN's own lists where the index holds
vectors, else BM25's top 100; the anchor clause's top 20 either way; where the index holds the dense bridge,
:mod:`nomos.retrieval.ltr.dense_bridge`'s two lists and columns, unless ``--no-bridge``) and its features are read
through OpenSearch by :class:`~nomos.retrieval.ltr.features.FeatureReader`. Then, over grouped folds (by case file, ``--repeats``
reshuffles, seeded), a model is trained on the training queries only and ranks the held-out pools. Printed per set:
the first stage, the pool's recall (the ceiling), and the ranker held out (Recall@10/100, nDCG@10).

Usage (an index built by this checkout; with the embedder's vectors for the dense features and lists):
    .venv/bin/python bench/ltr_study.py --index nomos-articles
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import SHOWN, dev_sets
from nomos.eval.grouped_cv import grouped_folds, mean, objective
from nomos.eval.metrics import evaluate
from nomos.opensearch.transport import make_transport
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.knn import index_has_vectors
from nomos.retrieval.ltr.dense_bridge import load_bridge
from nomos.retrieval.ltr.features import BRIDGED_FEATURES, FEATURES, FeatureReader
from nomos.retrieval.ltr.model import GRID, ROUNDS, query_key, train
from nomos.retrieval.ltr.pools import lists_of, order, side_lists
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.settings import Settings


def commit() -> str:
    """This checkout's commit (the model card's provenance); "" outside a git checkout."""
    import subprocess

    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--index", default="nomos-articles")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--analysis", default="stemmed", help="the first stage's BM25 chain (stemmed, lemma, …)")
    ap.add_argument("--drop", default="", help="comma-separated features to leave out (an ablation)")
    ap.add_argument("--json", default="bench/out/ltr_study.json")
    ap.add_argument("--grid", default="leaves15,leaves7,leaves7-bagged,leaves3",
                    help="model.GRID settings each outer fold chooses among by an inner grouped CV ('' : --params)")
    ap.add_argument("--params", default="{}", help="LightGBM parameters over model.PARAMS, as JSON (a sensitivity run)")
    ap.add_argument("--rounds", type=int, default=0, help="boosting rounds (default: model.ROUNDS)")
    ap.add_argument("--bridge-depths", default="", metavar="ADAPTED,ANCHORS",
                    help="the dense bridge's two lists' depths (default: dense_bridge.ADAPTED_DEPTH, ANCHOR_LIST_DEPTH)")
    ap.add_argument("--no-bridge", action="store_true",
                    help="leave the dense bridge out where the index holds it (the plain model: features v3)")
    ap.add_argument("--dump", default="", help="also pickle the pools, labels and sets there (for exploration)")
    ap.add_argument("--save", default="", help="then train on every judged query and write the model there "
                                                "(PATH.txt and its card PATH.json), for --rerank ltr:PATH")
    args = ap.parse_args()
    started = time.perf_counter()
    sets = dev_sets(Path(args.dataset))
    settings = Settings.from_env().with_overrides(index_alias=args.index)
    transport = make_transport(settings.cluster)
    bm25 = BM25Retriever(transport, args.index)
    dense = index_has_vectors(transport, args.index, settings.embedder)
    texts = sets.texts
    bridge = None
    if dense:
        hybrid = make_retriever(settings, "hybrid", transport, MethodOptions(analysis=args.analysis, rerank="none"))
        first = hybrid.search_many(texts, 100)
        knn = hybrid.knn  # type: ignore[attr-defined]
        vectors = dict(zip(texts, knn.query_vectors(list(texts.values())), strict=True))
        bridge = None if args.no_bridge else load_bridge(transport, args.index, settings.embedder)
        if bridge is not None and args.bridge_depths:
            adapted_depth, anchor_depth = (int(v) for v in args.bridge_depths.split(","))
            bridge = dataclasses.replace(bridge, adapted_depth=adapted_depth, anchor_depth=anchor_depth)
        reader = FeatureReader(bm25, knn.field, bridge)
    else:
        first = BM25Retriever(transport, args.index, analysis=args.analysis).search_many(texts, 100)
        vectors, reader = {}, FeatureReader(bm25)
    print(f"first stage: {'hybrid' if dense else 'bm25 (no vectors in the index)'}; dense bridge: "
          f"{'yes' if bridge else 'no'}; {time.perf_counter() - started:.0f} s", file=sys.stderr)
    adapted = None
    if bridge is not None:  # the adapted query's two lists join the pool, as at query time (LearnedRanker)
        adapted = dict(zip(vectors, bridge.adapt(np.stack(list(vectors.values()))), strict=True))
    anchors, lemmas, dense_lists = side_lists(bm25, texts, bridge, adapted)  # the ranker's own side requests
    lists = lists_of(first, anchors, lemmas)
    for q, more in dense_lists.items():
        lists[q] = {**lists[q], **more}
    t0 = time.perf_counter()
    pools = reader.read(texts, lists, vectors, adapted)
    feature_s = time.perf_counter() - t0
    print(f"features of {sum(len(p.ids) for p in pools.values())} pool rows: {feature_s:.0f} s "
          f"({1000 * feature_s / len(texts):.0f} ms a query)", file=sys.stderr)
    names: tuple[str, ...] = BRIDGED_FEATURES if bridge is not None else FEATURES
    keep = [i for i, f in enumerate(names) if f not in set(args.drop.split(","))]
    labels = {q: np.asarray([1.0 if sets.qrels.get(q, {}).get(d, 0) > 0 else 0.0 for d in pools[q].ids]) for q in texts}
    params, rounds = json.loads(args.params), args.rounds or ROUNDS
    if args.dump:
        import pickle

        Path(args.dump).write_bytes(pickle.dumps({"pools": pools, "labels": labels, "sets": sets, "first": {
            q: [(h.doc_id, h.score) for h in first.hits[q]] for q in texts}}))

    def scored(run: dict[str, list[tuple[str, float]]]) -> dict:
        judged = {q: sets.qrels[q] for q in run if q in sets.qrels}  # the run's queries only (a fold)
        return evaluate({q: r[:100] for q, r in run.items()}, judged, SHOWN).per_query

    baseline = scored({q: [(h.doc_id, h.score) for h in first.hits[q]] for q in texts})
    ceiling = scored({q: [(d, float(len(p.ids) - i)) for i, d in enumerate(p.ids)] for q, p in pools.items()})
    ceiling_recall = {q: evaluate({q: [(d, 1.0) for d in pools[q].ids]}, {q: sets.qrels[q]}, ["recall@1000"])
                      .per_query[q]["recall@1000"] for q in texts if q in sets.qrels}
    judged = {q: g for q, g in sets.groups.items() if q in sets.qrels}
    grid = {name: GRID[name] for name in args.grid.split(",")} if args.grid else {"given": (params, rounds)}

    def fit(queries: list[str], setting: tuple[dict, int]):
        return train([pools[q].matrix[:, keep] for q in queries], [labels[q] for q in queries],
                     feature_names=[names[i] for i in keep], params=setting[0], rounds=setting[1])

    def ranked(model, queries) -> dict:
        return scored({q: order(pools[q].ids, model.score(pools[q].matrix[:, keep])) for q in sorted(queries)})

    def choose(train_q: list[str], rng: random.Random) -> str:
        """The grid's setting with the best inner grouped CV over ``train_q`` (one repeat, 4 folds)."""
        if len(grid) == 1:
            return next(iter(grid))
        inner: dict[str, dict[str, dict[str, float]]] = {name: {} for name in grid}
        for fold in grouped_folds({q: judged[q] for q in train_q}, 4, rng):
            rest = [q for q in train_q if q not in fold]
            for name, setting in grid.items():
                inner[name].update(ranked(fit(rest, setting), fold))
        members = {n: [q for q in ids if q in set(train_q)] for n, ids in sets.members.items()}
        return max(sorted(grid), key=lambda n: objective(inner[n], train_q, ("recall@100", "ndcg@10"), members))

    held: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    chosen: Counter[str] = Counter()
    rng = random.Random(args.seed)
    train_s = []
    for _ in range(args.repeats):
        for fold in grouped_folds(judged, args.folds, rng):
            train_q = sorted(q for q in judged if q not in fold)
            pick = choose(train_q, random.Random(rng.random()))
            chosen[pick] += 1
            t1 = time.perf_counter()
            model = fit(train_q, grid[pick])
            train_s.append(time.perf_counter() - t1)
            for q, row in ranked(model, fold).items():
                acc = held.setdefault(q, {m: 0.0 for m in row})
                for m, v in row.items():
                    acc[m] += v
                counts[q] = counts.get(q, 0) + 1
    held = {q: {m: v / counts[q] for m, v in row.items()} for q, row in held.items()}
    print(f"# The learned ranker: {', '.join(f'{n} ({len(q)})' for n, q in sets.members.items())}; "
          f"{args.folds}-fold CV grouped by case file, {args.repeats} repeats, seed {args.seed}\n")
    print(f"command: {' '.join(sys.argv)}\n")
    more = "; + the dense bridge's adapted top 100 and anchor-vector top 50" if bridge is not None else ""
    print(f"first stage: {'hybrid (fused top 100; pool: + BM25 top 100, anchors top 20, lemmas top 50' if dense else 'bm25 (pool: + anchors top 20, lemmas top 50'}{more}); "
          f"features: {len(keep)}; training {np.mean(train_s):.1f} s a fold; settings chosen (nested CV): "
          f"{dict(chosen.most_common())}\n")
    print("| set | first stage " + " / ".join(SHOWN) + " | pool recall | ranker held out " + " / ".join(SHOWN) + " |")
    print("| --- | --- | --- | --- |")
    report: dict = {"sets": {n: len(q) for n, q in sets.members.items()}, "dense": dense, "bridge": bridge is not None, "features": [names[i] for i in keep],
                    "first": {}, "held_out": {}, "pool_recall": {}, "command": " ".join(sys.argv)}
    for name, ids in sets.members.items():
        b = [mean(baseline, ids, m) for m in SHOWN]
        h = [mean(held, [q for q in ids if q in held], m) for m in SHOWN]
        c = sum(ceiling_recall[q] for q in ids) / len(ids)
        report["first"][name], report["held_out"][name], report["pool_recall"][name] = b, h, c
        print(f"| {name} | " + " / ".join(f"{v:.4f}" for v in b) + f" | {c:.4f} | " + " / ".join(f"{v:.4f}" for v in h) + " |")
    del ceiling
    if args.save:
        setting = chosen.most_common(1)[0][0]  # the setting the outer folds chose most often
        model = train([pools[q].matrix[:, keep] for q in sorted(judged)], [labels[q] for q in sorted(judged)],
                      feature_names=[names[i] for i in keep], params=grid[setting][0], rounds=grid[setting][1],
                      card={"setting": setting, "trained_on": {n: len(q) for n, q in sets.members.items()}, "index": args.index,
                            "trained_queries": sorted(query_key(texts[q]) for q in judged),
                            "dense": dense, "dense_bridge": bridge is not None, "trained_at": time.strftime("%Y-%m-%d"), "commit": commit(),
                            "cross_validated": {"first": report["first"], "held_out": report["held_out"],
                                                "metrics": list(SHOWN), "command": report["command"]}})
        model.save(Path(args.save))
        print(f"model: {args.save}.txt and {args.save}.json", file=sys.stderr)
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
