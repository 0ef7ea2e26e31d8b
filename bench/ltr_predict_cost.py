"""What the learned ranker's model costs a query: the time to score one pool, per model, over the pools of a
``bench/ltr_study.py --dump`` (no node: the features are the dump's, so only the model's own work is timed: where a
model reads the judged queries, :mod:`nomos.retrieval.ltr.judged`, building their columns for the query is part of it).

Every pool is scored by each model in turn (alternating, so a busy machine weighs on all alike), ``--repeats`` times,
keeping each pool's fastest; printed per model: the median and p95 over the pools, in ms, and the ratio to the
first model, both of the thread's CPU time (what the model costs; on a shared machine the wall time mostly measures
the other processes' turns) and of the wall time.

Usage:
    .venv/bin/python bench/ltr_predict_cost.py --pools bench/out/pools.pkl \\
        nomos/retrieval/ltr/models/ltr-v6 nomos/retrieval/ltr/models/ltr-v7
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.retrieval.ltr.model import load


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+", help="model paths (PATH.txt and PATH.json)")
    ap.add_argument("--pools", required=True, help="a bench/ltr_study.py --dump")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    dumped = pickle.loads(Path(args.pools).read_bytes())
    pools, texts = dumped["pools"], dumped["sets"].texts
    models = [load(m) for m in args.models]
    cpu = np.full((len(models), len(pools)), np.inf)
    wall = np.full((len(models), len(pools)), np.inf)
    for _ in range(args.repeats):
        for j, (q, pool) in enumerate(pools.items()):
            for i, model in enumerate(models):
                c, w = time.thread_time(), time.perf_counter()
                model.score(model.matrix(texts[q], pool.ids, pool.matrix))
                wall[i, j] = min(wall[i, j], time.perf_counter() - w)
                cpu[i, j] = min(cpu[i, j], time.thread_time() - c)
    rows = np.median([len(p.ids) for p in pools.values()])
    print(f"command: {' '.join(sys.argv)}\n\n{len(pools)} pools (median {rows:.0f} rows), fastest of {args.repeats}\n")
    print("| model | boosters | linear blend | CPU median / p95 ms | × the first | wall median / p95 ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    base = float(np.median(cpu[0]))
    for i, (path, model) in enumerate(zip(args.models, models, strict=True)):
        print(f"| {Path(path).name} | {len(model.boosters)} | {model.weight:g} | {1000 * np.median(cpu[i]):.2f} / "
              f"{1000 * np.percentile(cpu[i], 95):.2f} | {np.median(cpu[i]) / base:.2f} | "
              f"{1000 * np.median(wall[i]):.2f} / {1000 * np.percentile(wall[i], 95):.2f} |")


if __name__ == "__main__":
    main()
