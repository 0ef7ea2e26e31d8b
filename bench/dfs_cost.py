"""What dfs_query_then_fetch costs: the stand-in corpus in a 2-shard index, the 24 queries timed with
query_then_fetch and with dfs_query_then_fetch, interleaved (so machine load hits both alike), on a dedicated node.

Usage: .venv/bin/python bench/dfs_cost.py [--dataset ../shared/data/greek-statutes] [--port 9690] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.ingest.loader import load_dataset
from nomos.opensearch.client import make_client
from nomos.opensearch.node import NodeConfig, install, start, stop
from nomos.opensearch.transport import Transport
from nomos.retrieval.bm25 import BM25Retriever
from nomos.settings import Settings
from nomos.stages.indexing import index_dataset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", default=str(Path(__file__).resolve().parent.parent.parent / "shared/data/greek-statutes"))
    ap.add_argument("--port", type=int, default=9690)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--shards", type=int, default=2)
    args = ap.parse_args()
    base = Settings.from_env()
    cfg = NodeConfig(root=base.node_root, name=f"bench-dfs-{args.port}", http_port=args.port,
                     transport_port=args.port + 100, heap="1g", cluster_name=f"nomos-dfs-{args.port}")
    install(cfg)
    start(cfg, timeout=300)
    try:
        settings = base.with_overrides(http_port=args.port, index_alias="dfs-cost", shards=args.shards, replicas=0)
        ds = load_dataset(args.dataset)
        index_dataset(settings, ds)
        client = make_client(settings.cluster)
        queries = {q.id: q.text for q in ds.queries}
        times: dict[str, list[float]] = {"query_then_fetch": [], "dfs_query_then_fetch": []}
        retrievers = {t: BM25Retriever(Transport(client), "dfs-cost", search_type=t) for t in times}
        for r in retrievers.values():
            r.search_many(queries, 100)  # warm-up
        for _ in range(args.repeats):
            for qid, text in queries.items():
                for t, r in retrievers.items():
                    t0 = time.perf_counter()
                    r.search_many({qid: text}, 100)
                    times[t].append(1000 * (time.perf_counter() - t0))
        for t, ms in times.items():
            ms.sort()
            print(f"{t}: p50 {statistics.median(ms):.1f} ms, p95 {ms[int(0.95 * len(ms)) - 1]:.1f} ms, mean {statistics.mean(ms):.1f} ms "
                  f"({len(ms)} queries, {args.shards} shards, {len(ds.articles)} articles)")
        q, d = (statistics.median(times[t]) for t in times)
        print(f"dfs / qtf median ratio: {d / q:.2f}")
        client.indices.delete(index="dfs-cost*")
    finally:
        stop(cfg)


if __name__ == "__main__":
    main()
