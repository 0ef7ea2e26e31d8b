"""The amended article before its amender (issue 49): ``--amendments precede[:DEPTH]`` against the method's own
ranking (``off``) and ``follow``, chosen by grouped cross-validation on the three dev sets (bench/dev_sets.py).

The method's ranking is computed once per query (``--amendments off``, depth 100; with the method's default second
stage: hybrid's learned ranker); the ``restates`` and ``amends`` fields of its top 100 are read once (one mget each),
and every setting is applied to those lists with the stage's own pure function (nomos.retrieval.amendments.apply):
for ``precede``, which make_retriever puts after the second stage, the numbers are what ``eval --amendments X``
gives (``follow`` sits under the second stage there: here it is applied after it). The choice is made per fold on
R@100 then nDCG@10 (ties to ``off``, then the smaller change). The issue's bar: recall not lost held out. Printed
besides: each setting's R@10 / R@100 / nDCG@10 per set, and the queries whose figures it changes.

Usage (an index built from the corpus by this checkout: it has the ``restates`` field):
  NOMOS_INDEX=... OPENSEARCH_URL=... PYTHONPATH=$PWD .venv/bin/python bench/precede_cv.py --dataset ../shared/data/greek-statutes
      [--method bm25] [--folds 5] [--repeats 10] [--seed 13] [--json bench/out/precede_cv.json] [--query "κλοπή ρολογιού"]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import SHOWN, cv_report, dev_sets
from nomos.eval.grouped_cv import cross_validate, mean
from nomos.eval.metrics import evaluate
from nomos.opensearch.client import make_client
from nomos.opensearch.transport import make_transport
from nomos.retrieval.amendments import AmendmentConfig, apply, stored_targets
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.settings import Settings

SETTINGS = {"off": AmendmentConfig(), "precede:10": AmendmentConfig("precede", depth=10),
            "precede:20": AmendmentConfig("precede", depth=20), "precede": AmendmentConfig("precede"),
            "follow": AmendmentConfig("follow")}
SIMPLER = {"off": 0, "precede:10": 1, "precede:20": 2, "precede": 3, "follow": 4}
K = 100


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--method", default="bm25")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json", default="bench/out/precede_cv.json")
    ap.add_argument("--query", default="κλοπή ρολογιού", help="one query whose top 5 is printed under each setting")
    args = ap.parse_args()
    sets = dev_sets(Path(args.dataset))
    settings = Settings.from_env()
    client = make_client(settings.cluster)
    retriever = make_retriever(settings, args.method, client, MethodOptions(amendments="off"))
    texts = {**sets.texts, "_example": args.query}
    first = retriever.search_many(texts, K).hits
    heads = sorted({h.doc_id for hs in first.values() for h in hs})
    transport = make_transport(settings.cluster, client)
    fields = {"precede": stored_targets(transport, settings.index_alias, "restates")(heads),
              "follow": stored_targets(transport, settings.index_alias, "amends")(heads)}
    per_query = {}
    for name, cfg in SETTINGS.items():
        targets = fields.get(cfg.mode, {})
        run = {q: apply(hs, targets, cfg)[0][:K] for q, hs in first.items()}
        print(f"{name}: «{args.query}» -> " + ", ".join(h.doc_id for h in run["_example"][:5]), file=sys.stderr)
        del run["_example"]
        per_query[name] = evaluate({q: [(h.doc_id, h.score) for h in hs] for q, hs in run.items()}, sets.qrels,
                                   SHOWN).per_query
        print(f"{name}: " + " | ".join(f"{s} {mean(per_query[name], ids, 'recall@100'):.4f} / "
                                        f"{mean(per_query[name], ids, 'ndcg@10'):.4f}"
                                        for s, ids in sets.members.items()), file=sys.stderr)
    cv = cross_validate(per_query, sets.groups, ("recall@100", "ndcg@10"), k=args.folds, repeats=args.repeats,
                        seed=args.seed, members=sets.members, prefer=lambda n: (-SIMPLER[n],))
    report = cv_report(f"The amended article before its amender ({args.method})", per_query, "off", cv, sets,
                       args.folds, args.repeats, args.seed)
    report["restating_articles_in_top_100"] = len(fields["precede"])
    report["per_set"], report["changed"] = per_set(per_query, sets)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


def per_set(per_query: dict, sets) -> tuple[dict, dict]:
    """Each setting's R@10 / R@100 / nDCG@10 on each set (printed as a table), and the queries whose figures differ
    from ``off``'s (the few the stage moves: what the means hide)."""
    print("\n| setting | " + " | ".join(f"{s} R@10 / R@100 / nDCG@10" for s in sets.members) + " |")
    print("| --- |" + " --- |" * len(sets.members))
    table: dict = {}
    changed: dict = {}
    for name, pq in per_query.items():
        table[name] = {s: {m: mean(pq, ids, m) for m in SHOWN} for s, ids in sets.members.items()}
        print(f"| {name} | " + " | ".join(" / ".join(f"{table[name][s][m]:.4f}" for m in SHOWN) for s in sets.members)
              + " |")
        set_of = {q: s for s, ids in sets.members.items() for q in ids}
        changed[name] = {q: {m: [round(per_query["off"][q][m], 4), round(pq[q][m], 4)] for m in SHOWN
                             if abs(pq[q][m] - per_query["off"][q][m]) > 1e-12} | {"set": set_of[q]}
                         for q in sorted(pq) if any(abs(pq[q][m] - per_query["off"][q][m]) > 1e-12 for m in SHOWN)}
    for name, qs in changed.items():
        if name != "off":
            print(f"{name}: {len(qs)} queries differ from off: " + "; ".join(
                f"{q} ({d['set']}) " + ", ".join(f"{m} {d[m][0]}->{d[m][1]}" for m in SHOWN if m in d)
                for q, d in qs.items()))
    return table, changed


if __name__ == "__main__":
    main()
