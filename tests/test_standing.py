"""Every hit says where it stands in law, and a repealed article is not ranked as if in force (issue 50).

«δικτυακός τόπος φορέα του δημόσιου τομέα υποβολή αναφορών» put N_3979_2011::5 first, its text in force
«[Καταργείται]» (repealed by ν. 4727/2020 article 108), and neither the results list nor the API's hit said so. Now
the search stage reads each hit's standing from the text in force ingest stored (nomos.pages.standing) and lists
a repealed article after those in force, marked, in the portal's list, the API's hits and ``search --json``; an
article the query names outright stays first. The small corpus of tests/in_force_support.py with one more article
that repeals PK::46, indexed by ingest (which consolidates it), on a real node."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from nomos.legal.inforce.result import Applied, InForce, Passage
from nomos.pages.standing import IN_FORCE, Standing, demote_repealed, standing_of
from nomos.retrieval.base import Hit

REPEALS_46 = "N_4855_2021::90"
# a law that inserts articles 7Α–7Γ into ν. 3978/2011; the corpus files 7Β and 7Γ under its own id (issue 50)
LAW_4782 = {"source": "N_4782_2021", "law": "Νόμος 4782/2021 Εκσυγχρονισμός των δημοσίων συμβάσεων"}
INSERTED = [
    {"_id": "N_4782_2021::154", "title": "Προσθήκη άρθρων 7Α, 7Β και 7Γ στον ν. 3978/2011", **LAW_4782,
     "text": "Μετά το άρθρο 7 του ν. 3978/2011 (Α’ 137) προστίθενται άρθρα 7Α, 7Β και 7Γ ως εξής: «Άρθρο 7Α "
             "Κεντρικές Γνωμοδοτικές Επιτροπές\n1. Με απόφαση του Υπουργού συγκροτούνται επιτροπές."},
    {"_id": "N_4782_2021::7Β", "title": "Περιφερειακές Γνωμοδοτικές Επιτροπές", **LAW_4782,
     "text": "1. Σε κάθε περιφέρεια συγκροτείται γνωμοδοτική επιτροπή προμηθειών."},
    {"_id": "N_4782_2021::7Γ", "title": "Αρμοδιότητες οργάνων εκτέλεσης συμβάσεων", **LAW_4782,
     "text": "1. Οι επιτροπές ελέγχου και παραλαβής παρακολουθούν την εκτέλεση των συμβατικών όρων.»"},
]
WORDS_7G = "επιτροπές ελέγχου και παραλαβής συμβατικών όρων"
WORDS_46 = "άμεση συνδρομή του αυτουργού"  # PK::46's words (PK::49 shares «αυτουργού» only)


def stored(status: str, *actions: tuple[str, str]) -> dict:
    return InForce(status, (Passage("…"),), tuple(dict.fromkeys(s for _, s in actions)),  # type: ignore[arg-type]
                   tuple(Applied(s, a) for a, s in actions)).to_doc()


def test_the_standing_is_read_off_the_stored_text_in_force():
    assert standing_of(None) == IN_FORCE and IN_FORCE.as_dict() == {"status": "in-force", "by": []}
    repealed = standing_of(stored("full", ("repeal", "N_4727_2020::108")))
    assert repealed == Standing("repealed", ("N_4727_2020::108",)) and repealed.repealed
    assert repealed.as_dict()["by"] == [{"id": "N_4727_2020::108", "citation": "άρθρο 108 ν. 4727/2020"}]
    assert "repealed by άρθρο 108 ν. 4727/2020" in repealed.describe()
    # a repeal a later law undid with a new wording of the whole article: amended, not repealed
    assert standing_of(stored("full", ("repeal", "N_1::1"), ("replace-article", "N_2::2"))).status == "amended"
    # repealed whatever else could not be applied
    assert standing_of(stored("partial", ("replace-paragraph", "N_1::1"), ("repeal", "N_2::2"))).by == ("N_2::2",)
    assert standing_of(stored("full", ("replace-paragraph", "N_1::1"), ("insert-case", "N_2::2"))) == \
        Standing("amended", ("N_1::1", "N_2::2"))
    assert standing_of(stored("full", ("insert-paragraph", "N_1::1"))).status == "inserted"
    assert standing_of(stored("partial", ("replace-paragraph", "N_1::1"))).status == "partial"
    assert standing_of(stored("none")).status == "partial"  # amended, none of it applied: read the page


def test_an_article_inserted_whole_into_another_law_says_where_and_by_which_law():
    """Issue 50: an article a later law inserted whole (N_4782_2021::7Γ is ν. 3978/2011's 7Γ) was shown as in
    force as written. Ingest stores its host law (``inserted_into``) and the standing names it."""
    whole = standing_of({"inserted_into": "N_3978_2011"}, "N_4782_2021::7Γ")
    assert whole == Standing("inserted", (), "N_3978_2011", "N_4782_2021", "7Γ")
    assert whole.as_dict() == {"status": "inserted", "by": [], "inserted": {
        "into": "N_3978_2011", "into_citation": "ν. 3978/2011", "as": "άρθρο 7Γ", "by_law": "ν. 4782/2021"}}
    assert whole.describe() == "inserted whole into ν. 3978/2011 as article 7Γ by ν. 4782/2021"
    assert whole.inserted_whole == "Προστέθηκε στον ν. 3978/2011 ως άρθρο 7Γ με τον ν. 4782/2021"
    # amended since: the amendment's status, the insertion still said
    later = standing_of({**stored("full", ("replace-paragraph", "N_5000_2023::3")), "inserted_into": "N_3978_2011"},
                        "N_4782_2021::7Γ")
    assert later.status == "amended" and later.into == "N_3978_2011" and later.by == ("N_5000_2023::3",)
    assert later.describe().startswith("inserted whole into ν. 3978/2011") and "amended by" in later.describe()


def test_repealed_hits_go_after_those_in_force_save_one_the_query_names():
    hits = [Hit("a", 3.0), Hit("b", 2.0), Hit("c", 1.0), Hit("d", 0.5)]
    gone = Standing("repealed", ("N_1::1",))
    standing = {"a": gone, "b": Standing("amended", ("N_1::2",)), "c": gone}
    assert [h.doc_id for h in demote_repealed(hits, standing)] == ["b", "d", "a", "c"]
    assert [h.doc_id for h in demote_repealed(hits, standing, keep={"a"})] == ["a", "b", "d", "c"]
    assert demote_repealed([], standing) == []


# ------------------------------------------------------------------------------------------------ real node
@pytest.fixture(scope="module")
def repealed_index(cluster, tmp_path_factory):
    from nomos.ingest.beir import load_beir
    from nomos.opensearch.client import make_client
    from nomos.stages.indexing import index_dataset
    from tests.beir_files import write_beir
    from tests.in_force_support import ARTICLES, LAW_4855

    folder = tmp_path_factory.mktemp("repealed")
    settings = cluster.with_overrides(index_alias=f"pytest-repealed-{uuid.uuid4().hex[:8]}", runs_dir=folder / "runs",
                                      cache_dir=folder / "cache")
    articles = [*ARTICLES, {"_id": REPEALS_46, "title": "Καταργούμενες διατάξεις", **LAW_4855,
                            "text": "Το άρθρο 46 ΠΚ καταργείται."}, *INSERTED]
    index_dataset(settings, load_beir(write_beir(folder / "data", articles, [{"_id": "q1", "text": WORDS_46}],
                                                 [("q1", "PK::49", 1)])), embedders=())
    try:
        yield settings
    finally:
        make_client(settings.cluster).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)


@pytest.mark.integration
def test_a_repealed_article_is_listed_after_those_in_force_and_marked(repealed_index):
    from nomos.opensearch.client import make_client
    from nomos.retrieval.registry import MethodOptions, make_retriever
    from nomos.stages.searching import SearchRequest, SearchStage

    bm25 = make_retriever(repealed_index, "bm25", make_client(repealed_index.cluster), MethodOptions())
    assert [h.doc_id for h in bm25.search(WORDS_46, 10)][:2] == ["PK::46", "PK::49"]  # the method ranks it first
    page = SearchStage(repealed_index).search(SearchRequest(WORDS_46, "bm25", 10))
    ids = [h.doc_id for h in page.hits]
    assert ids.index("PK::49") < ids.index("PK::46") and ids[-1] == "PK::46" and page.repealed == 1
    assert page.standing_of("PK::46") == Standing("repealed", (REPEALS_46,))
    assert page.standing_of("PK::49") == IN_FORCE
    theft = SearchStage(repealed_index).search(SearchRequest("κλοπή με διάρρηξη", "bm25", 10))
    assert theft.standing_of("PK::372") == Standing("amended", ("N_4855_2021::86",))
    # named outright, it stays where the person asked for it, marked all the same
    named = SearchStage(repealed_index).search(SearchRequest("άρθρο 46 ΠΚ", "bm25", 10))
    assert named.hits[0].doc_id == "PK::46" and named.standing_of("PK::46").repealed


@pytest.mark.integration
def test_the_api_the_page_and_search_json_say_where_each_hit_stands(repealed_index):
    from nomos.cli import cli
    from nomos.portal import create_app

    with TestClient(create_app(repealed_index)) as web:
        out = web.get("/api/search", params={"q": WORDS_46, "method": "bm25"}).json()
        page = web.get("/search", params={"q": WORDS_46, "method": "bm25"}).text
    by_id = {h["id"]: h for h in out["hits"]}
    assert out["hits"][-1]["id"] == "PK::46" and out["repealed"] == 1
    assert by_id["PK::46"]["standing"] == {"status": "repealed",
                                           "by": [{"id": REPEALS_46, "citation": "άρθρο 90 ν. 4855/2021"}],
                                           "inserted": None}
    assert by_id["PK::49"]["standing"] == {"status": "in-force", "by": [], "inserted": None}
    assert 'class="standing standing-repealed"' in page and "Καταργήθηκε</strong> με το <a" in page
    assert 'id="repealed-note"' in page and "άρθρο 90 ν. 4855/2021" in page

    res = CliRunner().invoke(cli, ["--url", repealed_index.url, "--index", repealed_index.index_alias, "search",
                                   "--method", "bm25", "--json", WORDS_46])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["hits"][-1]["id"] == "PK::46" and doc["hits"][-1]["standing"]["status"] == "repealed"
    assert doc["repealed"] == 1
    plain = CliRunner().invoke(cli, ["--url", repealed_index.url, "--index", repealed_index.index_alias, "search",
                                     "--method", "bm25", WORDS_46])
    assert "repealed by άρθρο 90 ν. 4855/2021: listed after the articles in force" in plain.stdout


@pytest.mark.integration
def test_an_inserted_article_is_marked_in_the_list_the_api_search_json_and_its_page(repealed_index):
    from nomos.cli import cli
    from nomos.portal import create_app
    from nomos.stages.searching import SearchRequest, SearchStage

    page = SearchStage(repealed_index).search(SearchRequest(WORDS_7G, "bm25", 10))
    assert page.hits[0].doc_id == "N_4782_2021::7Γ"
    assert page.standing_of("N_4782_2021::7Γ") == Standing("inserted", (), "N_3978_2011", "N_4782_2021", "7Γ")
    assert page.standing_of("N_4782_2021::154").into == ""  # the inserting article is its own law's
    with TestClient(create_app(repealed_index)) as web:
        out = web.get("/api/search", params={"q": WORDS_7G, "method": "bm25"}).json()
        listed = web.get("/search", params={"q": WORDS_7G, "method": "bm25"}).text
        article = web.get("/articles/N_4782_2021::7Γ").text
    hit = next(h for h in out["hits"] if h["id"] == "N_4782_2021::7Γ")
    assert hit["standing"]["status"] == "inserted"
    assert hit["standing"]["inserted"] == {"into": "N_3978_2011", "into_citation": "ν. 3978/2011", "as": "άρθρο 7Γ",
                                           "by_law": "ν. 4782/2021"}
    said = "Προστέθηκε στον ν. 3978/2011 ως άρθρο 7Γ με τον ν. 4782/2021"
    assert 'class="standing standing-inserted"' in listed and said in listed
    assert 'id="inserted-whole"' in article and said in article
    res = CliRunner().invoke(cli, ["--url", repealed_index.url, "--index", repealed_index.index_alias, "search",
                                   "--method", "bm25", "--json", WORDS_7G])
    assert res.exit_code == 0, res.output
    first = json.loads(res.stdout)["hits"][0]
    assert first["id"] == "N_4782_2021::7Γ" and first["standing"]["inserted"]["into"] == "N_3978_2011"
