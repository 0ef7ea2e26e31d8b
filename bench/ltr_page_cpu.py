"""Where a hybrid results page's CPU goes in the portal's search, the learned ranker's parts and the garbage collector.

The stand-in's queries are searched as the portal searches them (``SearchStage.search``, hybrid, k = 10, facets), in
this process, after a warm-up round; each part named below is timed in the CPU time of the thread that runs it (the
outermost call of each part only; parts nest: the ranker's parts are inside ``of_ranking``, the transport's calls
inside the parts that send them), and each of CPython's collections by generation through ``gc.callbacks`` (a
collection runs inside whatever part allocated, so its time is in that part's too). ``--freeze`` freezes the heap
after the warm-up as a served portal does (nomos.portal.heap). ``NOMOS_RERANK=none`` in the environment gives
hybrid's fusion alone (the one-request page). Printed: process CPU per page (every thread) and each part's.

    .venv/bin/python bench/ltr_page_cpu.py [--dataset ../shared/data/greek-statutes] [--rounds 3] [--freeze]
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.opensearch import transport as transport_module  # noqa: E402
from nomos.pages import request as request_module  # noqa: E402
from nomos.pages import results as results_module  # noqa: E402
from nomos.retrieval import fusion, knn  # noqa: E402
from nomos.retrieval.ltr import dense_bridge, features, model, pools, retriever  # noqa: E402
from nomos.settings import Settings  # noqa: E402
from nomos.stages.searching import SearchRequest, SearchStage  # noqa: E402

SPENT: Counter[str] = Counter()
_LOCAL = threading.local()
PARTS: list[tuple[Any, str, str]] = [
    (SearchStage, "search", "page: SearchStage.search"),
    (results_module.ResultsPage, "of_ranking", "page: of_ranking (rank, then the page)"),
    (results_module.ResultsPage, "of_page", "page: of_page (one request)"),
    (results_module, "ids_facets_and_matching", "page: facets request"),
    (request_module.PageRequest, "decorate", "page: snippets request"),
    (retriever.LearnedRanker, "search_many", "ranker: all of it, its calling thread"),
    (fusion.FusionRetriever, "search_many", "ranker: the first stage (hybrid)"),
    (knn.KnnRetriever, "query_vectors", "ranker: query vectors"),
    (dense_bridge.DenseBridge, "adapt", "ranker: the adapter"),
    (retriever, "side_requests", "ranker: side lists' lines"),
    (pools.SideRequests, "send", "ranker: side lists sent and read (side thread)"),
    (features.FeatureReader, "body", "ranker: the pool's search body"),
    (transport_module.Transport, "search", "any: a _search sent and read"),
    (features.FeatureReader, "_matrix", "ranker: the features' matrix"),
    (model.RankerModel, "score", "ranker: LightGBM predict"),
    (retriever, "order", "ranker: the model's order"),
]


def timed(owner: Any, name: str, label: str) -> None:
    """``owner.name`` wrapped: its thread's CPU time added to ``SPENT[label]`` (the outermost call only)."""
    fn: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        open_: set[str] = _LOCAL.__dict__.setdefault("open", set())
        if label in open_:
            return fn(*args, **kwargs)
        open_.add(label)
        started = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[label] += time.thread_time() - started
            open_.discard(label)

    setattr(owner, name, wrapper)


def count_collections() -> None:
    """Each collection's CPU time and count by generation (it runs in the thread that triggered it)."""
    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            _LOCAL.gc_started = time.thread_time()
            return
        SPENT[f"gc: generation {info['generation']}"] += time.thread_time() - _LOCAL.gc_started
        SPENT[f"gc: generation {info['generation']}, collections (count, not ms)"] += 0.001

    gc.callbacks.append(callback)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "data" / "greek-statutes"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--freeze", action="store_true", help="gc.freeze() after the warm-up, as a served portal does")
    args = ap.parse_args()
    for owner, name, label in PARTS:
        timed(owner, name, label)
    stage = SearchStage(Settings.from_env())
    lines = Path(args.dataset, "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [json.loads(line)["text"] for line in lines if line.strip()]
    for q in queries:  # warm-up: lazy imports, the model, caches
        stage.search(SearchRequest(q, method="hybrid", k=10))
    if args.freeze:
        gc.freeze()
    count_collections()
    SPENT.clear()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(args.rounds):
        for q in queries:
            stage.search(SearchRequest(q, method="hybrid", k=10))
    pages = args.rounds * len(queries)
    print(f"command: {' '.join(sys.argv)}\n\n{pages} pages; objects the collector tracks: {len(gc.get_objects())} "
          f"(frozen {gc.get_freeze_count()})\n")
    print(f"| per page | ms |\n| --- | --- |\n| process CPU (every thread) | {1000 * (time.process_time() - cpu) / pages:.2f} |"
          f"\n| wall | {1000 * (time.perf_counter() - wall) / pages:.1f} |")
    for label, seconds in sorted(SPENT.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {1000 * seconds / pages:.2f} |")


if __name__ == "__main__":
    main()
