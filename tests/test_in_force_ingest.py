"""The text in force at ingest and through the JSON API, against a real node: a corpus of its own in which
N_4855_2021::86 quotes PK::372 whole as it now reads (and an earlier law replaced words the 2021 wording then
settles), indexed into this test's own alias. The document keeps its original ``text``; ``in_force`` holds the
consolidation and ``in_force_text`` is searchable; indexing stays idempotent, and a changed amending text re-sends
the article it amends."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import load_beir
from nomos.ingest.indexer import existing_shas
from nomos.opensearch.client import make_client
from nomos.portal import create_app
from nomos.stages.indexing import index_dataset
from tests.beir_files import write_beir
from tests.test_consolidation import N_4855_86, PK_372

pytestmark = pytest.mark.integration

PK = {"source": "PK", "law": "Ποινικός Κώδικας (ν. 4619/2019)"}
EARLIER = ("Στην παρ. 1 του άρθρου 372 ΠΚ η φράση «έως τρία έτη» αντικαθίσταται από τη φράση «έως τέσσερα έτη».")
ARTICLES = [
    {"_id": "PK::372", "title": "Κλοπή", "text": PK_372, **PK},
    {"_id": "PK::375", "title": "Υπεξαίρεση", "text": "1. Όποιος ιδιοποιείται παράνομα ξένο κινητό πράγμα τιμωρείται.",
     **PK},
    {"_id": "N_4637_2019::1", "title": "Τροποποίηση του άρθρου 372 ΠΚ", "text": EARLIER, "source": "N_4637_2019",
     "law": "ν. 4637/2019"},
    {"_id": "N_4855_2021::86", "title": "Κλοπή - Τροποποίηση της παρ. 1", "text": N_4855_86, "source": "N_4855_2021",
     "law": "ν. 4855/2021"},
]
QUERIES = [{"_id": "q1", "text": "κλοπή ξένου κινητού πράγματος"}]
QRELS = [("q1", "PK::372", 1)]


@pytest.fixture(scope="module")
def in_force_index(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("in_force")
    alias = f"pytest-inforce-{uuid.uuid4().hex[:8]}"
    settings = cluster.with_overrides(index_alias=alias, runs_dir=folder / "runs", cache_dir=folder / "cache")
    data = load_beir(write_beir(folder / "data", ARTICLES, QUERIES, QRELS))
    report = index_dataset(settings, data)
    try:
        yield settings, folder, report
    finally:
        make_client(settings.cluster).indices.delete(index=f"{alias}*", ignore_unavailable=True)


def test_the_text_in_force_is_stored_beside_the_original(in_force_index) -> None:
    settings, _, _ = in_force_index
    client = make_client(settings.cluster)
    doc = client.get(index=settings.index_alias, id="PK::372")["_source"]
    assert doc["text"] == PK_372  # the original stays what it is
    stored = doc["in_force"]
    assert stored["status"] == "full" and stored["amendments"] == ["N_4637_2019::1", "N_4855_2021::86"]
    assert [a["action"] for a in stored["applied"]] == ["replace-words", "replace-article"]
    assert "τιμωρείται με φυλάκιση και αν" in doc["in_force_text"] and "διάρρηξη" not in doc["in_force_text"]
    assert [p["source"] for p in stored["passages"]] == ["N_4855_2021::86", ""]
    assert "in_force" not in client.get(index=settings.index_alias, id="PK::375")["_source"]
    # in_force_text is searched like text: the new wording finds the article itself, not only the amending law
    hits = client.search(index=settings.index_alias, body={
        "query": {"match_phrase": {"in_force_text": "μεγάλης αξίας, με φυλάκιση τουλάχιστον ενός"}}, "_source": False})
    assert [h["_id"] for h in hits["hits"]["hits"]] == ["PK::372"]
    by_text = client.search(index=settings.index_alias, body={
        "query": {"match_phrase": {"text": "μεγάλης αξίας, με φυλάκιση τουλάχιστον ενός"}}, "_source": False})
    assert [h["_id"] for h in by_text["hits"]["hits"]] == ["N_4855_2021::86"]
    # the stored object is not indexed: its words find nothing
    none = client.search(index=settings.index_alias, body={"query": {"match": {"in_force.status": "full"}}})
    assert none["hits"]["total"]["value"] == 0


def test_reindexing_is_idempotent_and_a_changed_amendment_resends_what_it_amends(in_force_index, cluster) -> None:
    settings, folder, first = in_force_index
    client = make_client(settings.cluster)
    shas = existing_shas(client, first.index)
    again = index_dataset(settings, load_beir(write_beir(folder / "again", ARTICLES, QUERIES, QRELS)))
    assert again.index == first.index and again.sent == 0 and existing_shas(client, first.index) == shas
    # a second alias over a corpus whose amending article reads otherwise: PK::372's own text is the same, but its
    # text in force, and so its hash, are not
    other = cluster.with_overrides(index_alias=f"{settings.index_alias}-b", runs_dir=folder / "runs-b",
                                   cache_dir=folder / "cache-b")
    changed = [dict(a, text=N_4855_86.replace("ενός (1) έτους", "ενός (ένα) έτους")) if a["_id"] == "N_4855_2021::86"
               else a for a in ARTICLES]
    report = index_dataset(other, load_beir(write_beir(folder / "changed", changed, QUERIES, QRELS)))
    moved = existing_shas(client, report.index)
    assert moved["PK::372"] != shas["PK::372"] and moved["PK::375"] == shas["PK::375"]
    assert "ενός (ένα) έτους" in client.get(index=other.index_alias, id="PK::372")["_source"]["in_force_text"]


def test_api_in_force(in_force_index) -> None:
    settings, _, _ = in_force_index
    with TestClient(create_app(settings)) as web:
        got = web.get("/api/articles/PK::372/in-force")
        assert got.status_code == 200
        body = got.json()
        assert body["amended"] is True and body["status"] == "full" and body["title"] == "Κλοπή"
        assert [a["id"] for a in body["amendments"]] == ["N_4637_2019::1", "N_4855_2021::86"]
        assert body["amendments"][1]["citation"] == "άρθρο 86 ν. 4855/2021"
        first, second = body["passages"]
        assert first["changed"] and first["source_url"] == "/articles/N_4855_2021%3A%3A86"
        assert not second["changed"] and second["source"] == "" and second["source_url"] is None
        assert body["text"].startswith("1. Όποιος αφαιρεί") and body["unapplied"] == []
        assert body["original_url"] == "/articles/PK%3A%3A372" and "consolidated automatically" in body["note"]
        plain = web.get("/api/articles/PK::375/in-force").json()
        assert plain["amended"] is False and plain["status"] is None and plain["amendments"] == []
        assert [p["text"] for p in plain["passages"]] == [ARTICLES[1]["text"]] and "original" in plain["note"]
        assert web.get("/api/articles/PK::999/in-force").status_code == 404
        assert web.get("/api/articles/pk::372/in-force").json()["id"] == "PK::372"  # typed another way
        assert "/api/articles/{article_id}/in-force" in web.get("/api/openapi.json").json()["paths"]
