"""An amended article's page on a real node: the text in force by default (marked as consolidated automatically,
each amendment linked, the changed passages framed and labelled with the article that changed them), the original
one click away (?text=original) with a link back, a partial consolidation stated with the instructions that could
not be applied, one that applied nothing shown as the original, and the page's requests unchanged in number."""

from __future__ import annotations

import re
import uuid

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import load_beir
from nomos.legal.inforce.result import Applied, InForce, Passage, Unapplied
from nomos.opensearch.client import make_client
from nomos.portal import create_app
from nomos.stages.indexing import index_dataset
from tests.beir_files import write_beir
from tests.in_force_support import (
    AMENDS_372,
    AMENDS_374,
    AMENDS_375,
    ARTICLES,
    IN_FORCE,
    store_in_force,
)
from tests.portal_support import requests_sent

pytestmark = pytest.mark.integration

# A stored value of the shape the engine gives where a later whole wording makes an earlier instruction moot and
# gives the article a new title (the contract's fields; the small corpus has no such amendment of its own).
RENAMED_46 = InForce(
    "full", (Passage("Με την ποινή του αυτουργού τιμωρείται όποιος παρέσχε άμεση και ουσιώδη συνδρομή.", AMENDS_372, True),),
    ("N_4800_2021::5", AMENDS_372), (Applied(AMENDS_372, "replace-article", "", "Το άρθρο 46 ΠΚ αντικαθίσταται ως εξής"),),
    (Unapplied("N_4800_2021::5", "η λέξη «άμεση» αντικαθίσταται από τη λέξη «ουσιώδη»", "«άμεση» occurs 2 times in the article",
               superseded_by=AMENDS_372),), title="Άμεσοι και ουσιώδεις συνεργοί")


# two paragraphs changed by two amending articles (stored on an article nothing else here reads)
TWO_CHANGED = InForce("full", (Passage("1. Πρώτη νέα διατύπωση.", AMENDS_372, True), Passage("2. Δεύτερη νέα διατύπωση.", "N_4855_2021::87", True)),
                      (AMENDS_372, "N_4855_2021::87"), (Applied(AMENDS_372, "replace-paragraph", "1"),
                                                        Applied("N_4855_2021::87", "replace-paragraph", "2")))


@pytest.fixture(scope="module")
def in_force_settings(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("in-force")
    alias = f"pytest-in-force-{uuid.uuid4().hex[:8]}"
    settings = cluster.with_overrides(index_alias=alias, runs_dir=folder / "runs", cache_dir=folder / "cache")
    index_dataset(settings, load_beir(write_beir(folder / "data", ARTICLES, [{"_id": "q1", "text": "κλοπή"}],
                                                 [("q1", "PK::372", 1)])))
    client = make_client(settings.cluster)
    store_in_force(client, alias, {"PK::46": RENAMED_46, "N_4855_2021::88": TWO_CHANGED})
    try:
        yield settings
    finally:
        client.indices.delete(index=f"{alias}*", ignore_unavailable=True)


@pytest.fixture(scope="module")
def web(in_force_settings):
    with TestClient(create_app(in_force_settings)) as c:
        yield c


def text_of(page: str) -> str:
    """The article's text block as a reader sees it (tags dropped)."""
    m = re.search(r'<div class="article-text[^"]*"[^>]*>(.*?)</div>\s*(?:<p class="cut"|<nav class="pager")', page, re.S)
    assert m, "no article text on the page"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m.group(1)))


def test_ingest_stored_the_engines_texts_in_force(in_force_settings):
    docs = make_client(in_force_settings.cluster).mget(index=in_force_settings.index_alias, body={"ids": sorted(IN_FORCE)})["docs"]
    stored = {d["_id"]: InForce.from_doc(d["_source"]["in_force"]) for d in docs}
    assert stored == IN_FORCE and [v.status for _, v in sorted(stored.items())] == ["full", "partial", "none"]


def test_an_amended_articles_page_shows_the_text_in_force_by_default(web):
    page = web.get("/articles/PK::372").text
    shown = text_of(page)
    assert "πέντε ετών" in shown and "διάρρηξη" in shown and "τρία έτη" not in shown  # the new wording, not the old
    assert "κατ&#39; έγκληση" in shown or "κατ' έγκληση" in shown  # the paragraph no amendment touched
    assert 'id="in-force-text"' in page and "ενοποιημένο αυτόματα" in page and "Δεν είναι επίσημη κωδικοποίηση" in page
    # the amendment it was consolidated from, linked, in the note
    note = page[page.index('id="amended"'):page.index('id="in-force-text"')]
    assert 'href="/articles/N_4855_2021%3A%3A86"' in note and "άρθρο 86 ν. 4855/2021" in note
    # the changed passage: framed (a class) and labelled in words with the article that changed it
    changed = re.findall(r'<div class="passage changed">(.*?)</div>\s*</div>', page, re.S)
    assert len(changed) == 1 and "πέντε ετών" in changed[0]
    assert "Νέα διατύπωση από" in changed[0] and 'href="/articles/N_4855_2021%3A%3A86"' in changed[0]
    # the original one click away, and this one marked as the current text
    assert 'id="show-original" href="/articles/PK%3A%3A372?text=original"' in page
    assert '<span class="version current" aria-current="page">Ισχύον κείμενο</span>' in page
    assert 'id="partial"' not in page and "Μερική ενοποίηση" not in page


def test_the_original_text_is_one_click_away_with_a_link_back(web):
    page = web.get("/articles/PK::372", params={"text": "original"}).text
    shown = text_of(page)
    assert "τρία έτη" in shown and "πέντε ετών" not in shown
    assert 'id="in-force-text"' not in page
    warning = page[page.index('id="amended"'):]
    assert "εμφανίζεται το αρχικό κείμενο" in warning and 'href="/articles/PK%3A%3A372">Δείτε το ισχύον κείμενο</a>' in warning
    assert '<span class="version current" aria-current="page">Αρχικό κείμενο</span>' in page
    assert 'id="show-in-force" href="/articles/PK%3A%3A372"' in page
    assert '<a class="ref" href="/articles/PK%3A%3A46">' in page  # the original's references stay links
    # the text in force keeps the links of the wording it kept from the original
    assert '<a class="ref" href="/articles/PK%3A%3A46">' in web.get("/articles/PK::372").text


def test_a_query_is_highlighted_in_the_text_in_force(web):
    page = web.get("/articles/PK::372", params={"q": "διάρρηξη"}).text
    assert '<mark id="match">διάρρηξη</mark>' in page
    original = web.get("/articles/PK::372", params={"q": "κατοχή", "text": "original"}).text
    assert '<mark id="match">κατοχή</mark>' in original


def test_a_partial_consolidation_is_stated_with_what_could_not_be_applied(web):
    page = web.get("/articles/PK::374").text
    assert 'id="in-force-text"' in page and "μειωμένη ποινή" in text_of(page)
    partial = page[page.index('id="partial"'):]
    assert "Μερική ενοποίηση:" in partial and "1 οδηγία τροποποίησης δεν μπόρεσε να εφαρμοστεί με ακρίβεια" in partial
    assert "(η φράση «πολύ μεγάλης αξίας» δεν βρέθηκε στην παράγραφο 1)" in partial  # the reason, in Greek
    assert "η φράση «πολύ μεγάλης αξίας» αντικαθίσταται" in partial  # the instruction, as written
    assert f'href="/articles/{AMENDS_374.replace("::", "%3A%3A")}"' in partial


def test_a_consolidation_that_applied_nothing_shows_the_original_and_says_why(web):
    page = web.get("/articles/PK::375").text
    assert 'id="in-force-text"' not in page and 'id="text-versions"' not in page  # nothing to switch to
    assert "Το ισχύον κείμενο δεν ενοποιήθηκε:" in page and "η φράση «ξένο ακίνητο» δεν βρέθηκε στην παράγραφο 1" in page
    assert f'href="/articles/{AMENDS_375.replace("::", "%3A%3A")}"' in page
    assert "εμφανίζεται το αρχικό κείμενο" in page


def test_an_article_nobody_amends_is_as_before_and_a_bad_version_is_a_422(web):
    page = web.get("/articles/PK::49").text
    assert 'id="text-versions"' not in page and 'id="amended"' not in page and 'id="in-force-text"' not in page
    assert web.get("/articles/PK::372", params={"text": "latest"}).status_code == 422


def test_the_text_in_force_costs_the_page_no_request(web):
    with requests_sent(web) as plain:
        web.get("/articles/PK::49")
    with requests_sent(web) as amended:
        web.get("/articles/PK::372")
    with requests_sent(web) as original:
        web.get("/articles/PK::372", params={"text": "original"})
    assert len(amended) == len(original) == len(plain)


def test_a_new_title_heads_the_text_in_force_and_a_superseded_instruction_is_listed_apart(web):
    page = web.get("/articles/PK::46").text
    assert "<h1>Άρθρο 46 — Άμεσοι και ουσιώδεις συνεργοί</h1>" in page and "αρχικός τίτλος: «Άμεσοι συνεργοί»" in page
    superseded = page[page.index('id="superseded"'):page.index("</details>")]
    assert "1 οδηγία δεν εφαρμόστηκε, αλλά δεν επηρεάζει το ισχύον κείμενο" in superseded
    assert "η φράση «άμεση» εμφανίζεται 2 φορές στο άρθρο" in superseded
    assert 'href="/articles/N_4855_2021%3A%3A86">άρθρο 86 ν. 4855/2021</a></li>' in superseded  # what made it moot
    assert 'id="partial"' not in page  # superseded: the text in force does not lack it
    original = web.get("/articles/PK::46", params={"text": "original"}).text
    assert "<h1>Άρθρο 46 — Άμεσοι συνεργοί</h1>" in original and 'id="title-changed"' not in original


def test_the_note_on_changed_paragraphs_agrees_in_number(web):
    """Issue 50: «Οι 3 παράγραφοι … ποιο άρθρο τη διαμόρφωσε»: the plural takes «τις»."""
    many = re.sub(r"\s+", " ", web.get("/articles/N_4855_2021::88").text)
    assert "Οι 2 παράγραφοι που άλλαξαν σημειώνονται με πλαίσιο και γράφουν ποιο άρθρο τις διαμόρφωσε." in many
    one = re.sub(r"\s+", " ", web.get("/articles/PK::372").text)
    assert "Η παράγραφος που άλλαξε σημειώνεται με πλαίσιο και γράφει ποιο άρθρο τη διαμόρφωσε." in one
