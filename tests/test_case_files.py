"""A whole case file and the queries around it, read alike on every path (issue 50): the bound of
nomos.query_text.MAX_QUERY_CHARS in the form, the API and the command line; NFC and line ends; a query with no
searchable words answered with no articles in every method; the portal's error pages in Greek with the form kept."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nomos.errors import ConfigError, QueryTooLong
from nomos.portal.app import create_app
from nomos.query_text import MAX_QUERY_CHARS, read_query

ROOT = Path(__file__).resolve().parents[1]
THEFT = "Ο Νίκος αφαίρεσε ξένο κινητό πράγμα από κατάστημα για να το ιδιοποιηθεί"
NO_WORDS = ["", "   ", "🤔🔥", "!!! ??? ;;;", "και το της , ."]


def case_file(chars: int) -> str:
    """A case file of ``chars`` characters as a browser's maxlength counts them: paragraphs of facts, a blank line
    and the question last, as a bar-exam case file is laid out; sent as a browser sends a text box (CR LF)."""
    question = "\n\nΠοια πράξη τέλεσε ο Νίκος;"
    para = ("Ο Νίκος αφαίρεσε από ένα κατάστημα ξένο κινητό πράγμα, ένα ρολόι, για να το ιδιοποιηθεί. Ο "
            "υπάλληλος τον είδε και ειδοποίησε την αστυνομία, η οποία τον συνέλαβε λίγο αργότερα.\n")
    body = (para * (chars // len(para) + 1))[: chars - len(question)].rstrip() + " ."
    text = body[: chars - len(question)] + question
    assert len(text) == chars
    return text.replace("\n", "\r\n")


def box_text(html: str) -> str:
    found = re.search(r'<textarea id="q"[^>]*>(.*?)</textarea>', html, re.S)
    assert found, html[:500]
    return unescape(found.group(1)).replace("\r\n", "\n")


# ------------------------------------------------------------------------------------------- the reading (no node)
def test_a_query_is_read_in_nfc_with_lf_line_ends():
    nfd = unicodedata.normalize("NFD", "κλοπή\r\n\r\nΠοια πράξη;\r")
    assert nfd != unicodedata.normalize("NFC", nfd)
    assert read_query(nfd) == "κλοπή\n\nΠοια πράξη;"


def test_the_bound_is_counted_as_a_browser_counts_it_and_refused_whole():
    """A browser's maxlength counts a line break as one character and sends it as CR LF: a box filled to the
    bound is taken; one character more is refused in Greek, naming both numbers."""
    text = case_file(MAX_QUERY_CHARS)  # CR LF: more characters sent than the box counts
    read = read_query(text)
    assert len(text) > MAX_QUERY_CHARS and len(read) == MAX_QUERY_CHARS and read.endswith("Ποια πράξη τέλεσε ο Νίκος;")
    with pytest.raises(QueryTooLong) as err:
        read_query("α" * (MAX_QUERY_CHARS + 1))
    assert err.value.message.startswith("το κείμενο έχει 20.001 χαρακτήρες και το όριο είναι 20.000")
    assert MAX_QUERY_CHARS >= 20_000


def test_invalid_utf8_is_named_not_a_traceback():
    with pytest.raises(ConfigError, match=r"not valid UTF-8 \(byte 0xff at character 3\)"):
        read_query("ab\udcffc")


def test_the_cli_says_invalid_utf8_in_one_line():
    """The bytes as a terminal passes them: Python reads them as lone surrogates, which the node's JSON could
    not carry (a SerializationError traceback before)."""
    res = subprocess.run([sys.executable, str(ROOT / "cli.py"), "--url", "http://127.0.0.1:1", "search", b"kl\xffop"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines() == [
        "error: the query is not valid UTF-8 (byte 0xff at character 3): give the query in UTF-8 (check the "
        "terminal's or the file's encoding)"]


def test_the_form_the_api_and_the_readme_state_one_bound():
    from nomos.portal.params import MAX_QUERY_CHARS as portal_bound

    assert portal_bound == MAX_QUERY_CHARS
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"case ≤ {MAX_QUERY_CHARS:,} characters" in readme


# ------------------------------------------------------------------------------------------- the portal (real node)
@pytest.fixture(scope="module")
def web(shared_bm25_index):
    with TestClient(create_app(shared_bm25_index)) as c:
        yield c


@pytest.mark.integration
def test_a_whole_case_file_is_searched_as_the_cli_reads_it(web, shared_bm25_index):
    """Percent-encoded, a 20,000-character Greek case is a URL of 120 KB, past what uvicorn's httptools reads
    (65,535 bytes) and httpx sends (64 KB): the form posts it (CR LF line ends, as a browser sends a text box),
    the API takes it as JSON; a short case posted is sent on to its shareable address."""
    from nomos.stages.searching import search

    case = case_file(MAX_QUERY_CHARS)  # 20,000 as the browser counts it, more as it sends it
    page = web.post("/search", data={"q": case, "method": "bm25", "k": "10"})
    assert page.status_code == 200 and 'class="hit"' in page.text and 'id="no-address"' in page.text, page.text[-800:]
    assert box_text(page.text) == case.replace("\r\n", "\n")
    links = re.findall(r'href="(/articles/[^"]+)"', page.text)
    assert links and max(len(u) for u in links) < 10_000  # an article link carries the case's words, not all of it
    api = web.post("/api/search", json={"q": case, "method": "bm25"})
    assert api.status_code == 200 and api.json()["url"] is None, api.text[:500]
    cli_ids = [h.doc_id for h in search(shared_bm25_index, case.replace("\r\n", "\n"), k=10)]
    assert [h["id"] for h in api.json()["hits"]] == cli_ids and cli_ids[0] == "PK::372"
    short = web.post("/search", data={"q": THEFT, "method": "bm25", "k": "20"}, follow_redirects=False)
    assert short.status_code == 303 and short.headers["location"].startswith("/search?q=") and "k=20" in short.headers["location"]


def test_the_form_states_the_bound_and_does_not_cut_a_paste():
    """maxlength would cut a pasted case at the bound without a word (the issue's 2,131-character case lost its
    question): the box carries the bound as data and says it, and the portal refuses a longer text whole."""
    form = (ROOT / "nomos" / "portal" / "templates" / "_form.html").read_text(encoding="utf-8")
    assert 'data-max-chars="{{ MAX_QUERY_CHARS }}"' in form and "maxlength=" not in form.replace("no maxlength", "")


@pytest.mark.integration
def test_a_case_past_the_bound_is_refused_in_greek_and_kept_in_the_box(web):
    case = "Ο Νίκος αφαίρεσε ξένο ρολόι. " * 700 + "Ποια πράξη τέλεσε;"  # 20,318 characters
    assert len(case) > MAX_QUERY_CHARS
    page = web.post("/search", data={"q": case})
    assert page.status_code == 400 and "Το κείμενο έχει 20.318 χαρακτήρες και το όριο είναι 20.000" in page.text
    assert box_text(page.text) == case  # nothing cut, nothing lost: the reader shortens it in place
    api = web.post("/api/search", json={"q": case})
    assert api.status_code == 400 and api.json()["detail"].startswith("Το κείμενο έχει 20.318 χαρακτήρες")


@pytest.mark.integration
@pytest.mark.parametrize(("params", "greek"), [
    ({"q": THEFT, "k": "0"}, "k: πρέπει να είναι τουλάχιστον 1"),
    ({"q": THEFT, "k": "x"}, "k: πρέπει να είναι ακέραιος αριθμός"),
    ({"q": THEFT, "method": "query_string"}, "method: επιτρέπονται:"),
    ({"q": THEFT, "source": "PK OR *"}, "source: μη έγκυρη τιμή"),
])
def test_a_422_page_is_greek_and_keeps_the_form(web, params, greek):
    page = web.get("/search", params=params)
    assert page.status_code == 422 and greek in page.text, page.text[-1500:]
    assert "should" not in page.text and "Input" not in page.text  # no pydantic English
    assert box_text(page.text) == THEFT
    api = web.get("/api/search", params=params)
    assert api.status_code == 422 and any(d.startswith(greek) for d in api.json()["detail"]), api.text


@pytest.mark.integration
def test_every_error_page_keeps_the_case_in_the_box(web):
    page = web.get("/articles/PK::999", params={"q": THEFT})  # 404, reached from a results page
    assert page.status_code == 404 and box_text(page.text) == THEFT


@pytest.mark.integration
def test_nfd_greek_finds_what_nfc_finds(web):
    nfc = web.get("/api/search", params={"q": "κλοπή ρολόι κατάστημα", "method": "bm25"}).json()["hits"]
    nfd = web.get("/api/search", params={"q": unicodedata.normalize("NFD", "κλοπή ρολόι κατάστημα"),
                                         "method": "bm25"}).json()["hits"]
    assert nfc and [h["id"] for h in nfd] == [h["id"] for h in nfc]


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.parametrize("query", NO_WORDS)
def test_a_query_with_no_searchable_words_matches_nothing_in_every_method(shared_dense_index, query):
    """hybrid and kNN gave ten arbitrary articles (a vector of nothing is near something)."""
    from nomos.stages.searching import SearchRequest, SearchStage

    searcher = SearchStage(shared_dense_index)
    for method in ("bm25", "knn", "hybrid"):
        page = searcher.search(SearchRequest(query, method, 10))
        assert (page.hits, page.total) == ([], 0), (method, [h.doc_id for h in page.hits])
    assert searcher.search(SearchRequest("κλοπή 🤔🔥", "hybrid", 10)).hits  # a word among them is searched


@pytest.mark.integration
def test_nfd_and_nfc_corpora_index_and_search_alike(os_settings, tmp_path):
    """A corpus pasted from a PDF (decomposed accents) is stored as NFC, so an NFC query finds it as it finds
    the same corpus typed in NFC."""
    from nomos.ingest.beir import load_beir
    from nomos.stages.indexing import index_dataset
    from nomos.stages.searching import search
    from tests.beir_files import ARTICLES, write_beir

    nfd = [{**a, "title": unicodedata.normalize("NFD", a["title"]), "text": unicodedata.normalize("NFD", a["text"])}
           for a in ARTICLES]
    assert nfd[0]["text"] != ARTICLES[0]["text"]
    data = load_beir(write_beir(tmp_path / "nfd", articles=nfd))
    assert [a.text for a in data.articles] == [a["text"] for a in ARTICLES]
    index_dataset(os_settings, data)
    for query in ("κλοπή ιδιοποιηθεί", unicodedata.normalize("NFD", "ιδιοποιηθεί κατοχή")):
        hits = search(os_settings, query, k=3)
        assert hits and hits[0].doc_id in {"PK::372", "PK::375"}, (query, [h.doc_id for h in hits])
