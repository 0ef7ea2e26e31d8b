"""The bridge's BM25 choices by grouped k-fold cross-validation over every dev set: anchors, headings, lemmas.

BM25 over ``content`` gains two clauses of its own (:mod:`nomos.ingest.bridge`): ``anchors`` (what citing articles
say about an article) with boost A and ``context`` (its law's title and headings) with boost C, and the ``lemmas``
field (:mod:`nomos.legal.text.lemmas`) beside the stems with boost L or instead of them (L = only); A = C = L = 0 is the
BM25 of before. Every (A, C) of the grid is run over the three dev sets together (the extended queries, the case
files, the everyday set), and each fold of a grouped k-fold (by case file; ``--repeats`` reshuffles, seeded)
chooses on its training queries by Recall@100, then nDCG@10, each set weighing the same. Printed: held-out means per
set before and after, the choices, and every configuration's means (the oracle, for reference only).

Usage (an index built by this checkout, so it has the bridge fields; vectors not needed):
    .venv/bin/python bench/bridge_study.py --index nomos-articles
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import SHOWN, cv_report, dev_sets
from nomos.eval.grouped_cv import cross_validate, mean
from nomos.eval.metrics import evaluate
from nomos.opensearch.transport import make_transport
from nomos.retrieval.bm25 import BM25Retriever
from nomos.settings import Settings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--index", default="nomos-articles")
    ap.add_argument("--anchors", default="0,0.25,0.5", help="anchor clause boosts")
    ap.add_argument("--contexts", default="0,0.25", help="context clause boosts")
    ap.add_argument("--lemmas", default="0,0.5,1,2,only",
                    help="lemma clause boosts beside the stems; 'only': the lemmas instead of the stems")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json", default="bench/out/bridge_study.json")
    args = ap.parse_args()
    started = time.perf_counter()
    sets = dev_sets(Path(args.dataset))
    transport = make_transport(Settings.from_env().with_overrides(index_alias=args.index).cluster)

    per_query = {}
    grid = [(float(a), float(c), lem) for a in args.anchors.split(",") for c in args.contexts.split(",")
            for lem in args.lemmas.split(",")]
    for a, c, lem in grid:
        if lem == "only":
            bm25 = BM25Retriever(transport, args.index, analysis="lemma", anchor_boost=a, context_boost=c)
        else:
            bm25 = BM25Retriever(transport, args.index, anchor_boost=a, context_boost=c, lemma_boost=float(lem))
        run = bm25.search_many(sets.texts, 100).hits
        name = f"anchors={a:g} context={c:g} lemmas={lem}"
        per_query[name] = evaluate({q: [(h.doc_id, h.score) for h in hs] for q, hs in run.items()}, sets.qrels,
                                   SHOWN).per_query
        print(f"{name}: " + " | ".join(f"{s} {mean(per_query[name], ids, 'recall@100'):.4f} / "
                                        f"{mean(per_query[name], ids, 'ndcg@10'):.4f}"
                                        for s, ids in sets.members.items()), file=sys.stderr)
    cv = cross_validate(per_query, sets.groups, ("recall@100", "ndcg@10"), k=args.folds, repeats=args.repeats,
                        seed=args.seed, members=sets.members,
                        prefer=lambda n: tuple(-float(p.split("=")[1].replace("only", "9")) for p in n.split()))
    report = cv_report("The bridge in BM25", per_query, "anchors=0 context=0 lemmas=0", cv, sets, args.folds,
                       args.repeats, args.seed)
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
