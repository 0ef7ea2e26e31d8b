"""The secured node end to end (issue 26): TLS with our CA, plain http refused, the indexer indexes, the portal's
user reads the articles and writes judgments but can neither write nor delete an article index (403 as nomos's own
error, not a traceback), and a wrong password is a clear error. One node for the whole module (``secure_node``)."""

from __future__ import annotations

import base64
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy.exceptions import AuthorizationException

from nomos.cli import cli
from nomos.errors import AccessDenied, ClusterUnavailable
from nomos.opensearch.client import cluster_version, make_client
from nomos.opensearch.judgments_store import list_judgments, put_judgment
from nomos.opensearch.node_security import INDEXER_USER, PORTAL_USER, cert_files, password_file
from nomos.opensearch.transport import make_transport
from nomos.settings import Settings
from tests.beir_files import ARTICLES, write_beir
from tests.conftest import SECURE_ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # a node of its own, with the security plugin


def env_for(node, user: str, **extra: str) -> dict[str, str]:  # noqa: ANN001 - NodeConfig
    """The environment a person would set after `server start --secure` (as that command prints it)."""
    return {"OPENSEARCH_URL": node.url, "NOMOS_INDEX": SECURE_ALIAS, "NOMOS_OPENSEARCH_CA": str(cert_files(node).ca),
            "NOMOS_OPENSEARCH_USER": user, "NOMOS_OPENSEARCH_PASSWORD_FILE": str(password_file(node, user)),
            "NOMOS_RETRY_SECONDS": "0", **extra}


def settings_for(node, user: str, **extra: str) -> Settings:  # noqa: ANN001
    return Settings.from_env(env_for(node, user, **extra))


@pytest.fixture(scope="module")
def indexed(secure_node, tmp_path_factory):  # noqa: ANN001, ANN201
    """The mini corpus indexed by nomos_indexer through the command line (what `index` does on a secured cluster)."""
    folder = write_beir(tmp_path_factory.mktemp("beir") / "mini")
    res = CliRunner().invoke(cli, ["index", "--no-vectors", "--dataset", str(folder)], env=env_for(secure_node, INDEXER_USER))
    assert res.exit_code == 0, res.output
    return folder


def test_https_with_our_ca_works_and_plain_http_is_refused(secure_node):
    settings = settings_for(secure_node, INDEXER_USER)
    assert settings.url.startswith("https://127.0.0.1:")
    assert cluster_version(make_client(settings), settings) == "2.19.1"
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
            f"http://127.0.0.1:{secure_node.http_port}/", timeout=10).read()
    plain = settings.model_copy(update={"opensearch_url": f"http://127.0.0.1:{secure_node.http_port}"})
    with pytest.raises(ClusterUnavailable):
        cluster_version(make_client(plain), plain)


def test_a_certificate_from_another_ca_is_refused_with_a_clear_error(secure_node, tmp_path: Path):
    from nomos.opensearch.node_certs import ensure_certs

    other = ensure_certs(tmp_path / "other", tmp_path / "other-ca-key", log=lambda m: None)
    settings = settings_for(secure_node, INDEXER_USER, NOMOS_OPENSEARCH_CA=str(other.ca))
    with pytest.raises(AccessDenied, match="could not be verified") as err:
        cluster_version(make_client(settings), settings)
    assert "NOMOS_OPENSEARCH_CA" in str(err.value)


def test_wrong_password_is_a_clear_error(secure_node, tmp_path: Path):
    wrong = tmp_path / "pw"
    wrong.write_text("not-the-password\n", encoding="utf-8")
    settings = settings_for(secure_node, PORTAL_USER, NOMOS_OPENSEARCH_PASSWORD_FILE=str(wrong))
    with pytest.raises(AccessDenied) as err:
        cluster_version(make_client(settings), settings)
    assert err.value.status == 401 and "nomos_portal" in str(err.value)
    with pytest.raises(AccessDenied, match="401"):  # searches (the transport) say the same
        make_transport(settings).search(SECURE_ALIAS, {"query": {"match_all": {}}})
    res = CliRunner().invoke(cli, ["search", "κλοπή"], env=env_for(secure_node, PORTAL_USER,
                                                                     NOMOS_OPENSEARCH_PASSWORD_FILE=str(wrong)))
    assert res.exit_code == 1 and "401" in res.output and "Traceback" not in res.output, res.output


@pytest.mark.parametrize("indexer_too", [False, True], ids=["portal-user-only", "indexer-user-too"])
def test_the_portals_401_names_the_portals_account(secure_node, indexed, tmp_path: Path, caplog, indexer_too: bool):
    """Issue 47: with the portal's account set (its password wrong), the portal's 401 named no user ("no
    NOMOS_OPENSEARCH_USER"), or, with the indexer's set too as the README shows, the indexer: the wrong account."""
    import logging

    from fastapi.testclient import TestClient

    from nomos.portal import create_app

    wrong = tmp_path / "pw"
    wrong.write_text("not-the-password\n", encoding="utf-8")
    env = {"OPENSEARCH_URL": secure_node.url, "NOMOS_INDEX": SECURE_ALIAS, "NOMOS_RETRY_SECONDS": "0",
           "NOMOS_OPENSEARCH_CA": str(cert_files(secure_node).ca), "NOMOS_PORTAL_OPENSEARCH_USER": PORTAL_USER,
           "NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE": str(wrong), "NOMOS_ALLOWED_HOSTS": "testserver"}
    if indexer_too:
        env.update(NOMOS_OPENSEARCH_USER=INDEXER_USER,
                   NOMOS_OPENSEARCH_PASSWORD_FILE=str(password_file(secure_node, INDEXER_USER)))
    with TestClient(create_app(Settings.from_env(env)), raise_server_exceptions=False) as web, \
            caplog.at_level(logging.INFO, logger="nomos.portal"):
        answer = web.get("/api/search", params={"q": "κλοπή"})
    assert answer.status_code == 503, answer.text
    logged = " ".join(r.getMessage() for r in caplog.records if "AccessDenied" in r.getMessage())
    assert f"credentials of user '{PORTAL_USER}' (401)" in logged, caplog.text
    assert INDEXER_USER not in logged and "no NOMOS_OPENSEARCH_USER" not in logged
    assert "NOMOS_PORTAL_OPENSEARCH_PASSWORD(_FILE)" in logged


def test_the_indexer_indexes_and_the_portal_reads_and_writes_judgments(secure_node, indexed):
    indexer = make_client(settings_for(secure_node, INDEXER_USER))
    assert indexer.count(index=SECURE_ALIAS)["count"] == 6
    # the portal's identity comes from the NOMOS_PORTAL_* variables, over the indexer's (Settings.for_portal)
    both = settings_for(secure_node, INDEXER_USER, NOMOS_PORTAL_OPENSEARCH_USER=PORTAL_USER,
                        NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE=str(password_file(secure_node, PORTAL_USER)))
    portal_settings = both.for_portal()
    assert portal_settings.opensearch_user == PORTAL_USER
    portal = make_client(portal_settings)
    hits = make_transport(portal_settings, portal).search(SECURE_ALIAS, {"query": {"match": {"text": "κινητό πράγμα"}}})
    assert hits["hits"]["hits"], hits
    judgment, created = put_judgment(portal, SECURE_ALIAS, query="κλοπή ρολογιού", article_id="PK::372", grade=2,
                                     user="tester")
    assert created and judgment.grade == 2
    assert [j.article_id for j in list_judgments(portal, SECURE_ALIAS, query="κλοπή ρολογιού")] == ["PK::372"]


def test_the_portal_user_cannot_write_or_delete_an_article_index(secure_node, indexed, tmp_path: Path):
    portal_settings = settings_for(secure_node, PORTAL_USER)
    portal = make_client(portal_settings)
    index = next(iter(portal.indices.get_alias(index=SECURE_ALIAS)))
    with pytest.raises(AuthorizationException):
        portal.index(index=index, id="PK::999", body={"text": "planted"})
    with pytest.raises(AuthorizationException):
        portal.indices.delete(index=index)
    with pytest.raises(AuthorizationException):
        portal.indices.create(index=f"{SECURE_ALIAS}-planted")
    # through the command line, the refusal is nomos's error with the status and the user, not a traceback
    planted = [{**a, "text": a["text"] + " planted"} for a in ARTICLES]  # another corpus: a new index to create
    folder = write_beir(tmp_path / "other", articles=planted)
    res = CliRunner().invoke(cli, ["index", "--no-vectors", "--dataset", str(folder)],
                             env=env_for(secure_node, PORTAL_USER))
    assert res.exit_code == 1, res.output
    assert "403" in res.output and "nomos_portal" in res.output and "Traceback" not in res.output, res.output
    indexer = make_client(settings_for(secure_node, INDEXER_USER))
    assert indexer.count(index=SECURE_ALIAS)["count"] == 6  # nothing the portal tried reached the articles
    assert indexer.indices.exists(index=index)


def test_the_portal_runs_on_its_own_identity(secure_node, indexed):
    """The whole portal (search page and API, article page, health, judgments) works with nomos_portal's rights:
    its role is enough for every request a page sends, and the app's client is the portal's, not the indexer's."""
    from fastapi.testclient import TestClient

    from nomos.portal.app import create_app

    settings = settings_for(secure_node, INDEXER_USER, NOMOS_PORTAL_OPENSEARCH_USER=PORTAL_USER,
                            NOMOS_PORTAL_OPENSEARCH_PASSWORD_FILE=str(password_file(secure_node, PORTAL_USER)),
                            NOMOS_ALLOWED_HOSTS="testserver")  # TestClient's Host (the portal's allow-list, h26b)
    with TestClient(create_app(settings)) as web:
        conn = web.app.state.portal.client.transport.connection_pool.connections[0]
        basic = base64.b64decode(conn.headers["authorization"].removeprefix("Basic ")).decode()
        assert basic.split(":", 1)[0] == PORTAL_USER
        for path in ("/api/health", "/api/search?q=κλοπή+κινητού", "/search?q=κλοπή", "/articles/PK::372",
                     "/api/articles/PK::372"):
            res = web.get(path)
            assert res.status_code == 200, (path, res.status_code, res.text[:300])
        assert web.get("/api/search?q=κλοπή+κινητού").json()["hits"][0]["id"] == "PK::372"
        res = web.post("/api/judgments", json={"query": "κλοπή", "article_id": "PK::375", "grade": 1, "user": "maria"})
        assert res.status_code in (200, 201), res.text
