"""Amendment-aware ranking, chosen by k-fold cross-validation on the extended dev queries.

The method's ranking is computed once per query (the registry's retriever, ``--amendments off``, depth 100), the
``amends`` field of its top 100 is read once (one mget, the stage's own lookup), and every candidate setting of
``--amendments`` is applied to those lists with the stage's own pure function (nomos.retrieval.amendments.apply),
so the numbers are exactly what ``eval --amendments X`` gives. The settings are then chosen by k-fold
cross-validation (nomos.eval.tuning.cross_validate: per fold, the best setting on the other folds, scored on the
held-out one; ties go to the simpler setting, "off" first). "Made the default" only if the cross-validated score
beats "off" on unseen folds.

Usage (an index built from the corpus with the legal graph's fields):
  NOMOS_INDEX=... .venv/bin/python bench/amendments_cv.py --dataset ../shared/data/greek-statutes [--method bm25]
      [--folds 5] [--seeds 1,2,3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from nomos.eval.metrics import evaluate
from nomos.eval.significance import randomization_test
from nomos.eval.tuning import cross_validate
from nomos.ingest.loader import load_dataset, replace_judgments
from nomos.opensearch.client import make_client
from nomos.opensearch.transport import make_transport
from nomos.retrieval.amendments import AmendmentConfig, apply, stored_targets
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.settings import Settings

# (mode code, value) so the tuning module's numeric tie rule prefers off (0, 0), then smaller values
CANDIDATES: dict[tuple[float, float], AmendmentConfig] = {
    (0, 0): AmendmentConfig(),
    (1, 10): AmendmentConfig("follow", depth=10),
    (1, 20): AmendmentConfig("follow", depth=20),
    (1, 100): AmendmentConfig("follow", depth=100),
    (2, 0.25): AmendmentConfig("credit", weight=0.25),
    (2, 0.5): AmendmentConfig("credit", weight=0.5),
    (2, 1.0): AmendmentConfig("credit", weight=1.0),
}
METRICS = ("recall@10", "recall@100", "ndcg@10")
K = 100


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--queries", default="queries-extended.jsonl")
    ap.add_argument("--qrels", default="qrels/extended.tsv")
    ap.add_argument("--method", default="bm25")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    root = Path(args.dataset)
    data = replace_judgments(load_dataset(str(root)), root / args.qrels, root / args.queries)
    settings = Settings.from_env()
    client = make_client(settings.cluster)
    retriever = make_retriever(settings, args.method, client, MethodOptions(amendments="off"))
    queries = {q.id: q.text for q in data.queries}
    first = retriever.search_many(queries, K).hits
    lookup = stored_targets(make_transport(settings.cluster, client), settings.index_alias)
    targets = lookup(sorted({h.doc_id for hs in first.values() for h in hs}))
    qrels = data.qrels
    scores: dict[str, dict[tuple[float, float], dict[str, float]]] = {m: {} for m in METRICS}
    means: dict[str, dict[str, float]] = {}
    moved: dict[str, int] = {}
    for key, cfg in CANDIDATES.items():
        run = {}
        n_moves = 0
        for q, hs in first.items():
            new, moves = apply(hs, targets, cfg)
            run[q] = [(h.doc_id, h.score) for h in new[:K]]
            n_moves += len(moves)
        ev = evaluate(run, qrels, METRICS)
        means[cfg.spec] = ev.mean
        moved[cfg.spec] = n_moves
        for m in METRICS:
            scores[m][key] = {q: ev.per_query[q][m] for q in ev.queries}
    print(f"{args.method}: {len(queries)} queries, {sum(len(v) for v in targets.values())} amendment edges among "
          f"the {len({h.doc_id for hs in first.values() for h in hs})} articles ranked in the top {K}")
    print(f"{'setting':<14}" + "".join(f"{m:>12}" for m in METRICS) + f"{'moved':>8}   paired p vs off (" + ", ".join(METRICS) + ")")
    qids = sorted(scores[METRICS[0]][(0, 0)])
    pvalues: dict[str, dict[str, float]] = {}
    for key, cfg in CANDIDATES.items():
        row = means[cfg.spec]
        pvalues[cfg.spec] = {m: randomization_test([scores[m][(0, 0)][q] for q in qids], [scores[m][key][q] for q in qids])
                             for m in METRICS}
        print(f"{cfg.spec:<14}" + "".join(f"{row[m]:>12.4f}" for m in METRICS) + f"{moved[cfg.spec]:>8}   "
              + ", ".join(f"{pvalues[cfg.spec][m]:.3f}" for m in METRICS))
    report: dict[str, object] = {"method": args.method, "means": means, "moved": moved, "p_vs_off": pvalues, "cv": {}}
    for m in METRICS:
        cvs, chosen = [], []
        for seed in (int(s) for s in args.seeds.split(",")):
            res = cross_validate(scores[m], m, k=args.folds, seed=seed, default=(0, 0))
            cvs.append(res.cv_score)
            chosen += [CANDIDATES[(f["k1"], f["b"])].spec for f in res.folds]
        off = means["off"][m]
        picks = {c: chosen.count(c) for c in dict.fromkeys(chosen)}
        print(f"CV {m}: held-out {np.mean(cvs):.4f} (seeds {args.seeds}, {args.folds} folds) vs off {off:.4f}: "
              f"{'+' if np.mean(cvs) >= off else ''}{np.mean(cvs) - off:.4f}; chosen per fold: {picks}")
        report["cv"][m] = {"held_out": float(np.mean(cvs)), "off": off, "per_seed": cvs, "chosen": picks}  # type: ignore[index]
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
