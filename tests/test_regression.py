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

CONFIG = Path(__file__).parent / "regressions" / "greek-statutes-bm25.json"
FIX = "python bench/regression_fingerprint.py --dataset {data} --write"


@pytest.mark.parametrize("config", sorted(CONFIG.parent.glob("*.json")), ids=lambda p: p.name)
def test_the_pins_were_recorded_on_this_stand_in(shared_data, config):
    """No node needed: a stand-in that changed fails here at once (the BM25 test below checks it again)."""
    recorded = json.loads(config.read_text())["dataset_fingerprint"]
    assert load_dataset(str(shared_data)).fingerprint == recorded, (
        f"{shared_data} is not the data {config.name} was recorded on. If no text changed, re-record the "
        f"fingerprint, never the numbers: {FIX.format(data=shared_data)}, then run tests/test_regression.py")


@pytest.mark.integration
@pytest.mark.slow  # the whole stand-in corpus (6,412 articles)
def test_bm25_regression_on_the_stand_in(os_settings, shared_data):
    expected = json.loads(CONFIG.read_text())
    dataset = load_dataset(str(shared_data))
    # a changed stand-in fails loudly rather than silencing the pins (it skipped once, and nothing was checked)
    assert dataset.fingerprint == expected["dataset_fingerprint"], (
        f"{shared_data} is not the data {CONFIG.name} was recorded on (fingerprint {dataset.fingerprint}, recorded "
        f"{expected['dataset_fingerprint']}). If no text changed, re-record the fingerprint, never the numbers: "
        f"{FIX.format(data=shared_data)}, then re-run this test")
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
