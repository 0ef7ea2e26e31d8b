"""What the learned ranker adds to a query: hybrid alone and hybrid + ltr side by side, one query at a time.

Each dev query (bench/dev_sets.py, the first ``--queries``) is searched at k = 100 by the first stage alone and by the
first stage with ``--rerank ltr`` (the shipped model, or ``--model``), alternately, after a warm-up round; query
vectors come from the cache in both (the encoder's time is the same on both sides and is not what is compared).
Printed: the median and p95 wall time per query of each, the ratio, and the ranker's median addition in ms; then this
process's CPU per query on each side (all its threads: building requests, reading responses, the features, the model),
which a loaded machine inflates far less than the wall time (issue 51's CPU per page).

Usage (an index with vectors, built by this checkout):
    .venv/bin/python bench/ltr_cost.py --index nomos-articles [--method hybrid] [--queries 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import dev_sets
from nomos.opensearch.transport import make_transport
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.settings import Settings


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--index", default="nomos-articles")
    ap.add_argument("--method", default="hybrid")
    ap.add_argument("--model", default="", help="a model path (default: the shipped one)")
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()
    settings = Settings.from_env().with_overrides(index_alias=args.index)
    transport = make_transport(settings.cluster)
    texts = dev_sets(Path(args.dataset)).texts
    # an even spread over the three sets (their ids are grouped by set)
    ids = sorted(texts)[:: max(1, len(texts) // args.queries)][: args.queries]
    plain = make_retriever(settings, args.method, transport, MethodOptions(rerank="none"))
    ranked = make_retriever(settings, args.method, transport,
                            MethodOptions(rerank=f"ltr:{args.model}" if args.model else "ltr"))
    times: dict[str, list[float]] = {"first stage": [], "+ ltr": []}
    cpu: dict[str, float] = {"first stage": 0.0, "+ ltr": 0.0}
    for q in ids[:5]:  # warm-up: caches, JIT, the model's load
        plain.search(texts[q], 100)
        ranked.search(texts[q], 100)
    for q in ids:
        for name, retriever in (("first stage", plain), ("+ ltr", ranked)):
            t, c = time.perf_counter(), time.process_time()
            retriever.search(texts[q], 100)
            times[name].append(1000 * (time.perf_counter() - t))
            cpu[name] += 1000 * (time.process_time() - c)
    print(f"command: {' '.join(sys.argv)}\n")
    print(f"| {args.method}, k = 100, {len(ids)} queries | median ms | p95 ms |")
    print("| --- | --- | --- |")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.1f} | {p95(values):.1f} |")
    added = [b - a for a, b in zip(times["first stage"], times["+ ltr"], strict=True)]
    print(f"\nthe ranker adds a median {statistics.median(added):.1f} ms (p95 {p95(added):.1f}); ratio of medians "
          f"{statistics.median(times['+ ltr']) / statistics.median(times['first stage']):.2f}")
    print(f"client CPU a query: first stage {cpu['first stage'] / len(ids):.1f} ms, + ltr {cpu['+ ltr'] / len(ids):.1f} ms "
          f"(the ranker {(cpu['+ ltr'] - cpu['first stage']) / len(ids):.1f} ms)")


if __name__ == "__main__":
    main()
