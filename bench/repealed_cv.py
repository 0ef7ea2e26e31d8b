"""Repealed articles listed after those in force: does it cost recall of articles in force? Grouped CV on the dev sets.

For every query of the three dev sets (bench/dev_sets.py) the method's ranking is computed once to depth 100, as
``eval`` ranks it (the search stage's ``rank_many``), and the standing of every ranked article is read once
(:func:`nomos.pages.standing.read_standings`, the search stage's own lookup). Then three settings are applied
with the stage's own function (:func:`nomos.pages.standing.demote_repealed`):

* ``off``: the method's ranking as it is;
* ``page``: repealed articles listed after those in force inside the page (the top 10), which is what the search
  stage does: the page holds the same articles, in another order;
* ``deep``: repealed articles after every article in force of the top 100 (a page then shows a repealed article
  only where fewer than 10 in force were found: close to leaving them out).

Each is scored twice: against every judgment, and against the judgments of articles in force only (a repealed
article judged relevant left out): "recall of articles in force". A setting is chosen per fold on nDCG@10 over
every judgment (the conservative objective: demoting a repealed article a judge found relevant counts against it),
5 grouped folds (by case file), repeats reshuffled, seeded; the held-out figures are printed per set.

Usage (an index of the stand-in corpus built by this checkout; hybrid needs the embedder's vectors):
    NOMOS_INDEX=nomos-articles .venv/bin/python bench/repealed_cv.py --method bm25 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import dev_sets
from nomos.eval.grouped_cv import cross_validate, mean
from nomos.eval.metrics import evaluate
from nomos.pages.standing import demote_repealed, read_standings
from nomos.retrieval.registry import MethodOptions
from nomos.settings import Settings
from nomos.stages.searching import SearchStage

DEPTH = 100
PAGE = 10
METRICS = ("recall@10", "recall@100", "ndcg@10")
SETTINGS = ("off", "page", "deep")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--method", default="bm25")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    sets = dev_sets(Path(args.dataset))
    searcher = SearchStage(Settings.from_env())
    queries = {q: sets.texts[q] for q in sets.qrels}
    ranked = searcher.rank_many(queries, DEPTH, args.method, MethodOptions())
    standing = read_standings(searcher.transport, searcher.index, sorted({h.doc_id for hs in ranked.values() for h in hs}
                                                                         | {d for j in sets.qrels.values() for d in j}))
    repealed = {d for d, s in standing.items() if s.repealed}
    in_force_qrels = {q: {d: g for d, g in j.items() if d not in repealed} for q, j in sets.qrels.items()}
    in_force_qrels = {q: j for q, j in in_force_qrels.items() if any(g > 0 for g in j.values())}
    runs = {"off": {q: hs for q, hs in ranked.items()},
            "page": {q: demote_repealed(hs[:PAGE], standing) + hs[PAGE:] for q, hs in ranked.items()},
            "deep": {q: demote_repealed(hs, standing) for q, hs in ranked.items()}}
    per_query: dict[str, dict[str, dict[str, float]]] = {}
    for name, run in runs.items():
        pairs = {q: [(h.doc_id, h.score) for h in hs] for q, hs in run.items()}
        every = evaluate(pairs, sets.qrels, METRICS).per_query
        own = evaluate(pairs, in_force_qrels, METRICS).per_query
        per_query[name] = {q: {**every[q], **{f"{m} in force": v for m, v in own.get(q, {}).items()}} for q in every}
    judged_repealed = sum(1 for j in sets.qrels.values() for d, g in j.items() if g > 0 and d in repealed)
    in_top10 = sum(1 for hs in ranked.values() for h in hs[:PAGE] if h.doc_id in repealed)
    print(f"# repealed articles after those in force, {args.method}: "
          f"{', '.join(f'{n} ({len(q)})' for n, q in sets.members.items())}; {len(repealed)} repealed among the "
          f"articles ranked or judged; {in_top10} in the queries' top {PAGE}; {judged_repealed} judged relevant\n")
    print(f"command: {' '.join(sys.argv)}\n")
    cv = cross_validate(per_query, sets.groups, ["ndcg@10"], k=args.folds, repeats=args.repeats, seed=args.seed,
                        members=sets.members, prefer=lambda n: (-SETTINGS.index(n),))
    shown = [*METRICS, "recall@10 in force", "ndcg@10 in force"]
    print("| set | setting | " + " | ".join(shown) + " |")
    print("| --- | --- |" + " --- |" * len(shown))
    report: dict[str, object] = {"method": args.method, "command": " ".join(sys.argv), "repealed": len(repealed),
                                 "repealed_in_top10": in_top10, "judged_repealed": judged_repealed,
                                 "choices": dict(cv.chosen), "table": {}}
    for set_name, ids in sets.members.items():
        own_ids = [q for q in ids if q in in_force_qrels]
        for name in (*SETTINGS, "held out"):
            row = {}
            for m in shown:
                qids = own_ids if m.endswith("in force") else ids
                row[m] = cv.mean(qids, m) if name == "held out" else mean(per_query[name], qids, m)
            report["table"][f"{set_name}/{name}"] = row  # type: ignore[index]
            print(f"| {set_name} | {name} | " + " | ".join(f"{row[m]:.4f}" for m in shown) + " |")
    print(f"\nchoices over {cv.folds} folds (objective nDCG@10, every judgment): {dict(cv.chosen.most_common())}")
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
