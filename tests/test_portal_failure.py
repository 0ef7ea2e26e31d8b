"""The portal when its node goes away: a dedicated real node is stopped under a running portal, the page and the
API say so with 503 (no stack trace), and both recover by themselves once the node is back."""

from __future__ import annotations

import os
import time

import pytest
from fastapi.testclient import TestClient

from nomos.opensearch.node import NodeConfig, install, start, stop
from nomos.portal import create_app
from nomos.settings import Settings
from tests.conftest import TEST_PORT
from tests.portal_support import indexed_mini

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: a node of its own, stopped and started again

# A node of its own (never the session's, which other tests share): http TEST_PORT + 13, transport + 100.
PORT = int(os.environ.get("NOMOS_FAILURE_TEST_PORT", TEST_PORT + 13))


@pytest.fixture
def own_node(tmp_path):
    base = Settings.from_env()
    if not base.uses_local_node:
        pytest.skip("OPENSEARCH_URL names a cluster: this test stops and starts a node of its own")
    cfg = NodeConfig(root=base.node_root, name=f"pytest-portal-{PORT}", http_port=PORT, transport_port=PORT + 100, heap="512m")
    install(cfg, log=lambda m: None)
    start(cfg, timeout=240, log=lambda m: None)
    try:
        yield cfg, Settings(http_port=PORT, node_root=base.node_root, allowed_hosts=("testserver",))
    finally:
        stop(cfg, log=lambda m: None)


def test_node_down_gives_503_and_recovers(own_node, tmp_path):
    cfg, cluster = own_node
    q = "Ο Νίκος αφαίρεσε ξένο κινητό πράγμα για να το ιδιοποιηθεί"
    with indexed_mini(cluster, tmp_path) as settings, TestClient(create_app(settings.with_overrides(request_timeout=5.0))) as web:
        assert web.get("/api/search", params={"q": q}).json()["hits"][0]["id"] == "PK::372"

        stop(cfg, log=lambda m: None)
        started = time.perf_counter()
        page = web.get("/search", params={"q": q})
        assert page.status_code == 503
        assert "503" in page.text and "δεν είναι διαθέσιμη" in page.text
        assert q in page.text  # the form keeps the case, so the person can simply retry
        assert "Traceback" not in page.text and "ConnectionError" not in page.text
        assert "content-security-policy" in page.headers
        api = web.get("/api/search", params={"q": q})
        assert api.status_code == 503 and "δεν είναι διαθέσιμη" in api.json()["detail"]
        assert web.get("/api/articles/PK::372").status_code == 503
        assert web.get("/api/health").status_code == 503
        assert web.get("/articles/PK::372").status_code == 503
        assert web.get("/articles/pk::372").status_code == 503  # an id typed another way: no retry inside the page
        assert web.get("/").status_code == 200  # the empty search page still renders
        assert time.perf_counter() - started < 20  # refused connections fail fast

        start(cfg, timeout=240, log=lambda m: None)
        deadline = time.monotonic() + 60
        while True:  # the index may take a moment to turn yellow again after the restart
            r = web.get("/api/search", params={"q": q})
            if r.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert r.status_code == 200 and r.json()["hits"][0]["id"] == "PK::372"
        assert web.get("/search", params={"q": q}).status_code == 200
        assert web.get("/api/articles/PK::372").status_code == 200
