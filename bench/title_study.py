"""Title-aware BM25: does a title clause help concept queries without hurting case queries?

Two query sets on the live index: the extended dev cases (``queries-extended.jsonl``, ``qrels/extended.tsv``: 74
everyday-language cases) and every non-empty article title of the stand-in's codes used as a query (relevant: the
code's articles with that title, folded). Settings: BM25 on ``content`` as today, plus a ``should`` clause on the
title, ``match`` (stemmed, any word) or ``match_phrase`` (the query as a phrase inside the title), with boost w in
``--grid``; and the direct-hit pin (``nomos.pages.named``: an exact title is put first) over plain BM25.

The boost is chosen by ``--folds``-fold cross-validation on the dev cases (nDCG@10, ties to the smaller boost), for
``--repeats`` seeded shuffles; the table prints each setting's dev Recall@100 / nDCG@10 beside the titles'
Precision@1, then the held-out choice.

Usage: .venv/bin/python bench/title_study.py --dataset ../shared/data/greek-statutes
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.eval.metrics import evaluate
from nomos.eval.tuning import folds
from nomos.ingest.loader import load_dataset, replace_judgments
from nomos.legal.text.folding import fold
from nomos.opensearch.transport import make_transport
from nomos.pages.named import by_title
from nomos.retrieval.base import Hit
from nomos.retrieval.cited import pin
from nomos.settings import Settings

EDGE = " \t\n.,;:!?«»\"'()[]"


def body(text: str, clause: str, boost: float, k: int = 100) -> dict:
    query: dict = {"match": {"content": {"query": text}}}
    if clause != "none" and boost > 0:
        title = {"match": {"title": {"query": text, "boost": boost}}} if clause == "match" else \
            {"match_phrase": {"title": {"query": text, "boost": boost}}}
        query = {"bool": {"must": [query], "should": [title]}}
    return {"size": k, "query": query, "sort": [{"_score": "desc"}, {"article_id": "asc"}], "track_scores": True,
            "stored_fields": "_none_"}


def run(transport, index: str, queries: dict[str, str], clause: str, boost: float) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {}
    items = sorted(queries.items())
    for start in range(0, len(items), 32):
        batch = items[start:start + 32]
        lines = [line for _, text in batch for line in ({"index": index}, body(text, clause, boost))]
        for (qid, _), resp in zip(batch, transport.msearch(lines, labels=[q for q, _ in batch]), strict=True):
            out[qid] = [(h["sort"][1], float(h["sort"][0])) for h in resp["hits"]["hits"]]
    return out


def precision_at_1(run_: dict[str, list[tuple[str, float]]], qrels: dict[str, dict[str, int]]) -> float:
    return statistics.mean(1.0 if run_.get(q) and run_[q][0][0] in rel else 0.0 for q, rel in qrels.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--grid", default="0.5,1,2,4,8,16")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", type=Path, help="write every number here")
    args = ap.parse_args()
    settings = Settings.from_env()
    transport = make_transport(settings.cluster)
    folder = Path(args.dataset)
    data = replace_judgments(load_dataset(args.dataset), folder / "qrels" / "extended.tsv", folder / "queries-extended.jsonl")
    cases = {q.id: q.text for q in data.queries}
    codes = {"PK"}  # the stand-in's codes (the benchmark's AK, KPolD, KPD … where a corpus has them)
    by_title_text: dict[str, set[str]] = {}
    shown: dict[str, str] = {}
    for a in data.articles:
        key = fold(a.title).strip(EDGE)
        if a.source in codes and key:
            by_title_text.setdefault(key, set()).add(a.id)
            shown.setdefault(key, a.title.strip(EDGE))
    titles = {f"t{i:03d}": shown[key] for i, key in enumerate(sorted(by_title_text))}
    title_qrels = {qid: dict.fromkeys(by_title_text[fold(text)], 1) for qid, text in titles.items()}
    grid = [float(x) for x in args.grid.split(",")]
    settings_list = [("none", 0.0)] + [(c, w) for c in ("match", "phrase") for w in grid]
    per_query: dict[tuple[str, float], dict[str, dict[str, float]]] = {}
    rows = []
    for clause, w in settings_list:
        dev = evaluate(run(transport, settings.index_alias, cases, clause, w), data.qrels, ["recall@100", "ndcg@10"])
        per_query[(clause, w)] = dev.per_query
        p1 = precision_at_1(run(transport, settings.index_alias, titles, clause, w), title_qrels)
        rows.append({"clause": clause, "boost": w, **dev.mean, "title_p@1": p1})
    plain = run(transport, settings.index_alias, titles, "none", 0.0)
    pinned = {}
    for qid, text in titles.items():
        direct = by_title(transport, settings.index_alias, text)
        pinned[qid] = [(h.doc_id, h.score) for h in pin([Hit(d, s) for d, s in plain[qid]], direct, 100)]
    rows.append({"clause": "bm25 + direct title pin", "boost": 0.0, **evaluate(
        run(transport, settings.index_alias, cases, "none", 0.0), data.qrels, ["recall@100", "ndcg@10"]).mean,
        "title_p@1": precision_at_1(pinned, title_qrels)})
    print(f"{len(cases)} dev cases, {len(titles)} code titles as queries (relevant: the code's articles of that title)")
    print(f"{'setting':<28} {'R@100':>7} {'nDCG@10':>8} {'title P@1':>10}")
    for r in rows:
        name = r["clause"] if r["clause"] in ("none",) or r["boost"] == 0 else f"{r['clause']} w={r['boost']:g}"
        print(f"{name:<28} {r['recall@100']:>7.4f} {r['ndcg@10']:>8.4f} {r['title_p@1']:>10.4f}")
    # cross-validated choice of (clause, boost) on the dev cases, by nDCG@10 then Recall@100, ties to no/smaller boost
    held: list[dict[str, float]] = []
    choices: list[tuple[str, float]] = []
    qids = sorted(cases)
    for seed in range(args.repeats):
        scores: dict[str, dict[str, float]] = {}
        for test in folds(qids, args.folds, seed):
            train = [q for q in qids if q not in set(test)]

            def mean(s: tuple[str, float], m: str, qs: list[str]) -> float:
                return statistics.mean(per_query[s][q][m] for q in qs)

            chosen = max(settings_list, key=lambda s: (round(mean(s, "ndcg@10", train), 10),
                                                       round(mean(s, "recall@100", train), 10), -s[1]))
            choices.append(chosen)
            for q in test:
                scores[q] = per_query[chosen][q]
        held.append({m: statistics.mean(scores[q][m] for q in qids) for m in ("recall@100", "ndcg@10")})
    base = {m: statistics.mean(per_query[("none", 0.0)][q][m] for q in qids) for m in ("recall@100", "ndcg@10")}
    cv = {m: statistics.mean(h[m] for h in held) for m in ("recall@100", "ndcg@10")}
    print(f"cross-validated ({args.folds} folds x {args.repeats} seeds): R@100 {cv['recall@100']:.4f} "
          f"nDCG@10 {cv['ndcg@10']:.4f} against plain BM25 {base['recall@100']:.4f} / {base['ndcg@10']:.4f}; "
          f"choices: {sorted({f'{c} {w:g}' for c, w in choices})}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "cv": cv, "plain": base,
                                         "choices": [list(c) for c in choices]}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
