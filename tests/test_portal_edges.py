"""The portal's edges (issue 39, the unsecured part): Retry-After on every 429, rate limits on every route that
reads the cluster, deeply nested JSON refused with a 400, ids of dots refused at ingest and in the path, a 401
that names the user, no caching of pages that show a case. No node: a portal whose cluster does not answer
still counts, refuses and labels (the cluster is not reached for any of these answers, or answers 503)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opensearchpy.exceptions import AuthenticationException

from nomos.ingest.beir import load_beir
from nomos.ingest.records import DatasetError
from nomos.opensearch.transport import typed_error
from nomos.portal import create_app
from nomos.settings import Settings
from tests.beir_files import ARTICLES, write_beir


def portal(**changes: object) -> TestClient:
    settings = Settings(opensearch_url="http://127.0.0.1:9", retry_seconds=0, allowed_hosts=("testserver",),
                        search_rate="1000/minute", judgment_rate="1000/minute", page_rate="1000/minute")
    return TestClient(create_app(settings.with_overrides(**changes)), raise_server_exceptions=False)


def test_every_429_says_when_to_come_back_html_and_json() -> None:
    with portal(search_rate="1/minute") as web:
        web.get("/search", params={"q": "κλοπή"})
        page = web.get("/search", params={"q": "κλοπή"})
        assert page.status_code == 429 and int(page.headers["retry-after"]) >= 1 and "text/html" in page.headers["content-type"]
        api = web.get("/api/search", params={"q": "κλοπή"})
        assert api.status_code == 429 and int(api.headers["retry-after"]) >= 1


@pytest.mark.parametrize("path", ["/articles/PK::372", "/api/articles/PK::372", "/laws/PK", "/api/laws/PK",
                                  "/api/articles/PK::372/graph", "/api/health", "/judgments", "/api/judgments?query=x"])
def test_every_route_that_reads_the_cluster_is_rate_limited(path: str) -> None:
    """200 article pages in 12.8 s from one client went through unlimited."""
    with portal(page_rate="2/minute") as web:
        first = [web.get(path).status_code for _ in range(2)]
        assert 429 not in first
        third = web.get(path)
        assert third.status_code == 429 and int(third.headers["retry-after"]) >= 1


def test_deeply_nested_json_is_a_400_and_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    body = "[" * 5000 + "]" * 5000
    with portal() as web, caplog.at_level(logging.INFO):
        res = web.post("/api/judgments", content=body, headers={"content-type": "application/json"})
    assert res.status_code == 400 and "nested too deeply" in res.json()["detail"]
    assert not any(r.exc_info for r in caplog.records)  # no traceback logged


def test_ids_of_dots_or_dashes_are_refused_at_ingest_and_in_the_path(tmp_path: Path) -> None:
    for bad in (".", "..", "-", ".-."):
        folder = write_beir(tmp_path / f"d{len(bad)}{bad.count('-')}", articles=[*ARTICLES, {**ARTICLES[0], "_id": bad}])
        with pytest.raises(DatasetError, match=r"corpus.jsonl:7.*no letter or digit"):
            load_beir(folder)
    with portal() as web:
        assert web.get("/api/articles/-").status_code == 422 and web.get("/api/articles/.-.").status_code == 422


def test_a_401_names_the_user_the_cluster_refused() -> None:
    refused = AuthenticationException(401, "security_exception", {"error": {"reason": "Authentication failed"}})
    err = typed_error(refused, "the bm25 search", user="nomos_portal")
    assert "user 'nomos_portal'" in str(err) and "no NOMOS_OPENSEARCH_USER" not in str(err)


def test_pages_that_show_a_case_are_not_cached() -> None:
    with portal() as web:
        assert web.get("/search", params={"q": "κλοπή"}).headers["cache-control"] == "no-store"
        assert web.get("/api/search", params={"q": "κλοπή"}).headers["cache-control"] == "no-store"
        assert web.get("/articles/PK::372", params={"q": "κλοπή"}).headers["cache-control"] == "no-store"
        assert web.get("/judgments").headers["cache-control"] == "no-store"
        assert "no-store" not in web.get("/static/portal.css").headers.get("cache-control", "")
        # decided on the parsed query, as the routes read it (issue 47: a percent-encoded q was cacheable)
        for url in ("/?%71=κλοπή", "/articles/PK::372?%71=%CE%BA", "/laws/PK?x=1&%71=a", "/?q"):
            assert web.get(url).headers.get("cache-control") == "no-store", url
        assert "no-store" not in web.get("/laws/PK?x=1").headers.get("cache-control", "")


def test_ipv6_clients_are_counted_by_their_64() -> None:
    """Issue 47: rates counted per full IPv6 address, so one host's /64 was 2^64 clients. Two addresses of one /64
    share a count; the next /64 has its own; an IPv4-mapped address counts as its IPv4 one."""
    from nomos.portal.identity import client_network

    settings = Settings(opensearch_url="http://127.0.0.1:9", retry_seconds=0, allowed_hosts=("testserver",),
                        search_rate="2/minute", judgment_rate="1000/minute", page_rate="1000/minute")
    app = create_app(settings)

    def status(address: str) -> int:
        with TestClient(app, client=(address, 50000), raise_server_exceptions=False) as web:
            return web.get("/api/search", params={"q": "κλοπή"}).status_code

    # counted, then answered 503 (no cluster here): the count is all this test is about
    assert [status("2001:db8:1:2::1"), status("2001:db8:1:2:ffff::9")] == [503, 503]
    assert status("2001:db8:1:2:abcd::7") == 429  # a third address of the same /64: over its rate
    assert status("2001:db8:1:3::1") == 503  # the next /64: a client of its own
    assert client_network("::ffff:192.0.2.7") == client_network("192.0.2.7") == "192.0.2.7"
    assert client_network("2001:db8:1:2:abcd::7") == "2001:db8:1:2::/64" and client_network("testclient") == "testclient"
