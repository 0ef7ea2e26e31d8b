"""Issue 26: what one request may cost the portal. The largest article an index may hold (NOMOS_MAX_ARTICLE_BYTES)
gets a page of bounded size with a link to the whole text; highlighting reads a bounded prefix; the portal's
client retries nothing itself; a request past the portal's deadline is a 504; a number too long to read is a 4xx."""

from __future__ import annotations

import json
import uuid

import pytest
from fastapi.testclient import TestClient

from nomos.ingest.beir import DEFAULT_MAX_ARTICLE_BYTES, load_beir
from nomos.opensearch.client import make_client
from nomos.pages.snippets import HIGHLIGHT_MAX_CHARS
from nomos.portal import create_app
from nomos.stages.indexing import index_dataset
from tests.beir_files import ARTICLES, write_beir
from tests.portal_support import requests_sent

pytestmark = pytest.mark.integration

BIG_ID = "PK::999"


def biggest_article() -> dict[str, str]:
    """An article just under the ingest limit: 'ιδιοκτησία' in its first words, 'υπεξαίρεση' only at its end
    (past what the highlighter reads)."""
    filler = "Ο κύριος του πράγματος ασκεί τα δικαιώματά του σύμφωνα με τον νόμο και τα χρηστά ήθη. "
    text = "ιδιοκτησία " + filler * ((DEFAULT_MAX_ARTICLE_BYTES - 200) // len(filler.encode()))
    text += " υπεξαίρεση"
    assert len(text.encode()) <= DEFAULT_MAX_ARTICLE_BYTES
    return {"_id": BIG_ID, "title": "Μεγάλο άρθρο", "text": text, "source": "PK", "law": "Ποινικός Κώδικας"}


@pytest.fixture(scope="module")
def big_settings(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bounds")
    settings = cluster.with_overrides(index_alias=f"pytest-bounds-{uuid.uuid4().hex[:8]}", runs_dir=folder / "runs",
                                      cache_dir=folder / "cache")
    index_dataset(settings, load_beir(write_beir(folder / "big", articles=[*ARTICLES, biggest_article()])))
    yield settings
    make_client(settings.cluster).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)


@pytest.fixture(scope="module")
def web(big_settings):
    with TestClient(create_app(big_settings)) as c:
        yield c


def test_the_largest_article_page_is_cut_with_a_link_to_the_rest(web, big_settings):
    cut = web.get(f"/articles/{BIG_ID}")
    assert cut.status_code == 200 and 'id="cut"' in cut.text
    assert len(cut.content) < big_settings.portal_article_chars * 2 + 60_000  # Greek: 2 bytes a character
    assert "/articles/PK%3A%3A999?full=1" in cut.text and "υπεξαίρεση" not in cut.text
    whole = web.get(f"/articles/{BIG_ID}", params={"full": 1})
    assert whole.status_code == 200 and 'id="cut"' not in whole.text and "υπεξαίρεση" in whole.text
    assert len(whole.content) > DEFAULT_MAX_ARTICLE_BYTES * 0.9
    small = web.get("/articles/PK::372")
    assert small.status_code == 200 and 'id="cut"' not in small.text


def test_highlighting_is_bounded_and_the_largest_article_highlights(web):
    """Every highlight the portal asks for carries max_analyzer_offset (the node accepts it); the articles' text
    keeps its offsets in the postings, so even a word past that bound is marked without re-analysis."""
    bodies: list = []
    with requests_sent(web, bodies) as sent:
        first = web.get(f"/articles/{BIG_ID}", params={"q": "ιδιοκτησία"})
        hits = web.get("/api/search", params={"q": "υπεξαίρεση ιδιοκτησία"}).json()["hits"]
    assert first.status_code == 200 and '<mark id="match">ιδιοκτησία</mark>' in first.text and 'id="cut"' in first.text
    assert BIG_ID in [h["id"] for h in hits]
    highlights = [b["highlight"] for b in map(_json, bodies) if isinstance(b, dict) and "highlight" in b]
    assert len(highlights) == 2 and sent
    assert all(h["fields"]["text"]["max_analyzer_offset"] == HIGHLIGHT_MAX_CHARS for h in highlights)
    last = web.get(f"/articles/{BIG_ID}", params={"q": "υπεξαίρεση", "full": 1})
    assert last.status_code == 200 and '<mark id="match">υπεξαίρεση</mark>' in last.text
    assert HIGHLIGHT_MAX_CHARS < len(biggest_article()["text"]) - 20  # the word lies past the bound


def _json(body):
    if isinstance(body, (bytes, str)):
        try:
            return json.loads(body)
        except ValueError:  # _msearch: lines
            return [json.loads(line) for line in body.splitlines() if line.strip()]
    return body


def test_the_cut_page_keeps_marks_and_escapes_whole(web):
    from nomos.pages.articles import cut_text

    assert cut_text("α <mark>κλοπή</mark> β", 100) == "α <mark>κλοπή</mark> β"
    assert cut_text("αβγ δεζ <mark>κλοπή</mark> ηθ", 12) == "αβγ δεζ"
    assert cut_text("x" * 10 + "&amp;" + "y", 13) == "x" * 10
    assert cut_text("x" * 10 + "<mark>yyyy</mark>", 18) == "x" * 10 + "<mark>yy</mark>"


def test_the_portal_client_retries_nothing_itself(web, big_settings):
    client = web.app.state.portal.client
    assert client.transport.max_retries == 0 and client.transport.retry_on_timeout is False
    assert web.app.state.portal.deadline == big_settings.portal_deadline_seconds
    # the client gives up with the portal's deadline, so an abandoned request does not outlive the 504
    assert client.transport.kwargs.get("timeout") == min(big_settings.request_timeout, big_settings.portal_deadline_seconds)


def test_a_request_past_the_deadline_is_a_504(big_settings):
    with TestClient(create_app(big_settings.with_overrides(portal_deadline_seconds=1e-6))) as slow:
        api = slow.get("/api/search", params={"q": "κλοπή"})
        assert api.status_code == 504 and "δεν απάντησε σε 1e-06 δευτερόλεπτα" in api.json()["detail"]
        page = slow.get("/search", params={"q": "κλοπή"})
        assert page.status_code == 504 and "δεν απάντησε σε" in page.text and "<form" in page.text
        article = slow.get("/articles/PK::372", headers={"accept": "text/html"})
        assert article.status_code == 504 and "Traceback" not in article.text


@pytest.mark.parametrize("digits", [5_000, 100_000])
def test_a_number_too_long_to_read_is_refused_not_a_500(web, digits):
    huge = "9" * digits
    r = web.post("/api/judgments", content='{"query": "κλοπή", "article_id": "PK::372", "grade": ' + huge + "}",
                 headers={"content-type": "application/json"})
    if digits < 60_000:  # read: the number is too long for Python's int()
        assert r.status_code == 422 and r.json()["detail"] == ["body: a number too long to be read (more than 4,300 digits)"]
    else:  # not read at all: the body is over the portal's 64 kB
        assert r.status_code == 413 and r.json()["detail"] == "body: more than 65536 bytes"
    form = web.post("/judgments", content=f"query=κλοπή&article_id=PK::372&grade={huge}".encode(),
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert form.status_code in (413, 422), form.status_code
    for path, param in (("/api/search", "k"), ("/search", "k")):
        r = web.get(path, params={"q": "κλοπή", param: huge[:5000]})  # an address holds at most ~64 kB
        assert r.status_code == 422, (path, r.status_code)


def test_a_cut_highlight_reads_as_the_cut_text():
    """The page lays marks and reference links over one text: the highlight is cut where the plain text was, so
    both read as the same words (an escape counts as one character) and the marks survive the cut."""
    import html as html_

    from nomos.pages.articles import cut_marked, cut_text
    from nomos.portal.links import marked_spans

    plain = "ο Α & ο Β κλοπή του άρθρου 372 " * 40
    marked = html_.escape(plain).replace("κλοπή", "<mark>κλοπή</mark>")
    text = cut_text(plain, 100)
    cut = cut_marked(marked, len(text))
    spans = marked_spans(cut, text)
    assert len(text) <= 100 and spans and all(text[a:b] == "κλοπή" for a, b in spans)
    assert cut_marked("α <mark>κλοπή ξένου</mark> β", 8) == "α <mark>κλοπή </mark>"
