"""How fast the legal graph's extractor reads a corpus: articles per second over corpus-large.jsonl (18,064
articles), and the edges it finds per kind (resolved into the corpus, and to articles outside it).

Extraction runs at ingest, article by article (``ingest/bulk.article_document``), so this is the cost indexing
pays on top of the bulk load; loading the corpus file is timed apart and not counted.

Usage:
  .venv/bin/python bench/graph_scale.py [--data ../shared/data/greek-statutes] [--corpus corpus-large.jsonl]
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

from nomos.ingest.beir import load_beir
from nomos.ingest.graph import CorpusReading, corpus_references, count_kinds
from nomos.legal.graph.edges import REFERENCES_VERSION

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "greek-statutes")
    ap.add_argument("--corpus", default="corpus-large.jsonl")
    ap.add_argument("--repeats", type=int, default=1, help="extraction rounds (the best is reported)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    articles = load_beir(args.data, corpus_file=args.corpus).articles
    loaded = time.perf_counter() - t0
    reading = CorpusReading.of(articles)
    best, refs = float("inf"), []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        refs = list(corpus_references(articles, reading))
        best = min(best, time.perf_counter() - t0)
    kinds = count_kinds(refs)
    chars = sum(len(a.text) for a in articles)
    print(f"extractor v{REFERENCES_VERSION} on {args.corpus}: {len(articles)} articles, {chars / 1e6:.1f} M characters "
          f"(loaded in {loaded:.1f} s; {platform.python_implementation()} {platform.python_version()})")
    print(f"extraction: {best:.1f} s, {len(articles) / best:.0f} articles/s, {chars / best / 1e6:.2f} M chars/s")
    print(f"edges: {len(refs)}; with a target in the corpus: {sum(kinds['resolved'].values())}; "
          f"articles citing something: {len({r.source for r in refs})}")
    print(f"{'kind':10s} {'in corpus':>10s} {'outside':>10s}")
    for kind in ("cites", "amends", "replaces", "inserts", "repeals"):
        print(f"{kind:10s} {kinds['resolved'].get(kind, 0):>10d} {kinds['unresolved'].get(kind, 0):>10d}")


if __name__ == "__main__":
    main()
