"""The portal against a real node: the JSON API and the HTML pages (search, facets, article, neighbours,
similar), input bounds, escaping, security headers, query_string syntax taken as text, and that the portal only
ever reads its own alias."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from nomos.opensearch.transport import Transport
from nomos.portal import create_app
from nomos.retrieval.bm25 import BM25Retriever
from tests.portal_support import requests_sent

pytestmark = pytest.mark.integration

THEFT = "Ο Νίκος αφαίρεσε ξένο κινητό πράγμα από κατάστημα για να το ιδιοποιηθεί"


@pytest.fixture(scope="module")
def mini_settings(shared_bm25_index):
    """The mini corpus, BM25 only: the session's read-only copy (tests/conftest.py)."""
    return shared_bm25_index


@pytest.fixture(scope="module")
def app(mini_settings):
    """BM25's one-request page, which this module pins: ``--amendments off`` (bm25's default; set here so that a
    NOMOS_AMENDMENTS in the environment cannot move the page to the rank-then-page path)."""
    return create_app(mini_settings.with_overrides(amendments="off"))


@pytest.fixture(scope="module")
def web(app):
    with TestClient(app) as c:
        yield c


def assert_secure(resp):
    csp = resp.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert resp.headers["x-content-type-options"] == "nosniff"
    assert resp.headers["referrer-policy"] == "no-referrer"


# ------------------------------------------------------------------------------------------------ JSON API
def test_api_search_ranks_highlights_and_facets(web):
    r = web.get("/api/search", params={"q": THEFT, "k": 5})
    assert r.status_code == 200, r.text
    assert_secure(r)
    body = r.json()
    assert body["method"] == "bm25" and body["k"] == 5 and body["source"] is None
    ids = [h["id"] for h in body["hits"]]
    assert ids[0] == "PK::372"
    top = body["hits"][0]
    assert top["title"] == "Κλοπή" and top["law"] == "Ποινικός Κώδικας" and top["source"] == "PK"
    assert any("<mark>" in s for s in top["snippets"])
    assert top["url"].startswith("/articles/PK%3A%3A372?q=")
    facets = {f["source"]: f for f in body["facets"]}
    assert facets["PK"]["law"] == "Ποινικός Κώδικας" and facets["PK"]["count"] >= 2
    assert body["total"] == sum(f["count"] for f in body["facets"])
    assert body["url"].startswith("/search?q=")


def test_law_names_once_then_pages_without_the_law_sub_aggregation(web, mini_settings):
    """The portal names each source's law from law_names (one aggregation, kept a minute); its pages' requests then
    carry no per-bucket ``law`` aggregation, and the facets still name the law."""
    from nomos.opensearch.client import make_client
    from nomos.pages.facets import facet_aggs, law_names, read_facets
    from nomos.pages.request import PageRequest

    client = make_client(mini_settings.cluster)
    assert law_names(Transport(client), mini_settings.index_alias) == {"PK": "Ποινικός Κώδικας", "AK": "Αστικός Κώδικας"}
    web.get("/api/search", params={"q": THEFT})  # the portal has looked its law names up
    bodies: list = []
    with requests_sent(web, bodies) as sent:
        body = web.get("/api/search", params={"q": THEFT, "area": "criminal"}).json()
    assert len(bodies) == 1, sent  # the page's one request
    aggs = json.dumps(bodies[0]["aggs"])
    assert '"law"' not in aggs and '"sources"' in aggs
    assert {f["source"]: f["law"] for f in body["facets"]} == {"PK": "Ποινικός Κώδικας"}
    # without the map (a library caller), the names come from the sub-aggregation, the same
    bm25 = BM25Retriever(Transport(client), mini_settings.index_alias)
    query = "φυλάκιση αποζημίωση βλάβη"
    page = bm25.search_faceted(query, 5, PageRequest(bm25.transport, bm25.index, query, facet_aggs(15), fallback=False))
    facets = read_facets(page.aggregations)
    assert {f.source: f.law for f in facets.sources} == {"PK": "Ποινικός Κώδικας", "AK": "Αστικός Κώδικας"}


def test_api_filter_by_legal_source(web):
    everything = web.get("/api/search", params={"q": "φυλάκιση αποζημίωση βλάβη"}).json()
    assert {h["source"] for h in everything["hits"]} == {"PK", "AK"}
    only_ak = web.get("/api/search", params={"q": "φυλάκιση αποζημίωση βλάβη", "source": "AK"}).json()
    assert only_ak["hits"] and {h["source"] for h in only_ak["hits"]} == {"AK"}
    assert only_ak["facets"] == everything["facets"]  # facets stay unfiltered, so a person can switch source
    assert "source=AK" in only_ak["url"]
    none = web.get("/api/search", params={"q": "φυλάκιση", "source": "NOPE"}).json()
    assert none["hits"] == []


def test_api_article_with_neighbours_and_similar(web):
    r = web.get("/api/articles/PK::372")
    assert r.status_code == 200, r.text
    a = r.json()
    assert (a["title"], a["law"], a["source"], a["number"]) == ("Κλοπή", "Ποινικός Κώδικας", "PK", "372")
    assert a["text"].startswith("Όποιος αφαιρεί ξένο")
    assert a["previous"]["id"] == "PK::308" and a["next"]["id"] == "PK::375"
    assert [n["id"] for n in a["neighbours"]] == ["PK::308", "PK::372", "PK::375", "PK::386"]
    assert a["law_size"] == 4
    similar = [s["id"] for s in a["similar"]]
    assert similar and "PK::372" not in similar and "PK::375" in similar  # υπεξαίρεση shares the most words

    for missing in ("PK::999", "../../_cat/indices", "*", "PK::372 OR *"):
        r = web.get("/api/articles/" + missing.replace("/", "%2F"))
        assert r.status_code == 404, (missing, r.text)
    assert web.get("/api/articles/PK::999").json() == {"detail": "no article with this id"}
    assert "Δεν βρέθηκε" in web.get("/no/such/page").text  # unknown routes get the Greek page too


def test_api_bounds_give_clear_422(web):
    cases = [
        ({"q": THEFT, "k": 0}, "k"),
        ({"q": THEFT, "k": 51}, "k"),
        ({"q": THEFT, "method": "query_string"}, "method"),
        ({"q": ""}, "q"),
        ({"q": THEFT, "source": "PK OR *"}, "source"),
        ({}, "q"),
    ]
    for params, field in cases:
        r = web.get("/api/search", params=params)
        assert r.status_code == 422, (params, r.text)
        detail = r.json()["detail"]
        assert any(d.startswith(field + ":") for d in detail), detail
        assert_secure(r)
    assert web.get("/api/articles/" + "x" * 201).status_code == 422


def test_llm_and_dense_methods_are_refused_when_not_available(web):
    for method in ("react", "reform-bm25"):
        r = web.get("/api/search", params={"q": THEFT, "method": method})
        assert r.status_code == 400 and "NOMOS_LLM_BASE_URL" in r.json()["detail"]
    r = web.get("/api/search", params={"q": THEFT, "method": "knn"})  # the mini index has no vectors
    assert r.status_code == 400 and "διανύσματα" in r.json()["detail"]
    page = web.get("/").text
    assert 'value="bm25"' in page and 'value="react"' not in page and 'value="knn"' not in page


def test_query_string_syntax_is_plain_text(web, app, mini_settings):
    """Lucene syntax in a case is just words: no error, the same ranking as a plain match on those words."""
    bm25 = BM25Retriever(app.state.portal.transport, mini_settings.index_alias)
    for q in ("title:foo OR *", "κλοπή AND (ρολόι", "text:\"κλοπή\"~2 OR _id:PK::386^10", "/.*/ [a TO z]"):
        r = web.get("/api/search", params={"q": q, "k": 6})
        assert r.status_code == 200, (q, r.text)
        got = [(h["id"], round(h["score"], 4)) for h in r.json()["hits"]]
        assert got == [(h.doc_id, round(h.score, 4)) for h in bm25.search(q, 6)]
    assert web.get("/search", params={"q": "title:foo OR *"}).status_code == 200


def test_portal_reads_only_its_alias_and_sends_no_query_string(web, app, mini_settings, cluster):
    from nomos.opensearch.client import make_client

    other = make_client(cluster.cluster)
    other_index = mini_settings.index_alias + "-other"  # the alias' prefix: a portal reading "<alias>*" would see it
    other.index(index=other_index, id="XX::1", body={"title": "Κλοπή", "text": "κλοπή κλοπή"}, refresh=True)

    transport = app.state.portal.client.transport
    seen = []
    original = transport.perform_request

    def spy(method, url, headers=None, params=None, body=None):
        seen.append((method, url, body))
        return original(method, url, headers=headers, params=params, body=body)

    transport.perform_request = spy
    try:
        assert web.get("/api/search", params={"q": THEFT, "source": "PK"}).status_code == 200
        assert web.get("/search", params={"q": THEFT}).status_code == 200
        assert web.get("/articles/PK::372", params={"q": THEFT}).status_code == 200
        assert web.get("/api/articles/XX::1").status_code == 404  # exists, but in another index
        assert web.get("/api/health").status_code == 200
    finally:
        transport.perform_request = original
        other.indices.delete(index=other_index)  # the alias is the session's shared, read-only index
    alias = mini_settings.index_alias
    assert seen
    for _method, url, body in seen:
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        assert "query_string" not in text and "simple_query_string" not in text
        if url.startswith("/_msearch"):
            headers = [json.loads(line) for line in body.splitlines()[::2]] if isinstance(body, str) else body[::2]
            assert all(h["index"] == alias and set(h) <= {"index", "search_type"} for h in headers), headers
        else:
            assert url.startswith(f"/{alias}/"), url


def _recording(app):
    """Record every request the portal sends to OpenSearch (the transport is real; this only watches it)."""
    transport = app.state.portal.client.transport
    seen: list[tuple[str, str, object]] = []
    original = transport.perform_request

    def spy(method, url, headers=None, params=None, body=None):
        seen.append((method, url, body))
        return original(method, url, headers=headers, params=params, body=body)

    return transport, original, spy, seen


def test_a_bm25_page_is_one_request_with_the_retrievers_ranking(web, app, mini_settings):
    """Ranking, snippets and facets come back in one search request per page (after the first page, which looks up
    the index's methods and shard count), and the post-filtered ranking is exactly the retriever's filtered one."""
    query = "φυλάκιση αποζημίωση βλάβη"
    assert web.get("/search", params={"q": query}).status_code == 200  # warms the method and retriever caches
    transport, original, spy, seen = _recording(app)
    transport.perform_request = spy
    try:
        page = web.get("/search", params={"q": query, "source": "AK"})
        api = web.get("/api/search", params={"q": query, "source": "AK", "k": 6}).json()
    finally:
        transport.perform_request = original
    assert page.status_code == 200
    assert [(m, u.split("?")[0]) for m, u, _ in seen] == [("POST", f"/{mini_settings.index_alias}/_search")] * 2, seen

    client = app.state.portal.client
    filtered = BM25Retriever(Transport(client), mini_settings.index_alias, filters=({"term": {"source": "AK"}},)).search(query, 6)
    assert [(h["id"], round(h["score"], 5)) for h in api["hits"]] == [(h.doc_id, round(h.score, 5)) for h in filtered]
    matching = client.count(index=mini_settings.index_alias,
                            body={"query": BM25Retriever(Transport(client), mini_settings.index_alias).query_clause(query)})["count"]
    assert api["total"] == matching > len(filtered)  # every matching article, not only the filtered page


def test_page_links_carry_the_case_as_readable_iris_that_round_trip():
    """Links inside pages keep Greek letters as they are (2 bytes each instead of 6); what a browser sends when
    it follows one decodes to exactly the case, special characters included. The API's urls stay ASCII."""
    from urllib.parse import parse_qs, quote, urlsplit

    from nomos.portal.app import article_url, search_url

    case = 'Ο Νίκος & η "Μαρία" <b> 100%+1 #2; é\u0085'
    iri = search_url(case, "knn", 20, "PK", iri=True)
    assert iri.startswith("/search?q=Ο+Νίκος+%26+η+%22Μαρία%22+%3Cb%3E+100%25%2B1+%232%3B+é%C2%85&")
    wire = quote(iri, safe="".join(chr(c) for c in range(33, 127)))  # a browser percent-encodes the rest as UTF-8
    assert parse_qs(urlsplit(wire).query) == {"q": [case], "method": ["knn"], "k": ["20"], "source": ["PK"]}
    assert search_url(case, "knn", 20, "PK").isascii()
    assert search_url(case, "knn", 20, "PK") == quote(iri, safe="".join(chr(c) for c in range(33, 127)))
    assert article_url("PK::372", case, iri=True).startswith("/articles/PK%3A%3A372?q=Ο+Νίκος")


def test_api_area_facet_and_filter_for_bm25(web, app, mini_settings):
    query = "φυλάκιση αποζημίωση βλάβη"
    everything = web.get("/api/search", params={"q": query}).json()
    areas = {a["area"]: (a["label"], a["count"]) for a in everything["areas"]}
    assert areas == {"criminal": ("Ποινικό δίκαιο", 4), "civil": ("Αστικό δίκαιο", 2)}
    assert everything["area"] is None
    assert {h["id"]: h["citation"] for h in everything["hits"]}["PK::308"] == "άρθρο 308 ΠΚ"

    civil = web.get("/api/search", params={"q": query, "area": "civil", "k": 6}).json()
    assert {h["source"] for h in civil["hits"]} == {"AK"} and civil["area"] == "civil"
    assert civil["areas"] == everything["areas"]  # the area facet is not narrowed by its own filter
    assert [f["source"] for f in civil["facets"]] == ["AK"]  # the source facet follows the chosen area
    assert civil["total"] == everything["total"] and "area=civil" in civil["url"]
    # a post_filter: the ranking is the retriever's own with the same filter, scores untouched
    client = app.state.portal.client
    filtered = BM25Retriever(Transport(client), mini_settings.index_alias, filters=({"term": {"area": "civil"}},)).search(query, 6)
    assert [(h["id"], round(h["score"], 5)) for h in civil["hits"]] == [(h.doc_id, round(h.score, 5)) for h in filtered]
    unfiltered = {h["id"]: h["score"] for h in everything["hits"]}
    assert all(abs(unfiltered[h["id"]] - h["score"]) < 1e-9 for h in civil["hits"])

    none = web.get("/api/search", params={"q": query, "area": "civil", "source": "PK"}).json()
    assert none["hits"] == [] and [a["area"] for a in none["areas"]] == ["criminal"]  # areas of PK's matches
    empty = web.get("/api/search", params={"q": query, "area": "labour"}).json()  # a known area, no articles here
    assert empty["hits"] == [] and empty["areas"] == everything["areas"]


def test_unknown_area_is_400_naming_the_field(web):
    r = web.get("/api/search", params={"q": THEFT, "area": "astrology"})
    assert r.status_code == 400 and r.json()["detail"].startswith("area: ") and "civil" in r.json()["detail"]
    assert_secure(r)
    malformed = web.get("/api/search", params={"q": THEFT, "area": "Civil OR *"})
    assert malformed.status_code == 422 and any(d.startswith("area:") for d in malformed.json()["detail"])
    page = web.get("/search", params={"q": THEFT, "area": "astrology"})
    assert page.status_code == 400 and "area: " in page.text and THEFT in page.text  # the form is kept


def test_api_article_has_area_and_citation(web):
    a = web.get("/api/articles/AK::914").json()
    assert (a["area"], a["citation"]) == ("civil", "άρθρο 914 ΑΚ")


# ------------------------------------------------------------------------------------------------ pages
def test_search_page_has_both_facets_citations_and_links_to_the_first_match(web):
    html = web.get("/search", params={"q": "φυλάκιση αποζημίωση βλάβη", "area": "civil"}).text
    assert 'id="facet-areas"' in html and 'id="facet-sources"' in html
    assert "Ποινικό δίκαιο" in html and "Αστικό δίκαιο" in html and "τομέας: Αστικό δίκαιο" in html
    assert '<input type="hidden" name="area" value="civil">' in html  # a new case keeps the area filter
    # each hit: its citation as selectable text, and a copy button the script shows
    assert '<code class="cite-text">άρθρο 914 ΑΚ</code>' in html
    assert '<button type="button" class="copy" data-copy="άρθρο 914 ΑΚ" hidden>' in html
    assert 'href="/articles/AK%3A%3A914?q=φυλάκιση+αποζημίωση+βλάβη#match"' in html
    assert "&amp;area=civil" in html  # facet links keep the area (and the source facet's links too)
    js = web.get("/static/copy.js")
    assert js.status_code == 200 and "navigator.clipboard" in js.text


def test_article_page_marks_and_anchors_the_first_match(web):
    html = web.get("/articles/PK::372", params={"q": "κλοπή ιδιοποιηθεί κατοχή"}).text
    assert html.count('<mark id="match">') == 1 and html.count("<mark>") >= 1  # one anchor, other marks plain
    assert html.index('<mark id="match">') < html.index("<mark>")  # the anchor is the first mark
    assert '<code class="cite-text">άρθρο 372 ΠΚ</code>' in html and 'id="area">Ποινικό δίκαιο<' in html
    assert 'href="/articles/PK%3A%3A375?q=κλοπή+ιδιοποιηθεί+κατοχή#match"' in html  # neighbours land on theirs
    plain = web.get("/articles/PK::372").text
    assert 'id="match"' not in plain and "#match" not in plain  # no case, no anchor


def test_search_page_in_greek_with_results_facets_and_shareable_url(web):
    r = web.get("/search", params={"q": THEFT + " και ζητά αποζημίωση", "k": 10})
    assert r.status_code == 200
    assert_secure(r)
    html = r.text
    assert '<html lang="el">' in html
    assert 'href="/articles/PK%3A%3A372?q=Ο+Νίκος+αφαίρεσε' in html and "<mark>" in html  # readable links
    assert "Ποινικός Κώδικας" in html and "Αστικός Κώδικας" in html  # facets
    assert 'href="/search?q=' in html and "source=PK" in html  # facet links keep the query in the address
    assert THEFT in html  # the form is filled from the address
    # one script, the portal's own (copy buttons), never inline: the CSP allows no inline scripts
    assert html.count("<script") == 1 and '<script src="/static/copy.js" defer></script>' in html
    empty = web.get("/")
    assert empty.status_code == 200 and "Περιγραφή της υπόθεσης" in empty.text and 'class="hits"' not in empty.text


def test_user_text_is_escaped(web):
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    r = web.get("/search", params={"q": "κλοπή " + evil})
    assert r.status_code == 200
    assert "<script>alert" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in r.text
    a = web.get("/articles/PK::372", params={"q": evil})
    assert a.status_code == 200 and "<script>alert" not in a.text


def test_article_page(web):
    r = web.get("/articles/PK::372", params={"q": "κλοπή ιδιοποιηθεί"})
    assert r.status_code == 200
    assert_secure(r)
    html = r.text
    assert "Άρθρο 372" in html and "Κλοπή" in html and "Ποινικός Κώδικας" in html
    assert "ιδιοποιηθεί</mark>" in html  # the query's terms are highlighted in the full text
    assert 'id="neighbours"' in html and "/articles/PK%3A%3A375" in html and "/articles/PK%3A%3A308" in html
    assert 'id="similar"' in html
    missing = web.get("/articles/PK::999")
    assert missing.status_code == 404 and "Δεν βρέθηκε" in missing.text
    assert_secure(missing)


def test_bad_input_page_is_422_in_greek(web):
    r = web.get("/search", params={"q": THEFT, "k": 1000})
    assert r.status_code == 422 and "Μη έγκυρη αναζήτηση" in r.text
    assert_secure(r)


def test_errors_never_leak_stack_traces(mini_settings, monkeypatch):
    app = create_app(mini_settings)

    def boom(*args, **kwargs):
        raise RuntimeError("secret internal detail /srv/nomos/portal.py line 42")

    monkeypatch.setattr(app.state.portal, "search", boom)
    monkeypatch.setattr(app.state.portal, "article", boom)
    with TestClient(app, raise_server_exceptions=False) as c:
        for url in ("/search?q=x", "/api/search?q=x", "/articles/PK::372", "/api/articles/PK::372"):
            r = c.get(url)
            assert r.status_code == 500, url
            assert "secret" not in r.text and "Traceback" not in r.text and "RuntimeError" not in r.text
            assert_secure(r)
        assert c.get("/api/search?q=x").json() == {"detail": "Παρουσιάστηκε εσωτερικό σφάλμα. Το πρόβλημα καταγράφηκε."}


def test_openapi_description_and_no_external_assets(web):
    spec = web.get("/api/openapi.json").json()
    params = {p["name"]: p for p in spec["paths"]["/api/search"]["get"]["parameters"]}
    assert params["q"]["schema"]["maxLength"] == 20_000 and params["k"]["schema"]["maximum"] == 50
    assert "/api/articles/{article_id}" in spec["paths"]
    assert web.get("/docs").status_code == 404  # Swagger UI would load a CDN
    css = web.get("/static/portal.css")
    assert css.status_code == 200 and "http" not in css.text and "@import" not in css.text
