"""The learned ranker by grouped k-fold cross-validation over every dev set: does LambdaMART earn its place?

For every query of the three dev sets (bench/dev_sets.py) the pool is built as the ranker builds it at query time
(:mod:`nomos.retrieval.ltr.pools`: hybrid's fused top 100 with BM25's and kNN's own lists where the index holds
vectors, else BM25's top 100; the anchor clause's top 20 either way; where the index holds the dense bridge,
:mod:`nomos.retrieval.ltr.dense_bridge`'s two lists and columns, unless ``--no-bridge``) and its features are read
through OpenSearch by :class:`~nomos.retrieval.ltr.features.FeatureReader`. Then, over grouped folds (by case file, ``--repeats``
reshuffles, seeded), a model is trained on the training queries only and ranks the held-out pools. Printed per set:
the first stage, the pool's recall (the ceiling), and the ranker held out (Recall@10/100, nDCG@10).

``--bag N`` trains N boosters per setting (seeds and row sampling, scores averaged) and ``--blend W,...`` lets each
fold also choose the weight of a linear ranker's ranks blended with theirs (0 among them: the bag alone). ``--pools
DUMP`` reads the pools an earlier run's ``--dump`` wrote instead of asking the node (the same features, so the same
figures, in minutes); ``--jobs`` runs the outer folds in that many processes (the same figures). ``--judged`` adds
the judged queries' three columns (:mod:`nomos.retrieval.ltr.judged`): a held-out query's from its fold's training
queries, a training query's from the other training groups only; ``--save`` then writes the log beside the model.
``--by-set`` holds each dev set out whole, trained on the other two (what carries between sets written apart).

Usage (an index built by this checkout; with the embedder's vectors for the dense features and lists):
    .venv/bin/python bench/ltr_study.py --index nomos-articles
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pickle
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

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
from nomos.retrieval.ltr.judged import JUDGED_FEATURES, JudgedLog
from nomos.retrieval.ltr.model import GRID, ROUNDS, fit_linear, query_key, train
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
    ap.add_argument("--bag", type=int, default=1, help="boosters a setting trains (seeds, bagging 0.8), averaged")
    ap.add_argument("--blend", default="", metavar="W,...",
                    help="linear ranker's rank weights each fold chooses among with the setting (0: none)")
    ap.add_argument("--pools", default="", help="read the pools a --dump wrote instead of the node's")
    ap.add_argument("--jobs", type=int, default=1, help="processes for the outer folds (the same figures)")
    ap.add_argument("--judged", action="store_true",
                    help="add the judged queries' columns (nomos.retrieval.ltr.judged), each query's from the training "
                         "queries of other groups only; with --save, the log ships beside the model")
    ap.add_argument("--by-set", action="store_true",
                    help="hold out one dev set at a time, trained on the other two (sets written apart: what transfers)")
    ap.add_argument("--save", default="", help="then train on every judged query and write the model there "
                                                "(PATH.txt and its card PATH.json), for --rerank ltr:PATH")
    args = ap.parse_args()
    started = time.perf_counter()
    if args.pools:
        dumped = pickle.loads(Path(args.pools).read_bytes())
        pools, labels, sets, first_hits = dumped["pools"], dumped["labels"], dumped["sets"], dumped["first"]
        width = next(iter(pools.values())).matrix.shape[1]
        names: tuple[str, ...] = BRIDGED_FEATURES if width == len(BRIDGED_FEATURES) else FEATURES
        dense, bridged = True, names == BRIDGED_FEATURES
        print(f"pools from {args.pools}: {len(pools)} queries, {width} features", file=sys.stderr)
    else:
        pools, labels, sets, first_hits, names, dense, bridged = read_pools(args)
    texts = sets.texts
    judged = {q: g for q, g in sets.groups.items() if q in sets.qrels}
    log = JudgedLog.build(texts, sets.qrels) if args.judged else None
    if log is not None:
        names = (*names, *JUDGED_FEATURES)
    keep = [i for i, f in enumerate(names) if f not in set(args.drop.split(","))]
    params, rounds = json.loads(args.params), args.rounds or ROUNDS
    if args.dump:
        Path(args.dump).write_bytes(pickle.dumps({"pools": pools, "labels": labels, "sets": sets, "first": first_hits}))

    def scored(run: dict[str, list[tuple[str, float]]]) -> dict:
        judged = {q: sets.qrels[q] for q in run if q in sets.qrels}  # the run's queries only (a fold)
        return evaluate({q: r[:100] for q, r in run.items()}, judged, SHOWN).per_query

    baseline = scored({q: list(first_hits[q]) for q in texts})
    ceiling_recall = {q: evaluate({q: [(d, 1.0) for d in pools[q].ids]}, {q: sets.qrels[q]}, ["recall@1000"])
                      .per_query[q]["recall@1000"] for q in texts if q in sets.qrels}
    grid = {name: GRID[name] for name in args.grid.split(",")} if args.grid else {"given": (params, rounds)}
    weights = [float(w) for w in args.blend.split(",")] if args.blend else [0.0]

    def pool_rows(q: str, among: JudgedLog | None) -> np.ndarray:
        """q's pool as a model reads it; with --judged, the judged columns from the log ``among``."""
        m = pools[q].matrix
        return (m if among is None else np.hstack([m, among.columns(texts[q], pools[q].ids)]))[:, keep]

    trained_rows: dict[tuple[str, ...], list[np.ndarray]] = {}

    def training(queries: list[str]) -> list[np.ndarray]:
        """The training pools: with --judged each query's columns from the other groups' training queries only."""
        key = tuple(queries)
        if key not in trained_rows:
            if len(trained_rows) >= 2:  # a fold's training set is asked for again and again, then never
                trained_rows.clear()
            if log is None:
                trained_rows[key] = [pool_rows(q, None) for q in queries]
            else:
                inside = log.without(set(log.query_stems) - set(queries))
                own = {g: inside.without(q for q in queries if judged[q] == g) for g in {judged[q] for q in queries}}
                trained_rows[key] = [pool_rows(q, own[judged[q]]) for q in queries]
        return trained_rows[key]

    def fit(queries: list[str], setting: tuple[dict, int]):
        return train(training(queries), [labels[q] for q in queries],
                     feature_names=[names[i] for i in keep], params=setting[0], rounds=setting[1], bag=args.bag)

    def linear(queries: list[str]):
        if weights == [0.0]:
            return None
        return fit_linear(np.concatenate(training(queries)), np.concatenate([labels[q] for q in queries]))

    def ranked(model, queries, train_q: list[str]) -> dict:
        among = None if log is None else log.without(set(log.query_stems) - set(train_q))
        return scored({q: order(pools[q].ids, model.score(pool_rows(q, among))) for q in sorted(queries)})

    def configs() -> list[tuple[str, float]]:
        return [(name, w) for name in sorted(grid) for w in weights]

    def label(config: tuple[str, float]) -> str:
        return config[0] if weights == [0.0] else f"{config[0]} + linear {config[1]:g}"

    def choose(train_q: list[str], rng: random.Random) -> tuple[tuple[str, float], tuple[str, float]]:
        """The grid's setting and blend weight with the best inner grouped CV over ``train_q`` (one repeat, 4
        folds; each setting's boosters trained once a fold, whatever the weights), and the best with weight 0
        (the boosters alone, reported beside it)."""
        if len(grid) == 1 and len(weights) == 1:
            return configs()[0], configs()[0]
        inner: dict[tuple[str, float], dict[str, dict[str, float]]] = {c: {} for c in configs()}
        for fold in grouped_folds({q: judged[q] for q in train_q}, 4, rng):
            rest = [q for q in train_q if q not in fold]
            lin = linear(rest)
            for name, setting in grid.items():
                model = fit(rest, setting)
                for w in weights:
                    inner[(name, w)].update(ranked(model.with_linear(lin, w), fold, rest))
        members = {n: [q for q in ids if q in set(train_q)] for n, ids in sets.members.items()}
        # ties: the smaller weight, then the setting first by name (max keeps the first of equals)
        def best(among: list[tuple[str, float]]) -> tuple[str, float]:
            return max(among, key=lambda c: (objective(inner[c], train_q, ("recall@100", "ndcg@10"), members), -c[1]))
        return best(configs()), best([c for c in configs() if c[1] == 0] or configs())

    def outer(job: tuple[list[str], set[str], float]) -> tuple[tuple[str, float], float, dict, dict]:
        """One outer fold: the setting its training queries choose, the model's training time, its held-out scores,
        and the held-out scores of the boosters alone chosen among weight 0 (with --blend)."""
        train_q, fold, seed = job
        pick, alone = choose(train_q, random.Random(seed))
        t1 = time.perf_counter()
        model = fit(train_q, grid[pick[0]])
        seconds = time.perf_counter() - t1
        held = ranked(model.with_linear(linear(train_q), pick[1]), fold, train_q)
        bare = model if alone[0] == pick[0] else fit(train_q, grid[alone[0]])
        return pick, seconds, held, held if alone == pick else ranked(bare, fold, train_q)

    held: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    chosen: Counter[str] = Counter()
    picks: Counter[tuple[str, float]] = Counter()
    rng = random.Random(args.seed)
    jobs = []
    for _ in range(1 if args.by_set else args.repeats):  # the folds and inner seeds in the order one process draws them
        for fold in ([set(ids) for ids in sets.members.values()] if args.by_set else grouped_folds(judged, args.folds, rng)):
            jobs.append((sorted(q for q in judged if q not in fold), fold, rng.random()))
    if args.jobs > 1:
        import multiprocessing

        global _OUTER
        _OUTER = outer  # a closure: the forked workers inherit it, only the jobs and results are pickled
        with multiprocessing.get_context("fork").Pool(args.jobs) as workers:
            results = workers.map(_outer, jobs, chunksize=1)
    else:
        results = [outer(job) for job in jobs]
    train_s = []
    alone: dict[str, dict[str, float]] = {}
    for pick, seconds, rows, bare in results:
        chosen[label(pick)] += 1
        picks[pick] += 1
        train_s.append(seconds)
        for acc_all, got in ((held, rows), (alone, bare)):
            for q, row in got.items():
                acc = acc_all.setdefault(q, {m: 0.0 for m in row})
                for m, v in row.items():
                    acc[m] += v
        for q in rows:
            counts[q] = counts.get(q, 0) + 1
    held = {q: {m: v / counts[q] for m, v in row.items()} for q, row in held.items()}
    alone = {q: {m: v / counts[q] for m, v in row.items()} for q, row in alone.items()}
    print(f"# The learned ranker: {', '.join(f'{n} ({len(q)})' for n, q in sets.members.items())}; "
          + ("each set held out in turn, trained on the others\n" if args.by_set else
             f"{args.folds}-fold CV grouped by case file, {args.repeats} repeats, seed {args.seed}\n"))
    print(f"command: {' '.join(sys.argv)}\n")
    more = "; + the dense bridge's adapted top 100 and anchor-vector top 50" if bridged else ""
    bag = f"; {args.bag} boosters a model" if args.bag > 1 else ""
    print(f"first stage: {'hybrid (fused top 100; pool: + BM25 top 100, anchors top 20, lemmas top 50' if dense else 'bm25 (pool: + anchors top 20, lemmas top 50'}{more}); "
          f"features: {len(keep)}{bag}; training {np.mean(train_s):.1f} s a fold; settings chosen (nested CV): "
          f"{dict(chosen.most_common())}\n")
    print("| set | first stage " + " / ".join(SHOWN) + " | pool recall | ranker held out " + " / ".join(SHOWN) + " |")
    print("| --- | --- | --- | --- |")
    report: dict = {"sets": {n: len(q) for n, q in sets.members.items()}, "dense": dense, "bridge": bridged, "judged": args.judged, "features": [names[i] for i in keep],
                    "first": {}, "held_out": {}, "pool_recall": {}, "command": " ".join(sys.argv),
                    "objective": list(objective(held, sorted(held), ("recall@100", "ndcg@10"), sets.members)),
                    "per_query": held}  # each query's held-out figures: paired comparisons between runs
    for name, ids in sets.members.items():
        b = [mean(baseline, ids, m) for m in SHOWN]
        h = [mean(held, [q for q in ids if q in held], m) for m in SHOWN]
        c = sum(ceiling_recall[q] for q in ids) / len(ids)
        report["first"][name], report["held_out"][name], report["pool_recall"][name] = b, h, c
        print(f"| {name} | " + " / ".join(f"{v:.4f}" for v in b) + f" | {c:.4f} | " + " / ".join(f"{v:.4f}" for v in h) + " |")
    print(f"\nobjective (mean over the sets of R@100, then of nDCG@10): {report['objective']}")
    if weights != [0.0]:  # what the blend adds: the same folds' choice among the boosters alone
        report["boosters_alone"] = {n: [mean(alone, ids, m) for m in SHOWN] for n, ids in sets.members.items()}
        report["boosters_alone_per_query"] = alone
        report["boosters_alone_objective"] = list(objective(alone, sorted(alone), ("recall@100", "ndcg@10"), sets.members))
        print("boosters alone (weight 0), held out: " + "; ".join(
            f"{n} " + " / ".join(f"{v:.4f}" for v in r) for n, r in report["boosters_alone"].items())
              + f"; objective {report['boosters_alone_objective']}")
    if args.save:
        pick = picks.most_common(1)[0][0]  # the setting (and weight) the outer folds chose most often
        everything = sorted(judged)
        model = train(training(everything), [labels[q] for q in everything],
                      feature_names=[names[i] for i in keep], params=grid[pick[0]][0], rounds=grid[pick[0]][1], bag=args.bag,
                      card={"setting": pick[0], "trained_on": {n: len(q) for n, q in sets.members.items()}, "index": args.index,
                            "trained_queries": sorted(query_key(texts[q]) for q in judged),
                            "dense": dense, "dense_bridge": bridged, "trained_at": time.strftime("%Y-%m-%d"), "commit": commit(),
                            "cross_validated": {"first": report["first"], "held_out": report["held_out"],
                                                "metrics": list(SHOWN), "command": report["command"]}})
        if pick[1] > 0:
            model = model.with_linear(linear(everything), pick[1])
        if log is not None:  # every judged query's log, beside the model
            model = model.with_log(log, Path(args.save).parent / f"{Path(args.save).name}.judged.json")
        model.save(Path(args.save))
        print(f"model: {args.save}.txt and {args.save}.json", file=sys.stderr)
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


_OUTER: Any = None  # main's outer fold, for --jobs' forked workers


def _outer(job: Any) -> Any:
    return _OUTER(job)


def read_pools(args: argparse.Namespace) -> tuple:
    """Every dev query's pool through the node, as the ranker builds it at query time: (pools, labels, sets, the
    first stage's hits as (id, score) lists, the feature names, whether dense, whether bridged)."""
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
    labels = {q: np.asarray([1.0 if sets.qrels.get(q, {}).get(d, 0) > 0 else 0.0 for d in pools[q].ids]) for q in texts}
    first_hits = {q: [(h.doc_id, h.score) for h in first.hits[q]] for q in texts}
    return pools, labels, sets, first_hits, names, dense, bridge is not None


if __name__ == "__main__":
    main()
