"""The legal graph on the portal and in retrieval, against a real node: a small corpus whose references and
amendments the ingest extractor reads (nomos/legal/graph/references.py), then the article pages (links in the text,
«Παραπέμπει σε», «Αναφέρεται από», «Τροποποιήσεις», the warning), a law's table of contents, the JSON API
(/api/articles/{id}/graph, /api/laws/{source}) and amendment-aware ranking (--amendments) over BM25."""

from __future__ import annotations

import json
import uuid

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import load_beir
from nomos.opensearch.client import make_client
from nomos.portal import create_app
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.stages.evaluation import evaluate_method
from nomos.stages.indexing import index_dataset
from tests.beir_files import write_beir

pytestmark = pytest.mark.integration

PK = {"source": "PK", "law": "Ποινικός Κώδικας"}
AMENDING = "N_4855_2021::86"
ARTICLES = [
    {"_id": "PK::46", "title": "Άμεσοι συνεργοί", "text": "Με την ποινή του αυτουργού τιμωρείται όποιος παρέσχε άμεση συνδρομή.", **PK},
    {"_id": "PK::47", "title": "Απλοί συνεργοί", "text": "Όποιος παρέσχε οποιαδήποτε άλλη συνδρομή τιμωρείται με μειωμένη ποινή.", **PK},
    {"_id": "PK::49", "title": "Συνεργοί και ιδιότητες",
     "text": "Οι ιδιότητες του αυτουργού <b>δεν</b> μεταβιβάζονται στους συνεργούς κατά το άρθρο 46 παρ. 1 και 47.", **PK},
    {"_id": "PK::372", "title": "Κλοπή",
     "text": "1. Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου με σκοπό να το ιδιοποιηθεί παράνομα τιμωρείται με φυλάκιση.", **PK},
    {"_id": AMENDING, "title": "Τροποποίηση του άρθρου 372 ΠΚ", "source": "N_4855_2021",
     "law": "Νόμος 4855/2021 Τροποποιήσεις του Ποινικού Κώδικα",
     "text": "Η παρ. 1 του άρθρου 372 ΠΚ αντικαθίσταται ως εξής: «1. Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή "
             "άλλου με σκοπό να το ιδιοποιηθεί παράνομα τιμωρείται με φυλάκιση έως πέντε ετών, κλοπή κινητού πράγματος.»"},
]
QUERIES = [{"_id": "q1", "text": "αφαιρεί ξένο κινητό πράγμα κλοπή"}]
QRELS = [("q1", "PK::372", 1)]


@pytest.fixture(scope="module")
def graph_settings(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("graph")
    alias = f"pytest-graph-{uuid.uuid4().hex[:8]}"
    settings = cluster.with_overrides(index_alias=alias, runs_dir=folder / "runs", cache_dir=folder / "cache")
    data = load_beir(write_beir(folder / "graph", ARTICLES, QUERIES, QRELS))
    index_dataset(settings, data)
    try:
        yield settings, data
    finally:
        make_client(settings.cluster).indices.delete(index=f"{alias}*", ignore_unavailable=True)


@pytest.fixture(scope="module")
def web(graph_settings):
    with TestClient(create_app(graph_settings[0])) as c:
        yield c


def test_api_graph_lists_references_cites_and_cited_by(web):
    g = web.get("/api/articles/PK::49/graph").json()
    assert g["warning"] is None and g["amended_by"] == []
    assert {c["id"] for c in g["cites"]} == {"PK::46", "PK::47"}
    linked = {r["target"]: r for r in g["references"] if r["target"]}
    assert set(linked) == {"PK::46", "PK::47"} and linked["PK::46"]["url"] == "/articles/PK%3A%3A46"
    text = web.get("/api/articles/PK::49").json()["text"]
    assert text[linked["PK::47"]["start"]:linked["PK::47"]["end"]].endswith("47")
    assert g["previous"]["id"] == "PK::47" and g["next"]["id"] == "PK::372" and g["law_url"] == "/laws/PK"
    cited_by = web.get("/api/articles/PK::46/graph").json()["cited_by"]
    assert [c["id"] for c in cited_by] == ["PK::49"] and cited_by[0]["citation"] == "άρθρο 49 ΠΚ"


def test_api_graph_warns_on_an_amended_article_and_names_the_amendment(web):
    g = web.get("/api/articles/PK::372/graph").json()
    assert g["warning"] and [a["id"] for a in g["amended_by"]] == [AMENDING]
    a = g["amended_by"][0]
    assert a["kind"] in ("amends", "replaces") and a["paragraph"] == "1" and "4855/2021" in a["law"]
    assert AMENDING in {c["id"] for c in g["cited_by"]}
    back = web.get(f"/api/articles/{AMENDING}/graph").json()
    assert [x["id"] for x in back["amends"]] == ["PK::372"] and back["warning"] is None


def test_article_page_links_references_and_shows_the_warning(web):
    page = web.get("/articles/PK::49").text
    assert '<a class="ref" href="/articles/PK%3A%3A46">' in page and '<a class="ref" href="/articles/PK%3A%3A47">' in page
    assert "&lt;b&gt;δεν&lt;/b&gt;" in page and "<b>δεν</b>" not in page  # the text stays text
    assert 'id="cites"' in page and 'id="cited-by"' in page and 'id="amendments"' in page
    assert 'id="amended"' not in page
    amended = web.get("/articles/PK::372").text
    assert 'id="amended"' in amended and "/articles/N_4855_2021%3A%3A86" in amended and "παρ. 1" in amended
    highlighted = web.get("/articles/PK::49", params={"q": "συνεργούς"}).text  # links and highlights together
    assert '<mark id="match">' in highlighted and '<a class="ref" href="/articles/PK%3A%3A46">' in highlighted


def test_law_table_of_contents_in_article_number_order(web):
    assert [a["id"] for a in web.get("/api/laws/PK").json()["articles"]] == ["PK::46", "PK::47", "PK::49", "PK::372"]
    page = web.get("/laws/PK").text
    assert page.index("PK%3A%3A47") < page.index("PK%3A%3A49") < page.index("PK%3A%3A372")
    assert web.get("/laws/NOPE").status_code == 404 and web.get("/api/laws/NOPE").status_code == 404
    assert web.get("/api/laws/a b").status_code == 422
    assert web.get("/api/articles/PK::999/graph").status_code == 404


def test_amendments_follow_and_credit_bring_the_amended_article(graph_settings):
    """«αντικαθίσταται» is only in the amending article's instruction (not in the new wording it gives PK::372, which
    the index also holds as PK::372's text in force): BM25 alone finds the amending article only; with the
    amendment stage the article it amends comes right after it (follow) or below it with its credit (credit)."""
    settings, data = graph_settings
    client = make_client(settings.cluster)
    query = {"q1": "αντικαθίσταται"}

    def ranked(mode: str):
        return make_retriever(settings, "bm25", client, MethodOptions(amendments=mode)).search_many(query, 10)

    off = ranked("off").hits["q1"]
    assert [h.doc_id for h in off] == [AMENDING]
    follow = ranked("follow")
    assert [h.doc_id for h in follow.hits["q1"]][:2] == [AMENDING, "PK::372"]
    moved = follow.query_notes["q1"]["amendments"]
    assert moved[0]["id"] == "PK::372" and moved[0]["by"] == AMENDING and moved[0]["to"] == 2
    credit = ranked("credit:0.5").hits["q1"]
    by_id = {h.doc_id: h.score for h in credit}
    assert by_id["PK::372"] == pytest.approx(0.5 * off[0].score)  # not found by BM25: the credit alone
    out = evaluate_method(settings, data, method="bm25", options=MethodOptions(amendments="credit:1"))
    assert out.paths["manifest"].parent.name == "bm25-amend-credit_1"
    manifest = json.loads(out.paths["manifest"].read_text())
    assert manifest["method"]["amendments"] == {"mode": "credit", "depth": 100, "weight": 1.0}


def test_portal_search_with_nomos_amendments_follow(graph_settings):
    """NOMOS_AMENDMENTS=follow: the portal's BM25 page goes through the ranked path, and the article the amendment
    brought in comes with its title, law and citation like any hit."""
    settings, _ = graph_settings
    with TestClient(create_app(settings.with_overrides(amendments="follow"))) as c:
        body = c.get("/api/search", params={"q": "αντικαθίσταται", "method": "bm25"}).json()
    hits = body["hits"]
    assert [h["id"] for h in hits[:2]] == [AMENDING, "PK::372"]
    assert hits[1]["title"] == "Κλοπή" and hits[1]["law"] == "Ποινικός Κώδικας" and hits[1]["citation"] == "άρθρο 372 ΠΚ"
