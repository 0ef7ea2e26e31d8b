"""Regression: BM25 on the full offline stand-in must reproduce the numbers recorded in tests/regressions/.

Like Anserini's regression configs, the expected numbers live in a file beside the test, so drift in the
analyzers, the query builder or the evaluation fails here rather than going unnoticed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nomos.ingest.loader import load_dataset
from nomos.retrieval.registry import MethodOptions
from nomos.stages.evaluation import evaluate_method
from nomos.stages.indexing import index_dataset

pytestmark = pytest.mark.integration
CONFIG = Path(__file__).parent / "regressions" / "greek-statutes-bm25.json"


def test_bm25_regression_on_the_stand_in(os_settings, shared_data):
    expected = json.loads(CONFIG.read_text())
    dataset = load_dataset(str(shared_data))
    if dataset.fingerprint != expected["dataset_fingerprint"]:
        pytest.skip(f"{shared_data} differs from the data the regression numbers were recorded on ({CONFIG.name})")
    settings = os_settings.with_overrides(bm25_k1=expected["bm25"]["k1"], bm25_b=expected["bm25"]["b"])
    report = index_dataset(settings, dataset)
    assert report.documents == len(dataset.articles) == 6412
    tol = expected["tolerance"]
    for run, numbers in expected["runs"].items():
        # a run's options: its name is the analysis chain, unless the file lists others (the text-alone reading)
        options = MethodOptions(**expected.get("options", {}).get(run, {"analysis": run}))
        got = evaluate_method(settings, dataset, options=options, run_name=f"regression-{run}").evaluation.mean
        drift = {m: (round(got[m], 6), v) for m, v in numbers.items() if abs(got[m] - v) > tol}
        assert not drift, f"{run}: metric (got, expected) outside ±{tol}: {drift}"
