"""Issue 51: the portal's part of each snippets mode, the Python that reads a results page's response and makes its
snippets: :meth:`nomos.pages.request.PageRequest.read` (the hits; ``whole`` and ``lead`` cut the highlighter's
whole texts there) and :func:`nomos.pages.marks.with_own_marks` (the query's own words kept marked, an amended
article's text in force chosen), over the responses of the real page requests of each mode, process CPU per page.

The responses are fetched once per mode (BM25's page as the portal sends it; with ``--method hybrid`` the page over
the fused ranking, whose hits show a text's start where none of its words is marked); then the modes are timed in
alternating rounds (the order turned each round), each pass over every query with the reading's caches emptied
first (the stems, the query's words: each pass pays what a portal pays for queries it has not seen).

    NOMOS_HTTP_PORT=<node> .venv/bin/python bench/snippet_cut_cost.py [--modes sentences,whole,lead]
        [--method bm25|hybrid] [--sets dev,everyday,case-files] [--rounds 5] [--passes 5] [--k 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.legal.text import stemming  # noqa: E402
from nomos.opensearch.client import make_client  # noqa: E402
from nomos.opensearch.transport import Transport  # noqa: E402
from nomos.pages import marks, passages  # noqa: E402
from nomos.pages.facets import facet_aggs  # noqa: E402
from nomos.pages.request import PAGE_FILTER, PageRequest, ranking_page_body  # noqa: E402
from nomos.retrieval.base import score_ordered  # noqa: E402
from nomos.retrieval.bm25 import BM25Retriever  # noqa: E402
from nomos.retrieval.registry import MethodOptions, make_retriever  # noqa: E402
from nomos.settings import Settings  # noqa: E402

SETS = {"dev": ROOT.parent / "shared" / "data" / "greek-statutes" / "queries.jsonl",
        "everyday": ROOT / "bench" / "data" / "everyday" / "queries.jsonl",
        "case-files": ROOT / "bench" / "data" / "case-files" / "queries.jsonl"}


def _empty_caches() -> None:
    for cached in (stemming.stem, passages._read, marks._own_in, marks._query_words):
        cached.cache_clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--modes", default="sentences,whole,lead")
    ap.add_argument("--method", choices=("bm25", "hybrid"), default="bm25")
    ap.add_argument("--sets", default="dev,everyday,case-files")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=5, help="passes over every query per mode and round")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    modes = [m.strip() for m in args.modes.split(",")]
    for m in modes:
        passages.checked(m)
    settings = Settings.from_env()
    client = make_client(settings.cluster)
    transport, index = Transport(client), settings.index_alias
    queries = [json.loads(line)["text"] for s in args.sets.split(",") for line in
               SETS[s].read_text(encoding="utf-8").splitlines() if line.strip()]
    fusion = (make_retriever(settings, "hybrid", client, MethodOptions(rerank="none"))
              if args.method == "hybrid" else None)
    bm25 = BM25Retriever(transport, index)
    pages: dict[str, list[tuple[str, PageRequest, dict[str, Any]]]] = {m: [] for m in modes}
    sizes: dict[str, int] = {m: 0 for m in modes}
    for q in queries:
        ranked = None
        if fusion is not None:
            bm, kn = fusion._both_lists(q, 100)
            ranked = fusion._pool({"q": q}, {"q": bm}, {"q": kn}, 100)["q"]
        for m in modes:
            page = PageRequest(transport, index, q, facet_aggs(15, law_names=False), fallback=fusion is not None,
                               snippets=m)
            body = (ranking_page_body(page, ranked, args.k) if ranked is not None
                    else score_ordered(bm25.faceted_body(q, args.k, page), args.k))
            resp = client.search(index=index, body=body, params={"filter_path": PAGE_FILTER})
            sizes[m] += len(json.dumps(resp, ensure_ascii=False).encode())
            pages[m].append((q, page, resp))
    cpu: dict[str, list[float]] = {m: [] for m in modes}
    for r in range(args.rounds):
        order = modes[r % len(modes):] + modes[:r % len(modes)]
        for m in order:
            spent = 0.0
            for _ in range(args.passes):
                _empty_caches()
                t = time.process_time()
                for q, page, resp in pages[m]:
                    marks.with_own_marks(page.read(resp, args.k).hits, q)
                spent += time.process_time() - t
            cpu[m].append(1000 * spent / (args.passes * len(queries)))
    print(f"index {index}, {args.method} pages, {len(queries)} queries ({args.sets}), k={args.k}, "
          f"{args.rounds} rounds x {args.passes} passes\n")
    print(f"| mode | portal CPU ms per page (median of rounds; each round) | / {modes[0]} | response KB per page |\n"
          "| --- | --- | --- | --- |")
    base = statistics.median(cpu[modes[0]])
    for m in modes:
        med = statistics.median(cpu[m])
        rounds = ", ".join(f"{c:.2f}" for c in cpu[m])
        print(f"| {m} | {med:.2f} ({rounds}) | {med / base:.2f} | {sizes[m] / len(queries) / 1024:.1f} |")


if __name__ == "__main__":
    main()
