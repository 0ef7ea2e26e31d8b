"""Find by citation, id or title through the one search path (CLI and portal alike), on a real node: the article a
query names comes first in every method, a case that cites an article gets it among its results, and an article's
page resolves an id typed with Latin look-alike letters."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import load_beir
from nomos.portal import create_app
from nomos.stages.indexing import index_dataset
from nomos.stages.searching import SearchRequest, SearchStage, search
from tests.beir_files import ARTICLES, write_beir
from tests.test_direct_hits import EXTRA

pytestmark = pytest.mark.integration


@pytest.fixture
def named_index(os_settings, tmp_path):
    index_dataset(os_settings, load_beir(write_beir(tmp_path / "mini", articles=[*ARTICLES, *EXTRA])))
    return os_settings


def test_a_citation_or_a_title_puts_its_article_first(named_index):
    searcher = SearchStage(named_index)
    for query, first in [("άρθρο 372 ΠΚ", "PK::372"), ("άρθρ. 386A Π.Κ.", "PK::386Α"), ("ΠΚ 375", "PK::375"),
                         ("Ν.4624/2019 αρ. 21", "N_4624_2019::21"), ("Υπεξαίρεση", "PK::375"), ("pk::914", None)]:
        page = searcher.search(SearchRequest(query, "bm25", 5))
        if first is None:  # an id of no article: nothing is named, the method ranks as it would
            assert page.named == []
            continue
        assert page.hits[0].doc_id == first and [d.doc_id for d in page.named] == [first], query
        assert page.hits[0].details["direct"] in ("citation", "title") and page.hits[0].highlights
        assert len({h.doc_id for h in page.hits}) == len(page.hits)  # not listed twice
    assert search(named_index, "άρθρο 372 ΠΚ", "bm25", 3)[0].doc_id == "PK::372"  # the command line's call
    filtered = searcher.search(SearchRequest("άρθρο 372 ΠΚ", "bm25", 5, source="AK"))
    assert filtered.named == [] and all(h.source == "AK" for h in filtered.hits)  # the filter applies to it too


def test_a_case_that_cites_an_article_gets_it_among_its_results(named_index):
    case = "Ο Νίκος πήρε κρυφά το πορτοφόλι της Μαρίας από την τσάντα της. Ισχύει το άρθρο 914 ΑΚ για τη ζημία;"
    page = SearchStage(named_index).search(SearchRequest(case, "bm25", 2))
    assert "AK::914" in [h.doc_id for h in page.hits] and len(page.hits) == 2
    cited = {h.doc_id: h for h in page.hits}["AK::914"]
    assert page.named == [] and cited.details.get("direct") == "cited"
    # right after the method's best hit (it was put at the foot of the page), unless the method ranked it first
    assert [h.doc_id for h in page.hits].index("AK::914") <= 1
    assert page.hits[0].score > page.hits[1].score  # scores still fall with the rank


def test_the_portal_and_its_api_name_the_cited_article(named_index):
    with TestClient(create_app(named_index)) as web:
        doc = web.get("/api/search", params={"q": "άρθρο 386A ΠΚ", "method": "bm25"}).json()
        assert doc["hits"][0]["id"] == "PK::386Α" and doc["named"] == ["PK::386Α"]
        page = web.get("/search", params={"q": "άρθρο 386A ΠΚ", "method": "bm25"})
        assert page.status_code == 200 and "άρθρο 386Α ΠΚ" in page.text and "μετάβαση" in page.text
        for path in ("/articles/PK::386A", "/api/articles/PK::386A", "/articles/pk::372"):
            res = web.get(path)
            assert res.status_code == 200, path
        assert web.get("/api/articles/PK::386A").json()["id"] == "PK::386Α"
        assert web.get("/articles/PK::999").status_code == 404


def test_a_named_article_is_shown_as_placed_not_with_a_score(named_index):
    """Issue 50: `search PK::386A` showed «1.000» under «scores: BM25 score»; that number is where the lookup put
    the article, not a BM25 score. The CLI says why it stands there instead, JSON and the API say so per hit
    (``placed``), and the page shows no score for it."""
    import json

    from click.testing import CliRunner

    from nomos.cli import cli

    target = ["--url", named_index.url, "--index", named_index.index_alias, "search", "--method", "bm25", "-k", "2",
              "--amendments", "off"]  # BM25's own scores (its default, precede, shows positions: no score at all)
    plain = CliRunner().invoke(cli, [*target, "PK::386A"])
    assert plain.exit_code == 0, plain.output
    first = plain.stdout.splitlines()[0]
    assert "PK::386Α  [named: its id]" in first and "1.000" not in first
    assert "an article the query names or cites is placed, shown without a score" in plain.stderr
    doc = json.loads(CliRunner().invoke(cli, [*target, "--json", "PK::386A"]).stdout)
    assert doc["hits"][0]["placed"] == "id" and all(h["placed"] is None for h in doc["hits"][1:])
    with TestClient(create_app(named_index.with_overrides(amendments="off"))) as web:
        hits = web.get("/api/search", params={"q": "άρθρο 386A ΠΚ", "method": "bm25"}).json()["hits"]
        assert hits[0]["placed"] == "citation"
        html = web.get("/search", params={"q": "άρθρο 386A ΠΚ", "method": "bm25", "k": 3}).text
    first_hit = html[html.index('<li class="hit'):html.index("</li>", html.index('<li class="hit'))]
    assert 'class="score"' not in first_hit  # the others keep theirs
    assert html.count('class="score"') == html.count('<li class="hit') - 1 >= 1
