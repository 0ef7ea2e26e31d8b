"""A bound on one query's cost (issue 47): words counted after the stop list and capped in the portal (page and
API) with a Greek message (the command line, run by the operator, searches whole case files), and every search cut
by the node past NOMOS_SEARCH_TIMEOUT_SECONDS (``cancel_after_time_interval``): a clear 504 or error, never
partial hits or a traceback. nomos/stages/query_cost.py, nomos/opensearch/client.py ``bound_searches``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from nomos.cli import cli
from nomos.errors import QueryTooLong
from nomos.portal import create_app
from nomos.portal.errors import CUT
from nomos.stages.query_cost import check_query_words, query_words

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = " ".join(str(i) for i in range(201))  # 201 words no stop list leaves out: junk the cap is for


def test_words_are_counted_after_the_stop_list():
    assert query_words("Ο Νίκος μπήκε σε ένα κατάστημα και έκλεψε ένα ρολόι") == 5  # ο, σε, ένα, και, ένα: stop words
    assert query_words("ΤΟ ΡΟΛΟΪ ΤΟΥ") == 1  # folded as the node folds: «ΤΟΥ» is «του»
    assert query_words("άρθρο 386 ΠΚ") == 3  # numbers count


def test_the_cap_refuses_past_it_in_greek_and_zero_is_no_cap():
    check_query_words(" ".join(["και"] * 1000), 200)  # stop words only: nothing the node works on
    check_query_words(NUMBERS, 0)
    check_query_words(NUMBERS, 201)
    with pytest.raises(QueryTooLong) as err:
        check_query_words(NUMBERS, 200)
    assert err.value.message.startswith("το ερώτημα έχει 201 λέξεις") and "το όριο είναι 200" in err.value.message
    assert err.value.hint and "NOMOS_MAX_QUERY_WORDS" in err.value.hint


def test_a_whole_case_file_as_long_as_the_box_allows_passes_the_default_cap():
    """Issue 50: the cap of 200 refused every whole case file of bench/data (206 to 287 counted words) and a case
    file as long as the box now takes (20,000 characters: about 1,800); 20,000 characters of numbers it refuses."""
    from nomos.query_text import MAX_QUERY_CHARS
    from nomos.settings import Settings

    cap = Settings().max_query_words
    cases = [json.loads(line)["text"] for line in
             (ROOT / "bench" / "data" / "case-files" / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    assert max(query_words(c) for c in cases) > 200  # what the old cap refused
    for case in cases:
        check_query_words(case, cap)
    whole = "\n\n".join(cases)[:MAX_QUERY_CHARS]
    assert len(whole) == MAX_QUERY_CHARS and query_words(whole) > 1500
    check_query_words(whole, cap)
    with pytest.raises(QueryTooLong):
        check_query_words(" ".join(str(i) for i in range(4000))[:MAX_QUERY_CHARS], cap)


@pytest.mark.integration
def test_the_portal_refuses_a_query_past_the_cap_and_the_cli_answers_it(shared_bm25_index):
    settings = shared_bm25_index.with_overrides(max_query_words=50)
    long = " ".join(f"λέξη{i}" for i in range(51))
    with TestClient(create_app(settings), raise_server_exceptions=False) as web:
        api = web.get("/api/search", params={"q": long})
        assert api.status_code == 400 and api.json()["detail"].startswith("Το ερώτημα έχει 51 λέξεις"), api.text
        assert "NOMOS_" not in api.json()["detail"]  # the reader is not told the operator's variable
        page = web.get("/search", params={"q": long})
        assert page.status_code == 400 and "Το ερώτημα έχει 51 λέξεις" in page.text
        assert web.get("/api/search", params={"q": " ".join(long.split()[:50])}).status_code == 200
    # the operator's own tools search a whole case file (tests/test_bad_input.py: 50,000 characters)
    env = {"OPENSEARCH_URL": settings.url, "NOMOS_INDEX": settings.index_alias, "NOMOS_MAX_QUERY_WORDS": "50"}
    res = CliRunner().invoke(cli, ["search", "--method", "bm25", *long.split()], env=env)
    assert res.exit_code == 0, res.output


@pytest.mark.integration
def test_the_node_cuts_a_search_past_its_time_bound(shared_bm25_index):
    """With a bound of 1 ms the node cancels most searches (a small index's page can still finish first): each
    answer is the page or the clear 504, never a 500, partial hits or a traceback; and the bound rides on every
    search the portal sends."""
    settings = shared_bm25_index.with_overrides(search_timeout_seconds=0.001)
    with TestClient(create_app(settings), raise_server_exceptions=False) as web:
        answers = [web.get("/api/search", params={"q": "κλοπή κινητού πράγματος", "method": "bm25"}) for _ in range(10)]
        assert {a.status_code for a in answers} <= {200, 504}, [a.text for a in answers]
        cut = [a for a in answers if a.status_code == 504]
        assert cut and cut[0].json()["detail"] == CUT
    env = {"OPENSEARCH_URL": settings.url, "NOMOS_INDEX": settings.index_alias, "NOMOS_SEARCH_TIMEOUT_SECONDS": "0.001"}
    outputs = [CliRunner().invoke(cli, ["search", "--method", "bm25", "κλοπή", "κινητού"], env=env) for _ in range(10)]
    assert all(r.exit_code in (0, 1) and "Traceback" not in r.output for r in outputs)
    assert any("the node cut it at its time bound" in r.output for r in outputs), [r.output for r in outputs]
    # the default bound (5 s) is on every search of a page as it leaves for the node, and a page answers as before
    with TestClient(create_app(shared_bm25_index), raise_server_exceptions=False) as web:
        sent: list[tuple[str, dict]] = []
        for connection in web.app.state.portal.client.transport.connection_pool.connections:
            connection.perform_request = _recorder(connection.perform_request, sent)
        assert web.get("/api/search", params={"q": "κλοπή"}).status_code == 200
        searches = [params for url, params in sent if url.split("?")[0].endswith(("/_search", "/_msearch"))]
        assert searches and all(p.get("cancel_after_time_interval") == "5000ms" for p in searches), sent


def _recorder(send, sent: list):  # a connection's perform_request
    """A connection's ``perform_request`` that notes each URL and its parameters, then sends it to the node."""
    def perform_request(method, url, params=None, *args, **kwargs):
        sent.append((url, dict(params or {})))
        return send(method, url, params, *args, **kwargs)

    return perform_request
